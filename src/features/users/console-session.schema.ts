import { z } from "zod";
import { ROLES } from "../../db/schema";
import { answers, named, type RouteDoc } from "../../http/route-docs";

/** The console's sign-in (decisions.md 15 "The organiser console"): a username (or email) and an application password. */
export const signInBody = z.strictObject({
  username: z.string().min(1, "is required").max(200, "must be at most 200 characters"),
  password: z.string().min(1, "is required").max(200, "must be at most 200 characters"),
});

const sessionView = named(
  "ConsoleSession",
  z.object({
    csrf_token: z.string().describe("Send it as `X-Ticketing-CSRF` with every `/admin` call the session makes."),
    user: z.object({ id: z.number().int(), username: z.string(), name: z.string(), role: z.enum(ROLES) }),
  }),
);

export const consoleSessionApi = {
  signIn: {
    operationId: "signInToConsole",
    summary: "Sign in to the console",
    description:
      "No API key: the application password is the credential, and the failed-login limits apply. Sets the session cookie " +
      "`__Host-ticketing-session` (`HttpOnly; Secure; SameSite=Strict; Path=/`; `ticketing-session` without `Secure` on " +
      "`http://127.0.0.1` and `http://localhost`). With that cookie and `X-Ticketing-CSRF`, `/admin` routes act as the " +
      "user with Basic credentials and the API key; the session ends after 12 hours without use, when signed out, and " +
      "when the user or the application password is revoked.",
    success: answers.created(sessionView, "Signed in: the CSRF token and who signed in; `Location` is this route."),
    errors: {
      "401": "`incorrect_password`: an unknown user or a wrong application password (counted in the failed-login limits).",
      "429": "`rest_too_many_requests` with `Retry-After`: too many failed logins from this address, or for this username from it.",
    },
  },
  signOut: {
    operationId: "signOutOfConsole",
    summary: "Sign out of the console",
    description:
      "Ends the session the cookie names (its row is deleted, so every copy of the cookie stops working) and clears the " +
      "cookie. Needs the session's `X-Ticketing-CSRF` like every call the session makes.",
    success: answers.ok(z.object({ deleted: z.literal(true) }), "`deleted`: the session is over."),
    errors: {
      "401": "`rest_not_logged_in`: no session cookie, or one that names no live session (already signed out, idle for 12 hours, or revoked).",
      "403": "`rest_forbidden`: the cookie names a live session but `X-Ticketing-CSRF` is missing or not its token.",
    },
  },
} satisfies Record<string, RouteDoc>;

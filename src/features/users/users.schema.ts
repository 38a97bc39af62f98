import { z } from "zod";
import { ROLES } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { hasControlCharacter, INVALID_NAME } from "../../lib/control-characters";
import { formatDateTime } from "../../lib/time";
import type { NewUser, UserChanges } from "./users.service";
import { emailAddress, eventIdList } from "../../http/field-types";
import type { ApplicationPasswordRow, UserRow } from "../../db/rows";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { dateTimeView, deletedView, linksView } from "../../http/view-types";

const username = z
  .string()
  .trim()
  .min(1, "is required")
  .max(60, "must be at most 60 characters")
  .regex(/^[A-Za-z0-9._@+-]+$/, "may contain only letters, digits and . _ @ + -");

const displayName = z
  .string()
  .trim()
  .max(100, "must be at most 100 characters")
  .refine((s) => !hasControlCharacter(s), INVALID_NAME);

/** Fields a client reads but never sets; `username` is chosen once, at creation. */
export const USER_CREATE_READ_ONLY = ["id", "created"] as const;
export const USER_UPDATE_READ_ONLY = ["id", "username", "created"] as const;

export const createUserBody = z.strictObject({
  username,
  email: emailAddress,
  role: z.enum(ROLES),
  name: displayName.default(""),
  authorised_events: eventIdList.default([]),
});

export const updateUserBody = z
  .strictObject({
    email: emailAddress,
    name: displayName,
    role: z.enum(ROLES),
    authorised_events: eventIdList,
  })
  .partial();

export const applicationPasswordBody = z.strictObject({
  name: z.string().trim().max(100, "must be at most 100 characters").default(""),
});

export function toNewUser(body: z.output<typeof createUserBody>): NewUser {
  return { username: body.username, email: body.email, name: body.name, role: body.role, authorisedEvents: body.authorised_events };
}

export function toUserChanges(body: z.output<typeof updateUserBody>): UserChanges {
  const changes: UserChanges = {};
  if (body.email !== undefined) changes.email = body.email;
  if (body.name !== undefined) changes.name = body.name;
  if (body.role !== undefined) changes.role = body.role;
  if (body.authorised_events !== undefined) changes.authorisedEvents = body.authorised_events;
  return changes;
}

/** A user as the API shows it (decisions.md 2, 13). */
const userView = named(
  "User",
  z.object({
    id: z.number().int(),
    username: z.string(),
    email: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    authorised_events: z.array(z.number().int()).describe("The events an organizer may manage; ignored for administrators."),
    created: dateTimeView,
    _links: linksView,
  }),
);

/** An application password as its list shows it: never the password. */
const applicationPasswordView = named(
  "ApplicationPassword",
  z.object({ uuid: z.string(), name: z.string(), created_at: dateTimeView, last_used_at: dateTimeView.nullable().describe("null: never used.") }),
);

const newPassword = z.string().describe("The application password, shown this once; the service keeps only its hash.");

/** The routes of `/admin/users` (decisions.md 2, 12, 13, 14). */
export const usersApi = {
  list: { operationId: "listUsers", summary: "List users", description: "Every user, on one page. Administrators only.", success: answers.collection(userView) },
  create: {
    operationId: "createUser",
    summary: "Create a user",
    description: "Administrators only. The answer carries the user's first application password, shown this once.",
    success: answers.created(userView.extend({ application_password: newPassword })),
    errors: { "409": "`rest_conflict`: the username or email is taken." },
  },
  get: { operationId: "getUser", summary: "Get a user", description: "Administrators only. `_fields` narrows the answer.", success: answers.ok(userView) },
  update: {
    operationId: "updateUser",
    summary: "Change a user",
    description: "Administrators only. `username` is chosen once; `id`, `username` and `created` may be sent back unchanged.",
    success: answers.ok(userView),
    errors: { "409": "`rest_conflict`: the email is taken, or the change would leave no administrator." },
  },
  delete: {
    operationId: "deleteUser",
    summary: "Delete a user",
    description: "Administrators only; the user's application passwords stop working at once.",
    success: answers.ok(deletedView(userView.omit({ _links: true })), "`deleted` and the user as it was, without `_links`."),
    errors: { "409": "`rest_conflict`: the last administrator cannot be deleted." },
  },
  addPassword: {
    operationId: "createApplicationPassword",
    summary: "Add an application password",
    description: "Administrators only. A new password for the user, shown this once; `Location` is the user.",
    success: answers.created(z.object({ application_password: newPassword, uuid: z.string() })),
  },
  listPasswords: {
    operationId: "listApplicationPasswords",
    summary: "List a user's application passwords",
    description: "An organizer may list its own; administrators anyone's. Never the passwords themselves.",
    success: answers.collection(applicationPasswordView),
  },
  revokePassword: {
    operationId: "deleteApplicationPassword",
    summary: "Revoke an application password",
    description: "An organizer may revoke its own; administrators anyone's. The next call with it is refused.",
    success: answers.ok(deletedView(applicationPasswordView), "`deleted` and the password's entry as it was."),
  },
} satisfies Record<string, RouteDoc>;

/** A user as the API shows it; never any password. */
export function presentUser(c: LinkBase, user: UserRow, timezone: string) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    name: user.name,
    role: user.role,
    authorised_events: user.authorisedEvents,
    created: formatDateTime(user.createdAt, timezone),
    _links: selfAndCollection(c, `/admin/users/${user.id}`, "/admin/users"),
  } satisfies z.infer<typeof userView>;
}

/** An application password as its list shows it (decisions.md 14): never the password or its hash. */
export function presentApplicationPassword(p: ApplicationPasswordRow, timezone: string) {
  return {
    uuid: p.uuid,
    name: p.name,
    created_at: formatDateTime(p.createdAt, timezone),
    last_used_at: p.lastUsedAt === null ? null : formatDateTime(p.lastUsedAt, timezone),
  } satisfies z.infer<typeof applicationPasswordView>;
}

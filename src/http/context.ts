import type { Context } from "hono";
import type { Env } from "../env";
import type { AuthUser } from "../domain/authority";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    user: AuthUser;
    /** Set when a console session (cookie plus CSRF header) stands for Basic credentials and the API key (decisions.md 15). */
    consoleSession: true;
    /** Which key a shop-front call carried: the service's API key, or the publishable ordering key. */
    shopKey: "api" | "ordering";
    /** A hash of the request's `Idempotency-Key` and its scope, set while the key is claimed (http/idempotency.ts). */
    idempotencyRef: string;
  };
};

export type AppContext = Context<AppEnv>;

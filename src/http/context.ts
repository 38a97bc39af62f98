import type { Context } from "hono";
import type { Env } from "../env";
import type { AuthUser } from "../services/authority";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    user: AuthUser;
  };
};

export type AppContext = Context<AppEnv>;

export const API_BASE = "/ticketing/v1";

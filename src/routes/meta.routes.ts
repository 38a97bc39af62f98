import { Hono } from "hono";
import pkg from "../../package.json";
import type { AppEnv } from "../http/context";

/** Routes a load balancer or a person opens: no key, no D1. */
export const metaRoutes = new Hono<AppEnv>()
  .get("/", (c) => c.json({ name: pkg.name, version: pkg.version }))
  .get("/health", (c) => c.json({ status: "ok" }));

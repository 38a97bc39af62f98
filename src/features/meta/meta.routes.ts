import { Hono } from "hono";
import pkg from "../../../package.json";
import { configurationProblems } from "../../config";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { metaApi } from "./meta.schema";

/** Routes a load balancer or a person opens: no key, no D1. `/health` is the readiness check of the settings. */
export const metaRoutes = new Hono<AppEnv>()
  .get("/", describeRoute(metaApi.root), (c) => c.json({ name: pkg.name, version: pkg.version }))
  // A smoke check after a deploy must fail on a broken configuration, which no other call would show before use.
  .get("/health", describeRoute(metaApi.health), (c) => {
    const settings = configurationProblems(c.env);
    return settings.length === 0 ? c.json({ status: "ok" }) : c.json({ status: "misconfigured", settings }, 503);
  });

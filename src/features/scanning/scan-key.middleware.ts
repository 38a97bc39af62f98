import type { MiddlewareHandler } from "hono";
import { SCAN_KEY_PATTERN } from "../catalogue/scan-keys.schema";
import { findScanKeyTarget, type ScanKeyTarget } from "../catalogue/event-config.service";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { documented } from "../../http/route-docs";
import { invalidApiKey } from "../../domain/errors";

export type ScanKeyEnv = AppEnv & { Variables: { scanKey: ScanKeyTarget & { key: string } } };

export const invalidScanKey = () => invalidApiKey("Invalid scan key");

/**
 * The public scan paths take a scan key in `X-EVT-API-KEY` (decisions.md 13): it names the event, level and
 * location. The key's event comes from a per-isolate cache (one D1 read on a miss); the event object checks the key
 * itself against its own copy of the event's keys, so a deleted key stops working there at once.
 */
export const requireScanKey: MiddlewareHandler<ScanKeyEnv> = documented(
  async (c, next) => {
    const key = c.req.header("X-EVT-API-KEY") ?? "";
    const target = SCAN_KEY_PATTERN.test(key) ? await findScanKeyTarget(depsOf(c), key) : null;
    if (!target) throw invalidScanKey();
    c.set("scanKey", { ...target, key });
    await next();
  },
  { errors: { "401": "`rest_forbidden_api_key` (`Invalid scan key`): `X-EVT-API-KEY` is not a scan key of any event (or the key was deleted)." } },
);

import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { describeRoute } from "../../http/route-docs";
import { keyParam, pathParams } from "../../http/validate";
import { applePass } from "./apple-wallet.service";
import { ticketsApi } from "./personalisation.schema";

// Both parts name the ticket: whatever is wrong with either, the answer is the ticket's 404 (decisions.md 15).
const params = pathParams({ uid: keyParam("ticket"), ticket_id: keyParam("ticket") });

/** `GET /tickets/<uid>/<ticket_id>/wallet.pkpass` (decisions.md 15 "Wallet passes"); no key, the uid is the capability. */
export const appleWalletRoutes = new Hono<AppEnv>().get("/:uid/:ticket_id/wallet.pkpass", describeRoute(ticketsApi.applePass), params, async (c) => {
  const { uid, ticket_id } = c.req.valid("param");
  const pass = await applePass(depsOf(c), uid, ticket_id);
  return c.body(pass, 200, {
    "Content-Type": "application/vnd.apple.pkpass",
    "Content-Disposition": `attachment; filename="${ticket_id}.pkpass"`,
    "Cache-Control": "private, no-store",
  });
});

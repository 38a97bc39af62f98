import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { describeRoute } from "../../http/route-docs";
import { keyParam, pathParams } from "../../http/validate";
import { ticketsApi } from "./personalisation.schema";
import { googleWalletLink } from "./google-wallet.service";

// Both parts name the ticket: an unknown order is an unknown ticket here (decisions.md 15 "Wallet passes").
const params = pathParams({ uid: keyParam("ticket"), ticket_id: keyParam("ticket") });

/** `GET /tickets/<uid>/<ticket_id>/wallet/google` (decisions.md 15 "Wallet passes"): no key, the uid is the capability. */
export const googleWalletRoutes = new Hono<AppEnv>().get("/:uid/:ticket_id/wallet/google", describeRoute(ticketsApi.googleWallet), params, async (c) => {
  const { uid, ticket_id } = c.req.valid("param");
  const link = await googleWalletLink(depsOf(c), uid, ticket_id);
  // The link carries a signed pass: no shared cache keeps it.
  c.header("Cache-Control", "private, no-store");
  return c.redirect(link, 302);
});

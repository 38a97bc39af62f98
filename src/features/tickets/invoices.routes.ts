import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { ticketsApi } from "./personalisation.schema";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { keyParam, pathParams } from "../../http/validate";
import { invoicePdf } from "./invoices.service";

const params = pathParams({ uid: keyParam("order") });

/** `GET /invoices/<uid>` (decisions.md 7): the order's invoice as a PDF; no key, the uid is the capability. */
export const invoicesRoutes = new Hono<AppEnv>().get("/:uid", describeRoute(ticketsApi.invoice), params, async (c) => {
  const { bytes, order } = await invoicePdf(depsOf(c), c.req.valid("param").uid);
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `inline; filename="invoice-${order.id}.pdf"`,
    "Cache-Control": "private, no-store",
  });
});

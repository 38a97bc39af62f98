import { Hono } from "hono";
import type { AppEnv } from "../http/context";
import { depsOf } from "../http/deps";
import { keyParam, pathParams } from "../http/validate";
import { orderByUid } from "../services/personalisation.service";
import { ticketPdf } from "../services/ticket-pdfs.service";

const params = pathParams({ uid: keyParam("order") });

/** `GET /tickets/<uid>` (decisions.md 7): the e-tickets as one PDF; no key, the uid is the capability. */
export const ticketDownloadsRoutes = new Hono<AppEnv>().get("/:uid", params, async (c) => {
  const deps = depsOf(c);
  const order = await orderByUid(deps, c.req.valid("param").uid);
  const pdf = await ticketPdf(deps, order);
  return c.body(pdf.body as ReadableStream | Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `inline; filename="tickets-${order.id}.pdf"`,
    "Cache-Control": "private, no-store",
  });
});

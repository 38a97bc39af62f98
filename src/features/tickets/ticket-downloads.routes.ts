import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { ticketsApi } from "./personalisation.schema";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { keyParam, pathParams } from "../../http/validate";
import { ticketPdf } from "./ticket-pdfs.service";

const params = pathParams({ uid: keyParam("order") });

/** `GET /tickets/<uid>` (decisions.md 7): the e-tickets as one PDF; no key, the uid is the capability. */
export const ticketDownloadsRoutes = new Hono<AppEnv>().get("/:uid", describeRoute(ticketsApi.download), params, async (c) => {
  const pdf = await ticketPdf(depsOf(c), c.req.valid("param").uid);
  return c.body(pdf.body as ReadableStream | Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": pdf.contentDisposition,
    "Cache-Control": "private, no-store",
  });
});

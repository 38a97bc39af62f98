import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { ticketsApi, type ticketsRenderingView } from "./personalisation.schema";
import { describeRoute } from "../../http/route-docs";
import { depsOf } from "../../http/deps";
import { keyParam, pathParams } from "../../http/validate";
import { ticketPdf } from "./ticket-pdfs.service";
import type { z } from "zod";

const params = pathParams({ uid: keyParam("order") });

/**
 * `GET /tickets/<uid>` (decisions.md 7, 15): the e-tickets as one PDF; no key, the uid is the capability. A large order
 * still rendering in parts answers `202` with `Retry-After` and its progress.
 */
export const ticketDownloadsRoutes = new Hono<AppEnv>().get("/:uid", describeRoute(ticketsApi.download), params, async (c) => {
  const pdf = await ticketPdf(depsOf(c), c.req.valid("param").uid);
  if (pdf.kind === "rendering") {
    const body: z.infer<typeof ticketsRenderingView> = { status: "rendering", ready: pdf.ready, parts: pdf.parts };
    return c.json(body, 202, { "Retry-After": String(pdf.retryAfter), "Cache-Control": "no-store" });
  }
  return c.body(pdf.body as ReadableStream | Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": pdf.contentDisposition,
    "Cache-Control": "private, no-store",
  });
});

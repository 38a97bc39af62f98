import { z } from "zod";
import { SCAN_LEVELS } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { formatNameList } from "../../domain/catalogue-names";
import { phpDateFormat } from "../../http/field-types";
import type { ScanKeyRow } from "../../db/rows";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { deletedView, linksView } from "../../http/view-types";

export const SCAN_KEY_PATTERN = /^[A-Za-z0-9]{16}$/;

const scanKeyFields = {
  key: z.string().regex(SCAN_KEY_PATTERN, "must be 16 letters and digits"),
  level: z.union(SCAN_LEVELS.map((l) => z.literal(l)) as [z.ZodLiteral<0>, ...z.ZodLiteral<number>[]], `must be one of ${SCAN_LEVELS.join(", ")}`),
  tickets: z.string().max(2000, "must be at most 2000 characters"),
  date_format: phpDateFormat,
  location: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
};

export const SCAN_KEY_CREATE_READ_ONLY = [] as const;
export const SCAN_KEY_UPDATE_READ_ONLY = ["key"] as const;

export const createScanKeyBody = z.strictObject(scanKeyFields).partial().required({ location: true });
export const updateScanKeyBody = z.strictObject(scanKeyFields).omit({ key: true }).partial();
export type ScanKeyCreateInput = z.output<typeof createScanKeyBody>;
export type ScanKeyUpdateInput = z.output<typeof updateScanKeyBody>;

/** `GET .../scan-keys/<key>/qr` (docs/scanning.md "A scan key's QR code for the door app"): the image's format. */
export const scanKeyQrQuery = z.object({
  format: z.enum(["png", "svg"], "must be png or svg").default("png").describe("`png` (the default) or `svg`."),
});
export type ScanKeyQrFormat = z.output<typeof scanKeyQrQuery>["format"];

/** A scan key as the API shows it (decisions.md 6). */
export const scanKeyView = named(
  "ScanKey",
  z.object({
    key: z.string().describe("16 letters and digits: what a scanner sends in `X-EVT-API-KEY`."),
    level: z
      .number()
      .int()
      .describe(`One of ${SCAN_LEVELS.join(", ")} (decisions.md 6).`),
    tickets: z.string().describe("Ticket type names it admits, comma-separated; empty: all."),
    date_format: z.string(),
    location: z.string(),
    _links: linksView,
  }),
);

/** The routes of `/admin/events/<event_id>/scan-keys` (decisions.md 6). */
export const scanKeysApi = {
  list: {
    operationId: "listScanKeys",
    summary: "List an event's scan keys",
    description: "Every scan key of the event, on one page.",
    success: answers.collection(scanKeyView),
  },
  create: {
    operationId: "createScanKey",
    summary: "Create a scan key",
    description: "Only `location` is required; the service makes the `key` unless one is sent. One key per location.",
    success: answers.created(scanKeyView),
    errors: { "409": "`rest_conflict`: the key is taken, or the event already has a key for this location." },
  },
  get: { operationId: "getScanKey", summary: "Get a scan key", description: "`_fields` narrows the answer.", success: answers.ok(scanKeyView) },
  update: {
    operationId: "updateScanKey",
    summary: "Change a scan key",
    description: "Changes the fields sent; `key` may be sent back unchanged. Scanners see the change at once.",
    success: answers.ok(scanKeyView),
    errors: { "409": "`rest_conflict`: the event already has a key for this location." },
  },
  qr: {
    operationId: "getScanKeyQrCode",
    summary: "Get a scan key's QR code for the door app",
    description: [
      "A QR code of `<origin>/ticketing/v1/door/#key=<key>` (the origin of this request; the app's folder, within its service worker's scope): a phone's camera pointed at the printed code opens the door app with the key set. The key is in the address's fragment, which browsers never send, so no server or log on the way sees it.",
      "`format=png` (the default; 8-bit grayscale, 8 pixels a module) or `format=svg` (one path of the dark modules, the `viewBox` in modules). Error correction M, a quiet zone of 4 modules. The image carries the key: `Cache-Control: no-store`. Named `scan-key-<location>.<format>` (the location in letters, digits, `.`, `_`, `-`).",
    ].join("\n\n"),
    success: answers.image(["image/png", "image/svg+xml"], "The QR code, PNG or SVG."),
  },
  delete: {
    operationId: "deleteScanKey",
    summary: "Delete a scan key",
    description: "The key stops admitting at once.",
    success: answers.ok(deletedView(scanKeyView.omit({ _links: true })), "`deleted` and the scan key as it was, without `_links`."),
  },
} satisfies Record<string, RouteDoc>;

export function presentScanKey(c: LinkBase, k: ScanKeyRow) {
  return {
    key: k.key,
    level: k.level,
    tickets: formatNameList(k.tickets),
    date_format: k.dateFormat,
    location: k.location,
    _links: selfAndCollection(c, `/admin/events/${k.eventId}/scan-keys/${k.key}`, `/admin/events/${k.eventId}/scan-keys`),
  } satisfies z.infer<typeof scanKeyView>;
}

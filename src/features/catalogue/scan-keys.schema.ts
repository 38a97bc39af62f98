import { z } from "zod";
import { SCAN_LEVELS } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { formatNameList } from "../../domain/catalogue-names";
import { phpDateFormat } from "../../http/field-types";
import type { ScanKeyRow } from "../../db/rows";

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

export function presentScanKey(c: LinkBase, k: ScanKeyRow) {
  return {
    key: k.key,
    level: k.level,
    tickets: formatNameList(k.tickets),
    date_format: k.dateFormat,
    location: k.location,
    _links: selfAndCollection(c, `/admin/events/${k.eventId}/scan-keys/${k.key}`, `/admin/events/${k.eventId}/scan-keys`),
  };
}

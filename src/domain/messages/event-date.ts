import { formatPhpDate } from "../../lib/php-date";
import { wallClockAt } from "../../lib/time";
import type { Lang } from "./index";

/**
 * An event's date as a page shows it (decisions.md 15 "Languages": dates follow the event's `event_date_format`):
 * the instant in the event's time zone, written with its PHP date pattern, day and month names in the page's
 * language. English is exactly what the PDFs and emails write.
 */
export function formatEventDate(epochSeconds: number, format: string, timeZone: string, lang: Lang): string {
  return formatPhpDate(wallClockAt(epochSeconds * 1000, timeZone), format, lang);
}

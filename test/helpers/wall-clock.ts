/**
 * `YYYY-MM-DD HH:MM:SS` of an instant in a time zone, computed with Intl alone (independently of src/lib/time.ts,
 * so tests check the service against something it does not share). The tests' service zone is Europe/Amsterdam.
 */
export function wallClockAt(epochMs: number, timeZone = "Europe/Amsterdam"): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(epochMs));
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

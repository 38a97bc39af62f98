/**
 * Where an event's object is created (docs/scale.md "Near the venue"): Cloudflare's Durable Object location hints. An
 * object is created near the first request that reaches it unless a hint says otherwise, and never moves; an event's
 * scans and orders are decided there. The hint follows the event's time zone when the organiser names none, since the
 * doors are where the event's clock is.
 */
export const REGIONS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
export type Region = (typeof REGIONS)[number];

/** North America from Mountain time westwards (and Alaska, Hawaii): wnam; the rest of the Americas' north, Caribbean included: enam. */
// biome-ignore format: a table, kept packed by hand
const WESTERN_NORTH_AMERICA = new Set([
  "America/Los_Angeles", "America/Vancouver", "America/Tijuana", "America/Denver", "America/Phoenix",
  "America/Boise", "America/Edmonton", "America/Calgary", "America/Yellowknife", "America/Whitehorse",
  "America/Dawson", "America/Hermosillo", "America/Mazatlan", "America/Chihuahua", "America/Ciudad_Juarez",
  "America/Anchorage", "America/Juneau", "America/Sitka", "America/Nome", "America/Yakutat", "America/Metlakatla",
  "America/Adak", "Pacific/Honolulu", "US/Pacific", "US/Mountain", "US/Arizona", "US/Alaska", "US/Hawaii",
  "Canada/Pacific", "Canada/Mountain",
]);

// biome-ignore format: a table, kept packed by hand
const SOUTH_AMERICA = new Set([
  "America/Sao_Paulo", "America/Argentina/Buenos_Aires", "America/Buenos_Aires", "America/Santiago",
  "America/Bogota", "America/Lima", "America/Caracas", "America/Montevideo", "America/Asuncion", "America/La_Paz",
  "America/Guayaquil", "America/Cayenne", "America/Paramaribo", "America/Guyana", "America/Fortaleza",
  "America/Recife", "America/Bahia", "America/Belem", "America/Manaus", "America/Cuiaba", "America/Campo_Grande",
  "America/Porto_Velho", "America/Boa_Vista", "America/Rio_Branco", "America/Maceio", "America/Araguaina",
  "America/Santarem", "America/Noronha", "America/Punta_Arenas", "Atlantic/Stanley",
]);

// biome-ignore format: a table, kept packed by hand
const EASTERN_EUROPE = new Set([
  "Europe/Warsaw", "Europe/Prague", "Europe/Budapest", "Europe/Bratislava", "Europe/Bucharest", "Europe/Sofia",
  "Europe/Athens", "Europe/Helsinki", "Europe/Tallinn", "Europe/Riga", "Europe/Vilnius", "Europe/Kiev",
  "Europe/Kyiv", "Europe/Chisinau", "Europe/Minsk", "Europe/Moscow", "Europe/Istanbul", "Europe/Belgrade",
  "Europe/Zagreb", "Europe/Ljubljana", "Europe/Sarajevo", "Europe/Skopje", "Europe/Podgorica", "Europe/Tirane",
  "Europe/Kaliningrad", "Europe/Samara", "Europe/Volgograd", "Europe/Kirov", "Europe/Ulyanovsk", "Europe/Saratov",
  "Europe/Astrakhan", "Europe/Simferopol", "Asia/Nicosia", "Europe/Nicosia",
]);

// biome-ignore format: a table, kept packed by hand
const MIDDLE_EAST = new Set([
  "Asia/Dubai", "Asia/Riyadh", "Asia/Qatar", "Asia/Bahrain", "Asia/Kuwait", "Asia/Muscat", "Asia/Tehran",
  "Asia/Baghdad", "Asia/Jerusalem", "Asia/Tel_Aviv", "Asia/Amman", "Asia/Beirut", "Asia/Damascus", "Asia/Aden",
  "Asia/Gaza", "Asia/Hebron",
]);

/** The hint for an IANA time zone, or null where the zone says nothing about a place (UTC, Etc/...). */
export function regionForTimeZone(timeZone: string): Region | null {
  if (WESTERN_NORTH_AMERICA.has(timeZone)) return "wnam";
  if (SOUTH_AMERICA.has(timeZone)) return "sam";
  if (EASTERN_EUROPE.has(timeZone)) return "eeur";
  if (MIDDLE_EAST.has(timeZone)) return "me";
  const area = timeZone.split("/")[0];
  switch (area) {
    case "America":
    case "US":
    case "Canada":
    case "Mexico":
      return "enam";
    case "Europe":
    case "Atlantic":
      return "weur";
    case "Africa":
      return "afr";
    case "Asia":
    case "Indian":
      return "apac";
    case "Australia":
    case "Pacific":
    case "Antarctica":
      return "oc";
    default:
      return null;
  }
}

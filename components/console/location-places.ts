/**
 * Countries, time zones and map tiles for the location pages (a plain module: no React, unit
 * tested in server/locations/location-places.test.ts). Names come from the browser's own Intl data.
 */

import { moment } from "./zoned-time";

/** ISO 3166-1 alpha-2: the 249 officially assigned codes. */
export const COUNTRY_CODES = (
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS " +
  "BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE " +
  "EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM " +
  "HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC " +
  "LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA " +
  "NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW " +
  "SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO " +
  "TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"
).split(" ");

/** A country's name in the reader's language ("United Kingdom" for GB); the code if Intl has none. */
export function countryName(code: string, locale?: string): string {
  try {
    return (
      new Intl.DisplayNames(locale ? [locale] : undefined, { type: "region" }).of(code) ?? code
    );
  } catch {
    return code;
  }
}

/** Every country as { code, name }, sorted by name. */
export function countryOptions(locale?: string): { code: string; name: string }[] {
  return COUNTRY_CODES.map((code) => ({ code, name: countryName(code, locale) })).sort((a, b) =>
    a.name.localeCompare(b.name, locale),
  );
}

/** Every IANA time zone the runtime knows, with UTC. */
export function allTimeZones(): string[] {
  const zones =
    typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return zones.includes("UTC") ? zones : [...zones, "UTC"];
}

type LocaleWithZones = Intl.Locale & { getTimeZones?: () => string[]; timeZones?: string[] };

/** The IANA time zones of a country (Intl.Locale's time zones of its region), [] when unknown. */
export function zonesOf(country: string): string[] {
  if (!/^[A-Z]{2}$/.test(country)) return [];
  try {
    const locale = new Intl.Locale(`und-${country}`) as LocaleWithZones;
    return locale.getTimeZones?.() ?? locale.timeZones ?? [];
  } catch {
    return [];
  }
}

/**
 * The time zone a country gives when it has exactly one (GB: Europe/London); otherwise keeps
 * `current` if it is one of the country's zones, else none ("" — the person picks).
 */
export function defaultZone(country: string, current: string): string {
  const zones = zonesOf(country);
  if (zones.length === 1) return zones[0]!;
  return zones.includes(current) ? current : "";
}

/** A date and time in a location's own zone, the zone named ("26 Nov 2026, 12:14:37 GMT (Europe/London)"). */
export function inZone(iso: string, timeZone: string, locale?: string): string {
  return `${moment(iso, timeZone, locale ?? "en-GB")} (${timeZone})`;
}

/**
 * The slippy-map tile (Web Mercator, as OpenStreetMap numbers them) holding a point at a zoom,
 * its URL from the template (`{z}`, `{x}`, `{y}`, optional `{s}` as "a"), and where in the tile
 * (0 to 1 across and down) the point falls, for a marker.
 */
export function tileAt(template: string, latitude: number, longitude: number, zoom = 15) {
  const n = 2 ** zoom;
  const lat = (Math.max(-85.0511, Math.min(85.0511, latitude)) * Math.PI) / 180;
  const fx = ((longitude + 180) / 360) * n;
  const fy = ((1 - Math.log(Math.tan(lat) + 1 / Math.cos(lat)) / Math.PI) / 2) * n;
  const x = Math.min(n - 1, Math.max(0, Math.floor(fx)));
  const y = Math.min(n - 1, Math.max(0, Math.floor(fy)));
  const url = template
    .replaceAll("{z}", String(zoom))
    .replaceAll("{x}", String(x))
    .replaceAll("{y}", String(y))
    .replaceAll("{s}", "a");
  return { x, y, zoom, url, left: fx - x, top: fy - y };
}

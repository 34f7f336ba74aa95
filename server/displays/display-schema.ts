import { z } from "zod";
import { resourceId } from "../lib/int4";

/** Spec section 8: a display URL is at most 500 characters. */
export const MAX_DISPLAY_URL_LENGTH = 500;

export const DELIVERY_STATES = ["pending", "applied", "unsupported"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const displayUrl = z
  .string()
  .max(MAX_DISPLAY_URL_LENGTH, `must be at most ${MAX_DISPLAY_URL_LENGTH} characters`)
  .refine((value) => {
    try {
      const u = new URL(value);
      return u.protocol === "https:" && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "must be an https URL (without credentials)");

export const setDisplayBody = z.strictObject({
  url: displayUrl,
  /** a tariff of the same tenant: the screen shows its price (its current version, kept current) */
  tariff_id: resourceId.nullable().optional(),
});
export type SetDisplayInput = z.infer<typeof setDisplayBody>;

const errorSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()),
});

export const displaySchema = z.object({
  id: z.string(),
  station_id: z.number().int(),
  evse_number: z.number().int(),
  url: z.string(),
  tariff_id: z.number().int().nullable(),
  /** the QR as the PNG a 2.0.1 screen loads: public, immutable */
  image_url: z.string(),
  /** true once deleted; kept while the screen may still show its QR (`delivery.shown`) */
  deleted: z.boolean(),
  delivery: z.object({
    state: z.enum(DELIVERY_STATES),
    /** whether the charger is taken to show this display's QR now */
    shown: z.boolean(),
    /** the last push's refusal (a rejected push, an offline charger); null once one succeeds */
    error: errorSchema.nullable(),
  }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DisplayResource = z.infer<typeof displaySchema>;

export const stationDisplaySchema = z.object({
  /** the registry entry driving this charger's screens (server/displays/adapters.ts), or null */
  adapter: z.string().nullable(),
  /** why no adapter does (`ocpp1.6_has_no_display_messages`, …), or null */
  reason: z.string().nullable(),
  /** false: a deleted display's QR stays on the screen (until reboot or overwrite) */
  clear: z.boolean().nullable(),
  evses: z.array(displaySchema),
});
export type StationDisplay = z.infer<typeof stationDisplaySchema>;

import { z } from "zod";

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return value.includes("/") || value === "UTC";
  } catch {
    return false;
  }
}

export const externalReference = z.string().min(1).max(128);

export const addressSchema = z.strictObject({
  street: z.string().trim().min(1).max(200),
  city: z.string().trim().min(1).max(100),
  postal_code: z.string().trim().min(1).max(20).optional(),
  state: z.string().trim().min(1).max(100).optional(),
  /** ISO 3166-1 alpha-2 */
  country: z.string().regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code such as US"),
});

export const coordinatesSchema = z.strictObject({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
});

export const createLocationBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  address: addressSchema,
  coordinates: coordinatesSchema,
  time_zone: z.string().refine(isTimeZone, "must be an IANA time zone such as America/New_York"),
  external_reference: externalReference.optional(),
});
export type CreateLocationInput = z.infer<typeof createLocationBody>;

/** PATCH: the fields given replace the current ones (an address is replaced whole); `external_reference: null` removes it. */
export const updateLocationBody = z
  .strictObject({
    name: createLocationBody.shape.name.optional(),
    address: addressSchema.optional(),
    coordinates: coordinatesSchema.optional(),
    time_zone: createLocationBody.shape.time_zone.optional(),
    external_reference: externalReference.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "give at least one field to change");
export type UpdateLocationInput = z.infer<typeof updateLocationBody>;

export const locationSchema = z.object({
  id: z.number().int(),
  tenant_id: z.number().int(),
  name: z.string(),
  address: addressSchema,
  coordinates: coordinatesSchema,
  time_zone: z.string(),
  external_reference: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type LocationResource = z.infer<typeof locationSchema>;

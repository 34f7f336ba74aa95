/** Dated versions of the /v1 contract, newest first (spec section 9). At most two are supported. */
export const API_VERSIONS = ["2026-10-15", "2026-10-14"] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const LATEST_VERSION: ApiVersion = API_VERSIONS[0];

export const VERSION_STATUS: Record<
  ApiVersion,
  { status: "current" | "supported"; sunset: string | null }
> = {
  "2026-10-15": { status: "current", sunset: null },
  "2026-10-14": { status: "supported", sunset: null },
};

export function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}

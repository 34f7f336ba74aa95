import { ApiError } from "../errors";

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

/** The version a request asked for in `Service-Version`, or undefined when it asked for none. */
export function requestedVersion(header: string | null): ApiVersion | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (!isApiVersion(value)) {
    throw new ApiError(
      "invalid_api_version",
      `Service-Version "${value.slice(0, 40)}" is not supported.`,
      { supported_versions: [...API_VERSIONS] },
    );
  }
  return value;
}

/** A deprecation announced for a route or field: RFC 9745 `Deprecation`, RFC 8594 `Sunset`, `Link`. */
export type Deprecation = {
  /** when it was announced */
  announcedAt: Date;
  sunset?: Date;
  /** changelog explaining the replacement */
  link: string;
};

export function deprecationHeaders(d: Deprecation): Record<string, string> {
  const headers: Record<string, string> = {
    Deprecation: `@${Math.floor(d.announcedAt.getTime() / 1000)}`,
    Link: `<${d.link}>; rel="deprecation"; type="text/html"`,
  };
  if (d.sunset) headers.Sunset = d.sunset.toUTCString();
  return headers;
}

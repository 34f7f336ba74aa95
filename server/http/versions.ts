import { DomainError } from "../errors";
import { API_VERSIONS, isApiVersion, type ApiVersion } from "../versions";

/** The version a request asked for in `Service-Version`, or undefined when it asked for none. */
export function requestedVersion(header: string | null): ApiVersion | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (!isApiVersion(value)) {
    throw new DomainError(
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

import crypto from "node:crypto";
import { DomainError } from "../errors";
import { ERROR_STATUS, errorBody } from "./errors";
import { LATEST_VERSION } from "../versions";

/** The one answer for a /v1 path that names no route, from the router and from `proxy.ts` alike. */
export const routeNotFound = (pathname: string) =>
  new DomainError("route_not_found", `No route ${pathname.slice(0, 200)}.`, {
    path: pathname.slice(0, 200),
  });

/** Whether some segment of a raw (still percent-encoded) path is not percent-encoded UTF-8. */
export function hasUndecodableSegment(rawPath: string): boolean {
  return rawPath.split("/").some((segment) => {
    try {
      decodeURIComponent(segment);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * The router's answer to a path with a segment that is not percent-encoded UTF-8 (404
 * `route_not_found`), for `proxy.ts` to give before Next.js fails to decode it; undefined for any
 * other path.
 */
export function undecodablePathResponse(method: string, rawPath: string): Response | undefined {
  if (!hasUndecodableSegment(rawPath)) return undefined;
  const error = routeNotFound(rawPath);
  return new Response(method === "HEAD" ? null : JSON.stringify(errorBody(error)), {
    status: ERROR_STATUS[error.code],
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "Request-Id": `req_${crypto.randomBytes(8).toString("hex")}`,
      "Service-Version": LATEST_VERSION,
    },
  });
}

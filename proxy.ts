import type { NextRequest } from "next/server";
import { undecodablePathResponse } from "@/server/http/raw-path";

/**
 * Runs before Next.js routes a request, only for /v1 paths holding a percent sign: Next.js decodes
 * a dynamic route's segments before the route handler runs and answers a plain-text 500 when one
 * is not percent-encoded UTF-8, so those paths get the /v1 router's own answer here. Everything
 * else goes on unchanged; other paths skip the proxy (and the request body copy Next.js makes for
 * it), so the router still refuses an oversize body from its declared length.
 */
export function proxy(request: NextRequest): Response | undefined {
  return undecodablePathResponse(request.method, request.nextUrl.pathname);
}

export const config = { matcher: ["/v1/:path(.*%.*)"] };

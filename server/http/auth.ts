import type { Db } from "../db";
import { authenticateRequest, unauthenticated, type Authenticated } from "../access/credentials";

/** The bearer token of an Authorization header, or undefined. */
export function bearerToken(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Resolves `Authorization: Bearer <credential>` and counts the request against its caller's rate
 * limit (server/access/credentials.ts); a missing or malformed header is 401 `unauthenticated`,
 * answered with a `WWW-Authenticate` challenge.
 */
export async function authenticate(db: Db, header: string | null): Promise<Authenticated> {
  if (!header) {
    throw unauthenticated(
      "Send an API key or a signed-in user's access token as `Authorization: Bearer <credential>`.",
    );
  }
  const token = bearerToken(header);
  if (!token) throw unauthenticated("The Authorization header must be `Bearer <credential>`.");
  return authenticateRequest(db, token);
}

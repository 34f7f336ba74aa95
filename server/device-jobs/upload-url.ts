import crypto from "node:crypto";
import { env } from "../env";
import { randomBase62 } from "../lib/ids";

let override: string | null = null;

/**
 * Where chargers upload diagnostics and logs: the ocpp process's own HTTP listener
 * (`ocpp/http-server.ts`, `/uploads/<token>`), at the address chargers already reach it by
 * (OCPP_PUBLIC_URL with ws→http, wss→https). A process whose listener is elsewhere (a test's
 * gateway on a loopback port) sets it with `setUploadBaseUrl`.
 */
export function uploadBaseUrl(): string {
  if (override) return override;
  const ocpp = new URL(env().ocppPublicUrl);
  return `${ocpp.protocol === "wss:" ? "https:" : "http:"}//${ocpp.host}`;
}

export function setUploadBaseUrl(url: string | null) {
  override = url ? url.replace(/\/+$/, "") : null;
}

/** A per-request upload token (unguessable: 190 bits) and the hash the job keeps of it. */
export function newUploadToken() {
  const token = randomBase62(32);
  return { token, hash: hashUploadToken(token) };
}

export const hashUploadToken = (token: string) =>
  crypto.createHash("sha256").update(token).digest("hex");

export const uploadLocation = (token: string) => `${uploadBaseUrl()}/uploads/${token}`;

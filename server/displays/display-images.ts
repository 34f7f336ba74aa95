import crypto from "node:crypto";
import QRCode from "qrcode";
import type { DbTx } from "../db";
import { env } from "../env";

/**
 * The QR code PNG for a URL, rendered once per URL (`qrcode`, error correction M) and stored,
 * addressed by the SHA-256 of its bytes: what a 2.0.1 screen loads (`GET
 * /v1/display-images/{sha256}.png`). Returns the hash. A concurrent render of the same URL inserts
 * nothing the second time (`ON CONFLICT DO NOTHING`) and reads the first one's row.
 */
export async function ensureDisplayImage(db: DbTx, url: string): Promise<string> {
  const found = await db.displayImage.findUnique({ where: { url }, select: { sha256: true } });
  if (found) return found.sha256;
  const png = await QRCode.toBuffer(url, { type: "png", errorCorrectionLevel: "M", scale: 6 });
  const sha256 = crypto.createHash("sha256").update(png).digest("hex");
  await db.$executeRaw`
    INSERT INTO display_images (sha256, url, png) VALUES (${sha256}, ${url}, ${png})
    ON CONFLICT DO NOTHING`;
  const row = await db.displayImage.findUniqueOrThrow({ where: { url }, select: { sha256: true } });
  return row.sha256;
}

/** The stored PNG for its hash, or null. */
export async function readDisplayImage(db: DbTx, sha256: string): Promise<Uint8Array | null> {
  const row = await db.displayImage.findUnique({ where: { sha256 }, select: { png: true } });
  return row?.png ?? null;
}

/** Where a charger (and the console's preview) loads the image: public, cacheable forever. */
export function displayImageUrl(sha256: string): string {
  return `${env().publicBaseUrl}/v1/display-images/${sha256}.png`;
}

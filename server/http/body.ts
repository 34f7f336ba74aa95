import { ApiError } from "../errors";

/** Largest request body accepted on any route (documented in the OpenAPI document). */
export const MAX_BODY_BYTES = 64 * 1024;

const tooLarge = () =>
  new ApiError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`, {
    max_bytes: MAX_BODY_BYTES,
  });

/** Reads a request body as text, refusing more than MAX_BODY_BYTES without buffering it all. */
export async function readBodyText(req: Request): Promise<string> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid UTF-8.");
  }
}

/**
 * Parses a JSON body. An empty body is `undefined` (routes without a body accept that); any other
 * body must be `application/json`.
 */
export async function readJsonBody(req: Request): Promise<unknown> {
  const text = await readBodyText(req);
  if (text.trim() === "") return undefined;
  const type = (req.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json" && !type?.endsWith("+json")) {
    throw new ApiError(
      "unsupported_media_type",
      "Send the body as `Content-Type: application/json`.",
      {
        content_type: type || null,
      },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ApiError("invalid_json", "The request body is not valid JSON.", {
      reason: (error as Error).message.slice(0, 200),
    });
  }
}

/** JSON with object keys sorted, so equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

import { DomainError } from "../errors";

/** Largest request body accepted on any route (documented in the OpenAPI document). */
export const MAX_BODY_BYTES = 64 * 1024;
/**
 * Deepest nesting of arrays and objects accepted in a JSON body (documented in the OpenAPI
 * document). No route's schema comes close; the bound lets code that walks a body recurse safely.
 */
export const MAX_JSON_DEPTH = 64;

export const tooLarge = () =>
  new DomainError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`, {
    max_bytes: MAX_BODY_BYTES,
  });

export const nestedTooDeeply = () =>
  new DomainError(
    "invalid_json",
    `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`,
    { max_depth: MAX_JSON_DEPTH },
  );

/** Reads a request body as text, refusing more than MAX_BODY_BYTES without buffering it all. */
export async function readBodyText(req: Request): Promise<string> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new DomainError("invalid_json", "The request body ended before it was complete.");
    });
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
    throw new DomainError("invalid_json", "The request body is not valid UTF-8.");
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
    throw new DomainError(
      "unsupported_media_type",
      "Send the body as `Content-Type: application/json`.",
      {
        content_type: type || null,
      },
    );
  }
  if (nestingExceeds(text, MAX_JSON_DEPTH)) throw nestedTooDeeply();
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DomainError("invalid_json", "The request body is not valid JSON.", {
      reason: (error as Error).message.slice(0, 200),
    });
  }
}

/**
 * Whether JSON text opens more than `max` arrays or objects at once, ignoring brackets inside
 * strings. One pass without recursion, before parsing, so no depth of input can exhaust the stack.
 * Text that is not JSON may be miscounted; it fails to parse afterwards anyway.
 */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Whether a parsed value nests more than `max` arrays or objects, for bodies handed over already
 * parsed (the console's). Walks without recursion, so no depth of input can exhaust the stack.
 */
export function depthExceeds(value: unknown, max: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length) {
    const item = pending.pop()!;
    if (!item.value || typeof item.value !== "object") continue;
    if (item.depth + 1 > max) return true;
    for (const child of Object.values(item.value))
      pending.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}

/**
 * JSON with object keys sorted, so equal bodies hash equally whatever their key order. Recursive:
 * it only sees parsed request bodies, which `readJsonBody` bounds to MAX_JSON_DEPTH levels.
 */
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

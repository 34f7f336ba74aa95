import { handleV1 } from "../http/routes";

export type ApiResponse = { status: number; body: any; headers: Headers };

export type CallOptions = {
  key?: string;
  body?: unknown;
  /** raw body text, sent as is */
  raw?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
};

/** Calls the real /v1 router in-process with a standard Request (no mocks below it). */
export async function call(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await handleV1(
    new Request(`http://localhost:3000${path}`, { method, headers, body }),
  );
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

let counter = 0;
/** A fresh Idempotency-Key. */
export const idem = () =>
  `test-key-${Date.now()}-${++counter}-${Math.random().toString(36).slice(2)}`;

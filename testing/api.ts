import { z } from "zod";
import { ERROR_STATUS, errorBodySchema } from "../server/http/errors";
import type { RouteDef } from "../server/http/route";
import { compileRoutes, match, type CompiledRoute } from "../server/http/router";
import { allRoutes, handleV1 } from "../server/http/routes";
import { routeErrors } from "../server/http/openapi-document";
import { closedSchema } from "./strict-schema";

export type ApiResponse = { status: number; body: any; headers: Headers };

export type CallOptions = {
  key?: string;
  body?: unknown;
  /** raw body text, sent as is */
  raw?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string;
};

/**
 * Calls the real /v1 router in-process with a standard Request (no mocks below it), and holds
 * the answer to what the OpenAPI document says of it (`answersAsDocumented`).
 */
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
  const url = `http://localhost:3000${path}`;
  const response = await handleV1(new Request(url, { method, headers, body }));
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  answersAsDocumented(method, url, response.status, text === "" ? undefined : parsed);
  return { status: response.status, body: parsed, headers: response.headers };
}

let compiled: CompiledRoute[] | undefined;
const closed = new Map<z.ZodType, z.ZodType>();

/**
 * Fails the test when an answer is not what the OpenAPI document (built from the same route
 * definitions) says it is:
 * - a success has the route's documented status, and its body parses with the route's `response`
 *   schema, both as declared and closed (no field the schema does not declare: the document says
 *   `additionalProperties: false` of every response object);
 * - an error body parses with the document's `Error` schema, its code has that status, and the
 *   route lists the code among the errors it can answer with.
 */
export function answersAsDocumented(method: string, url: string, status: number, body: unknown) {
  compiled ??= compileRoutes(allRoutes);
  const lookup = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  const def = match(compiled, new URL(url).pathname).find((c) => c.route.def.method === lookup)
    ?.route.def;
  const where = `${method} ${new URL(url).pathname} answered ${status}`;
  if (status < 400) {
    if (!def || body === undefined) return; // OPTIONS, HEAD and 204 carry no body to check
    if (status !== def.status) {
      throw new Error(`${where}; the document says ${def.status} (${def.operationId})`);
    }
    mustParse(where, def.response, body, def);
    return;
  }
  const error = errorBodySchema.safeParse(body);
  if (!error.success) {
    throw new Error(
      `${where} with a body that is not the Error schema: ${z.prettifyError(error.error)}`,
    );
  }
  const code = error.data.error.code;
  if (ERROR_STATUS[code] !== status) {
    throw new Error(`${where} with ${code}, which the document gives status ${ERROR_STATUS[code]}`);
  }
  if (def && !routeErrors(def).includes(code)) {
    throw new Error(`${where} with ${code}, which ${def.operationId} does not document`);
  }
}

function mustParse(where: string, schema: z.ZodType, body: unknown, def: RouteDef) {
  const declared = schema.safeParse(body);
  if (!declared.success) {
    throw new Error(
      `${where}: the body is not ${def.operationId}'s response schema: ${z.prettifyError(declared.error)}`,
    );
  }
  if (!closed.has(schema)) closed.set(schema, closedSchema(schema));
  const strict = closed.get(schema)!.safeParse(body);
  if (!strict.success) {
    throw new Error(
      `${where}: the body has fields ${def.operationId}'s response schema does not declare: ${z.prettifyError(strict.error)}`,
    );
  }
}

let counter = 0;
/** A fresh Idempotency-Key. */
export const idem = () =>
  `test-key-${Date.now()}-${++counter}-${Math.random().toString(36).slice(2)}`;

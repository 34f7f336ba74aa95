import crypto from "node:crypto";
import { z } from "zod";
import type { UserCaller } from "../access/caller";
import { DomainError } from "../errors";
import {
  depthExceeds,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  nestedTooDeeply,
  tooLarge,
} from "../http/body";
import type { RouteCall } from "../http/execute";
import type { AnyObject, RouteDef } from "../http/route";
import { wellFormed, type FieldIssue } from "../http/validation";
import { consoleError } from "./init";

/** Path values are text in a URL; the console may give numbers, read as their decimal text. */
type PathValues<S extends AnyObject> = { [K in keyof z.input<S>]-?: string | number };
/** Query values as the route's schema takes them; a coerced one (input `unknown`) as text or number. */
type QueryValues<S extends AnyObject> = {
  [K in keyof z.input<S>]?: unknown extends z.input<S>[K] ? string | number : z.input<S>[K];
};
type Declared<S> = NonNullable<S>;

/**
 * What the console sends to run one /v1 route: its path values, query and body in the route's own
 * types, and for idempotent routes the form's Idempotency-Key (required where /v1 requires one),
 * so a retried submit replays instead of repeating.
 */
export type RouteInput<R extends RouteDef> = ([Declared<R["params"]>] extends [never]
  ? unknown
  : { params: PathValues<Declared<R["params"]>> }) &
  ([Declared<R["query"]>] extends [never]
    ? unknown
    : { query?: QueryValues<Declared<R["query"]>> }) &
  ([Declared<R["body"]>] extends [never] ? unknown : { body: z.input<Declared<R["body"]>> }) &
  ([Declared<R["idempotency"]>] extends [never]
    ? unknown
    : Declared<R["idempotency"]> extends "required"
      ? { idempotencyKey: string }
      : { idempotencyKey?: string });

/** What a route answers on success: its response schema's type, as /v1 documents it. */
export type RouteOutput<R extends RouteDef> = z.output<R["response"]>;

const pathValue = z.union([z.string(), z.number()]);
const envelope = z.strictObject({
  params: z.record(z.string(), pathValue).optional(),
  query: z.record(z.string(), z.union([pathValue, z.boolean(), z.null()]).optional()).optional(),
  body: z.unknown().optional(),
  idempotencyKey: z.string().optional(),
});
/** What the input parser hands on: the parts of a call, not yet parsed by the route's schemas. */
export type ConsoleEnvelope = z.output<typeof envelope>;

const LOCATIONS: Record<string, FieldIssue["location"]> = {
  params: "path",
  query: "query",
  idempotencyKey: "header",
};

/**
 * A Standard Schema (the interface tRPC reads input parsers by): what a caller must send is `In`,
 * what the procedure receives is `Out`.
 */
type InputSchema<In, Out> = {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { readonly value: Out };
    readonly types?: { readonly input: In; readonly output: Out };
  };
};

/**
 * The tRPC input of one route's procedure: typed as the route's `RouteInput`, checked here as an
 * envelope only (which parts, scalars for path and query values). The values themselves are parsed
 * by the route's own schemas in `executeRoute`, with /v1's errors; an envelope that is wrong is
 * /v1's 422 `validation_failed` too.
 */
export function routeInputSchema<R extends RouteDef>(): InputSchema<
  RouteInput<R>,
  ConsoleEnvelope
> {
  return {
    "~standard": {
      version: 1,
      vendor: "charge-cloud",
      validate: (raw) => {
        const result = envelope.safeParse(raw ?? {});
        if (result.success) return { value: result.data };
        const fields = result.error.issues.flatMap((issue) => {
          const path = issue.path.map(String);
          const located = (field: string[], message: string) => ({
            field: field.join(".") || "input",
            message,
            location: LOCATIONS[field[0] ?? ""] ?? ("body" as const),
          });
          return issue.code === "unrecognized_keys"
            ? issue.keys.map((key) => located([...path, key], "is not a known part"))
            : [located(path, issue.message)];
        });
        throw consoleError(
          new DomainError(
            "validation_failed",
            `Invalid input: ${fields[0]?.field ?? "input"} ${fields[0]?.message ?? ""}`.trim(),
            { fields },
          ),
        );
      },
    },
  };
}

/**
 * The body under /v1's limits on its JSON text: at most MAX_BODY_BYTES (measured here, the text is
 * not sent anywhere), then no deeper than MAX_JSON_DEPTH; so the console can send nothing /v1
 * would refuse. A body too deep to serialize at all is too deep.
 */
function bodyAsV1ReadsIt(body: unknown): unknown {
  if (body === undefined) return undefined;
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(body));
  } catch {
    throw nestedTooDeeply();
  }
  if (bytes > MAX_BODY_BYTES) throw tooLarge();
  if (depthExceeds(body, MAX_JSON_DEPTH)) throw nestedTooDeeply();
  return body;
}

/**
 * One console call as a `RouteCall`: path and query values as the text a URL would carry (empty
 * query values left out, as the console's forms mean "no filter"), the body as given within /v1's
 * limits, and the person's pinned API version.
 */
export function consoleCall(def: RouteDef, caller: UserCaller, input: ConsoleEnvelope): RouteCall {
  const params = Object.fromEntries(
    Object.entries(input.params ?? {}).map(([name, value]) => [name, String(value)]),
  );
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined && value !== null && value !== "") query[name] = String(value);
  }
  return {
    caller,
    version: caller.apiVersion,
    params,
    query,
    idempotencyKey: input.idempotencyKey ?? null,
    readBody: () => Promise.resolve().then(() => bodyAsV1ReadsIt(input.body)),
    method: def.method,
    // the path /v1 would have served, so a key's record reads the same from either surface
    path: def.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(wellFormed(params[name] ?? "")),
    ),
    headers: {},
    requestId: `req_${crypto.randomBytes(8).toString("hex")}`,
  };
}

import { createRPCError } from "ocpp-rpc";
import { requestSchema } from "./validators";

type Schema = {
  type?: unknown;
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  definitions?: Record<string, Schema>;
};

/** PostgreSQL `integer` (int4), the column type of every OCPP integer the service stores. */
const INT4_MIN = -(2 ** 31);
const INT4_MAX = 2 ** 31 - 1;

/**
 * Integer fields stored as `bigint`: lifetime energy registers pass 2^31 Wh on busy chargers
 * (large-registers.test.ts). They must still be exact in a JavaScript number.
 */
const WIDE_INTEGERS: Record<string, ReadonlySet<string>> = {
  "ocpp1.6": new Set(["StartTransaction.meterStart", "StopTransaction.meterStop"]),
};

// A lone UTF-16 surrogate (from a `\ud800` escape) is no character: PostgreSQL would store U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses, with a `PropertyConstraintViolation` CALLERROR, a schema-valid charger payload holding
 * a value the database cannot hold: a NUL character or a lone surrogate in any string (or key),
 * or an integer outside int4 where the official schema says `integer`. Runs after schema
 * validation and before the handler, so such a message is refused the same way every time rather
 * than failing in the database as an `InternalError` the charger would retry forever.
 */
export function refuseUnstorable(protocol: string, action: string, params: unknown): void {
  const root = (requestSchema(protocol, action) ?? {}) as Schema;
  const problem = findUnstorable(params, {
    root,
    schema: root,
    path: "",
    field: action,
    wide: WIDE_INTEGERS[protocol],
  });
  if (problem) throw createRPCError("PropertyConstraintViolation", problem, {}) as Error;
}

type Place = {
  root: Schema;
  schema: Schema | undefined;
  /** where the value is, for the error message: `meterValue[0].sampledValue` */
  path: string;
  /** the action and property names down to the value, for WIDE_INTEGERS */
  field: string;
  wide: ReadonlySet<string> | undefined;
};

function resolve(schema: Schema | undefined, root: Schema): Schema | undefined {
  const ref = schema?.$ref;
  if (!ref?.startsWith("#/definitions/")) return schema;
  return root.definitions?.[ref.slice("#/definitions/".length)];
}

function badString(value: string): string | undefined {
  if (value.includes("\u0000")) return "contains a NUL character";
  if (LONE_SURROGATE.test(value)) return "is not well-formed Unicode";
  return undefined;
}

// Recursion is bounded: the frame guard refuses frames nesting deeper than MAX_FRAME_DEPTH.
function findUnstorable(value: unknown, at: Place): string | undefined {
  const schema = resolve(at.schema, at.root);
  const name = at.path || "the payload";
  if (typeof value === "string") {
    const bad = badString(value);
    return bad && `${name} ${bad}, which cannot be stored.`;
  }
  if (typeof value === "number") {
    const integer = schema?.type === "integer";
    if (!integer) return undefined;
    if (at.wide?.has(at.field))
      return Number.isSafeInteger(value) ? undefined : `${name} is too large to be stored exactly.`;
    return value < INT4_MIN || value > INT4_MAX
      ? `${name} is outside the 32-bit integer range this service stores.`
      : undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const bad = findUnstorable(item, { ...at, schema: schema?.items, path: `${at.path}[${i}]` });
      if (bad) return bad;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const path = at.path ? `${at.path}.${key}` : key;
      const keyBad = badString(key);
      if (keyBad) return `A property name in ${name} ${keyBad}, which cannot be stored.`;
      const bad = findUnstorable(item, {
        ...at,
        schema: schema?.properties?.[key],
        path,
        field: `${at.field}.${key}`,
      });
      if (bad) return bad;
    }
  }
  return undefined;
}

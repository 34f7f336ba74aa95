/**
 * fast-check generators of malformed /v1 input: path segments, query strings, JSON values, raw
 * bodies and header values, plus a plausible body for any JSON schema of the OpenAPI document to
 * hide one bad value in (so requests get past the first checks and reach deeper ones).
 */
import fc from "fast-check";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../server/http/body";

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  format?: string;
  minimum?: number;
  exclusiveMinimum?: number;
};

/** Every byte of the UTF-8 encoding percent-encoded (a lone surrogate becomes U+FFFD). */
export const percentEncoded = (text: string) =>
  [...Buffer.from(text, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");

const nested = (depth: number, leaf = "1") => `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`;

/** Text with U+0000 somewhere: PostgreSQL cannot store it, so it must never reach a query. */
const withNul = fc
  .tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
  .map(([a, b]) => `${a}\u0000${b}`);

export const hostileString = fc.oneof(
  withNul,
  fc.constantFrom(
    "a\u0000b",
    "\u0000",
    "\ud800",
    "x\udfff",
    "x".repeat(5000),
    "",
    " ",
    "\u202e\u200b",
    "💥",
    "%00",
    "'; DROP TABLE stations; --",
    "\\",
    "null",
    "NaN",
    "1e309",
    "2026-13-45T25:61:61Z",
    "275760-09-13T00:00:00.001Z",
    "0000-01-01T00:00:00Z",
    "https://127.0.0.1:0/",
    "https://[::1]/x",
    "http://%00/",
    "Etc/../../passwd",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 1.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, 5e-324),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom<unknown>(null, true, false, [], {}, [[[[]]]], new Array(3000).fill(1)),
  fc.constant(JSON.parse(nested(MAX_JSON_DEPTH - 4)) as unknown),
  fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }),
);

/** A path segment as sent on the wire (already percent-encoded where it should be). */
export const hostileSegment = fc.oneof(
  withNul.map(percentEncoded),
  fc.constantFrom(
    "%FF",
    "%",
    "%zz",
    "%E0%A4%A",
    "%C0%AF",
    "%ED%A0%80",
    "%00",
    "a%00b",
    "-1",
    "0",
    "1.5",
    "1e3",
    "0x10",
    "abc",
    "%C3%BC",
    "%F0%9F%98%80",
    "2147483648",
    "99999999999999999999",
    "9".repeat(400),
    "%20",
    "%2F",
    "..",
    "%2e%2e",
    "key_" + "a".repeat(100),
    "op_x",
    "null",
  ),
  fc.string({ unit: "binary", maxLength: 30 }).map(percentEncoded),
  fc.integer().map(String),
);

/** `?…` with declared and unknown names, repeated names and malformed encodings. */
export function hostileQuery(names: string[]) {
  const value = fc.oneof(
    fc.constantFrom("%FF", "%", "%00", "a%00b", "-1", "1e3", "9".repeat(30), "", "1", "true"),
    withNul.map(percentEncoded),
    hostileString.map(percentEncoded),
  );
  const name = fc.oneof(
    names.length ? fc.constantFrom(...names) : fc.constant("after"),
    fc.constantFrom("limit[]", "%FF", "a%00", "__proto__"),
  );
  return fc
    .array(fc.tuple(name, value), { maxLength: 4 })
    .map((pairs) => (pairs.length ? `?${pairs.map(([n, v]) => `${n}=${v}`).join("&")}` : ""));
}

/** Header values a client can send: Latin-1 without CR, LF or NUL. */
export const headerValue = fc.oneof(
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
    maxLength: 60,
  }),
  fc.constantFrom("", "x".repeat(100_000), "\t", "2026-10-15, 2026-10-14"),
);

export const hostileAuthorization = fc.oneof(
  headerValue,
  headerValue.map((v) => `Bearer ${v}`),
  headerValue.map((v) => `Bearer cpk_live_${v}`),
  fc.constantFrom(
    "Bearer",
    "Bearer ",
    "Basic Zm9vOmJhcg==",
    "Bearer a.b.c",
    "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.",
    "Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6Ilx1MDAwMCJ9.e30.AAAA",
    `Bearer cpk_live_${"a".repeat(300)}`,
  ),
);

export const hostileContentType = fc.oneof(
  fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "application/merge-patch+json",
    "application/json; charset=latin1",
    "application/json;;",
    "application/jsonx",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "",
  ),
  headerValue,
);

/** Raw bodies: not JSON, not UTF-8, too deep, too large, or JSON of the wrong kind. */
export function hostileRawBody(
  fieldNames: string[],
): fc.Arbitrary<string | Uint8Array<ArrayBuffer>> {
  const field = fc.constantFrom(...(fieldNames.length ? fieldNames : ["x"]));
  const deep = nested(6000);
  return fc.oneof(
    fc.constantFrom<string | Uint8Array<ArrayBuffer>>(
      "{",
      "[1,]",
      "{'a':1}",
      "\uFEFF{}",
      "{}garbage",
      "1e999999",
      '"text"',
      "[]",
      "null",
      "0",
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":1,"a":2}',
      deep,
      `${'{"a":'.repeat(6000)}1${"}".repeat(6000)}`,
      nested(MAX_JSON_DEPTH + 1),
      nested(MAX_JSON_DEPTH),
      JSON.stringify({ x: "y".repeat(MAX_BODY_BYTES) }),
      new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      new Uint8Array([0x7b, 0x7d, 0x00]),
    ),
    field.map((f) => `{"${f}":${deep}}`),
    field.map((f) => `{"${f}":{"x":${deep}}}`),
    field.map((f) => `{"${f}":"a\\u0000b"}`),
    fc.string({ unit: "binary", maxLength: 200 }),
  );
}

/** A plausible value for a schema of the OpenAPI document (enough to reach deeper checks). */
export function exampleOf(schema: JsonSchema | undefined): unknown {
  if (!schema) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variant = schema.oneOf?.[0] ?? schema.anyOf?.find((s) => s.type !== "null");
  if (variant) return exampleOf(variant);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, v]) => [k, exampleOf(v)]),
      );
    case "array":
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
        exampleOf(schema.items),
      );
    case "integer":
    case "number":
      return Math.max(1, schema.minimum ?? 1, (schema.exclusiveMinimum ?? 0) + 1);
    case "boolean":
      return true;
    case "string":
      if (schema.format === "date-time") return "2026-11-01T10:00:00Z";
      if (schema.format === "email") return "someone@example.com";
      return "Example";
    default:
      return null;
  }
}

type Path = (string | number)[];

/** Every path into a JSON value, the root included (iterative; values here are shallow). */
function pathsOf(value: unknown): Path[] {
  const out: Path[] = [];
  const pending: { value: unknown; path: Path }[] = [{ value, path: [] }];
  while (pending.length) {
    const item = pending.pop()!;
    out.push(item.path);
    if (item.value && typeof item.value === "object") {
      for (const [k, v] of Object.entries(item.value)) {
        pending.push({ value: v, path: [...item.path, Array.isArray(item.value) ? Number(k) : k] });
      }
    }
  }
  return out;
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cursor = copy;
  for (const key of path.slice(0, -1)) cursor = cursor[key] as Record<string | number, unknown>;
  cursor[path[path.length - 1]!] = value;
  return copy;
}

/** The schema's example with one value (or an extra field) replaced by a hostile one. */
export function hostileBody(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const example = exampleOf(schema);
  const paths = pathsOf(example);
  return fc.oneof(
    fc
      .tuple(fc.nat(), hostileValue)
      .map(([at, value]) => setAt(example, paths[at % paths.length]!, value)),
    fc
      .tuple(hostileString, hostileValue)
      .map(([key, value]) =>
        example && typeof example === "object" && !Array.isArray(example)
          ? { ...example, [key]: value }
          : value,
      ),
    fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }),
  );
}

/**
 * Numbers at the edges of what the document's `integer` and `number` allow, as JSON text: the
 * int4 edges (PostgreSQL's `integer`, the type of every id column), the safe-integer edges (what
 * JSON numbers keep exactly), and exponent forms a JSON parser reads as tiny, huge or negative
 * zero (`-0` must be sent as text: JSON.stringify writes it as `0`).
 */
export const BOUNDARY_NUMBERS = [
  "0",
  "-1",
  "2147483647",
  "2147483648",
  "-2147483649",
  "9007199254740991",
  "9007199254740992",
  "1e-300",
  "5.960464477539063e-8",
  "1e21",
  "1E+21",
  "-0",
  "0.5",
] as const;

/** Valid strings for fields whose format the document states only in words, by field name. */
const STRINGS_BY_NAME: Record<string, () => string> = {
  url: () => "https://hooks.example.com/hooks",
  country: () => "US",
  time_zone: () => "Europe/Berlin",
  start_time: () => "08:00",
  end_time: () => "18:00",
  start_date: () => "2026-01-01",
  end_date: () => "2027-01-01",
  password: () => "boundary-password-0001",
  email: () => "someone@example.com",
  language: () => "en",
  currency: () => "USD",
  type: () => "ENERGY",
};
let names = 0;

/**
 * The smallest plausible value of a schema: objects with their required properties only (so no
 * two optional fields that exclude each other), strings valid for their field's name, names
 * unique (a station's name is its login).
 */
export function minimalExampleOf(schema: JsonSchema | undefined, key = ""): unknown {
  if (!schema) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const variant = schema.oneOf?.[0] ?? schema.anyOf?.find((s) => s.type !== "null");
  if (variant) return minimalExampleOf(variant, key);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "object")
    return Object.fromEntries(
      (schema.required ?? []).map((k) => [k, minimalExampleOf(schema.properties?.[k], k)]),
    );
  if (type === "array")
    return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
      minimalExampleOf(schema.items, key),
    );
  if (type === "string" && key === "name") return `BND-${process.pid}-${++names}`;
  if (type === "string" && STRINGS_BY_NAME[key]) return STRINGS_BY_NAME[key]();
  return exampleOf(schema);
}

/**
 * Every numeric field a body of `schema` can hold, each with an example body built to contain it
 * (the variant of a `oneOf`/`anyOf` it sits in, one item of its array) and the path to it.
 */
export function numericFields(
  schema: JsonSchema | undefined,
  key = "",
): { example: unknown; path: Path }[] {
  if (!schema) return [];
  const variants = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  if (variants.length) return variants.flatMap((v) => numericFields(v, key));
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (type.includes("integer") || type.includes("number"))
    return [{ example: minimalExampleOf(schema, key), path: [] }];
  if (type.includes("array") && schema.items)
    return numericFields(schema.items, key).map(({ example, path }) => ({
      example: [
        example,
        ...Array.from({ length: Math.max(0, (schema.minItems ?? 1) - 1) }, () =>
          minimalExampleOf(schema.items, key),
        ),
      ],
      path: [0, ...path],
    }));
  if (type.includes("object") && schema.properties) {
    const base = minimalExampleOf(schema, key) as Record<string, unknown>;
    return Object.entries(schema.properties).flatMap(([name, property]) =>
      numericFields(property, name).map(({ example, path }) => ({
        example: { ...base, [name]: example },
        path: [name, ...path],
      })),
    );
  }
  return [];
}

/** `value` as JSON text with the value at `path` written as `literal` (any JSON number text). */
export function jsonWith(value: unknown, path: Path, literal: string): string {
  const marker = "\u0001boundary\u0001";
  return JSON.stringify(setAt(value, path, marker)).replace(JSON.stringify(marker), literal);
}

/**
 * fast-check generators of malformed /v1 input: path segments, query strings, JSON values, raw
 * bodies and header values, plus a plausible body for any JSON schema of the OpenAPI document to
 * hide one bad value in (so requests get past the first checks and reach deeper ones).
 */
import fc from "fast-check";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../http/body";

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

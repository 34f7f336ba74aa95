import { createRequire } from "node:module";
import { createRPCError, createValidator } from "ocpp-rpc";

/** Subprotocols the gateway speaks, in the order it prefers them when a charger offers several. */
export const PROTOCOLS = ["ocpp2.1", "ocpp2.0.1", "ocpp1.6"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export function isProtocol(value: unknown): value is Protocol {
  return (PROTOCOLS as readonly unknown[]).includes(value);
}

/** What ocpp-rpc's `strictModeValidators` option takes (its `Validator` class). */
export type Validator = ReturnType<typeof createValidator>;

type Schema = { $id?: string } & Record<string, unknown>;

const require = createRequire(import.meta.url);
const bundled = (file: string) => require(`ocpp-rpc/lib/schemas/${file}.json`) as Schema[];

/**
 * ocpp-rpc looks a message's schema up as `urn:<Action>.req` / `urn:<Action>.conf`. Its bundled
 * OCPP 2.1 schemas are the official ones, named `urn:<Action>Request` / `urn:<Action>Response`
 * (and `urn:NotifyPeriodicEventStream`, a SEND message without a response), so ocpp-rpc 2.2.1's
 * own 2.1 strict mode fails every call. Same schemas, renamed to the IDs ocpp-rpc asks for.
 * (No 2.1 action name itself ends in "Request" or "Response"; the tests check every ID pairs up.)
 */
export function ocpp21Schemas(): Schema[] {
  return bundled("ocpp2_1").map((schema) => {
    const id = schema.$id ?? "";
    const renamed = /Request$/.test(id)
      ? id.replace(/Request$/, ".req")
      : /Response$/.test(id)
        ? id.replace(/Response$/, ".conf")
        : `${id}.req`;
    return { ...(withoutStrayKeywords(schema) as Schema), $id: renamed };
  });
}

/**
 * The 2.1 schemas put `additionalProperties: false` on enum (string) types, where it has no
 * effect, and ajv logs a strict-types warning for each one when it compiles them. Dropped there
 * (and only there), so validation is unchanged and the log stays quiet.
 */
function withoutStrayKeywords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutStrayKeywords);
  if (!node || typeof node !== "object") return node;
  const copy: Record<string, unknown> = {};
  const type = (node as { type?: unknown }).type;
  const stray = typeof type === "string" && type !== "object";
  for (const [key, value] of Object.entries(node)) {
    if (stray && key === "additionalProperties") continue;
    copy[key] = withoutStrayKeywords(value);
  }
  return copy;
}

// Only plain action names are looked up: a method like "X#/definitions/Y" must never resolve to
// a fragment of some other schema.
const SCHEMA_ID = /^urn:([A-Za-z0-9]{1,64})\.(req|conf)$/;

/**
 * ocpp-rpc's validator (its ajv 8 with ajv-formats and the same keyword → OCPP error table for
 * every version), with two corrections:
 * - an action the protocol does not define is `NotImplemented` (OCPP-J), not the `ProtocolError`
 *   ocpp-rpc raises when it finds no schema;
 * - occurrence errors are spelled `OccurrenceConstraintViolation`, as OCPP 2.0.1 and 2.1 define
 *   them (ocpp-rpc raises the OCPP 1.6 spelling `OccurenceConstraintViolation`).
 * ocpp-rpc itself turns `FormatViolation` into 1.6's `FormationViolation` on 1.6 connections, and
 * (wrongly, see `wireErrorCode` in frame-guard.ts) 1.6's `OccurenceConstraintViolation` into the
 * 2.x spelling; the gateway puts every code in its connection's protocol's words on the wire.
 */
function strictValidator(subprotocol: Protocol, schemas: Schema[]): Validator {
  const validator = createValidator(subprotocol, schemas);
  const known = new Set(schemas.map((s) => s.$id));
  const validate = validator.validate.bind(validator);
  validator.validate = (schemaId: string, params: unknown) => {
    const match = SCHEMA_ID.exec(schemaId);
    if (!match || !known.has(schemaId)) {
      if (!match || match[2] === "req")
        throw createRPCError("NotImplemented", `Unknown action for ${subprotocol}`) as Error;
      throw createRPCError("ProtocolError", `No response schema for ${match[1]}`) as Error;
    }
    try {
      return validate(schemaId, params);
    } catch (error) {
      const e = error as { rpcErrorCode?: string; message?: string; details?: unknown };
      if (e.rpcErrorCode === "OccurenceConstraintViolation")
        throw createRPCError(
          "OccurrenceConstraintViolation",
          e.message,
          e.details as Record<string, unknown>,
        ) as Error;
      throw error;
    }
  };
  return validator;
}

/** The official schemas of each protocol, under the IDs ocpp-rpc looks up. */
const schemas: Readonly<Record<Protocol, Schema[]>> = {
  "ocpp1.6": bundled("ocpp1_6"),
  "ocpp2.0.1": bundled("ocpp2_0_1"),
  "ocpp2.1": ocpp21Schemas(),
};

/** One strict-mode validator per protocol, for `RPCServer` and `RPCClient` alike. */
export const validators: Readonly<Record<Protocol, Validator>> = {
  "ocpp1.6": strictValidator("ocpp1.6", schemas["ocpp1.6"]),
  "ocpp2.0.1": strictValidator("ocpp2.0.1", schemas["ocpp2.0.1"]),
  "ocpp2.1": strictValidator("ocpp2.1", schemas["ocpp2.1"]),
};

const requestSchemas = new Map<string, Schema>(
  PROTOCOLS.flatMap((p) => schemas[p].map((s) => [`${p} ${s.$id ?? ""}`, s] as const)),
);

/** The official request schema of an action (`$ref`s point into its own `definitions`). */
export function requestSchema(protocol: string, action: string): Schema | undefined {
  return requestSchemas.get(`${protocol} urn:${action}.req`);
}

/** Pass as `strictModeValidators` (with `strictMode: true`) to ocpp-rpc's server and client. */
export const strictModeValidators: Validator[] = PROTOCOLS.map((p) => validators[p]);

export function validatorFor(protocol: string): Validator | undefined {
  return isProtocol(protocol) ? validators[protocol] : undefined;
}

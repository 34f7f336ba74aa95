import { createRequire } from "node:module";
import { createRPCError, createValidator } from "ocpp-rpc";

/** Subprotocols the gateway speaks, in the order it prefers them when a charger offers several. */
export const PROTOCOLS = ["ocpp2.1", "ocpp2.0.1", "ocpp1.6"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

const require = createRequire(import.meta.url);

type Schema = { $id?: string } & Record<string, unknown>;

/**
 * ocpp-rpc 2.2.1 looks schemas up as `urn:<Action>.req` / `urn:<Action>.conf`, but its bundled
 * OCPP 2.1 schemas are named `urn:<Action>Request` / `urn:<Action>Response`, so its own 2.1 strict
 * mode fails every call. Rename the IDs and build the validator from the same official schemas.
 */
function ocpp21Validator() {
  const schemas = require("ocpp-rpc/lib/schemas/ocpp2_1.json") as Schema[];
  const renamed = schemas.map((schema) => ({
    ...schema,
    $id: schema.$id
      ?.replace(/^urn:(.+)Request$/, "urn:$1.req")
      .replace(/^urn:(.+)Response$/, "urn:$1.conf"),
  }));
  return createValidator("ocpp2.1", renamed);
}

/**
 * An action the protocol does not define is `NotImplemented` (OCPP-J), not the `ProtocolError`
 * ocpp-rpc raises when it finds no schema for it.
 */
function unknownActionsNotImplemented(validator: ReturnType<typeof createValidator>) {
  const v = validator;
  const validate = v.validate.bind(v);
  v.validate = (schemaId, params) => {
    try {
      return validate(schemaId, params);
    } catch (error) {
      const e = error as { rpcErrorCode?: string; message?: string };
      if (
        e.rpcErrorCode === "ProtocolError" &&
        /is missing/.test(e.message ?? "") &&
        schemaId.endsWith(".req")
      ) {
        throw createRPCError("NotImplemented", `Unknown action ${schemaId.slice(4, -4)}`) as Error;
      }
      throw error;
    }
  };
  return v;
}

/** Validators for strict mode on both sides (our server, and test chargers). */
export const strictModeValidators = [
  createValidator("ocpp1.6", require("ocpp-rpc/lib/schemas/ocpp1_6.json") as Schema[]),
  createValidator("ocpp2.0.1", require("ocpp-rpc/lib/schemas/ocpp2_0_1.json") as Schema[]),
  ocpp21Validator(),
].map(unknownActionsNotImplemented);

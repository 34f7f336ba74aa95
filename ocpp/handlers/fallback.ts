import { createRPCError } from "ocpp-rpc";
import { strictModeValidators } from "../protocol/validators";

type Validator = { subprotocol: string; validate: (schemaId: string, params: unknown) => boolean };

/**
 * Charger-initiated actions the core does not record still get a schema-valid answer: the first
 * of a few neutral replies that the action's official response schema accepts. Actions the
 * protocol does not define are `NotImplemented`.
 */
const CANDIDATES: Record<string, unknown>[] = [
  {},
  { status: "Accepted" },
  { status: "Rejected" },
  { status: "Accepted", currentTime: "" },
];

export function answerPolitely(protocol: string, method: string): Record<string, unknown> {
  const validator = (strictModeValidators as unknown as Validator[]).find(
    (v) => v.subprotocol === protocol,
  );
  for (const candidate of CANDIDATES) {
    const reply =
      "currentTime" in candidate
        ? { ...candidate, currentTime: new Date().toISOString() }
        : candidate;
    try {
      if (validator?.validate(`urn:${method}.conf`, reply)) return reply;
    } catch {
      /* not this one */
    }
  }
  throw createRPCError("NotImplemented", `${method} is not supported.`) as Error;
}

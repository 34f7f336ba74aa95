import { createRPCError } from "ocpp-rpc";
import { ConnectionReplaced } from "../../server/charging/connections";
import { UnknownConnector } from "../../server/charging/find-connector";

/** How a charger call that threw is answered. */
export type CallFailure = {
  /** the CALLERROR to throw back through ocpp-rpc */
  error: Error;
  /**
   * The message itself cannot be recorded: the same message will fail the same way, so it is
   * refused as a constraint violation (chargers give up on those after their retry count) rather
   * than `InternalError`, which says "try again".
   */
  refused: boolean;
};

/** Prisma's own codes for values a column cannot hold: too long, out of range, past 64 bits. */
const PRISMA_VALUE_ERRORS = new Set(["P2000", "P2020", "P2033"]);

/** The PostgreSQL SQLSTATE behind a Prisma (driver adapter) or pg error, if there is one. */
export function sqlState(error: unknown): string | undefined {
  const e = error as {
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } };
  } | null;
  const cause = e?.meta?.driverAdapterError?.cause;
  for (const code of [cause?.originalCode, cause?.code, e?.code])
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith("P"))
      return code;
  return undefined;
}

/**
 * A value the database refused: SQLSTATE class 22, "data exception" (22001 string too long, 22003
 * numeric out of range, 22021 invalid byte sequence, 22P05 untranslatable character, bad dates…),
 * or 23514, a check constraint. Caused by what the message holds, never by the moment it came.
 */
export function isValueRejected(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && PRISMA_VALUE_ERRORS.has(code)) return true;
  const state = sqlState(error);
  return state !== undefined && (state.startsWith("22") || state === "23514");
}

/**
 * Maps what a charger call threw to its CALLERROR. OCPP errors thrown on purpose pass through; a
 * connector the station lacks and a value the database cannot hold are
 * `PropertyConstraintViolation` ("at least one field contains an invalid value"). Everything else
 * (the database unreachable, a deadlock, a timeout, a bug) is `InternalError`: retrying may work.
 */
export function callFailure(error: unknown): CallFailure {
  if (typeof (error as { rpcErrorCode?: unknown } | null)?.rpcErrorCode === "string")
    return { error: error as Error, refused: true };
  // Recorded nothing, and the socket is being closed: the charger sends it again on its newer one.
  if (error instanceof ConnectionReplaced)
    return {
      error: createRPCError(
        "InternalError",
        "This connection was replaced by a newer one; send the call on the current connection.",
      ) as Error,
      refused: false,
    };
  if (error instanceof UnknownConnector)
    return {
      error: createRPCError("PropertyConstraintViolation", error.message, {}) as Error,
      refused: true,
    };
  if (isValueRejected(error))
    return {
      error: createRPCError(
        "PropertyConstraintViolation",
        "A value in the payload cannot be stored (too long, out of range or not valid text).",
        {},
      ) as Error,
      refused: true,
    };
  return {
    error: createRPCError("InternalError", "The call could not be recorded; retry it.") as Error,
    refused: false,
  };
}

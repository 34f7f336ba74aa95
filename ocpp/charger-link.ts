import type { ChargerLink, SendResult } from "../server/operations/dispatch-operation";
import type { OcppCall } from "../server/operations/kinds/kind";

/** What ocpp-rpc's client emits when a message fails the official schema in strict mode. */
type StrictValidationFailure = {
  outbound: boolean;
  isCall: boolean;
  params: unknown;
  error: Error;
};

/** The part of ocpp-rpc's server-side client that sending needs. */
export type CallingClient = {
  protocol: string;
  call(method: string, params: unknown, options?: { callTimeoutMs?: number }): Promise<unknown>;
  on(event: "strictValidationFailure", listener: (event: StrictValidationFailure) => void): unknown;
  off(
    event: "strictValidationFailure",
    listener: (event: StrictValidationFailure) => void,
  ): unknown;
};

/**
 * A station's socket as the dispatcher sees it. ocpp-rpc rejects a call the same way for a
 * charger's CALLERROR and for an answer that fails the official schema (both carry an RPC error
 * code); they mean opposite things (the charger did not act / the charger may well have acted), so
 * its `strictValidationFailure` event, which carries our own payload object, tells them apart.
 */
export function chargerLink(client: CallingClient, callTimeoutMs: number): ChargerLink {
  return {
    protocol: client.protocol,
    send: async (call: OcppCall): Promise<SendResult> => {
      let failure: StrictValidationFailure | undefined;
      const onFailure = (event: StrictValidationFailure) => {
        if (event.params === call.payload) failure = event;
      };
      client.on("strictValidationFailure", onFailure);
      try {
        return {
          kind: "answered",
          answer: await client.call(call.action, call.payload, { callTimeoutMs }),
        };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (failure?.outbound && failure.isCall) return { kind: "not_sent", reason };
        if (failure && !failure.outbound && !failure.isCall)
          return {
            kind: "unconfirmed",
            reason: `The charger's answer does not match the official schema: ${reason}`,
          };
        const code = (error as { rpcErrorCode?: unknown }).rpcErrorCode;
        if (typeof code === "string") return { kind: "call_error", code };
        return { kind: "unconfirmed", reason };
      } finally {
        client.off("strictValidationFailure", onFailure);
      }
    },
  };
}

import type { ChargerLink, SendResult } from "../server/operations/dispatch-operation";
import type { OcppCall } from "../server/operations/kinds/kind";

/** The part of ocpp-rpc's server-side client that sending needs. */
export type CallingClient = {
  protocol: string;
  call(method: string, params: unknown, options?: { callTimeoutMs?: number }): Promise<unknown>;
};

/** A station's socket as the dispatcher sees it. */
export function chargerLink(client: CallingClient, callTimeoutMs: number): ChargerLink {
  return {
    protocol: client.protocol,
    send: async (call: OcppCall): Promise<SendResult> => {
      try {
        return {
          kind: "answered",
          answer: await client.call(call.action, call.payload, { callTimeoutMs }),
        };
      } catch (error) {
        const code = (error as { rpcErrorCode?: unknown }).rpcErrorCode;
        if (typeof code === "string") return { kind: "call_error", code };
        return {
          kind: "unconfirmed",
          reason: error instanceof Error ? error.message : String(error),
        };
      }
    },
  };
}

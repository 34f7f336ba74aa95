import { z } from "zod";
import { syncSessionStatus } from "../sync-status";
import { billStart } from "../../bills/operation-kinds/bill-start";
import type { OperationKind } from "../../operations/kinds/kind";

const request = z.object({ session_id: z.string() });

/**
 * An external session's start (POST …/charging-sessions/{id}/start): the same call and the same
 * outcome on the session's bill as a bill's start (the bill's token, read when the call is built;
 * `rejected` puts the bill back to `open`, `unknown` to `start_unknown`), then the session's
 * status is published in the completing transaction (station, bill, then session row). A refused
 * start also withdraws the funding it was sent with (`funding_confirmed` false): the next start
 * confirms it again.
 */
export const externalStart: OperationKind = {
  scope: "external.start",
  carriesSecret: false,
  build: (input) => billStart.build(input),
  interpret: (answer, protocol) => billStart.interpret(answer, protocol),
  async onSettled(tx, operation, outcome) {
    await billStart.onSettled!(tx, operation, outcome);
    const sessionId = request.parse(operation.request).session_id;
    if (outcome.status === "rejected")
      await tx.chargingSession.update({
        where: { id: sessionId },
        data: { fundingConfirmed: false },
      });
    await syncSessionStatus(tx, sessionId);
  },
};

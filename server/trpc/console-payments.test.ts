import { describe, expect, it } from "vitest";
import {
  finalizeSimulated,
  aPaymentsProject,
  anAuthorizedSimulatedPayment,
} from "../../testing/payments";
import { call, idem } from "../../testing/api";
import { consoleAs } from "../../testing/console";
import { aMember } from "../../testing/users";
import { PLAIN } from "../../components/console/pages/payment-rules";
import { ConsoleApiError } from "./init";

/** The API's error code of a refused console call, or "ok". */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof ConsoleApiError) return error.body.code;
    throw error;
  }
}

/**
 * The console's payment actions are the /v1 payment routes run as the signed-in person: a role
 * gets the same refusal in the console as with its own access token, and the API's 409s reach
 * the page with their codes.
 */
describe("payment actions in the console", () => {
  it("follow the role's scopes as /v1 does, and carry the API's refusals", async () => {
    const p = await aPaymentsProject();
    const { bill, payment } = await anAuthorizedSimulatedPayment(p, 2500);
    const ids = { tenant_id: p.tenantId, payment_id: payment.id };
    const developer = await aMember(p.teamId, "developer");
    const viewer = await aMember(p.teamId, "viewer");
    const admin = await aMember(p.teamId, "admin");
    const asDeveloper = await consoleAs(developer.userId);
    const asViewer = await consoleAs(viewer.userId);
    const asAdmin = await consoleAs(admin.userId);

    // Reads: the payment, its services, its events (the page's history)
    const read = await asViewer.v1.getPayment({ params: ids });
    expect(read.status).toBe("authorized");
    const services = await asViewer.v1.listPaymentServices({ params: { tenant_id: p.tenantId } });
    expect(services.data.find((s) => s.service === "simulator")?.available).toBe(true);
    const events = await asViewer.v1.listEvents({
      params: { tenant_id: p.tenantId },
      query: { resource_id: payment.id },
    });
    expect(events.data.map((e) => e.type)).toEqual(["payment.authorized"]);

    // Capture before the bill is final: the API's 409, through the console
    expect(
      await outcome(asDeveloper.v1.capturePayment({ params: ids, idempotencyKey: idem() })),
    ).toBe("bill_not_final");
    // A viewer may not capture, in the console as on /v1
    expect(await outcome(asViewer.v1.capturePayment({ params: ids, idempotencyKey: idem() }))).toBe(
      "insufficient_scope",
    );
    const viaApi = await call("POST", `/v1/tenants/${p.tenantId}/payments/${payment.id}/capture`, {
      key: viewer.token,
      idempotencyKey: idem(),
    });
    expect(viaApi.status).toBe(403);

    await finalizeSimulated(p, bill.id, 12_345);
    const captured = await asDeveloper.v1.capturePayment({ params: ids, idempotencyKey: idem() });
    expect(captured.captured_minor).toBe(432);

    // A developer holds billing:write but not billing:refund
    expect(
      await outcome(asDeveloper.v1.refundPayment({ params: ids, idempotencyKey: idem() })),
    ).toBe("insufficient_scope");
    const refunded = await asAdmin.v1.refundPayment({ params: ids, idempotencyKey: idem() });
    expect(refunded.status).toBe("refunded");
    expect(refunded.refunded_minor).toBe(432);
    expect(refunded.attempts.map((a) => `${a.kind}:${a.status}`)).toEqual([
      "authorize:succeeded",
      "capture:succeeded",
      "refund:succeeded",
    ]);
    // Asked again from a page that was out of date (a new key per confirmed action): the API's
    // 409 names the state, and the console has plain words for it
    for (const [ask, code] of [
      [
        () => asAdmin.v1.refundPayment({ params: ids, idempotencyKey: idem() }),
        "payment_already_refunded",
      ],
      [
        () => asDeveloper.v1.capturePayment({ params: ids, idempotencyKey: idem() }),
        "payment_already_refunded",
      ],
    ] as const) {
      expect(await outcome(ask())).toBe(code);
      expect(PLAIN[code]).toMatch(/already refunded/);
    }
  });
});

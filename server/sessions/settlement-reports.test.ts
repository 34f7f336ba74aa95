import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call, idem } from "../../testing/api";
import { anotherKey } from "../../testing/builders";
import { aSession, aSessionProject, sessionsPath, sessionVerb } from "../../testing/sessions";

/** A final simulated session of 350 (10 kWh at 35 c/kWh). */
async function aFinalSession() {
  const p = await aSessionProject();
  const s = await aSession(p.tenantId, p.key, { ...p.base, source: "simulated" });
  const final = await sessionVerb(p.tenantId, p.key, s.id, "finalize", { energy_wh: 10_000 });
  expect(final.body.total_minor).toBe(350);
  const report = (
    kind: string,
    operation_reference: string,
    outcome: string,
    amount_minor: number,
    idempotencyKey = idem(),
  ) =>
    sessionVerb(
      p.tenantId,
      p.key,
      s.id,
      "settlement-reports",
      { kind, operation_reference, outcome, amount_minor, currency: "USD" },
      idempotencyKey,
    );
  const reports = async () =>
    (await call("GET", `${sessionsPath(p.tenantId)}/${s.id}/settlement-reports`, { key: p.key }))
      .body.data as { kind: string; operation_reference: string; outcome: string }[];
  return { ...p, session: s, report, reports };
}

describe("settlement outcomes (spec section 3): every move", () => {
  it("pending and unknown move to succeeded or failed", async () => {
    const s = await aFinalSession();
    const moves: [string, string][] = [
      ["pending", "succeeded"],
      ["pending", "failed"],
      ["unknown", "succeeded"],
      ["unknown", "failed"],
    ];
    for (const [i, [from, to]] of moves.entries()) {
      const first = await s.report("authorization", `auth-${i}`, from, 350);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        duplicate: false,
        report: { outcome: from, actor_id: expect.any(String), received_at: expect.any(String) },
        operation: { outcome: from },
      });
      const next = await s.report("authorization", `auth-${i}`, to, 350);
      expect(next.body).toMatchObject({ duplicate: false, operation: { outcome: to } });
    }
    // a first report may already be terminal
    expect((await s.report("authorization", "auth-direct", "failed", 350)).status).toBe(200);
  });

  it("terminal outcomes and their amounts never change; a delayed duplicate returns the historical report", async () => {
    const s = await aFinalSession();
    const pending = await s.report("capture", "cap-1", "pending", 300);
    const succeeded = await s.report("capture", "cap-1", "succeeded", 300);
    expect(succeeded.body.operation).toMatchObject({ outcome: "succeeded", amount_minor: 300 });
    for (const outcome of ["failed", "pending", "unknown"]) {
      const res = await s.report("capture", "cap-1", outcome, 300);
      if (outcome === "pending") {
        // the delayed duplicate of the first report: the historical report, state unchanged
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          duplicate: true,
          report: pending.body.report,
          operation: { outcome: "succeeded", amount_minor: 300 },
        });
        continue;
      }
      expect(res.status, outcome).toBe(409);
      expect(res.body.error).toMatchObject({
        code: "settlement_outcome_final",
        details: { operation: { outcome: "succeeded" } },
      });
    }
    const otherAmount = await s.report("capture", "cap-1", "succeeded", 200);
    expect(otherAmount.status).toBe(409);
    expect(otherAmount.body.error.code).toBe("settlement_report_conflict");
    const failed = await s.report("release", "rel-1", "failed", 0);
    expect(failed.status).toBe(200);
    expect((await s.report("release", "rel-1", "succeeded", 0)).body.error.code).toBe(
      "settlement_outcome_final",
    );
    expect((await s.reports()).map((r) => `${r.operation_reference}:${r.outcome}`)).toEqual([
      "cap-1:pending",
      "cap-1:succeeded",
      "rel-1:failed",
    ]);
  });

  it("deduplicates the same operation and outcome across keys, also at the same instant", async () => {
    const s = await aFinalSession();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => s.report("authorization", "auth-1", "succeeded", 350)),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => !a.body.duplicate)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.report.id)).size).toBe(1);
    expect(await s.reports()).toHaveLength(1);
    // the same key and body replays the first answer
    const key = idem();
    const a = await s.report("capture", "cap-9", "pending", 100, key);
    const b = await s.report("capture", "cap-9", "pending", 100, key);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.report.id).toBe(a.body.report.id);
  });
});

describe("money rules (rule 5, section 7)", () => {
  it("captures cannot exceed the bill; refunds need a capture and cannot exceed captures", async () => {
    const s = await aFinalSession();
    const refundFirst = await s.report("refund", "ref-0", "succeeded", 10);
    expect(refundFirst.status).toBe(409);
    expect(refundFirst.body.error.code).toBe("settlement_capture_missing");
    expect((await s.report("capture", "cap-1", "succeeded", 351)).body.error.code).toBe(
      "capture_exceeds_bill",
    );
    expect((await s.report("capture", "cap-1", "pending", 300)).status).toBe(200);
    // a pending capture is not collected yet: still no refund
    expect((await s.report("refund", "ref-1", "pending", 10)).body.error.code).toBe(
      "settlement_capture_missing",
    );
    // captures in play (300 pending) plus 100 would exceed 350
    expect((await s.report("capture", "cap-2", "succeeded", 100)).body.error.code).toBe(
      "capture_exceeds_bill",
    );
    expect((await s.report("capture", "cap-1", "succeeded", 300)).status).toBe(200);
    expect((await s.report("capture", "cap-2", "failed", 100)).status).toBe(200);
    expect((await s.report("capture", "cap-3", "succeeded", 50)).status).toBe(200);
    expect((await s.report("refund", "ref-1", "succeeded", 351)).body.error.code).toBe(
      "refund_exceeds_captures",
    );
    const refund = await s.report("refund", "ref-1", "succeeded", 100);
    expect(refund.body.session).toMatchObject({
      total_minor: 350,
      captured_minor: 350,
      refunded_minor: 100,
      uncollected_minor: 0,
      net_minor: 250,
    });
    expect((await s.report("refund", "ref-2", "pending", 251)).body.error.code).toBe(
      "refund_exceeds_captures",
    );
  });

  it("a capture before the bill is final is 409 session_not_final; authorization may come first", async () => {
    const p = await aSessionProject();
    const s = await aSession(p.tenantId, p.key, { ...p.base, source: "simulated" });
    const body = (kind: string, amount_minor: number) => ({
      kind,
      operation_reference: `${kind}-1`,
      outcome: "succeeded",
      amount_minor,
      currency: "USD",
    });
    const auth = await sessionVerb(
      p.tenantId,
      p.key,
      s.id,
      "settlement-reports",
      body("authorization", 5000),
    );
    expect(auth.status).toBe(200);
    expect(auth.body.session).toMatchObject({ total_minor: null, uncollected_minor: null });
    const cap = await sessionVerb(
      p.tenantId,
      p.key,
      s.id,
      "settlement-reports",
      body("capture", 1),
    );
    expect(cap.status).toBe(409);
    expect(cap.body.error.code).toBe("session_not_final");
  });

  it("refuses other currencies, a nonzero release, and callers without settlement:write", async () => {
    const s = await aFinalSession();
    const post = (body: Record<string, unknown>, key = s.key) =>
      sessionVerb(s.tenantId, key, s.session.id, "settlement-reports", body);
    const ok = {
      kind: "release",
      operation_reference: "rel-1",
      outcome: "succeeded",
      amount_minor: 0,
      currency: "USD",
    };
    for (const body of [
      { ...ok, currency: "EUR" },
      { ...ok, amount_minor: 5 },
      { ...ok, kind: "payout" },
      { ...ok, outcome: "done" },
      { ...ok, amount_minor: -1 },
      { ...ok, operation_reference: "" },
    ]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const reader = await anotherKey(s.tenantId, ["billing:read", "billing:write"]);
    expect((await post(ok, reader)).status).toBe(403);
    expect((await post(ok)).status).toBe(200);
  });
});

describe("reports are assertions only (rule 8)", () => {
  it("never change the bill or any payment, and the database refuses rewriting one", async () => {
    const s = await aFinalSession();
    const before = await db().bill.findUniqueOrThrow({ where: { id: s.session.bill_id } });
    await s.report("capture", "cap-1", "succeeded", 350);
    await s.report("refund", "ref-1", "succeeded", 350);
    const after = await db().bill.findUniqueOrThrow({ where: { id: s.session.bill_id } });
    expect(after).toEqual(before);
    expect(await db().payment.count({ where: { tenantId: s.tenantId } })).toBe(0);
    const [report] = await db().settlementReport.findMany({ where: { sessionId: s.session.id } });
    await expect(
      db().settlementReport.update({ where: { id: report!.id }, data: { amountMinor: 1 } }),
    ).rejects.toThrow(/never changes/);
  });
});

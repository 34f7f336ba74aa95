import { describe, expect, it } from "vitest";
import { db } from "../db";
import { aBill, chargingTokenOf, finalize } from "../../testing/bills";
import { aPaymentsProject, authorize } from "../../testing/payments";

// The 409s and 422s of spec section 4, "Managed paid charging (rules)", that no other test file
// reached (the rest are in server/bills/bills.test.ts, ocpp/bills.test.ts, payments.test.ts,
// card-journal.test.ts, incomplete-authorization.test.ts and ocpp/payments-flow.test.ts).
// Transactions are written as rows here: what is under test is the finalize's verification of
// them, not how a charger reports them (ocpp/bills.test.ts covers that with real chargers).

const minutes = (n: number) => new Date(Date.UTC(2026, 10, 22, 12, n));

describe("rule 5: finalizing a csms bill", () => {
  it("takes its transaction_id and nothing a simulated bill takes (422, naming the fields)", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "csms" });
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ["transaction_id"]],
      [{ energy_wh: 1000 }, ["transaction_id", "energy_wh"]],
      [{ transaction_id: 1, energy_wh: 1000 }, ["energy_wh"]],
      [{ transaction_id: 1, duration_seconds: 60 }, ["duration_seconds"]],
    ];
    for (const [body, fields] of cases) {
      const res = await finalize(p.tenantId, p.key, bill.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(
        (res.body.error.details.fields as { field: string }[]).map((f) => f.field),
        JSON.stringify(body),
      ).toEqual(fields);
    }
    const read = await db().bill.findUniqueOrThrow({ where: { id: bill.id } });
    expect(read.status).toBe("open");
  });

  it("verifies the tenant: another project's transaction on its own station reads as unknown (409)", async () => {
    const p = await aPaymentsProject();
    const other = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "csms" });
    const foreign = await db().transaction.create({
      data: {
        tenantId: other.tenantId,
        stationId: other.station.id,
        connectorId: other.base.connector_id,
        reference: "other-project",
        idToken: await chargingTokenOf(bill.id),
        startedAt: minutes(0),
        endedAt: minutes(30),
      },
    });
    const res = await finalize(p.tenantId, p.key, bill.id, { transaction_id: foreign.id });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: "transaction_mismatch",
      details: { reason: "unknown_transaction", transaction_id: foreign.id },
    });
  });

  it("refuses a transaction that ends before it starts (409 transaction_times_invalid)", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "csms" });
    const backwards = await db().transaction.create({
      data: {
        tenantId: p.tenantId,
        stationId: p.station.id,
        connectorId: p.base.connector_id,
        reference: "clock-went-back",
        idToken: await chargingTokenOf(bill.id),
        startedAt: minutes(30),
        endedAt: minutes(0),
      },
    });
    const res = await finalize(p.tenantId, p.key, bill.id, { transaction_id: backwards.id });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: "transaction_times_invalid",
      details: { reason: "end_before_start", transaction_id: backwards.id },
    });
    expect((await db().bill.findUniqueOrThrow({ where: { id: bill.id } })).status).toBe("open");
  });
});

describe("rule 2: authorizing", () => {
  it("refuses a bill settled outside the managed flow (409 bill_externally_settled)", async () => {
    const p = await aPaymentsProject();
    const bill = await aBill(p.tenantId, p.key, { ...p.base, source: "simulated" });
    // External charging sessions own their settlement; no /v1 route makes one of these yet.
    await db().bill.update({ where: { id: bill.id }, data: { settlementOwner: "external" } });
    const res = await authorize(p, { bill_id: bill.id, service: "simulator" });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("bill_externally_settled");
    expect(await db().payment.count({ where: { billId: bill.id } })).toBe(0);
  });
});

import { db } from "../server/db";
import { newId } from "../server/lib/ids";
import { call, idem } from "./api";

/** A tariff of the tenant's, made through /v1. */
export async function aTariff(tenantId: number, key: string, body: Record<string, unknown>) {
  const res = await call("POST", `/v1/tenants/${tenantId}/tariffs`, { key, body });
  if (res.status !== 201) throw new Error(`tariff create failed: ${JSON.stringify(res.body)}`);
  return res.body as { id: number; version: number };
}

/** Creates a bill through /v1 and returns the answer (status and body). */
export function createBill(tenantId: number, key: string, body: Record<string, unknown>) {
  return call("POST", `/v1/tenants/${tenantId}/bills`, { key, body, idempotencyKey: idem() });
}

/** A bill made through /v1; throws unless it was created. */
export async function aBill(tenantId: number, key: string, body: Record<string, unknown>) {
  const res = await createBill(tenantId, key, body);
  if (res.status !== 201) throw new Error(`bill create failed: ${JSON.stringify(res.body)}`);
  return res.body as { id: string; hold_minor: number; status: string };
}

/**
 * An authorized card payment for a bill, written straight into `payments`: the payments service
 * (authorize, hosted checkout, the processor's confirmation) is built on bills and does not exist
 * yet, so tests that start a csms bill put the hold in place themselves. Replace with the
 * payments flow once it exists.
 */
export async function anAuthorizedPayment(billId: string) {
  const bill = await db().bill.findUniqueOrThrow({ where: { id: billId } });
  return db().payment.create({
    data: {
      id: newId("pay"),
      tenantId: bill.tenantId,
      billId,
      service: "card",
      status: "authorized",
      amountMinor: bill.holdMinor,
      authorizedAt: new Date(),
      expiresAt: new Date(Date.now() + 7 * 86_400_000),
      createdBy: "test",
    },
  });
}

/** The bill's charging token, read from the database (no API shows it). */
export async function chargingTokenOf(billId: string) {
  return (await db().bill.findUniqueOrThrow({ where: { id: billId } })).chargingToken;
}

export const finalize = (tenantId: number, key: string, billId: string, body: unknown) =>
  call("POST", `/v1/tenants/${tenantId}/bills/${billId}/finalize`, {
    key,
    body,
    idempotencyKey: idem(),
  });

export const startBill = (tenantId: number, key: string, billId: string, idempotencyKey = idem()) =>
  call("POST", `/v1/tenants/${tenantId}/bills/${billId}/start`, { key, idempotencyKey });

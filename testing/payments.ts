import { db } from "../server/db";
import { aBill, aTariff, finalize } from "./bills";
import { call, idem } from "./api";
import { aStation, aTenantWithKey } from "./builders";
import { simulatorProcessor } from "../server/payments/processors";
import { createStripeProcessor } from "../server/payments/processors/stripe";
import type { StripeFake } from "./stripe-fake";
import type { PaymentResource } from "../server/payments/payment-schema";

/** A project with a station (2 connectors) and a 35 c/kWh tariff; `base` is a bill's body. */
export async function aPaymentsProject() {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 2 });
  const tariff = await aTariff(t.tenantId, t.key, { rate_minor_per_kwh: 35 });
  const base = {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
  };
  return { ...t, station, tariff, base };
}
export type PaymentsProject = Awaited<ReturnType<typeof aPaymentsProject>>;

export const authorize = (
  p: { tenantId: number; key: string },
  body: Record<string, unknown>,
  idempotencyKey = idem(),
) => call("POST", `/v1/tenants/${p.tenantId}/payments`, { key: p.key, body, idempotencyKey });

export const paymentAction = (
  p: { tenantId: number; key: string },
  paymentId: string,
  action: "capture" | "release" | "refund",
  idempotencyKey = idem(),
) =>
  call("POST", `/v1/tenants/${p.tenantId}/payments/${paymentId}/${action}`, {
    key: p.key,
    idempotencyKey,
  });

export const readPayment = (p: { tenantId: number; key: string }, paymentId: string) =>
  call("GET", `/v1/tenants/${p.tenantId}/payments/${paymentId}`, { key: p.key });

/** The simulator checkout token at the end of a payment's redirect URL. */
export function checkoutTokenOf(payment: { next_action: { type: string; url?: string } | null }) {
  const url = payment.next_action?.url;
  if (!url) throw new Error(`no redirect: ${JSON.stringify(payment.next_action)}`);
  return url.split("/").pop()!;
}

/** A simulated bill with an authorized simulator payment (the payer approved the checkout). */
export async function anAuthorizedSimulatedPayment(p: PaymentsProject, holdMinor = 5000) {
  const bill = await aBill(p.tenantId, p.key, {
    ...p.base,
    source: "simulated",
    hold_minor: holdMinor,
  });
  const res = await authorize(p, { bill_id: bill.id, service: "simulator" });
  if (res.status !== 201) throw new Error(`authorize failed: ${JSON.stringify(res.body)}`);
  const created = res.body as PaymentResource;
  await simulatorProcessor().approveCheckout(checkoutTokenOf(created));
  const payment = (await readPayment(p, created.id)).body as PaymentResource;
  if (payment.status !== "authorized") throw new Error(`not authorized: ${payment.status}`);
  return { bill, payment };
}

export const finalizeSimulated = (p: PaymentsProject, billId: string, energyWh: number) =>
  finalize(p.tenantId, p.key, billId, { energy_wh: energyWh });

/**
 * The `card` processor over the local Stripe fake, as configuration would build it (the fake's
 * Connect client id included); `timeoutMs` is each request's timeout (default 5 s).
 */
export const cardOverFake = (fake: StripeFake, options: { timeoutMs?: number } = {}) =>
  createStripeProcessor({
    secretKey: fake.secretKey,
    connectWebhookSecret: fake.webhookSecret,
    connectClientId: fake.clientId,
    apiUrl: fake.url,
    timeoutMs: options.timeoutMs ?? 5_000,
  });

/**
 * A connected Stripe account at the fake that can take charges, recorded as the project's
 * payment account (the payment-account routes write that row; payments only read it).
 */
export async function aConnectedAccount(
  fake: StripeFake,
  tenantId: number,
  state: { status?: string; chargesEnabled?: boolean } = {},
) {
  const { accountRef } = await cardOverFake(fake).createAccount({
    idempotencyKey: idem(),
    country: "US",
  });
  fake.updateAccount(accountRef, {
    chargesEnabled: true,
    detailsSubmitted: true,
    requirementsDue: [],
  });
  await db().paymentAccount.create({
    data: {
      tenantId,
      accountRef,
      status: state.status ?? "active",
      chargesEnabled: state.chargesEnabled ?? true,
      detailsSubmitted: true,
    },
  });
  return accountRef;
}

/** Event types of the tenant's log, in order. */
export async function eventTypes(tenantId: number, prefix = "payment.") {
  const events = await db().event.findMany({
    where: { tenantId, type: { startsWith: prefix } },
    orderBy: { sequence: "asc" },
  });
  return events.map((e) => e.type);
}

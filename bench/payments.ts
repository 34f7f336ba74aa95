/**
 * Payments: (1) simulated bills created, authorized with the `simulator`, approved on its hosted
 * checkout, finalized and captured, per second, through the real /v1 router in-process (routes,
 * idempotency records, the journal and its jobs on the fast path, PostgreSQL); (2) p50/p99 of
 * authorize and capture with `card` over the real `stripe` SDK against the local Stripe fake
 * (testing/stripe-fake.ts), so the figures are our side plus a loopback HTTP round trip,
 * not Stripe's own latency.
 *
 *   npx tsx bench/payments.ts   env BENCH_PAYMENTS (default 200), BENCH_CONCURRENCY (default 8)
 *
 * Writes bench/results/payments.json.
 */
import os from "node:os";
import {
  aBenchStation,
  inProcessV1,
  latency as summary,
  machine,
  round2 as round,
  scratchDatabase,
  writeResult,
} from "./harness";

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

const database = await scratchDatabase("payments", { LOG_LEVEL: "error" });
const { db, closeDb } = await import("../server/db");
const { createApiKey } = await import("../server/keys/create-api-key");
const { handleV1 } = await import("../server/http/routes");
const v1 = inProcessV1(handleV1);
const { simulatorProcessor, usePaymentProcessors } = await import("../server/payments/processors");
const { createStripeProcessor } = await import("../server/payments/processors/stripe");
const { startStripeFake } = await import("../testing/stripe-fake");

const fake = await startStripeFake();
const loadAtStart = os.loadavg();
try {
  usePaymentProcessors({
    card: createStripeProcessor({
      secretKey: fake.secretKey,
      connectWebhookSecret: fake.webhookSecret,
      apiUrl: fake.url,
      timeoutMs: 10_000,
    }),
  });
  const owner = await db().user.create({ data: { email: "bench@example.com" } });
  const team = await db().team.create({
    data: { name: "Bench", members: { create: { userId: owner.id, role: "owner" } } },
  });
  const tenant = await db().tenant.create({ data: { teamId: team.id, name: "Payments" } });
  const { secret: key, id: keyId } = await createApiKey({
    tenantId: tenant.id,
    ownerUserId: owner.id,
    scopes: ["stations:write", "stations:read", "billing:write", "billing:read"],
  });
  await db().apiKey.update({ where: { id: keyId }, data: { rateLimitPerMinute: 100_000 } });
  const account = await createStripeProcessor({
    secretKey: fake.secretKey,
    connectWebhookSecret: null,
    apiUrl: fake.url,
  }).createAccount({ idempotencyKey: "bench-account", country: "US" });
  fake.updateAccount(account.accountRef, { chargesEnabled: true, detailsSubmitted: true });
  await db().paymentAccount.create({
    data: {
      tenantId: tenant.id,
      accountRef: account.accountRef,
      status: "active",
      chargesEnabled: true,
    },
  });
  const t = `/v1/tenants/${tenant.id}`;
  const station = await aBenchStation(v1, key, t, "BENCH-PAY");
  const tariff = (await v1(key, "POST", `${t}/tariffs`, { rate_minor_per_kwh: 35 })).json;

  const timings = { authorize: [] as number[], capture: [] as number[] };
  let next = 0;
  let until = 0;
  const oneBill = async (service: "simulator" | "card") => {
    const bill = await v1(key, "POST", `${t}/bills`, {
      station_id: station.id,
      connector_id: station.connectors[0]!.id,
      tariff_id: tariff.id,
      source: "simulated",
    });
    const billId = String(bill.json.id);
    const payment = await v1(key, "POST", `${t}/payments`, { bill_id: billId, service });
    timings.authorize.push(payment.ms);
    const paymentId = String(payment.json.id);
    if (service === "simulator") {
      const url = (payment.json.next_action as { url: string }).url;
      await simulatorProcessor().approveCheckout(url.split("/").pop()!);
    } else {
      const row = await db().payment.findUniqueOrThrow({ where: { id: paymentId } });
      fake.completeCheckout(row.processorCheckoutRef!, "success");
    }
    const read = await v1(key, "GET", `${t}/payments/${paymentId}`);
    if (read.json.status !== "authorized")
      throw new Error(`not authorized: ${String(read.json.status)}`);
    await v1(key, "POST", `${t}/bills/${billId}/finalize`, { energy_wh: 1000 + next });
    const captured = await v1(key, "POST", `${t}/payments/${paymentId}/capture`);
    if (captured.json.status !== "captured")
      throw new Error(`not captured: ${String(captured.json.status)}`);
    timings.capture.push(captured.ms);
  };
  const run = async (service: "simulator" | "card", count: number) => {
    [next, until] = [0, 2 * CONCURRENCY]; // warm-up
    const worker = async () => {
      while (next < until) {
        next += 1;
        await oneBill(service);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    [timings.authorize, timings.capture, next, until] = [[], [], 0, count];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - t0) / 1000;
    return {
      bills: count,
      concurrency: CONCURRENCY,
      seconds: round(seconds),
      bills_captured_per_second: round(count / seconds),
      authorize: summary(timings.authorize),
      capture: summary(timings.capture),
    };
  };
  const simulator = await run("simulator", PAYMENTS);
  console.log(
    `simulator: ${simulator.bills_captured_per_second} bills/s created, authorized, approved, finalized and captured; ` +
      `authorize p50 ${simulator.authorize.p50_ms} ms p99 ${simulator.authorize.p99_ms} ms; ` +
      `capture p50 ${simulator.capture.p50_ms} ms p99 ${simulator.capture.p99_ms} ms`,
  );
  const card = await run("card", Math.max(CONCURRENCY, Math.floor(PAYMENTS / 2)));
  console.log(
    `card over the local Stripe fake: ${card.bills_captured_per_second} bills/s; ` +
      `authorize p50 ${card.authorize.p50_ms} ms p99 ${card.authorize.p99_ms} ms; ` +
      `capture p50 ${card.capture.p50_ms} ms p99 ${card.capture.p99_ms} ms`,
  );
  const report = {
    benchmark:
      "payments: simulated bills created, authorized, finalized and captured per second; authorize and capture latency",
    measured_at: new Date().toISOString(),
    machine: machine(loadAtStart),
    note: "each bill: create, authorize (the journal's job on the fast path), approve at the processor, GET (reconciling read), finalize, capture; in-process /v1 router",
    simulator,
    card_over_local_fake: card,
  };
  writeResult("payments", report);
} finally {
  await fake.close();
  await closeDb();
  await database.stop();
}

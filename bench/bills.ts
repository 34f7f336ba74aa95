/**
 * Bills: (1) simulated bills created and finalized per second, through the real /v1 router
 * in-process (the same routes, idempotency records, services and PostgreSQL as the web process,
 * without the Next.js front); (2) what live pricing adds to a MeterValues message of a 24-hour
 * session (1,440 readings) on the complex tariff of bench/pricing.ts: the same charger
 * transaction (station lock, the sample, `transactionUpdated`) with and without a charging bill.
 *
 *   npx tsx bench/bills.ts     env BENCH_BILLS (default 400), BENCH_CONCURRENCY (default 8),
 *                              BENCH_READINGS (default 60: MeterValues timed each way)
 *
 * Writes bench/results/bills.json.
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
import { complexTariffInput, daySession } from "./day-session";

const BILLS = Number(process.env.BENCH_BILLS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const READINGS = Number(process.env.BENCH_READINGS ?? 60);

const database = await scratchDatabase("bills");
await import("../server/domains"); // every domain's operation kinds and charger-transaction hooks
const { db, closeDb } = await import("../server/db");
const { inTransaction } = await import("../server/db/retry");
const { lockStation } = await import("../server/db/locks");
const { createApiKey } = await import("../server/keys/create-api-key");
const { handleV1 } = await import("../server/http/routes");
const v1 = inProcessV1(handleV1);
const { transactionUpdated } = await import("../server/charger-reports/transaction-updated");
const { billTariff, priceBillSession } = await import("../server/bills/price-bill");
const { transactionSession } = await import("../server/bills/transaction-session");

const loadAtStart = os.loadavg();
try {
  const owner = await db().user.create({ data: { email: "bench@example.com" } });
  const team = await db().team.create({
    data: { name: "Bench", members: { create: { userId: owner.id, role: "owner" } } },
  });
  const tenant = await db().tenant.create({ data: { teamId: team.id, name: "Bills" } });
  const { secret: key, id: keyId } = await createApiKey({
    tenantId: tenant.id,
    ownerUserId: owner.id,
    scopes: ["stations:write", "stations:read", "billing:write", "billing:read"],
  });
  await db().apiKey.update({ where: { id: keyId }, data: { rateLimitPerMinute: 1200 } });
  const t = `/v1/tenants/${tenant.id}`;
  const station = await aBenchStation(v1, key, t, "BENCH-BILLS");
  const simple = (await v1(key, "POST", `${t}/tariffs`, { rate_minor_per_kwh: 35 })).json;

  // (1) simulated bills: create, then finalize, BILLS of them on CONCURRENCY workers
  let created: number[] = [];
  let finalized: number[] = [];
  let next = 0;
  let until = 0;
  const worker = async () => {
    while (next < until) {
      next += 1;
      const bill = await v1(key, "POST", `${t}/bills`, {
        station_id: station.id,
        connector_id: station.connectors[0]!.id,
        tariff_id: simple.id,
        source: "simulated",
      });
      created.push(bill.ms);
      const final = await v1(key, "POST", `${t}/bills/${String(bill.json.id)}/finalize`, {
        energy_wh: 1000 + next,
      });
      finalized.push(final.ms);
      // Capture joins here once the payments service exists: authorize with `simulator`, approve
      // the hosted checkout, then capture the final amount (its p50/p99 beside these).
    }
  };
  until = 2 * CONCURRENCY; // warm-up: JIT, pools, the tariff version cache
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  [created, finalized, next, until] = [[], [], 0, BILLS];
  await db().rateLimitWindow.deleteMany();
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  const simulated = {
    bills: BILLS,
    concurrency: CONCURRENCY,
    seconds: round(seconds),
    bills_per_second: round(BILLS / seconds),
    create: summary(created),
    finalize: summary(finalized),
    capture: null,
  };
  console.log(
    `simulated bills: ${simulated.bills_per_second}/s created and finalized (${BILLS} at ` +
      `concurrency ${CONCURRENCY}); create p50 ${simulated.create.p50_ms} ms p99 ` +
      `${simulated.create.p99_ms} ms; finalize p50 ${simulated.finalize.p50_ms} ms p99 ` +
      `${simulated.finalize.p99_ms} ms`,
  );

  // (2) live pricing: two transactions of 24 h of 1-minute readings on the complex tariff, one
  // matched to a charging bill; time one more MeterValues on each, alternately
  const complex = (await v1(key, "POST", `${t}/tariffs`, complexTariffInput)).json;
  const session = daySession();
  const start = new Date(session.started_at!);
  const charger = { stationId: station.id, tenantId: tenant.id, protocol: "ocpp1.6" };
  const aTransaction = async (reference: string) => {
    const transaction = await db().transaction.create({
      data: {
        tenantId: tenant.id,
        stationId: station.id,
        connectorId: station.connectors[0]!.id,
        reference,
        idToken: "BENCH",
        startedAt: start,
        meterStartWh: 0n,
      },
    });
    await db().meterSample.createMany({
      data: session.readings.map((r) => ({
        tenantId: tenant.id,
        transactionId: transaction.id,
        sampledAt: new Date(r.at),
        energyWh: BigInt(r.energy_wh),
        currentA: String(r.current_a),
      })),
    });
    return transaction;
  };
  const billed = await aTransaction("with-bill");
  await aTransaction("without-bill");
  const bill = (
    await v1(key, "POST", `${t}/bills`, {
      station_id: station.id,
      connector_id: station.connectors[0]!.id,
      tariff_id: complex.id,
      source: "csms",
      hold_minor: 10_000,
    })
  ).json;
  // charging, matched; its one stop already sent (this 24 h session costs more than the hold)
  await db().bill.update({
    where: { id: String(bill.id) },
    data: { status: "charging", transactionId: billed.id, stopOperationId: "op_bench" },
  });
  const last = session.readings.at(-1)!;
  const meterValues = async (reference: string, minute: number) => {
    const t0 = performance.now();
    await inTransaction(db(), async (tx) => {
      await lockStation(tx, station.id);
      await transactionUpdated(tx, charger, {
        transaction: { reference },
        meterValues: [
          {
            timestamp: new Date(start.getTime() + minute * 60_000).toISOString(),
            sampledValue: [
              {
                value: String(last.energy_wh + minute),
                measurand: "Energy.Active.Import.Register",
              },
            ],
          },
        ],
      });
    });
    return performance.now() - t0;
  };
  const withBill: number[] = [];
  const withoutBill: number[] = [];
  for (let i = 0; i < 5; i++) {
    await meterValues("with-bill", 1441 + i); // warm-up: JIT, the tariff version cache
    await meterValues("without-bill", 1441 + i);
  }
  for (let i = 5; i < READINGS + 5; i++) {
    withBill.push(await meterValues("with-bill", 1441 + i));
    withoutBill.push(await meterValues("without-bill", 1441 + i));
  }
  const row = await db().bill.findUniqueOrThrow({ where: { id: String(bill.id) } });
  const engine: number[] = [];
  const loads: number[] = [];
  const snapshot = await billTariff(db(), row);
  for (let i = 0; i < READINGS; i++) {
    const t0 = performance.now();
    const input = await transactionSession(db(), billed);
    const t1 = performance.now();
    priceBillSession(row, snapshot, input);
    loads.push(t1 - t0);
    engine.push(performance.now() - t1);
  }
  const live = {
    readings_in_session: session.readings.length + READINGS + 5,
    meter_values_timed: READINGS,
    with_bill: summary(withBill),
    without_bill: summary(withoutBill),
    added_p50_ms: round(summary(withBill).p50_ms - summary(withoutBill).p50_ms),
    of_which_reading_samples: summary(loads),
    of_which_engine_and_adjustments: summary(engine),
    running_cost_minor: row.runningCostMinor,
  };
  console.log(
    `live pricing, 24 h session: MeterValues p50 ${live.with_bill.p50_ms} ms with a bill, ` +
      `${live.without_bill.p50_ms} ms without (+${live.added_p50_ms} ms; samples read ` +
      `${live.of_which_reading_samples.p50_ms} ms, engine ${live.of_which_engine_and_adjustments.p50_ms} ms)`,
  );

  const report = {
    benchmark: "bills: simulated bills per second; live pricing per MeterValues",
    measured_at: new Date().toISOString(),
    machine: machine(loadAtStart),
    simulated,
    live_pricing: live,
  };
  writeResult("bills", report);
} finally {
  await closeDb();
  await database.stop();
}

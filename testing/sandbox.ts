import { afterAll, beforeAll, expect } from "vitest";
import { createBill } from "../server/bills/create-bill";
import { startBill } from "../server/bills/start-bill";
import { db, type Db } from "../server/db";
import { inTransaction } from "../server/db/retry";
import { DomainError } from "../server/errors";
import { newId, randomBase62 } from "../server/lib/ids";
import { hashPassword } from "../server/lib/passwords";
import { configuredVerifierKey, stationVerifier } from "../server/lib/password-verifier";
import { seal } from "../server/lib/secret-box";
import { createLocation } from "../server/locations/create-location";
import { createCommand } from "../server/operations/create-command";
import {
  registerSandboxChargerHooks,
  unregisterSandboxChargerHooks,
  type SandboxChargerHooks,
} from "../server/sandbox/charger-hooks";
import { registerStation } from "../server/stations/register-station";
import { createTariff } from "../server/tariffs/manage-tariffs";
import { LATEST_VERSION } from "../server/versions";
import { SANDBOX_STATIONS, SANDBOX_TARIFF } from "../server/sandbox/provision";
import { waitUntil } from "./ocpp";
import { processorEventJob } from "../server/payments/processor-event-job";
import { paymentAttemptJob } from "../server/payments/payment-attempt-job";
import { sandboxSessionJobDefinition } from "../server/sandbox/session-job";
import { call, idem } from "./api";
import { aUser, type TestUser } from "./users";

/**
 * Two halves. Rows without the API side (`aSandbox`, `aSandboxSession`, `advance`, `stopSession`):
 * exactly what the API side writes (server/sandbox/README.md, The contract), with station shapes a
 * test may choose, so the virtual-charger host (ocpp/sandbox) is tested alone. Through /v1
 * (`aWorkspace`, `sandbox`, `startSession`, `sessionUntil`): what a developer does.
 */

export type SandboxStationSpec = {
  suffix: string;
  connectors: number;
  protocol: string;
  nominalPowerW: number;
};

export { SANDBOX_STATIONS, SANDBOX_TARIFF };

export type SandboxStation = {
  id: number;
  name: string;
  protocol: string;
  password: string;
  nominalPowerW: number;
  connectors: { id: number; connectorNumber: number; evseNumber: number }[];
};

let n = 0;

/**
 * A workspace (team and owner) with its sandbox tenant (`kind = 'sandbox'`), a location, the three
 * sandbox stations with generated passwords (scrypt hash and keyed verifier on the station, sealed
 * in its `sandbox_chargers` row) and the default tariff.
 */
export async function aSandbox(stations: readonly SandboxStationSpec[] = SANDBOX_STATIONS) {
  n += 1;
  const stamp = `${process.pid}-${n}-${Date.now()}`;
  const owner = await db().user.create({ data: { email: `sbx-${stamp}@example.test` } });
  const team = await db().team.create({
    data: { name: `Workspace ${stamp}`, members: { create: { userId: owner.id, role: "owner" } } },
  });
  const tenant = await db().tenant.create({
    data: { teamId: team.id, name: "Sandbox", kind: "sandbox" },
  });
  const location = await createLocation({
    tenantId: tenant.id,
    input: {
      name: "Sandbox depot",
      address: {
        street: "1 Sandbox Way",
        city: "Springfield",
        postal_code: "12345",
        country: "US",
      },
      coordinates: { latitude: 40.7128, longitude: -74.006 },
      time_zone: "America/New_York",
    },
  });
  const tariff = await createTariff({
    tenantId: tenant.id,
    body: SANDBOX_TARIFF,
    version: LATEST_VERSION,
  });
  const made: SandboxStation[] = [];
  for (const spec of stations) {
    const password = randomBase62(32);
    const hash = await hashPassword(password);
    const station = await registerStation({
      tenantId: tenant.id,
      input: {
        name: `sbx-${team.id}-${spec.suffix}`,
        location_id: location.id,
        connector_count: spec.connectors,
      },
    });
    const key = configuredVerifierKey();
    await db().station.update({
      where: { id: station.id },
      data: {
        passwordHash: hash,
        passwordVerifier: key
          ? stationVerifier(key, station.id, hash, Buffer.from(password))
          : null,
        protocol: spec.protocol,
      },
    });
    await db().sandboxCharger.create({
      data: {
        stationId: station.id,
        tenantId: tenant.id,
        passwordSealed: seal(password),
        nominalPowerW: spec.nominalPowerW,
        protocol: spec.protocol,
      },
    });
    const connectors = await db().connector.findMany({
      where: { stationId: station.id },
      include: { evse: true },
      orderBy: { connectorNumber: "asc" },
    });
    made.push({
      id: station.id,
      name: station.name,
      protocol: spec.protocol,
      password,
      nominalPowerW: spec.nominalPowerW,
      connectors: connectors.map((k) => ({
        id: k.id,
        connectorNumber: k.connectorNumber,
        evseNumber: k.evse.evseNumber,
      })),
    });
  }
  return { teamId: team.id, tenantId: tenant.id, tariffId: tariff.id, stations: made };
}
export type Sandbox = Awaited<ReturnType<typeof aSandbox>>;

export type SandboxSessionRow = {
  id: string;
  tenantId: number;
  stationId: number;
  connectorId: number;
  billId: string;
};

/**
 * A sandbox session as the API side opens one: its bill (csms, on the sandbox tenant) with an
 * authorized payment, the session row `starting` holding the connector, the charger no longer
 * idle, and `NOTIFY sandbox, '<station id>'` so a host claims and connects the charger. The bill
 * is started by the ready hook (`useSandboxStarts`) once the charger is connected.
 *
 * The payment is written as an authorized simulator hold (a sandbox's bills are funded by the
 * simulator and only by it: server/bills/funding.ts).
 */
export async function aSandboxSession(
  sandbox: Sandbox,
  station: SandboxStation,
  connector = station.connectors[0]!,
  options: { holdMinor?: number } = {},
): Promise<SandboxSessionRow> {
  const id = `sbs_${Date.now().toString(36).padStart(9, "0")}${randomBase62(14)}`;
  const bill = await inTransaction(db(), async (tx) => {
    const created = await createBill({
      tenantId: sandbox.tenantId,
      actorId: "test",
      input: {
        station_id: station.id,
        connector_id: connector.id,
        tariff_id: sandbox.tariffId,
        source: "csms",
        hold_minor: options.holdMinor ?? 10_000,
      },
      db: tx,
    });
    await tx.payment.create({
      data: {
        id: newId("pay"),
        tenantId: sandbox.tenantId,
        billId: created.id,
        service: "simulator",
        status: "authorized",
        amountMinor: created.hold_minor,
        authorizedAt: new Date(),
        expiresAt: new Date(Date.now() + 7 * 86_400_000),
        createdBy: "test",
      },
    });
    const tariff = await tx.tariff.findUniqueOrThrow({ where: { id: sandbox.tariffId } });
    await tx.sandboxSession.create({
      data: {
        id,
        tenantId: sandbox.tenantId,
        teamId: sandbox.teamId,
        stationId: station.id,
        connectorId: connector.id,
        tariffId: sandbox.tariffId,
        tariffVersion: tariff.currentVersion,
        billId: created.id,
        status: "starting",
        openConnectorId: connector.id,
        createdBy: "test",
      },
    });
    await tx.$executeRaw`UPDATE sandbox_chargers SET idle_since = NULL WHERE station_id = ${station.id}`;
    await tx.$executeRaw`SELECT pg_notify('sandbox', ${String(station.id)})`;
    return created;
  });
  return {
    id,
    tenantId: sandbox.tenantId,
    stationId: station.id,
    connectorId: connector.id,
    billId: bill.id,
  };
}

/**
 * The ready hook the API side registers, as the tests need it: a `starting` session whose bill is
 * still `open` gets its bill started (`bill.start`: RequestStartTransaction or
 * RemoteStartTransaction with the bill's token to the virtual charger), and the session keeps the
 * operation's id. Idempotent: a bill no longer open is left alone.
 */
export const startSessionsWhenReady: SandboxChargerHooks = {
  onChargerReady: async (database: Db, { stationId, tenantId }) => {
    const waiting = await database.$queryRaw<{ id: string; bill_id: string }[]>`
      SELECT s.id, s.bill_id FROM sandbox_sessions s JOIN bills b ON b.id = s.bill_id
       WHERE s.station_id = ${stationId} AND s.status = 'starting'
         AND s.open_connector_id IS NOT NULL AND b.status = 'open'`;
    for (const session of waiting)
      await inTransaction(database, async (tx) => {
        const operation = await startBill({
          tenantId,
          billId: session.bill_id,
          apiKeyId: null,
          db: tx,
        });
        await tx.sandboxSession.update({
          where: { id: session.id },
          data: { startOperationId: operation.id },
        });
      }).catch((error: unknown) => {
        if (!(error instanceof DomainError && error.code === "bill_not_open")) throw error;
      });
  },
};

/** Registers `startSessionsWhenReady` for the test file (or `describe`). */
export function useSandboxStarts() {
  beforeAll(() => registerSandboxChargerHooks([startSessionsWhenReady]));
  afterAll(() => unregisterSandboxChargerHooks([startSessionsWhenReady]));
}

/**
 * One advance, exactly as the contract says the API side writes it, in one transaction under the
 * charger row's lock: the charger's register and clock move on, the `sandbox_advances` row (next
 * `seq`, the new register, `sampled_at` = now + the new clock offset, `pending`), the session's
 * `target_wh` and `elapsed_seconds`, and `NOTIFY sandbox, '<station id>'` (delivered at commit).
 * Without `elapsedSeconds` the virtual time is what the charger's nominal power takes.
 */
export async function advance(
  session: SandboxSessionRow,
  energyWh: number,
  options: { elapsedSeconds?: number; socPercent?: number } = {},
) {
  return inTransaction(db(), async (tx) => {
    const [charger] = await tx.$queryRaw<{ nominal_power_w: number }[]>`
      SELECT nominal_power_w FROM sandbox_chargers
       WHERE station_id = ${session.stationId} FOR UPDATE`;
    const elapsed =
      options.elapsedSeconds ??
      Math.max(1, Math.ceil((energyWh * 3600) / charger!.nominal_power_w));
    const [moved] = await tx.$queryRaw<{ register_wh: bigint; clock_offset_seconds: number }[]>`
      UPDATE sandbox_chargers
         SET register_wh = register_wh + ${energyWh},
             clock_offset_seconds = clock_offset_seconds + ${elapsed}
       WHERE station_id = ${session.stationId}
      RETURNING register_wh, clock_offset_seconds`;
    const [row] = await tx.$queryRaw<{ seq: number; sampled_at: Date }[]>`
      INSERT INTO sandbox_advances
             (session_id, seq, energy_wh, elapsed_seconds, soc_percent, register_wh, sampled_at)
      SELECT ${session.id}, COALESCE(max(seq), 0) + 1, ${energyWh}, ${elapsed},
             ${options.socPercent ?? null}::int, ${moved!.register_wh},
             now() + make_interval(secs => ${moved!.clock_offset_seconds})
        FROM sandbox_advances WHERE session_id = ${session.id}
      RETURNING seq, sampled_at`;
    await tx.$executeRaw`
      UPDATE sandbox_sessions
         SET target_wh = target_wh + ${energyWh}, elapsed_seconds = elapsed_seconds + ${elapsed}
       WHERE id = ${session.id}`;
    await tx.$executeRaw`SELECT pg_notify('sandbox', ${String(session.stationId)})`;
    return { seq: row!.seq, sampledAt: row!.sampled_at, elapsedSeconds: elapsed, energyWh };
  });
}

/**
 * The session's stop as the API side sends it: the production stop command for its transaction
 * (RequestStopTransaction / RemoteStopTransaction), written under the charger row's lock (so no
 * advance commits after it) with the operation's id kept on the session.
 */
export async function stopSession(session: SandboxSessionRow) {
  const transactionId = await transactionOf(session);
  if (transactionId === null) throw new Error("the session's transaction has not started");
  return inTransaction(db(), async (tx) => {
    await tx.$queryRaw`SELECT 1 FROM sandbox_chargers WHERE station_id = ${session.stationId} FOR UPDATE`;
    const operation = await createCommand({
      tenantId: session.tenantId,
      stationId: session.stationId,
      apiKeyId: null,
      command: { action: "stop", transaction_id: transactionId },
      db: tx,
    });
    await tx.sandboxSession.update({
      where: { id: session.id },
      data: { stopOperationId: operation.id },
    });
    return operation;
  });
}

/** The session is over as the API side ends it: the connector free, the charger idle from now. */
export async function settleSession(session: SandboxSessionRow) {
  await inTransaction(db(), async (tx) => {
    await tx.sandboxSession.update({
      where: { id: session.id },
      data: { status: "settled", openConnectorId: null, settledAt: new Date() },
    });
    await tx.$executeRaw`UPDATE sandbox_chargers SET idle_since = now() WHERE station_id = ${session.stationId}`;
    await tx.$executeRaw`SELECT pg_notify('sandbox', ${String(session.stationId)})`;
  });
}

/** The session's transaction, once the charger's start was recorded (the bill matched it). */
export async function transactionOf(session: SandboxSessionRow): Promise<number | null> {
  const bill = await db().bill.findUniqueOrThrow({ where: { id: session.billId } });
  return bill.transactionId;
}

/** Waits until the session's bill has its transaction (the charger's start recorded). */
export async function aChargingSession(session: SandboxSessionRow, ms = 10_000) {
  let transactionId: number | null = null;
  await waitUntil(async () => (transactionId = await transactionOf(session)) !== null, ms);
  return transactionId!;
}

/** Waits until every advance of the session is applied. */
export async function allApplied(session: SandboxSessionRow, ms = 10_000) {
  await waitUntil(
    async () =>
      (await db().sandboxAdvance.count({ where: { sessionId: session.id, status: "pending" } })) ===
      0,
    ms,
  );
}

/** The transaction once ended (the charger's stop recorded). */
export async function anEndedTransaction(transactionId: number, ms = 10_000) {
  await waitUntil(
    async () =>
      (await db().transaction.findUniqueOrThrow({ where: { id: transactionId } })).endedAt !== null,
    ms,
  );
  return db().transaction.findUniqueOrThrow({ where: { id: transactionId } });
}

/** The charger row (lease, register, clock). */
export const chargerRow = (stationId: number) =>
  db().sandboxCharger.findUniqueOrThrow({ where: { stationId } });

/** What a gateway test's runner needs besides the operation sweep for sandbox sessions. */
export const SANDBOX_JOBS = [sandboxSessionJobDefinition, paymentAttemptJob, processorEventJob];

/**
 * A person with a workspace (`POST /v1/workspace`) and a workspace key holding `scopes`
 * (default both sandbox scopes), made through /v1.
 */
export async function aWorkspace(scopes: string[] = ["sandbox:read", "sandbox:write"]) {
  const owner: TestUser = await aUser();
  const made = await call("POST", "/v1/workspace", {
    key: owner.token,
    body: { name: `Workspace ${owner.userId}` },
  });
  expect(made.status).toBe(200);
  const key = await call("POST", "/v1/api-keys", { key: owner.token, body: { scopes } });
  expect(key.status).toBe(201);
  const me = await call("GET", "/v1/me", { key: key.body.secret as string });
  expect(me.status).toBe(200);
  return {
    owner,
    teamId: made.body.id as number,
    key: key.body.secret as string,
    keyId: key.body.id as string,
    sandboxTenantId: me.body.workspace.sandbox_tenant_id as number,
  };
}
export type Workspace = Awaited<ReturnType<typeof aWorkspace>>;

/** A sandbox call under the workspace's key. */
export const sandbox = (
  w: { key: string },
  method: string,
  path: string,
  options: { body?: unknown; idempotencyKey?: string } = {},
) => call(method, path, { key: w.key, ...options });

export const startSession = (w: { key: string }, body: Record<string, unknown> = {}) =>
  sandbox(w, "POST", "/v1/sessions", { body, idempotencyKey: idem() });

/** Reads the session until `check` holds (the settlement runs on after an answer's 3 s). */
export async function sessionUntil(
  w: { key: string },
  id: string,
  check: (s: { status: string; [k: string]: unknown }) => boolean,
  ms = 15_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await sandbox(w, "GET", `/v1/sessions/${id}`);
    if (check(res.body)) return res.body as Record<string, any>;
    if (Date.now() > deadline)
      throw new Error(`session ${id} never got there: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

import fs from "node:fs";
import pg from "pg";
import { GATEWAY_HEARTBEAT_MS, GATEWAY_STALE_MS } from "../../server/charging/gateways";
import type { Db } from "../../server/db";
import { log } from "../../server/log";
import {
  claimSandboxChargers,
  releaseAllSandboxLeases,
  releaseUnwantedSandboxChargers,
  renewSandboxLeases,
} from "../../server/sandbox/charger-leases";
import { VirtualCharger, type VirtualChargerOptions } from "./virtual-charger";

/** A virtual charger stays connected this long after its station's last session left. */
export const SANDBOX_IDLE_MS = 5 * 60_000;

export type SandboxHostOptions = {
  db: Db;
  databaseUrl: string;
  /** the gateway this host runs beside: its leases are in this gateway's name */
  gatewayId: string;
  /** the gateway's own OCPP endpoint on loopback, e.g. `ws://127.0.0.1:9000/ocpp` */
  ocppUrl: string;
  /** the gateway's certificate, for a `wss` endpoint: the chargers trust exactly it */
  tls?: { certPath: string };
  /** how long a charger stays after its station's last session (default 5 min) */
  idleMs?: number;
  /** lease length (default: the gateways' liveness window, 15 s) */
  leaseMs?: number;
  /** renewal and adoption period (default: the gateway heartbeat, 5 s) */
  tickMs?: number;
  /** a charger's call timeout */
  callTimeoutMs?: number;
  /** chargers connecting at once (they share one client address at the gateway) */
  connectConcurrency?: number;
  afterReport?: VirtualChargerOptions["afterReport"];
  tap?: VirtualChargerOptions["tap"];
};

export type SandboxHost = {
  /** the stations whose chargers this host runs (connected or connecting) */
  stationIds: () => number[];
  /** the stations whose chargers are connected */
  connectedStationIds: () => number[];
  /** a look now (renew, release, adopt, connect) instead of at the next tick */
  reconcile: () => Promise<void>;
  /**
   * Closes every charger and gives every lease back at once (another host adopts them). With
   * `release: false` the leases are kept until they lapse, as a crash leaves them (tests).
   */
  stop: (options?: { release?: boolean }) => Promise<void>;
};

/**
 * The virtual-charger host of one `ocpp` process (ocpp/sandbox/README.md): runs the virtual
 * chargers of the sandbox stations whose leases this gateway holds. Every tick (the heartbeat's
 * period) it renews its leases, closes and gives back chargers no longer wanted, adopts wanted
 * ones no live host holds (never hosted, given back, or their gateway died) and connects them; a
 * `sandbox` notice wakes the charger of that station (or, for a station it does not hold, a claim
 * of it), `sandbox_released` a claim at once. Timers here are facts about this process (which
 * chargers it runs), like the gateway's heartbeat.
 */
export async function startSandboxHost(options: SandboxHostOptions): Promise<SandboxHost> {
  const { db, gatewayId } = options;
  const idleMs = options.idleMs ?? SANDBOX_IDLE_MS;
  const leaseMs = options.leaseMs ?? GATEWAY_STALE_MS;
  const tickMs = options.tickMs ?? GATEWAY_HEARTBEAT_MS;
  const lease = { gatewayId, leaseMs, idleMs };
  const wsOptions = options.tls ? loopbackTrust(options.tls.certPath) : undefined;
  const chargers = new Map<number, VirtualCharger>();
  let stopping = false;

  // ---- connecting, a few at a time, with a backoff per charger
  const connectConcurrency = options.connectConcurrency ?? 8;
  let connectsRunning = 0;
  const connectLine: VirtualCharger[] = [];
  const failures = new Map<number, number>();
  const retries = new Map<number, NodeJS.Timeout>();

  function connectSoon(charger: VirtualCharger) {
    if (stopping || charger.connected || retries.has(charger.stationId)) return;
    if (connectLine.includes(charger)) return;
    connectLine.push(charger);
    drainConnects();
  }
  function drainConnects() {
    while (connectsRunning < connectConcurrency && connectLine.length) {
      const charger = connectLine.shift()!;
      if (chargers.get(charger.stationId) !== charger || charger.connected) continue;
      connectsRunning += 1;
      void charger
        .connect()
        .then(
          () => failures.delete(charger.stationId),
          (error: unknown) => {
            const failed = (failures.get(charger.stationId) ?? 0) + 1;
            failures.set(charger.stationId, failed);
            log.warn("sandbox charger could not connect", {
              stationId: charger.stationId,
              attempt: failed,
              reason: error instanceof Error ? error.message : String(error),
            });
            const wait = Math.min(30_000, 500 * 2 ** (failed - 1));
            const timer = setTimeout(() => {
              retries.delete(charger.stationId);
              if (chargers.get(charger.stationId) === charger) connectSoon(charger);
            }, wait);
            timer.unref();
            retries.set(charger.stationId, timer);
          },
        )
        .finally(() => {
          connectsRunning -= 1;
          drainConnects();
        });
    }
  }

  function ensure(stationId: number) {
    let charger = chargers.get(stationId);
    if (!charger) {
      charger = new VirtualCharger({
        db,
        stationId,
        ocppUrl: options.ocppUrl,
        ...(wsOptions ? { wsOptions } : {}),
        callTimeoutMs: options.callTimeoutMs ?? 15_000,
        // the gateway closed it (or a reset could not reconnect): look at the lease first, so a
        // charger another host adopted is not taken back
        onClosed: () => {
          fullLook = true;
          void kick();
        },
        ...(options.afterReport ? { afterReport: options.afterReport } : {}),
        ...(options.tap ? { tap: options.tap } : {}),
      });
      chargers.set(stationId, charger);
    }
    connectSoon(charger);
  }

  async function drop(stationId: number) {
    const charger = chargers.get(stationId);
    chargers.delete(stationId);
    failures.delete(stationId);
    clearTimeout(retries.get(stationId));
    retries.delete(stationId);
    await charger?.stop();
  }

  // ---- looking: one look at a time; a look asked for meanwhile runs after it
  let fullLook = false;
  const claims = new Set<number>();
  /** stations another live host holds, by when to stop assuming so (a claim found nothing) */
  const elsewhere = new Map<number, number>();
  let looking: Promise<void> | null = null;

  function kick(): Promise<void> {
    looking ??= (async () => {
      try {
        while (!stopping && (fullLook || claims.size)) {
          const full = fullLook;
          fullLook = false;
          const ids = [...claims];
          claims.clear();
          try {
            if (full) await look();
            else await claim(ids);
          } catch (error) {
            log.warn("sandbox host: a look failed", { error });
          }
        }
      } finally {
        looking = null;
      }
    })();
    return looking;
  }

  /** Renew, close and give back the unwanted, adopt the wanted, connect, and wake every charger. */
  async function look() {
    const held = await renewSandboxLeases(db, lease);
    const heldIds = new Set(held.map((h) => h.stationId));
    // Another host adopted these (this one's lease lapsed): their sockets close, nothing is given back.
    for (const stationId of [...chargers.keys()]) if (!heldIds.has(stationId)) void drop(stationId);
    const unwanted = held.filter((h) => !h.wanted).map((h) => h.stationId);
    await Promise.all(unwanted.map((stationId) => drop(stationId)));
    const released = new Set(
      await releaseUnwantedSandboxChargers(db, { ...lease, stationIds: unwanted }),
    );
    const claimed = await claimSandboxChargers(db, lease);
    for (const stationId of [...heldIds, ...claimed])
      if (!released.has(stationId)) ensure(stationId);
    for (const charger of chargers.values()) charger.requestRound();
  }

  async function claim(ids: number[]) {
    const now = Date.now();
    const fresh = ids.filter((id) => !chargers.has(id) && (elsewhere.get(id) ?? 0) <= now);
    if (!fresh.length) return;
    const claimed = new Set(await claimSandboxChargers(db, { ...lease, stationIds: fresh }));
    for (const id of fresh) {
      if (claimed.has(id)) {
        elsewhere.delete(id);
        ensure(id);
      } else elsewhere.set(id, now + 1_000);
    }
  }

  // ---- notices
  let listener: pg.Client | null = null;
  async function listen() {
    const client = new pg.Client({ connectionString: options.databaseUrl });
    client.on("error", (error) => {
      log.warn("sandbox host: listener failed", { error });
      if (listener === client) listener = null;
    });
    client.on("notification", ({ channel, payload }) => {
      const stationId = Number(payload);
      if (stopping || !Number.isInteger(stationId)) return;
      if (channel === "sandbox_released") elsewhere.delete(stationId);
      const charger = chargers.get(stationId);
      if (charger) return charger.requestRound();
      claims.add(stationId);
      void kick();
    });
    await client.connect();
    await client.query("LISTEN sandbox");
    await client.query("LISTEN sandbox_released");
    listener = client;
  }
  await listen();

  const tick = setInterval(() => {
    if (!listener) void listen().catch((error: unknown) => log.warn("relisten failed", { error }));
    fullLook = true;
    void kick();
  }, tickMs);
  tick.unref();
  fullLook = true;
  await kick();

  return {
    stationIds: () => [...chargers.keys()],
    connectedStationIds: () =>
      [...chargers.values()].filter((c) => c.connected).map((c) => c.stationId),
    reconcile: () => {
      fullLook = true;
      return kick();
    },
    stop: async ({ release = true } = {}) => {
      stopping = true;
      clearInterval(tick);
      await listener?.end().catch(() => {});
      listener = null;
      await looking;
      await Promise.all([...chargers.keys()].map((stationId) => drop(stationId)));
      if (release)
        await releaseAllSandboxLeases(db, { gatewayId, idleMs }).catch((error: unknown) =>
          log.error("giving back the sandbox chargers' leases failed", { error }),
        );
    },
  };
}

/**
 * What a charger trusts on the gateway's `wss` endpoint: exactly the gateway's own certificate
 * chain (a partial chain is a trust anchor here), whatever name it is issued for, since the
 * charger dials loopback.
 */
function loopbackTrust(certPath: string) {
  return {
    ca: fs.readFileSync(certPath),
    allowPartialTrustChain: true,
    checkServerIdentity: () => undefined,
  };
}

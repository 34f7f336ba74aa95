import type { Db } from "../db";

/**
 * What the API side does once a sandbox station's virtual charger is ready (ocpp/sandbox/README.md,
 * Starting a session): the host calls `onChargerReady` after the charger connected and reported
 * its boot and statuses, and whenever it finds an open session of the station that is `starting`
 * with its bill still `open` (its start was never sent, or was refused while the charger was
 * away). A bill's start needs its station online (an offline station's operation is rejected at
 * once), so this is where a session created while its charger was still connecting gets started.
 * The hook runs in the `ocpp` process, outside any transaction; it opens its own, and must be
 * idempotent (the host may call it again for the same session).
 *
 * A registry, like the charger-transaction hooks (server/charger-reports/transaction-hooks.ts):
 * `server/domains.ts` adds the sandbox sessions' hook; none registered means nothing is started.
 */
export type SandboxChargerHooks = {
  onChargerReady: (db: Db, station: { stationId: number; tenantId: number }) => Promise<void>;
};

const registered: SandboxChargerHooks[] = [];

export function registerSandboxChargerHooks(hooks: SandboxChargerHooks[]) {
  registered.push(...hooks);
}

/** Removes hooks a test registered. */
export function unregisterSandboxChargerHooks(hooks: SandboxChargerHooks[]) {
  for (const hook of hooks) {
    const at = registered.indexOf(hook);
    if (at >= 0) registered.splice(at, 1);
  }
}

export async function runChargerReady(db: Db, station: { stationId: number; tenantId: number }) {
  for (const hooks of registered) await hooks.onChargerReady(db, station);
}

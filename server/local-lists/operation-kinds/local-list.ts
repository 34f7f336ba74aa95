import type { DbTx } from "../../db";
import { appendEvent } from "../../events/append-event";
import type { Operation } from "../../generated/prisma/client";
import { armListSyncs } from "../auto-sync";
import { byChargerStatus, type OperationKind } from "../../operations/kinds/kind";
import {
  SEND_SCOPE,
  VERSION_SCOPE,
  forgetHeldList,
  sendRequest,
  writeListSend,
  type ListChange,
} from "../local-list";

/** Answers after which the charger holds a list we do not know: the next send is full. */
const FALL_BACK = new Set(["Failed", "VersionMismatch"]);

/**
 * A send with no confirmed answer, or a full update the charger answered `Failed`, is tried
 * again by the station's sync (a full update of the same next version) after `SEND_RETRY_MS`,
 * doubled for each earlier send since the station's last confirmed one, `SEND_RETRIES` times at
 * most in a row; after that only a token change or a reconnect tries again, so a charger that
 * cannot take a list is not asked for ever. (A blocked token must reach the charger: a lost
 * answer alone must not leave it valid there until the next change.)
 */
export const SEND_RETRY_MS = 30_000;
export const SEND_RETRIES = 5;

async function tryAgainLater(tx: DbTx, operation: Operation, stationId: number) {
  // the station's sends since its last confirmed one, this one aside
  const [row] = await tx.$queryRaw<{ sends: number }[]>`
    SELECT count(*)::int AS sends FROM operations
     WHERE station_id = ${stationId} AND scope = ${SEND_SCOPE} AND id <> ${operation.id}
       AND seq > coalesce((SELECT max(seq) FROM operations
                            WHERE station_id = ${stationId} AND scope = ${SEND_SCOPE}
                              AND status = 'succeeded'), 0)`;
  const before = row?.sends ?? 0;
  if (before >= SEND_RETRIES) return;
  await armListSyncs(tx, { stationIds: [stationId] }, SEND_RETRY_MS * 2 ** before);
}

function v16Entry(c: ListChange) {
  if (!c.entry) return { idTag: c.token };
  return {
    idTag: c.token,
    idTagInfo: {
      status: c.entry.status,
      ...(c.entry.expires_at ? { expiryDate: c.entry.expires_at } : {}),
    },
  };
}

function v2Entry(c: ListChange) {
  const idToken = { idToken: c.token, type: "Central" };
  if (!c.entry) return { idToken };
  return {
    idToken,
    idTokenInfo: {
      status: c.entry.status,
      ...(c.entry.expires_at ? { cacheExpiryDateTime: c.entry.expires_at } : {}),
    },
  };
}

/**
 * Sends a list version: OCPP 1.6 SendLocalList (`listVersion`, `updateType`,
 * `localAuthorizationList` of `idTag`/`idTagInfo`; a removal is an `idTag` alone), OCPP 2.x
 * SendLocalList (`versionNumber`, `idToken` of type `Central`, `idTokenInfo`; the list left out
 * when empty, as its schema needs one item at least). `Accepted` makes the version the station's
 * (`local_list_version`, the list it holds, `local_list_synced_at`) with
 * `station.local_list_synced`, and arms the station's sync (`../auto-sync.ts`) for what changed
 * meanwhile. `Failed` or `VersionMismatch` to a differential: the held list is
 * forgotten and a full update of the next version is sent at once (once: a refused full update
 * does not fall back again). No confirmed answer: the held list is forgotten (the next send is
 * full) and the send tried again later, as is a full update answered `Failed` (`SEND_RETRY_MS`).
 * `NotSupported`: recorded, nothing else.
 */
export const stationLocalListSend: OperationKind = {
  scope: SEND_SCOPE,
  carriesSecret: false,
  build({ operation, station }) {
    const r = sendRequest.parse(operation.request);
    const updateType = r.update_type === "full" ? "Full" : "Differential";
    if (station.protocol === "ocpp1.6")
      return Promise.resolve({
        action: "SendLocalList",
        payload: {
          listVersion: r.version,
          updateType,
          localAuthorizationList: r.changes.map(v16Entry),
        },
      });
    return Promise.resolve({
      action: "SendLocalList",
      payload: {
        versionNumber: r.version,
        updateType,
        ...(r.changes.length ? { localAuthorizationList: r.changes.map(v2Entry) } : {}),
      },
    });
  },
  interpret(answer) {
    return byChargerStatus((answer as { status?: unknown }).status, answer, new Set(["Accepted"]));
  },
  async onSettled(tx, operation, outcome) {
    if (!operation.stationId) return;
    const r = sendRequest.parse(operation.request);
    if (outcome.status === "succeeded") {
      const at = operation.completedAt ?? new Date();
      await tx.station.update({
        where: { id: operation.stationId },
        data: { localListVersion: r.version, localList: r.list, localListSyncedAt: at },
      });
      await appendEvent({
        db: tx,
        tenantId: operation.tenantId,
        type: "station.local_list_synced",
        resourceId: operation.stationId,
        station: { id: operation.stationId, occurredAt: null },
        data: {
          station_id: operation.stationId,
          operation_id: operation.id,
          version: r.version,
          update_type: r.update_type,
          changes: r.changes.length,
          entries: Object.keys(r.list).length,
        },
      });
      // Tokens that changed while this version was in flight go as the next one.
      await armListSyncs(tx, { stationIds: [operation.stationId] });
      return;
    }
    if (outcome.status === "unknown") {
      await forgetHeldList(tx, operation.stationId);
      return tryAgainLater(tx, operation, operation.stationId);
    }
    const word = outcome.result.charger_status;
    if (typeof word !== "string" || !FALL_BACK.has(word)) return;
    await forgetHeldList(tx, operation.stationId);
    if (r.update_type !== "differential" || r.fallback_for) {
      if (word === "Failed") await tryAgainLater(tx, operation, operation.stationId);
      return;
    }
    await writeListSend({
      db: tx,
      tenantId: operation.tenantId,
      stationId: operation.stationId,
      updateType: "full",
      apiKeyId: operation.apiKeyId,
      fallbackFor: operation.id,
    });
  },
};

/**
 * Reads the version the charger holds: GetLocalListVersion (1.6 `listVersion`, 2.x
 * `versionNumber`). `result.version` is the charger's; when it is not the one the service confirmed
 * last, the held list is forgotten (the station's `in_step` turns false; the next send is full).
 */
export const stationLocalListVersion: OperationKind = {
  scope: VERSION_SCOPE,
  carriesSecret: false,
  build() {
    return Promise.resolve({ action: "GetLocalListVersion", payload: {} });
  },
  interpret(answer, protocol) {
    const a = answer as { listVersion?: number; versionNumber?: number };
    const version = protocol === "ocpp1.6" ? a.listVersion : a.versionNumber;
    return { status: "succeeded", result: { version: version ?? null, response: answer } };
  },
  async onSettled(tx, operation, outcome) {
    if (outcome.status !== "succeeded" || !operation.stationId) return;
    const station = await tx.station.findUniqueOrThrow({
      where: { id: operation.stationId },
      select: { localListVersion: true },
    });
    if (outcome.result.version !== station.localListVersion)
      await forgetHeldList(tx, operation.stationId);
  },
};

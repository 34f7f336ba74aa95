import { z } from "zod";
import { owningGateway } from "../charging/gateways";
import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { inTransaction } from "../db/retry";
import { Prisma } from "../generated/prisma/client";
import { armStationJobs, type StationJobPayload } from "../jobs/arm";
import { defineJob } from "../jobs/define-job";
import { createOperation } from "../operations/create-operation";
import { chargingProfileSet, type SetRequest } from "./operation-kinds";
import type { NeutralProfile } from "./profile-schema";

/**
 * The rule: a charger that booted (BootNotification) may have lost what it held, so the profiles
 * the service believes it holds, or may hold, are set again. Only those an operator set through the
 * API (`source` `api`; a site limit's allocator recomputes its own) that outlive a transaction
 * (ChargePointMaxProfile, TxDefaultProfile; a TxProfile's transaction did not survive the reboot),
 * `installed` or `unknown`, and not past their `valid_to`. A reconnect without a boot re-sends
 * nothing: the charger kept its memory. Setting a profile again under its OCPP ID replaces it, so a
 * charger that kept its profiles ends with the same ones.
 */
const RESENT_PURPOSES = ["ChargePointMaxProfile", "TxDefaultProfile"];
const RESENT_STATES = ["installed", "unknown"];

/** Shortly after the boot, so the BootNotification's answer goes first. */
export const RESEND_DELAY_MS = 500;

const resendable = (stationId: number) => ({
  stationId,
  source: "api",
  purpose: { in: RESENT_PURPOSES },
  state: { in: RESENT_STATES },
});

/**
 * Sets the station's resendable profiles again, in the caller's transaction (station row locked):
 * each row goes back to `pending` under a new `station.charging_profile_set` operation with the
 * profile as it was set, and the operation's answer moves it as for any set. Returns how many.
 */
export async function resendProfiles(tx: DbTx, stationId: number, now = new Date()) {
  const gatewayId = await owningGateway(tx, stationId);
  if (!gatewayId) return 0;
  const rows = await tx.chargingProfile.findMany({
    where: resendable(stationId),
    orderBy: { chargingProfileId: "asc" },
  });
  let sent = 0;
  for (const row of rows) {
    const profile = row.profile as unknown as NeutralProfile;
    if (profile.valid_to && Date.parse(profile.valid_to) <= now.getTime()) continue;
    await tx.chargingProfile.update({
      where: { id: row.id },
      data: { state: "pending", chargerStatus: null, operationId: "" },
    });
    const request: SetRequest = { profile_id: row.id, profile };
    const operation = await createOperation({
      db: tx,
      tenantId: row.tenantId,
      stationId,
      apiKeyId: null,
      scope: chargingProfileSet.scope,
      action: "set_charging_profile",
      request,
      gatewayId,
    });
    await tx.chargingProfile.updateMany({
      where: { id: row.id, operationId: "" },
      data: { operationId: operation.id },
    });
    sent++;
  }
  return sent;
}

/**
 * `charging_profiles.resend`, one per station (`charging_profiles.resend:<station id>`), armed by
 * a boot (`armProfileResends`): sets the station's profiles again (`resendProfiles`).
 */
export const profileResendJob = defineJob<StationJobPayload>({
  id: "charging_profiles.resend",
  payload: z.object({ station_id: z.number().int() }),
  retry: { maxAttempts: 3, backoff: (attempt) => attempt * 2_000 },
  async handler({ station_id }, ctx) {
    await inTransaction(ctx.db, async (tx) => {
      await lockStation(tx, station_id);
      if (!(await ctx.holds(tx))) return;
      await resendProfiles(tx, station_id, ctx.now());
      await ctx.settle(tx, { ok: true });
    });
  },
});

/**
 * Arms the re-send of the booted stations that have a profile to re-send, in the boot's
 * transaction (after its station rows).
 */
export async function armProfileResends(tx: DbTx, stationIds: readonly number[]) {
  if (stationIds.length === 0) return;
  await armStationJobs(
    tx,
    profileResendJob,
    Prisma.sql`
      SELECT s.id FROM stations s
       WHERE s.id = ANY(${[...stationIds]}::int[]) AND ${hasProfilesToResend(Prisma.sql`s.id`)}`,
    RESEND_DELAY_MS,
  );
}

/**
 * Whether the station `stationId` (an SQL expression) has a profile a boot re-sends: the test
 * `armProfileResends` arms by, for a batch that reads it along with its other reads (under the
 * station's lock) and arms only the stations that have one (server/charger-reports/call-batch.ts).
 */
export const hasProfilesToResend = (stationId: Prisma.Sql) => Prisma.sql`
  EXISTS (SELECT 1 FROM charging_profiles p
           WHERE p.station_id = ${stationId} AND p.source = 'api'
             AND p.purpose = ANY(${RESENT_PURPOSES}::text[])
             AND p.state = ANY(${RESENT_STATES}::text[]))`;

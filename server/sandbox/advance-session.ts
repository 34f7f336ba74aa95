import type { WorkspacePrincipal } from "../access/caller";
import type { Db, DbTx } from "../db";
import { DomainError, fieldError, notFound } from "../errors";
import { atomically } from "./atomically";
import { APPLIED_CHANNEL, SANDBOX_CHANNEL, waitOnNotices } from "./notices";
import { loadSessionFacts, lockSessionRow, presentSandboxSession } from "./session-facts";
import {
  MAX_SESSION_SECONDS,
  MAX_SESSION_WH,
  type AdvanceInput,
  type SandboxSessionResource,
} from "./session-schema";

/** How long an advance's answer waits for the virtual charger to have reported it. */
export const ADVANCE_WAIT_MS = 3_000;

/**
 * `POST /v1/sandbox/sessions/{id}/advance`: the virtual charger delivers `energy_wh` more over
 * `elapsed_seconds` of virtual time (default: what the connector's nominal power takes). In one
 * transaction, under the session's row lock and then its charger's: the charger's register and
 * clock move on, the advance is written (`seq` next, its register and virtual timestamp fixed, so
 * sending it again reports the same reading), the session's `target_wh` and `elapsed_seconds`
 * grow, and `NOTIFY sandbox` wakes the host that sends it as a meter report over OCPP (server/
 * sandbox/README.md, The contract). Only a `charging` session advances: `starting` (and `failed`)
 * 409 `session_not_charging`, after a stop 409 `session_stopped`. A session draws at most
 * `MAX_SESSION_WH` and its clock runs at most `MAX_SESSION_SECONDS` ahead (422).
 */
export async function advanceSandboxSession(
  db: DbTx,
  principal: WorkspacePrincipal,
  id: string,
  input: AdvanceInput,
): Promise<SandboxSessionResource> {
  return atomically(db, async (tx) => {
    const found = await tx.sandboxSession.findFirst({
      where: { id, tenantId: principal.tenantId },
      select: { id: true },
    });
    if (!found) throw notFound("sandbox session");
    await lockSessionRow(tx, id);
    const session = await tx.sandboxSession.findUniqueOrThrow({ where: { id } });
    requireCharging(session.id, session.status);
    const [charger] = await tx.$queryRaw<
      { register_wh: bigint; clock_offset_seconds: number; nominal_power_w: number }[]
    >`
      SELECT register_wh, clock_offset_seconds, nominal_power_w FROM sandbox_chargers
       WHERE station_id = ${session.stationId} FOR UPDATE`;
    if (!charger) throw new Error(`sandbox station ${session.stationId} has no virtual charger`);
    const elapsed =
      input.elapsed_seconds ??
      Math.max(1, Math.ceil((input.energy_wh * 3600) / charger.nominal_power_w));
    if (session.targetWh + input.energy_wh > MAX_SESSION_WH)
      throw fieldError(
        "validation_failed",
        `A sandbox session draws at most ${MAX_SESSION_WH} Wh; stop it and start another.`,
        [{ field: "energy_wh", message: `the session would pass ${MAX_SESSION_WH} Wh` }],
      );
    const offset = charger.clock_offset_seconds + elapsed;
    if (session.elapsedSeconds + elapsed > MAX_SESSION_SECONDS || offset > 2 * MAX_SESSION_SECONDS)
      throw fieldError(
        "validation_failed",
        `A sandbox session's virtual clock runs at most ${MAX_SESSION_SECONDS} s; stop it and start another.`,
        [{ field: "elapsed_seconds", message: "the virtual clock would run too far ahead" }],
      );
    const register = charger.register_wh + BigInt(input.energy_wh);
    await tx.$executeRaw`
      UPDATE sandbox_chargers SET register_wh = ${register}, clock_offset_seconds = ${offset}
       WHERE station_id = ${session.stationId}`;
    await tx.$executeRaw`
      INSERT INTO sandbox_advances (session_id, seq, energy_wh, elapsed_seconds, soc_percent,
                                    register_wh, sampled_at)
      SELECT ${id}, coalesce(max(seq), 0) + 1, ${input.energy_wh}, ${elapsed},
             ${input.soc_percent ?? null}, ${register},
             now() + make_interval(secs => ${offset})
        FROM sandbox_advances WHERE session_id = ${id}`;
    await tx.sandboxSession.update({
      where: { id },
      data: {
        targetWh: { increment: input.energy_wh },
        elapsedSeconds: { increment: elapsed },
      },
    });
    await tx.$executeRaw`SELECT pg_notify(${SANDBOX_CHANNEL}, ${String(session.stationId)})`;
    return presentSandboxSession(tx, (await loadSessionFacts(tx, { id }))!);
  });
}

/** 409 unless the session is `charging`, with a code that says what to do instead. */
export function requireCharging(id: string, status: string) {
  if (status === "charging") return;
  if (status === "starting")
    throw new DomainError(
      "session_not_charging",
      "The session is still starting (its virtual charger is connecting and its transaction starting): retry in a moment.",
      { session_id: id, status },
      { retryAfterSeconds: 1 },
    );
  if (status === "failed")
    throw new DomainError(
      "session_not_charging",
      "The session failed to start (see its last_error); start a new session.",
      { session_id: id, status },
    );
  throw new DomainError(
    "session_stopped",
    "The session was stopped: it takes no more energy. Start a new session to charge again.",
    { session_id: id, status },
  );
}

/**
 * The advance's `afterCommit`: waits up to 3 s for the virtual charger to have reported every
 * advance up to this one (its answer came after the gateway recorded it), woken by the host's
 * `sandbox_applied` notice and looking with one indexed sum of the applied advances, then answers
 * the session as it is (`pending_wh` says what is left): the whole record is read once, at the end.
 */
export async function awaitAdvanceApplied(rootDb: Db, body: SandboxSessionResource) {
  await waitOnNotices({
    channel: APPLIED_CHANNEL,
    id: body.id,
    timeoutMs: ADVANCE_WAIT_MS,
    read: () => appliedWh(rootDb, body.id),
    done: (applied) => applied >= body.target_wh,
  });
  const facts = await loadSessionFacts(rootDb, { id: body.id });
  return facts ? presentSandboxSession(rootDb, facts) : body;
}

async function appliedWh(db: Db, sessionId: string): Promise<number> {
  const [row] = await db.$queryRaw<{ wh: bigint | null }[]>`
    SELECT sum(energy_wh)::bigint AS wh FROM sandbox_advances
     WHERE session_id = ${sessionId} AND status = 'applied'`;
  return Number(row?.wh ?? 0);
}

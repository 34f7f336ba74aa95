import type { DbTx } from "../db";
import type { JobDefinition } from "./define-job";
import { insertJob } from "./enqueue";

/** The start of the slot of `everyMs` that holds `now`, slots counted from the Unix epoch. */
export function slotStart(everyMs: number, now: Date): Date {
  return new Date(Math.floor(now.getTime() / everyMs) * everyMs);
}

/** One id per definition and slot: every runner computes the same, so a slot has one job. */
export function cronJobId(definitionId: string, slot: Date): string {
  return `cron:${definitionId}:${slot.toISOString()}`;
}

/**
 * Inserts the current slot's job of every scheduled definition, due at the slot's start. Every
 * runner does this on its tick; the deterministic id and ON CONFLICT DO NOTHING make the first
 * insert win and the others no-ops, so N processes run each slot once. `seen` (per runner) skips
 * slots this runner already inserted. A slot no runner ticked in is skipped, not made up.
 */
export async function scheduleCronSlots(
  db: DbTx,
  definitions: readonly JobDefinition[],
  now: Date,
  seen = new Map<string, number>(),
): Promise<void> {
  for (const definition of definitions) {
    if (!definition.schedule) continue;
    const slot = slotStart(definition.schedule.everyMs, now);
    if (seen.get(definition.id) === slot.getTime()) continue;
    await insertJob(db, {
      id: cronJobId(definition.id, slot),
      name: definition.id,
      queue: definition.queue,
      payload: { slot: slot.toISOString() },
      runAt: slot,
    });
    seen.set(definition.id, slot.getTime());
  }
}

import fs from "node:fs";

/**
 * Where a new charger's time goes, for the storm benchmark (bench/storm.ts): with
 * `OCPP_TRACE_PHASES=<file>` set, the gateway marks each station's first handshake, connect,
 * BootNotification and StatusNotification as they pass each step (`mark`, the first time only,
 * in this process's monotonic milliseconds), and appends one JSON line of marks per station to
 * the file once its StatusNotification is answered (`finish`). Unset (always, outside that
 * benchmark), every call returns at once and nothing is kept.
 *
 * Steps, in order: `handshake` (the check starts), `gate` (its gate turn granted), `verified`
 * (the quick check's query answered), `accepted` (the 101 goes out), `client` (the socket is
 * up), `connect.write` and `connect.commit` (its connect's batch), `connected` (its generation
 * is known), then for `boot` and `status`: `<kind>.received`, `<kind>.write` and
 * `<kind>.commit` (its batch), `<kind>.answered`.
 */
const file = process.env.OCPP_TRACE_PHASES;

/** marks by station name (lower-cased) until the station's id is known, then by id */
const byName = new Map<string, Record<string, number>>();
const byId = new Map<number, Record<string, number>>();
let lines: string[] = [];
let timer: NodeJS.Timeout | undefined;

const set = (marks: Record<string, number>, phase: string) => {
  if (marks[phase] === undefined) marks[phase] = performance.now();
};

export const tracingPhases = Boolean(file);

/** A handshake step of the station `name`. */
export function markName(name: string, phase: string) {
  if (!file) return;
  const key = name.toLowerCase();
  let marks = byName.get(key);
  if (!marks) byName.set(key, (marks = {}));
  set(marks, phase);
}

/** The handshake of `name` was accepted as station `stationId`: its marks go on under the id. */
export function nameIsStation(name: string, stationId: number) {
  if (!file) return;
  const key = name.toLowerCase();
  const marks = byName.get(key) ?? {};
  byName.delete(key);
  if (!byId.has(stationId)) byId.set(stationId, marks);
}

export function markStation(stationId: number, phase: string) {
  if (!file) return;
  const marks = byId.get(stationId);
  if (marks) set(marks, phase);
}

/** The station's StatusNotification was answered: its line is written, and its marks let go. */
export function finishStation(stationId: number) {
  if (!file) return;
  const marks = byId.get(stationId);
  if (!marks) return;
  byId.delete(stationId);
  set(marks, "done");
  lines.push(JSON.stringify({ station: stationId, at: Date.now(), ...marks }));
  timer ??= setTimeout(() => {
    timer = undefined;
    const out = lines.join("\n") + "\n";
    lines = [];
    fs.appendFile(file, out, () => {});
  }, 500);
}

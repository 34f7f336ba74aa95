import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../testing/ocpp";
import { processInfo } from "../lib/processes";
import { isAlive, processesNaming } from "../../testing/processes";
import { startEmbeddedDatabase } from "./embedded";

/**
 * The embedded PostgreSQL never outlives the process that started it, and a start finds what an
 * earlier one left on its data folder: real processes (a starter: testing/embedded-starter.ts),
 * real PostgreSQL, real `kill -9`.
 */

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const started: ChildProcess[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 500));
  for (const dir of folders.splice(0)) {
    for (const line of processesOn(dir)) process.kill(Number(line.trim().split(" ")[0]), "SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function aDataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-embedded-"));
  folders.push(dir);
  return dir;
}

/** Every process whose command line names the folder: PostgreSQL's and its watchdog. */
const processesOn = processesNaming;
const alive = isAlive;

type Started = { pid: number; url: string; postgres: number };

function aStarter(dataDir: string, outlive: number[] = []) {
  const child = spawn(
    process.execPath,
    [
      "--conditions=react-server",
      "--import",
      "tsx",
      "testing/embedded-starter.ts",
      dataDir,
      ...outlive.map(String),
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  started.push(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const ready = (async () => {
    await waitUntil(() => /^\{"pid".*\}$/m.test(output) || child.exitCode !== null, 60_000);
    const line = /^\{"pid".*\}$/m.exec(output);
    if (!line) throw new Error(`the starter exited (${child.exitCode}):\n${output}`);
    return JSON.parse(line[0]) as Started;
  })();
  return { child, ready, output: () => output };
}

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("the embedded PostgreSQL's watchdog", () => {
  it("stops PostgreSQL within seconds of a kill -9 of the process that started it", async () => {
    const dataDir = aDataDir();
    const starter = aStarter(dataDir);
    const { pid, postgres } = await starter.ready;
    expect(alive(postgres)).toBe(true);
    process.kill(pid, "SIGKILL");
    const killedAt = Date.now();
    await waitUntil(() => processesOn(dataDir).length === 0, 10_000);
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    expect(alive(postgres)).toBe(false);
  });

  it("waits for the processes it was told to outlive, then stops PostgreSQL", async () => {
    const dataDir = aDataDir();
    const user = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"]);
    started.push(user);
    const starter = aStarter(dataDir, [user.pid!]);
    const { pid, url, postgres } = await starter.ready;
    process.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 1_500));
    // Still serving the process that may have last writes to make.
    expect(await query(url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
    user.kill("SIGKILL");
    // PostgreSQL first, then its watchdog exits (a moment later on a busy machine)
    await waitUntil(() => !alive(postgres), 10_000);
    await waitUntil(() => processesOn(dataDir).length === 0, 10_000).catch(() => {});
    expect(processesOn(dataDir)).toEqual([]);
  });
});

describe("a start on a data folder where PostgreSQL already runs", () => {
  it("stops a server nothing owns any more (its starter and watchdog killed) and starts with the data intact", async () => {
    const dataDir = aDataDir();
    const first = aStarter(dataDir);
    const { pid, url, postgres } = await first.ready;
    await query(url, "CREATE TABLE kept (id int); INSERT INTO kept VALUES (42)");
    const watchdog = processInfo(postgres)!.ppid;
    process.kill(watchdog, "SIGKILL");
    process.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(alive(postgres)).toBe(true); // orphaned: what a start without a watchdog left behind

    const second = aStarter(dataDir);
    const now = await second.ready;
    expect(second.output()).toContain(
      `notice: PostgreSQL (pid ${postgres}) is still running on ${path.join(dataDir, "postgres")} with no process left that started it; stopping it (fast shutdown)…`,
    );
    expect(alive(postgres)).toBe(false);
    expect(now.postgres).not.toBe(postgres);
    expect(await query(now.url, "SELECT id FROM kept")).toEqual([{ id: 42 }]);
  });

  it("starts PostgreSQL with the extra settings given (EMBEDDED_POSTGRES_SETTINGS)", async () => {
    const database = await startEmbeddedDatabase({
      dataDir: aDataDir(),
      settings: ["shared_preload_libraries=pg_stat_statements", "work_mem=7MB"],
    });
    try {
      expect(await query(database.url, "SHOW work_mem")).toEqual([{ work_mem: "7MB" }]);
      // a library loaded at start: its extension can be created and counts statements at once
      await query(database.url, "CREATE EXTENSION pg_stat_statements");
      const rows = await query(
        database.url,
        "SELECT count(*)::int AS n FROM pg_stat_statements WHERE query LIKE 'CREATE EXTENSION%'",
      );
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await database.stop();
    }
  });

  it("refuses a server whose starter still runs, naming that process", async () => {
    const dataDir = aDataDir();
    const first = aStarter(dataDir);
    const { pid, postgres } = await first.ready;
    await expect(startEmbeddedDatabase({ dataDir })).rejects.toThrow(
      `the embedded database in ${path.join(dataDir, "postgres")} is already in use by process ${pid} (PostgreSQL pid ${postgres}); stop that process first`,
    );
    expect(alive(postgres)).toBe(true);
  });
});

import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import {
  COLLECT_MS,
  joinGroup,
  serveGroup,
  type Channel,
  type GroupMessage,
} from "./process-group";

/**
 * `npm start` and its children, joined by in-memory IPC channels: what a child sends is a
 * `message` event of its ChildProcess in `npm start` (whose listener hands it to the group, as
 * scripts/gateways.ts does), and what `npm start` sends is a `message` event in the child, each on
 * a later turn of the loop, as over a real channel.
 */
function aGroup(names: string[]) {
  const children = new Map<string, { child: ChildProcess; channel: Channel & EventEmitter }>();
  let serve: ReturnType<typeof serveGroup> = () => {};
  for (const name of names) {
    const channel = Object.assign(new EventEmitter(), {
      connected: true,
      send: (message: GroupMessage) => {
        setImmediate(() => child.emit("message", message));
        return true;
      },
    });
    const child = Object.assign(new EventEmitter(), {
      connected: true,
      send: (message: GroupMessage) => {
        setImmediate(() => channel.emit("message", message));
        return true;
      },
    }) as unknown as ChildProcess;
    child.on("message", (message: unknown) => serve(child, message));
    children.set(name, { child, channel });
  }
  const down = new Set<string>();
  serve = serveGroup(() =>
    names.map((name) => ({
      name,
      ...(down.has(name) ? {} : { child: children.get(name)!.child }),
    })),
  );
  return { channel: (name: string) => children.get(name)!.channel, down };
}

describe("asking a process group through npm start", () => {
  it("gathers every member's answer of the kind asked, in the group's order, with null for one down or silent", async () => {
    const group = aGroup(["ocpp1", "ocpp2", "ocpp3", "ocpp4"]);
    const asked: string[] = [];
    const gathers = ["ocpp1", "ocpp2", "ocpp3", "ocpp4"].map((name) => {
      const health = joinGroup(
        "health",
        () => {
          asked.push(`health ${name}`);
          // ocpp3 never answers (a stalled process)
          if (name === "ocpp3") return new Promise<never>(() => {});
          return Promise.resolve({ name, pid: name.length });
        },
        group.channel(name),
      );
      const metrics = joinGroup(
        "metrics",
        () => {
          asked.push(`metrics ${name}`);
          return Promise.resolve([name]);
        },
        group.channel(name),
      );
      return { health, metrics };
    });
    group.down.add("ocpp4"); // restarting: no running child
    const started = performance.now();
    const health = await gathers[1]!.health();
    expect(performance.now() - started).toBeGreaterThanOrEqual(COLLECT_MS.health - 5);
    expect(health).toEqual([
      { name: "ocpp1", value: { name: "ocpp1", pid: 5 } },
      { name: "ocpp2", value: { name: "ocpp2", pid: 5 } },
      { name: "ocpp3", value: null },
      { name: "ocpp4", value: null },
    ]);
    // only the kind asked was collected, from the members that run
    expect(asked.sort()).toEqual(["health ocpp1", "health ocpp2", "health ocpp3"]);
    asked.length = 0;
    expect(await gathers[0]!.metrics()).toEqual([
      { name: "ocpp1", value: ["ocpp1"] },
      { name: "ocpp2", value: ["ocpp2"] },
      { name: "ocpp3", value: ["ocpp3"] },
      { name: "ocpp4", value: null },
    ]);
    expect(asked.sort()).toEqual(["metrics ocpp1", "metrics ocpp2", "metrics ocpp3"]);
  });

  it("answers null at once without npm start, and after its wait when npm start is silent", async () => {
    const alone = Object.assign(new EventEmitter(), { connected: false, send: () => false });
    expect(await joinGroup("health", () => Promise.resolve(1), alone)()).toBeNull();
    const silent = Object.assign(new EventEmitter(), { connected: true, send: () => true });
    const started = performance.now();
    expect(await joinGroup("health", () => Promise.resolve(1), silent)()).toBeNull();
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * COLLECT_MS.health);
  });
});

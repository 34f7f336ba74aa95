import type { ChildProcess } from "node:child_process";

/**
 * Asking every process of a group for something, through whichever one was asked. Several gateway
 * processes under `npm start` (OCPP_PROCESSES) share one port, so a scrape of `/metrics` or a probe
 * of `/health` reaches whichever process the kernel picks. So that the one address still tells
 * about all of them, the process that was asked asks `npm start` (over the IPC channel it already
 * has), which asks every process of the group (the asking one too) and hands back what each
 * answered, or `null` for one that did not (down, restarting, or slower than the kind's
 * `collectMs`).
 *
 * The messages, each with its kind (`metrics`, `health`) and a request number: the asked process
 * sends `gather`; `npm start` sends `collect` to every process, each answers `collected` with its
 * value, and `npm start` sends the lot back to the asking process as `gathered`.
 */
export type GroupKind = "metrics" | "health";

/** What one process of the group answered (`value`), or `null` when it did not. */
export type Member<T> = { name: string; value: T | null };

export type GroupMessage =
  | { group: GroupKind; step: "gather"; request: number }
  | { group: GroupKind; step: "collect"; request: number }
  | { group: GroupKind; step: "collected"; request: number; value: unknown }
  | { group: GroupKind; step: "gathered"; request: number; members: Member<unknown>[] };

/** How long `npm start` waits for each process's answer, by kind. */
export const COLLECT_MS: Record<GroupKind, number> = {
  // a registry's serialization in a busy gateway
  metrics: 1_000,
  // a health probe's own timeout is often a second or two
  health: 500,
};

/** How long the asked process waits for the group's answers (then it answers for itself). */
const gatherMs = (kind: GroupKind) => 2 * COLLECT_MS[kind] + 500;

const isGroupMessage = (message: unknown): message is GroupMessage =>
  typeof message === "object" &&
  message !== null &&
  typeof (message as { group?: unknown }).group === "string" &&
  typeof (message as { step?: unknown }).step === "string" &&
  typeof (message as { request?: unknown }).request === "number";

/** The IPC channel to `npm start`: `process` in a child it started. */
export type Channel = {
  on: (event: "message", listener: (message: unknown) => void) => unknown;
  send?: (message: GroupMessage) => boolean;
  connected: boolean;
};

/** The variable `npm start` names each process of a group by (`ocpp1` … `ocppN`). */
export const PROCESS_NAME_VARIABLE = "CHARGECLOUD_PROCESS_NAME";

/**
 * In a process of the group: answers `npm start`'s `collect` of this kind with `own()`, and
 * returns how to ask the whole group: every member's answer, in the group's order, or `null` when
 * `npm start` is not there or does not answer in time.
 */
export function joinGroup<T>(
  kind: GroupKind,
  own: () => Promise<T>,
  channel: Channel = process,
): () => Promise<Member<T>[] | null> {
  let next = 0;
  const waiting = new Map<number, (members: Member<T>[]) => void>();
  channel.on("message", (message: unknown) => {
    if (!isGroupMessage(message) || message.group !== kind) return;
    if (message.step === "collect") {
      const reply = (value: T | null) => {
        if (channel.connected)
          channel.send?.({ group: kind, step: "collected", request: message.request, value });
      };
      own().then(reply, () => reply(null));
    }
    if (message.step === "gathered") waiting.get(message.request)?.(message.members as Member<T>[]);
  });
  return () =>
    new Promise<Member<T>[] | null>((resolve) => {
      if (!channel.connected) return resolve(null);
      const request = ++next;
      const timer = setTimeout(() => {
        waiting.delete(request);
        resolve(null);
      }, gatherMs(kind));
      waiting.set(request, (members) => {
        clearTimeout(timer);
        waiting.delete(request);
        resolve(members);
      });
      channel.send?.({ group: kind, step: "gather", request });
    });
}

/**
 * In `npm start`: answers a member's `gather` (of any kind) with every member's answer. `members`
 * gives each process's name and its running child (none while it is restarting). Call the
 * returned function with each message a member sends.
 */
export function serveGroup(members: () => { name: string; child?: ChildProcess }[]) {
  let next = 0;
  const collect = (kind: GroupKind, child: ChildProcess | undefined) =>
    new Promise<unknown>((resolve) => {
      if (!child?.connected) return resolve(null);
      const request = ++next;
      const done = (value: unknown) => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(value);
      };
      const onMessage = (message: unknown) => {
        if (
          isGroupMessage(message) &&
          message.group === kind &&
          message.step === "collected" &&
          message.request === request
        )
          done(message.value ?? null);
      };
      const onExit = () => done(null);
      const timer = setTimeout(() => done(null), COLLECT_MS[kind]);
      child.on("message", onMessage);
      child.on("exit", onExit);
      try {
        child.send({ group: kind, step: "collect", request } satisfies GroupMessage);
      } catch {
        done(null);
      }
    });
  return (from: ChildProcess, message: unknown) => {
    if (!isGroupMessage(message) || message.step !== "gather") return;
    const { group, request } = message;
    void Promise.all(
      members().map(async ({ name, child }) => ({ name, value: await collect(group, child) })),
    ).then((gathered) => {
      if (from.connected)
        from.send({ group, step: "gathered", request, members: gathered } satisfies GroupMessage);
    });
  };
}

import crypto from "node:crypto";
import os from "node:os";
import { Worker } from "node:worker_threads";
import { KEY_LENGTH, PARAMS } from "./passwords";

/**
 * Hashes many station passwords at once (bulk onboarding, server/stations/register-stations.ts)
 * on a pool of worker threads, one per core: the same scrypt, the same parameters and the same
 * `scrypt$N$r$p$<salt>$<hash>` text as `hashPassword`, so a hash from here is checked by
 * `verifyPassword` like any other.
 *
 * Why not `crypto.scrypt` (libuv's pool, 4 threads by default): 3,000 scrypts queued there would
 * sit in front of every file read and DNS lookup of the web process for a minute. Here they wait
 * in this pool's own queue; the request thread only hands out work and collects hashes. The
 * workers are plain JavaScript (evaluated, no loader needed) and are unref'd while idle, so an
 * idle pool never keeps a process alive.
 */

const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const crypto = require("node:crypto");
parentPort.on("message", ({ id, password, salt, keyLength, params }) => {
  try {
    const hash = crypto.scryptSync(Buffer.from(password), Buffer.from(salt), keyLength, params);
    parentPort.postMessage({ id, hash });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

type Job = {
  id: number;
  password: Buffer;
  salt: Buffer;
  resolve: (hash: Buffer) => void;
  reject: (error: Error) => void;
};

type Slot = { worker: Worker; job: Job | undefined };

export type PasswordPool = {
  /** one hash per password, in order */
  hashAll: (passwords: readonly string[]) => Promise<string[]>;
  /** threads in the pool */
  size: number;
  /** passwords waiting or being hashed */
  backlog: () => number;
  close: () => Promise<void>;
};

export function createPasswordPool(size = os.availableParallelism()): PasswordPool {
  const queue: Job[] = [];
  const slots: Slot[] = [];
  let nextId = 0;
  let closed = false;

  const startWorker = (): Slot => {
    const slot: Slot = { worker: new Worker(WORKER_SOURCE, { eval: true }), job: undefined };
    slot.worker.unref();
    slot.worker.on("message", (message: { id: number; hash?: Uint8Array; error?: string }) => {
      const job = slot.job;
      slot.job = undefined;
      if (job && job.id === message.id) {
        if (message.hash) job.resolve(Buffer.from(message.hash));
        else job.reject(new Error(`password hashing failed: ${message.error}`));
      }
      pump();
    });
    // A thread that dies (it should not) fails its job and is replaced; the queue goes on.
    slot.worker.on("error", (error: Error) => {
      slot.job?.reject(error);
      slot.job = undefined;
    });
    slot.worker.on("exit", () => {
      const at = slots.indexOf(slot);
      if (at >= 0) slots.splice(at, 1);
      slot.job?.reject(new Error("password hashing thread exited"));
      if (!closed) pump();
    });
    slots.push(slot);
    return slot;
  };

  const pump = () => {
    while (queue.length > 0) {
      const slot =
        slots.find((s) => s.job === undefined) ?? (slots.length < size ? startWorker() : undefined);
      if (!slot) break;
      const job = queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({
        id: job.id,
        password: job.password,
        salt: job.salt,
        keyLength: KEY_LENGTH,
        params: PARAMS,
      });
    }
    for (const slot of slots) if (slot.job === undefined) slot.worker.unref();
  };

  const hashOne = (password: string): Promise<string> => {
    if (closed) return Promise.reject(new Error("the password pool is closed"));
    const salt = crypto.randomBytes(16);
    return new Promise<Buffer>((resolve, reject) => {
      queue.push({ id: nextId++, password: Buffer.from(password), salt, resolve, reject });
      pump();
    }).then((hash) =>
      [
        "scrypt",
        PARAMS.N,
        PARAMS.r,
        PARAMS.p,
        salt.toString("base64"),
        hash.toString("base64"),
      ].join("$"),
    );
  };

  return {
    size,
    backlog: () => queue.length + slots.filter((slot) => slot.job !== undefined).length,
    hashAll: (passwords) => Promise.all(passwords.map(hashOne)),
    close: async () => {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error("the password pool is closed"));
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}

let shared: PasswordPool | undefined;

/** The process's pool, started at its first use. */
export function passwordPool(): PasswordPool {
  shared ??= createPasswordPool();
  return shared;
}

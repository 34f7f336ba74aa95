import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { PROCESS_NAME_VARIABLE, serveGroup } from "../server/process-group";
import { supervise, type Backoff, type Supervised } from "./supervise";

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * The OCPP gateway processes of `npm start` (OCPP_PROCESSES, default 1), each kept up on its own
 * by `supervise`: one that dies is started again while the others keep their chargers. They share
 * the one database (jobs, leases and station ownership are claimed there) and listen on the same
 * OCPP_PORT with SO_REUSEPORT (ocpp/main.ts), so chargers keep one URL and the kernel spreads new
 * connections among the processes (ARCHITECTURE.md, "Several gateway processes").
 *
 * Names: `ocpp` for one process (as before), `ocpp1` … `ocppN` for several; each start and death is
 * logged under its name with its pid. Each process tells over its IPC channel when it listens and
 * which gateway id it runs as (`listening`), since a probe of the shared port's /health reaches
 * whichever process the kernel picks. For the same reason a scrape of /metrics and a probe of
 * /health gather every process's answer through this process (server/process-group.ts).
 */
export type GatewayProcess = {
  name: string;
  supervised: Supervised;
  /** the latest start's gateway id and pid, once that start listens */
  listening: () => { gatewayId: string; pid: number } | undefined;
};

export type GatewayFleet = {
  processes: GatewayProcess[];
  /** resolves once every process listens; fails if one exits during start-up or after `ms` */
  waitListening: (ms?: number) => Promise<void>;
  /** from now on, each process is started again whenever it dies */
  keepUp: () => void;
  stop: () => Promise<void>;
};

export const gatewayName = (index: number, count: number) =>
  count === 1 ? "ocpp" : `ocpp${index + 1}`;

export function superviseGateways(options: {
  count: number;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  labelWidth?: number;
  onStart?: (name: string, child: ChildProcess) => void;
  backoff?: Backoff;
}): GatewayFleet {
  const { count, env, log } = options;
  const group = serveGroup(() =>
    processes.map((p) => ({ name: p.name, child: p.supervised.current() })),
  );
  const processes = Array.from({ length: count }, (_, index): GatewayProcess => {
    const name = gatewayName(index, count);
    let listening: { gatewayId: string; pid: number } | undefined;
    const supervised = supervise({
      name,
      labelWidth: Math.max(options.labelWidth ?? 0, name.length),
      log,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      onStart: (child) => {
        listening = undefined;
        child.on("message", (message: { ocpp?: string; gateway_id?: string; pid?: number }) => {
          if (message.ocpp === "listening" && message.gateway_id && child.pid)
            listening = { gatewayId: message.gateway_id, pid: child.pid };
          if (count > 1) group(child, message);
        });
        options.onStart?.(name, child);
      },
      // Node with tsx's loader rather than the tsx command: one process per gateway, so the pid in
      // the log is the one holding the chargers (a killed tsx wrapper would orphan it).
      start: () =>
        spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "ocpp/main.ts"], {
          cwd: ROOT,
          env: { ...env, OCPP_PROCESSES: String(count), [PROCESS_NAME_VARIABLE]: name },
          stdio: ["ignore", "pipe", "pipe", "ipc"],
        }),
    });
    return { name, supervised, listening: () => listening };
  });
  return {
    processes,
    waitListening: async (ms = 60_000) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const died = processes.find((p) => p.supervised.deaths() > 0);
        if (died) throw new Error(`${died.name} exited during start-up`);
        if (processes.every((p) => p.listening())) return;
        if (Date.now() >= deadline)
          throw new Error(
            `${processes
              .filter((p) => !p.listening())
              .map((p) => p.name)
              .join(", ")} did not listen within ${ms / 1000} s`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    keepUp: () => processes.forEach((p) => p.supervised.keepUp()),
    stop: async () => {
      await Promise.all(processes.map((p) => p.supervised.stop()));
    },
  };
}

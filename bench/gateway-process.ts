/**
 * The `ocpp` process serving a port, found in /proc (Linux), for the figures its /health does not
 * give: open files against its limit, which bounds how many sockets one process can hold.
 */
import fs from "node:fs";
import { processCpuMs } from "./process-cpu";

export function gatewayProcess(ocppPort: string | number) {
  const pid = fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .find((entry) => {
      try {
        const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
        if (!cmdline.includes("ocpp/main.ts")) return false;
        return fs
          .readFileSync(`/proc/${entry}/environ`, "utf8")
          .split("\0")
          .includes(`OCPP_PORT=${ocppPort}`);
      } catch {
        return false; // gone, or not ours to read
      }
    });
  if (!pid) throw new Error(`no ocpp process serving port ${ocppPort}`);
  return {
    pid: Number(pid),
    /** CPU time the process has used, in seconds */
    cpuSeconds: () => (processCpuMs(Number(pid)) ?? NaN) / 1000,
    openFiles: () => fs.readdirSync(`/proc/${pid}/fd`).length,
    /** the soft limit on open files (`ulimit -n` as the process started) */
    openFileLimit: () =>
      Number(/Max open files\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/limits`, "utf8"))?.[1]),
  };
}

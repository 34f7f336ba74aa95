/**
 * The `ocpp` process serving a port, found in /proc (Linux), for the figures its /health does not
 * give: open files against its limit, which bounds how many sockets one process can hold.
 */
import fs from "node:fs";

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
    /** user and system CPU time the process has used, in seconds (clock ticks of 1/100 s) */
    cpuSeconds: () => {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    openFiles: () => fs.readdirSync(`/proc/${pid}/fd`).length,
    /** the soft limit on open files (`ulimit -n` as the process started) */
    openFileLimit: () =>
      Number(/Max open files\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/limits`, "utf8"))?.[1]),
  };
}

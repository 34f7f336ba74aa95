import fs from "node:fs";
import { processInfo } from "../server/lib/processes";

/** Every running process whose command line contains `text` (a data folder, a checkout), as "pid args". */
export function processesNaming(text: string): string[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      const info = processInfo(Number(pid));
      const args = info?.args.join(" ") ?? "";
      return args.includes(text) ? [`${pid} ${args}`] : [];
    });
}

export const isAlive = (pid: number) => processInfo(pid) !== undefined;

import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";

/** A free TCP port on loopback (the kernel's pick, released at once). */
export async function aFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A real `ocpp` process (`ocpp/main.ts`, as `npm start` runs it) on a free port against this test
 * file's database, with its job runner and its sandbox host; resolves with its gateway id once it
 * listens. `kill` sends a signal and waits for the exit (SIGKILL: a crash, nothing recorded).
 */
export async function spawnGateway(env: Record<string, string> = {}) {
  const port = await aFreePort();
  const child = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "ocpp/main.ts"],
    {
      cwd: path.resolve(import.meta.dirname, ".."),
      env: { ...process.env, OCPP_PORT: String(port), LOG_LEVEL: "info", ...env },
      stdio: ["ignore", "inherit", "pipe"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const gatewayId = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    child.once("exit", (code) => reject(new Error(`ocpp exited (${code}) before it listened`)));
    child.stderr.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split("\n").slice(0, -1)) {
        const entry = (() => {
          try {
            return JSON.parse(line) as { message?: string; gateway_id?: string };
          } catch {
            return {};
          }
        })();
        if (entry.message === "ocpp gateway listening" && entry.gateway_id)
          resolve(entry.gateway_id);
      }
      buffered = buffered.slice(buffered.lastIndexOf("\n") + 1);
    });
  });
  return {
    gatewayId,
    port,
    pid: child.pid!,
    kill: async (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

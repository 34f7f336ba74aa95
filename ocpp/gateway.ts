import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Db } from "../server/db";
import { newId } from "../server/lib/ids";

export type Gateway = {
  id: string;
  connectionCount: () => number;
  handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  close: () => Promise<void>;
};

/**
 * The charger-facing side of this process. Registers itself in `gateways` and keeps a heartbeat
 * there, so other gateways can tell when it died.
 */
export async function createGateway({ db }: { db: Db }): Promise<Gateway> {
  const id = newId("gw");
  await db.gateway.create({ data: { id } });
  const heartbeat = setInterval(() => {
    db.gateway.update({ where: { id }, data: { heartbeatAt: new Date() } }).catch(() => {});
  }, 5_000);
  heartbeat.unref();
  return {
    id,
    connectionCount: () => 0,
    handleUpgrade: (_req, socket) => {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
    },
    close: async () => {
      clearInterval(heartbeat);
      await db.gateway.update({ where: { id }, data: { stoppedAt: new Date() } }).catch(() => {});
    },
  };
}

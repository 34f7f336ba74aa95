import http from "node:http";
import https from "node:https";
import net from "node:net";

/** Idle kept-alive connections close after this long (or sooner when the receiver says so). */
const IDLE_MS = 4_000;
/** Connections kept per destination: more than a runner's concurrent attempts (server/jobs). */
const MAX_SOCKETS = 64;
/** Destinations with an agent; the least recently used one is closed past this. */
const MAX_DESTINATIONS = 256;

export type Destination = {
  protocol: "http:" | "https:";
  /** the address this attempt's own vetting returned */
  vetted: string;
  /** where the bytes go: the vetted address and the URL's port (tests: a local stand-in) */
  host: string;
  port: number;
  /** a test certificate authority to trust (tests only) */
  ca?: string;
};

const agents = new Map<string, http.Agent>();

/**
 * The keep-alive agent for one vetted address. An agent connects only to the address it was made
 * for (its own `lookup`, which Node applies over any request's options), so a pooled connection
 * can only carry a request whose DNS answer was vetted, on that attempt, to that same address:
 * reusing connections never skips the public-address check (server/webhooks/destination.ts),
 * which every attempt runs before it picks an agent. Node pools an agent's connections by the
 * request's hostname as well, so TLS's hostname check and SNI stay per hostname.
 */
export function agentFor(destination: Destination): http.Agent {
  const key = JSON.stringify([
    destination.protocol,
    destination.vetted,
    destination.host,
    destination.port,
    destination.ca ?? null,
  ]);
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key); // most recently used last
    agents.set(key, agent);
    return agent;
  }
  const family = net.isIP(destination.host) as 4 | 6;
  const options: https.AgentOptions = {
    keepAlive: true,
    timeout: IDLE_MS,
    maxSockets: MAX_SOCKETS,
    maxFreeSockets: MAX_SOCKETS,
    scheduling: "lifo",
    lookup: pinnedLookup(destination.host, family),
    ...(destination.ca ? { ca: destination.ca } : {}),
  };
  agent = destination.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
  agents.set(key, agent);
  if (agents.size > MAX_DESTINATIONS) {
    const [oldestKey, oldest] = agents.entries().next().value!;
    agents.delete(oldestKey);
    oldest.destroy();
  }
  return agent;
}

/** A DNS lookup that answers one address, whatever the name. */
export function pinnedLookup(address: string, family: 4 | 6): net.LookupFunction {
  return (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    else (callback as (e: null, a: string, f: number) => void)(null, address, family);
  };
}

/** Closes every kept-alive connection (tests; idle ones never hold a process open: the agent unrefs them). */
export function closeConnections() {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

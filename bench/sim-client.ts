/**
 * What the simulator processes (bench/charger-sim.ts, bench/storm-sim.ts, bench/national-sim.ts)
 * and bench/site-limits.ts share: how a simulated charger is built, and how it tries again when a
 * handshake fails, with the policy as a parameter.
 */
import { RPCClient } from "ocpp-rpc";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An OCPP 1.6 charger (not strict: the simulators measure the gateway, not our schemas). With
 * `address`, it comes from an address of its own, as real ones do: through loopback the gateway
 * takes it from X-Forwarded-For, as behind its proxy, so the per-address limits and lines see one
 * charger each rather than a whole fleet behind one address. With `localAddress`, its socket
 * leaves from that loopback source address (bench/national-sim.ts: one source address has only
 * the ephemeral port range's ports towards the one gateway port).
 */
export function simulatedCharger(c: {
  url: string;
  identity: string;
  password: string;
  address?: number;
  localAddress?: string;
}) {
  const n = c.address;
  return new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
    endpoint: c.url,
    identity: c.identity,
    password: c.password,
    ...(n === undefined
      ? {}
      : { headers: { "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` } }),
    ...(c.localAddress === undefined ? {} : { wsOpts: { localAddress: c.localAddress } }),
    protocols: ["ocpp1.6"],
    reconnect: false,
    callTimeoutMs: 30_000,
  });
}

/**
 * What a simulated charger sends once its socket is open: BootNotification (as `model` of the
 * vendor "Bench"), then its connector Available.
 */
export async function bootCharger(c: RPCClient, model: string) {
  await c.call("BootNotification", { chargePointVendor: "Bench", chargePointModel: model });
  await c.call("StatusNotification", {
    connectorId: 1,
    errorCode: "NoError",
    status: "Available",
    timestamp: new Date().toISOString(),
  });
}

/** Why an attempt failed: the HTTP status of a refused handshake, or the error's code or message. */
export const failureReason = (error: unknown) => {
  const e = error as { code?: string | number; message?: string };
  return String(e.code ?? e.message ?? "error");
};

export type RetryPolicy = {
  /** attempts in all, the first included */
  attempts: number;
  /** whether a failure is worth another attempt */
  retryable: (error: unknown) => boolean;
  /** the pause after the `failures`-th failure in a row */
  pauseMs: (failures: number) => number;
};

const refusedForLoad = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return code === 429 || code === 503;
};

/** Refused for load (429, 503): tried again after 1 to 5 s, as chargers do, up to 10 times. */
export const RETRY_WHEN_REFUSED_FOR_LOAD: RetryPolicy = {
  attempts: 10,
  retryable: refusedForLoad,
  pauseMs: () => 1000 + Math.random() * 4000,
};

/** Any failure, again after 200 ms until it works: for set-up that must succeed. */
export const RETRY_UNTIL_CONNECTED: RetryPolicy = {
  attempts: Infinity,
  retryable: () => true,
  pauseMs: () => 200,
};

/** Any failure, again after min(maxMs, firstMs * 2^(failures - 1)) times a random 0.5 to 1.5. */
export function backoff(firstMs: number, maxMs: number): RetryPolicy {
  return {
    attempts: Infinity,
    retryable: () => true,
    pauseMs: (failures) => Math.min(maxMs, firstMs * 2 ** (failures - 1)) * (0.5 + Math.random()),
  };
}

/**
 * `attempt` until it succeeds, the policy gives up, or a failure is not retryable (then that
 * failure is thrown). `onRetry` sees each failure that is tried again.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  onRetry?: (error: unknown) => void,
): Promise<T> {
  for (let failures = 1; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      if (failures >= policy.attempts || !policy.retryable(error)) throw error;
      onRetry?.(error);
      await sleep(policy.pauseMs(failures));
    }
  }
}

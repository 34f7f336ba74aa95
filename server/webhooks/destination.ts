import dns from "node:dns/promises";
import net from "node:net";

/**
 * Where webhooks may go (spec section 6, delivery contract items 7 and 8): public HTTPS hostnames
 * only, and every address a hostname resolves to at attempt time must be public.
 */
const blocked = new net.BlockList();
for (const [prefix, bits, type] of [
  ["0.0.0.0", 8, "ipv4"], // "this network", unspecified
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"], // carrier-grade NAT
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.0.0.0", 24, "ipv4"],
  ["192.0.2.0", 24, "ipv4"], // documentation
  ["192.88.99.0", 24, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"], // benchmarking
  ["198.51.100.0", 24, "ipv4"],
  ["203.0.113.0", 24, "ipv4"],
  ["224.0.0.0", 4, "ipv4"], // multicast
  ["240.0.0.0", 4, "ipv4"], // reserved, broadcast
  ["::", 128, "ipv6"],
  ["::1", 128, "ipv6"],
  ["::ffff:0:0", 96, "ipv6"], // IPv4-mapped: judged by their IPv4 form below
  ["64:ff9b::", 96, "ipv6"],
  ["100::", 64, "ipv6"],
  ["2001:db8::", 32, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
  ["ff00::", 8, "ipv6"],
] as const) {
  blocked.addSubnet(prefix, bits, type);
}

/** True for private, loopback, link-local, multicast, reserved and unspecified addresses. */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return isNonPublicAddress(mapped[1]);
  const family = net.isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

const LOCAL_SUFFIXES = [
  ".localhost",
  ".local",
  ".internal",
  ".intranet",
  ".lan",
  ".home.arpa",
  ".localdomain",
  ".corp",
];

export type UrlRules = {
  production: boolean;
  /** non-production test setting: allow http, loopback and private destinations */
  allowPrivate: boolean;
  /** hostnames of the service itself (its web and OCPP addresses); they and their subdomains are refused */
  ownHosts: string[];
};

/** Checks an endpoint URL; returns the reason it is refused, or null when it is acceptable. */
export function urlProblem(raw: string, rules: UrlRules): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  if (url.hash) return "must not have a fragment";
  if (raw.length > 2048) return "must be at most 2048 characters";
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (rules.allowPrivate && !rules.production) {
    return url.protocol === "https:" || url.protocol === "http:" ? null : "must use https";
  }
  if (url.protocol !== "https:") return "must use https";
  if (net.isIP(host.replace(/^\[|\]$/g, ""))) return "must be a hostname, not an IP address";
  if (!host.includes(".") || host === "localhost" || LOCAL_SUFFIXES.some((s) => host.endsWith(s)))
    return "must be a public hostname";
  if (
    !/^[a-z0-9.-]+$/.test(host) ||
    host
      .split(".")
      .some((label) => !label || label.length > 63 || label.startsWith("-") || label.endsWith("-"))
  ) {
    return "must be a valid hostname";
  }
  if (rules.ownHosts.some((own) => host === own || host.endsWith(`.${own}`)))
    return "must not point at this service";
  const port = url.port ? Number(url.port) : 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return "must have a valid port";
  if (rules.production && port !== 443) return "must use port 443 in production";
  return null;
}

export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Resolves the destination at attempt time. Refused (null) when any address is not public, unless
 * private destinations are allowed (non-production tests). IP literals skip resolution.
 */
export async function vetDestination(
  hostname: string,
  options: { allowPrivate: boolean; resolve: Resolver },
): Promise<string[] | null> {
  const bare = hostname.replace(/^\[|\]$/g, "");
  const addresses = net.isIP(bare) ? [bare] : await options.resolve(bare);
  if (!addresses.length) return null;
  if (!options.allowPrivate && addresses.some(isNonPublicAddress)) return null;
  return addresses;
}

import dns from "node:dns/promises";
import net from "node:net";
import { isPublicAddress } from "./public-address";

/**
 * Where webhooks may go (spec section 6, delivery contract items 7 and 8): public HTTPS hostnames
 * only, and every address a hostname resolves to at attempt time must be public
 * (./public-address.ts).
 */

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
  if (!options.allowPrivate && !addresses.every(isPublicAddress)) return null;
  return addresses;
}

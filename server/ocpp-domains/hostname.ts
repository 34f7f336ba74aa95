import net from "node:net";

/**
 * A hostname chargers may be given (server/ocpp-domains/README.md, "Hostnames"): lower-case ASCII
 * letters, digits and hyphens (an internationalised name in its `xn--` form), at least three labels
 * (a CNAME cannot sit at a zone's apex), at most 253 characters; no IP address, no local name, no
 * wildcard, and not the service's own hostnames or a name under them.
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
  ".invalid",
  ".example",
  ".test",
];

/** The hostname as stored: lower case, no trailing dot, surrounding spaces dropped. */
export const normalizeHostname = (raw: string) => raw.trim().toLowerCase().replace(/\.$/, "");

/** Why `hostname` (normalized) is refused, or null when it may be registered. */
export function hostnameProblem(hostname: string, rules: { ownHosts: string[] }): string | null {
  if (!hostname) return "must not be empty";
  if (hostname.length > 253) return "must be at most 253 characters";
  if (hostname.includes("*")) return "must be one hostname, not a wildcard";
  if (net.isIP(hostname.replace(/^\[|\]$/g, ""))) return "must be a hostname, not an IP address";
  if (!/^[a-z0-9.-]+$/.test(hostname))
    return "must be letters, digits, hyphens and dots (an internationalised name in its xn-- form)";
  const labels = hostname.split(".");
  if (labels.some((l) => !l || l.length > 63 || l.startsWith("-") || l.endsWith("-")))
    return "must be a valid hostname (labels of 1 to 63 characters, not starting or ending with a hyphen)";
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? "")) return "must end in a top-level domain";
  if (hostname === "localhost" || LOCAL_SUFFIXES.some((s) => hostname.endsWith(s)))
    return "must be a public hostname";
  if (labels.length < 3)
    return "must be a subdomain such as ocpp.example.com (a CNAME cannot sit at a domain's apex)";
  if (rules.ownHosts.some((own) => hostname === own || hostname.endsWith(`.${own}`)))
    return "must not be one of this service's own hostnames";
  return null;
}

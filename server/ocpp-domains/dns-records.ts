import { Resolver as NodeResolver } from "node:dns/promises";

/**
 * The two records an operator adds by hand, and their check (server/ocpp-domains/README.md,
 * "Records"): the CNAME sends chargers (and the CA's HTTP-01 request) to the service's gateways;
 * the TXT proves that whoever registered the hostname controls its zone (a CNAME alone could be a
 * stale record someone else left pointing at us).
 */

export const TXT_LABEL = "_chargecloud";
export const TXT_PREFIX = "chargecloud-domain-verification=";

export type RecordCheck = {
  type: "CNAME" | "TXT";
  name: string;
  value: string;
  /** `found`: the expected value is there; `missing`: no such record; `wrong`: other values only; `error`: the lookup failed */
  result: "unchecked" | "found" | "missing" | "wrong" | "error";
  /** what the resolver answered */
  found: string[];
  /** in words, for the operator */
  message: string;
};

export type DnsChecks = { records: RecordCheck[]; checked_at: string | null; ok: boolean };

/** The records to add for `hostname`, not checked yet. */
export function expectedRecords(hostname: string, token: string, cnameTarget: string) {
  return [
    { type: "CNAME" as const, name: hostname, value: cnameTarget },
    { type: "TXT" as const, name: `${TXT_LABEL}.${hostname}`, value: `${TXT_PREFIX}${token}` },
  ];
}

/** What a check asks: only these two lookups, so a test's DNS server answers them. */
export type DnsResolver = {
  resolveCname(name: string): Promise<string[]>;
  resolveTxt(name: string): Promise<string[][]>;
};

/**
 * The resolver checks use: the DNS server `server` names (host:port), or the system's. Each
 * lookup is bounded (2 tries of 2 s), so a check never hangs a job past its lease.
 */
export function dnsResolver(server: string | null): DnsResolver {
  const resolver = new NodeResolver({ timeout: 2_000, tries: 2 });
  if (server) resolver.setServers([server]);
  return resolver;
}

const NO_RECORD = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN", "ENONAME"]);

async function lookup<T>(
  fn: () => Promise<T[]>,
): Promise<{ values: T[]; error: string | null; absent: boolean }> {
  try {
    return { values: await fn(), error: null, absent: false };
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    if (NO_RECORD.has(code)) return { values: [], error: null, absent: true };
    return { values: [], error: code || String(error), absent: false };
  }
}

const bare = (name: string) => name.toLowerCase().replace(/\.$/, "");

/** Asks the resolver for both records. Never throws: a failed lookup is a check's `error`. */
export async function checkRecords(
  hostname: string,
  token: string,
  cnameTarget: string,
  resolver: DnsResolver,
  now: Date,
): Promise<DnsChecks> {
  const [cname, txt] = expectedRecords(hostname, token, cnameTarget);
  const [cnames, txts] = await Promise.all([
    lookup(() => resolver.resolveCname(hostname)),
    lookup(() => resolver.resolveTxt(txt!.name)),
  ]);
  const cnameFound = cnames.values.map(bare);
  const txtFound = txts.values.map((chunks) => chunks.join(""));
  const records: RecordCheck[] = [
    judge(cname!, cnameFound, cnames.error, (v) => v === bare(cname!.value)),
    judge(txt!, txtFound, txts.error, (v) => v === txt!.value),
  ];
  return {
    records,
    checked_at: now.toISOString(),
    ok: records.every((r) => r.result === "found"),
  };
}

function judge(
  expected: { type: "CNAME" | "TXT"; name: string; value: string },
  found: string[],
  error: string | null,
  matches: (value: string) => boolean,
): RecordCheck {
  const base = { ...expected, found };
  if (error)
    return {
      ...base,
      result: "error",
      message: `The lookup of ${expected.type} ${expected.name} failed (${error}); it is asked again at the next check.`,
    };
  if (found.some(matches))
    return { ...base, result: "found", message: `${expected.type} ${expected.name} is in place.` };
  if (!found.length)
    return {
      ...base,
      result: "missing",
      message: `No ${expected.type} record at ${expected.name}: add ${expected.type} ${expected.name} → ${expected.value}.`,
    };
  return {
    ...base,
    result: "wrong",
    message: `${expected.type} ${expected.name} holds ${found.join(", ")}; it must be ${expected.value}.`,
  };
}

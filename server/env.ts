// Server code only: a client component that imports this (directly or through any service) fails
// to build. Node entry points (the gateway, scripts, tests) resolve it with the react-server
// condition (`--conditions=react-server`), where it is an empty module.
import "server-only";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * The only reader of process.env. Every setting is validated once; a bad value stops start-up
 * with a one-line reason (see loadEnv / EnvError).
 */
const port = (fallback: number) =>
  z.coerce
    .number({ error: "must be a port number" })
    .int("must be a whole number")
    .min(1, "must be between 1 and 65535")
    .max(65535, "must be between 1 and 65535")
    .default(fallback);

const url = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL starting with ${protocols.map((p) => `${p}//`).join(" or ")}`,
  );

/**
 * New charger connections the gateways take a second, all together (each process its share):
 * what a reconnect storm may cost the machine (ocpp/handshake-pace.ts, bench/README.md). At 300,
 * 20,000 chargers take 67 s of turns (the goal is 2 minutes); it is about half the rate this
 * 2-core machine admits at most (~565 a second), and above the 200 new chargers a second
 * `storm.ts` asks.
 */
export const DEFAULT_OCPP_HANDSHAKES_PER_SECOND = 300;

const schema = z.object({
  PORT: port(3000),
  OCPP_PORT: port(9000),
  OCPP_PROCESSES: z.coerce
    .number({ error: "must be a whole number from 1 to 64" })
    .int("must be a whole number from 1 to 64")
    .min(1, "must be a whole number from 1 to 64")
    .max(64, "must be a whole number from 1 to 64")
    .default(1),
  OCPP_HANDSHAKES_PER_SECOND: z.coerce
    .number({ error: "must be a whole number from 0 to 100000" })
    .int("must be a whole number from 0 to 100000")
    .min(0, "must be a whole number from 0 to 100000")
    .max(100_000, "must be a whole number from 0 to 100000")
    .default(DEFAULT_OCPP_HANDSHAKES_PER_SECOND),
  DATABASE_URL: url(["postgres:", "postgresql:"]).optional(),
  DATA_DIR: z.string().min(1, "must not be empty").default(".data"),
  EMBEDDED_POSTGRES_SETTINGS: z
    .string()
    .regex(
      /^\s*([a-z_][a-z0-9_.]*=[^\s=]+\s*)*$/,
      "must be PostgreSQL settings as name=value separated by spaces (e.g. shared_preload_libraries=pg_stat_statements)",
    )
    .optional(),
  PUBLIC_BASE_URL: url(["http:", "https:"])
    .refine((value) => {
      // Every address the product hands out (sign-in above all) is this origin plus a path.
      try {
        const u = new URL(value);
        return /^\/*$/.test(u.pathname) && !u.search && !u.hash && !u.username && !u.password;
      } catch {
        return true; // reported by url() above
      }
    }, "must be an origin only (scheme, host and port; the product is served from /)")
    .optional(),
  OCPP_PUBLIC_URL: url(["ws:", "wss:"]).optional(),
  SERVICE_ENV: z
    .enum(["production", "preproduction", "development", "test"], {
      error: "must be one of production, preproduction, development, test",
    })
    .default("development"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  OCPP_TLS_CERT: z.string().min(1).optional(),
  OCPP_TLS_KEY: z.string().min(1).optional(),
  SECRET_KEY: z
    .string()
    .regex(
      /^[A-Za-z0-9+/=_-]{43,}$/,
      "must be at least 32 random bytes, base64 (openssl rand -base64 32)",
    )
    .optional(),
  WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false"),
  MAP_TILE_URL: url(["https:", "http:"])
    .refine(
      (value) => ["{z}", "{x}", "{y}"].every((part) => value.includes(part)),
      "must be a tile URL template with {z}, {x} and {y}, e.g. https://tile.example.org/{z}/{x}/{y}.png",
    )
    .optional(),
  MAP_TILE_ATTRIBUTION: z.string().trim().min(1).max(300).optional(),
  DISPLAYS_DISABLED: z.enum(["true", "false"], { error: "must be true or false" }).default("false"),
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{32,}$/, "must be at least 32 printable characters, no spaces")
    .optional(),
  OIDC_ISSUER: url(["https:", "http:"]).optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_AUDIENCE: z.string().min(1).optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(
      /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/,
      "must be a Stripe secret key (sk_test_… or sk_live_…)",
    )
    .optional(),
  STRIPE_CONNECT_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_-]+$/, "must be a Stripe webhook signing secret (whsec_…)")
    .optional(),
  STRIPE_CONNECT_CLIENT_ID: z
    .string()
    .regex(/^ca_[A-Za-z0-9]+$/, "must be the platform's Connect client ID (ca_…)")
    .optional(),
  STRIPE_BILLING_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_-]+$/, "must be a Stripe webhook signing secret (whsec_…)")
    .optional(),
  STRIPE_BILLING_PRICE_ID: z
    .string()
    .regex(/^price_[A-Za-z0-9]+$/, "must be a Stripe price ID (price_…)")
    .optional(),
  STRIPE_BILLING_METER_EVENT: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,99}$/, "must be a meter's event name (lower-case, digits, _)")
    .default("active_chargers"),
  TEAM_BILLING_GRACE_DAYS: z.coerce.number().int().min(1).max(90).default(14),
  OCPP_DOMAINS_DNS_SERVER: z
    .string()
    .regex(
      /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/,
      "must be a DNS server as host or host:port (e.g. 127.0.0.1:5353 or [::1]:53)",
    )
    .optional(),
  OCPP_DOMAINS_CNAME_TARGET: z
    .string()
    .regex(/^[A-Za-z0-9.-]+$/, "must be a hostname")
    .optional(),
  ACME_DIRECTORY_URL: url(["https:", "http:"]).default(
    "https://acme-v02.api.letsencrypt.org/directory",
  ),
  ACME_CA_CERT: z.string().min(1).optional(),
  ACME_EMAIL: z.email("must be an email address").optional(),
  ACME_HTTP_PORT: z.coerce
    .number({ error: "must be a port number" })
    .int("must be a whole number")
    .min(1, "must be between 1 and 65535")
    .max(65535, "must be between 1 and 65535")
    .optional(),
  OCPP_TLS_PORT: z.coerce
    .number({ error: "must be a port number" })
    .int("must be a whole number")
    .min(1, "must be between 1 and 65535")
    .max(65535, "must be between 1 and 65535")
    .optional(),
  OCPP_DOMAINS_TLS_CHECK: z
    .string()
    .regex(
      /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/,
      "must be host:port (where chargers' TLS reaches a gateway, e.g. gw.example.net:443)",
    )
    .optional(),
  STRIPE_API_URL: url(["http:", "https:"])
    .refine((value) => {
      // The SDK takes a host, port and protocol only: its request paths are absolute (/v1/…).
      try {
        const u = new URL(value);
        return /^\/*$/.test(u.pathname) && !u.search && !u.hash && !u.username && !u.password;
      } catch {
        return true; // reported by url() above
      }
    }, "must be an origin only (scheme, host and port)")
    .optional(),
});

export type Env = {
  port: number;
  ocppPort: number;
  /**
   * gateway processes `npm start` runs on the one database, all listening on OCPP_PORT (and the
   * custom-domain ports) with SO_REUSEPORT: the kernel spreads new connections among them
   * (ARCHITECTURE.md, "Several gateway processes")
   */
  ocppProcesses: number;
  /**
   * new connections each gateway process takes a second at most: its share of
   * OCPP_HANDSHAKES_PER_SECOND (the whole service's); null when that is 0 (no pace)
   */
  ocppHandshakesPerSecond: number | null;
  databaseUrl: string | undefined;
  dataDir: string;
  /** more settings of the embedded PostgreSQL, `name=value` each (EMBEDDED_POSTGRES_SETTINGS) */
  embeddedPostgresSettings: string[];
  publicBaseUrl: string;
  ocppPublicUrl: string;
  serviceEnv: "production" | "preproduction" | "development" | "test";
  logLevel: "debug" | "info" | "warn" | "error";
  /** PEM certificate and key for the OCPP listener (security profile 2); null serves plain ws */
  ocppTls: { certPath: string; keyPath: string } | null;
  /** encrypts secrets at rest (webhook signing secrets); required in production */
  secretKey: string | undefined;
  /** non-production only: webhook deliveries may go to loopback and private addresses (tests) */
  webhookAllowPrivateDestinations: boolean;
  /**
   * Charger displays switched off (DISPLAYS_DISABLED=true): setting or deleting one is refused
   * (409 `displays_disabled`), reads still work, and nothing is pushed to chargers.
   */
  displaysEnabled: boolean;
  /** the location pages' map tile (MAP_TILE_URL, MAP_TILE_ATTRIBUTION); null: no map */
  mapTiles: { url: string; attribution: string | null } | null;
  /** the bearer token `/metrics` requires on every process; null: `/metrics` is not served */
  metricsToken: string | null;
  /**
   * Sign-in: an external OpenID Connect provider when OIDC_ISSUER is set, otherwise the built-in
   * provider at `${publicBaseUrl}/oidc` over the product's own accounts.
   */
  oidc:
    | { kind: "builtin"; issuer: string; audience: string }
    | {
        kind: "external";
        issuer: string;
        clientId: string;
        clientSecret: string;
        /** the `aud` /v1 requires of access tokens; null accepts the provider's default */
        audience: string | null;
      };
  /**
   * The platform's Stripe account for the `card` payment service (Connect, direct charges). A
   * null secret key leaves `card` unavailable; everything else works. `apiUrl` points the SDK at
   * another server (tests only: refused in production).
   */
  stripe: {
    secretKey: string | null;
    connectWebhookSecret: string | null;
    /** the platform's Connect application (`ca_…`): disconnecting deauthorizes accounts with it */
    connectClientId: string | null;
    apiUrl: string | null;
  };
  /**
   * Team billing (server/team-billing/README.md): the platform's own Stripe account billing its
   * teams. On only with STRIPE_SECRET_KEY, STRIPE_BILLING_WEBHOOK_SECRET and
   * STRIPE_BILLING_PRICE_ID all set; null: off, and nothing is limited by it.
   */
  teamBilling: {
    webhookSecret: string;
    /** the metered price per active charger per month (attached to the meter below) */
    priceId: string;
    /** the Billing Meter's event name */
    meterEvent: string;
    /** days an invoice may stay overdue before the team is suspended */
    graceDays: number;
  } | null;
  ocppDomains: OcppDomainsEnv;
};

/** Custom OCPP domains (server/ocpp-domains/README.md). */
export type OcppDomainsEnv = {
  /** the DNS server checks ask (OCPP_DOMAINS_DNS_SERVER, host:port); null: the system resolver */
  dnsServer: string | null;
  /** what the operator's CNAME must point at: OCPP_DOMAINS_CNAME_TARGET, else OCPP_PUBLIC_URL's host */
  cnameTarget: string;
  acme: {
    /** ACME_DIRECTORY_URL, Let's Encrypt's production directory by default */
    directoryUrl: string;
    /** ACME_CA_CERT: a PEM file of CA certificates trusted for the directory's HTTPS, beside the system's */
    caCertPath: string | null;
    /** ACME_EMAIL: the account's contact */
    email: string | null;
  };
  /** ACME_HTTP_PORT: the gateway also answers HTTP-01 challenges on this plain-HTTP port (80) */
  httpChallengePort: number | null;
  /** OCPP_TLS_PORT: the gateway's TLS listener for custom domains (certificates by SNI); null: none */
  tlsPort: number | null;
  /**
   * OCPP_DOMAINS_TLS_CHECK: where the `ready` check's TLS handshake goes (host:port), else the
   * CNAME target on 443
   */
  tlsCheck: { host: string; port: number };
};

export class EnvError extends Error {}

/** "host:port" or "[v6]:port" → its parts */
function hostPort(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(":");
  return { host: value.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(value.slice(at + 1)) };
}

const SECRET_NAMES = new Set([
  "STRIPE_SECRET_KEY",
  "STRIPE_CONNECT_WEBHOOK_SECRET",
  "STRIPE_BILLING_WEBHOOK_SECRET",
  "METRICS_TOKEN",
]);

export function parseEnv(source: Record<string, string | undefined>): Env {
  // An empty variable counts as unset, as shells make that easy to do by accident.
  const cleaned = Object.fromEntries(
    Object.entries(source).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = issue?.path.join(".") ?? "environment";
    // Secrets are never echoed: the reason lands in logs.
    const got = SECRET_NAMES.has(name) ? "" : ` (got "${String(cleaned[name] ?? "")}")`;
    throw new EnvError(`${name} ${issue?.message ?? "is invalid"}${got}`);
  }
  const e = parsed.data;
  if (e.PORT === e.OCPP_PORT) {
    throw new EnvError(
      `PORT and OCPP_PORT must differ: the web process and the OCPP gateway each listen on their own (both are ${e.PORT})`,
    );
  }
  if (Boolean(e.OCPP_TLS_CERT) !== Boolean(e.OCPP_TLS_KEY)) {
    throw new EnvError(
      `${e.OCPP_TLS_CERT ? "OCPP_TLS_KEY" : "OCPP_TLS_CERT"} must be set together with the other (both or neither)`,
    );
  }
  if (e.SERVICE_ENV === "production" && e.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS === "true") {
    throw new EnvError("WEBHOOK_ALLOW_PRIVATE_DESTINATIONS cannot be true in production");
  }
  if (e.SERVICE_ENV === "production" && !e.SECRET_KEY) {
    throw new EnvError("SECRET_KEY is required in production (openssl rand -base64 32)");
  }
  if (e.SERVICE_ENV === "production" && e.STRIPE_API_URL) {
    throw new EnvError("STRIPE_API_URL cannot be set in production (it is for tests)");
  }
  for (const name of ["OCPP_TLS_CERT", "OCPP_TLS_KEY", "ACME_CA_CERT"] as const) {
    const file = e[name];
    if (file && !fs.existsSync(file))
      throw new EnvError(`${name} names no readable file (got "${file}")`);
  }
  const oidcSet = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].filter(Boolean).length;
  if (oidcSet !== 0 && oidcSet !== 3) {
    throw new EnvError(
      "OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together (all or none)",
    );
  }
  // The origin, normalised (lower-case host, no default port), as browsers and URL parsers write it.
  const publicBaseUrl = new URL(e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).origin;
  const host = new URL(publicBaseUrl).hostname;
  const ocppPublicUrl = (
    e.OCPP_PUBLIC_URL ??
    `${publicBaseUrl.startsWith("https:") || e.OCPP_TLS_CERT ? "wss" : "ws"}://${host}:${e.OCPP_PORT}`
  ).replace(/\/+$/, "");
  return {
    port: e.PORT,
    ocppPort: e.OCPP_PORT,
    ocppProcesses: e.OCPP_PROCESSES,
    ocppHandshakesPerSecond:
      e.OCPP_HANDSHAKES_PER_SECOND > 0
        ? Math.ceil(e.OCPP_HANDSHAKES_PER_SECOND / e.OCPP_PROCESSES)
        : null,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    embeddedPostgresSettings: (e.EMBEDDED_POSTGRES_SETTINGS ?? "").split(/\s+/).filter(Boolean),
    publicBaseUrl,
    ocppPublicUrl,
    serviceEnv: e.SERVICE_ENV,
    logLevel: e.LOG_LEVEL,
    secretKey: e.SECRET_KEY,
    webhookAllowPrivateDestinations: e.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS === "true",
    metricsToken: e.METRICS_TOKEN ?? null,
    displaysEnabled: e.DISPLAYS_DISABLED !== "true",
    /** the location pages' map tile (server/env.ts, README "Configuration"); null: no map */
    mapTiles: e.MAP_TILE_URL
      ? { url: e.MAP_TILE_URL, attribution: e.MAP_TILE_ATTRIBUTION ?? null }
      : null,
    oidc:
      e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
        ? {
            kind: "external",
            issuer: e.OIDC_ISSUER.replace(/\/+$/, ""),
            clientId: e.OIDC_CLIENT_ID,
            clientSecret: e.OIDC_CLIENT_SECRET,
            audience: e.OIDC_AUDIENCE ?? null,
          }
        : {
            kind: "builtin",
            issuer: `${publicBaseUrl}/oidc`,
            audience: `${publicBaseUrl}/v1`,
          },
    stripe: {
      secretKey: e.STRIPE_SECRET_KEY ?? null,
      connectWebhookSecret: e.STRIPE_CONNECT_WEBHOOK_SECRET ?? null,
      connectClientId: e.STRIPE_CONNECT_CLIENT_ID ?? null,
      apiUrl: e.STRIPE_API_URL ? new URL(e.STRIPE_API_URL).origin : null,
    },
    teamBilling:
      e.STRIPE_SECRET_KEY && e.STRIPE_BILLING_WEBHOOK_SECRET && e.STRIPE_BILLING_PRICE_ID
        ? {
            webhookSecret: e.STRIPE_BILLING_WEBHOOK_SECRET,
            priceId: e.STRIPE_BILLING_PRICE_ID,
            meterEvent: e.STRIPE_BILLING_METER_EVENT,
            graceDays: e.TEAM_BILLING_GRACE_DAYS,
          }
        : null,
    ocppDomains: {
      dnsServer: e.OCPP_DOMAINS_DNS_SERVER ?? null,
      cnameTarget: (e.OCPP_DOMAINS_CNAME_TARGET ?? new URL(ocppPublicUrl).hostname)
        .toLowerCase()
        .replace(/\.$/, ""),
      acme: {
        directoryUrl: e.ACME_DIRECTORY_URL,
        caCertPath: e.ACME_CA_CERT ? path.resolve(e.ACME_CA_CERT) : null,
        email: e.ACME_EMAIL ?? null,
      },
      httpChallengePort: e.ACME_HTTP_PORT ?? null,
      tlsPort: e.OCPP_TLS_PORT ?? null,
      tlsCheck: e.OCPP_DOMAINS_TLS_CHECK
        ? hostPort(e.OCPP_DOMAINS_TLS_CHECK)
        : {
            host: (e.OCPP_DOMAINS_CNAME_TARGET ?? new URL(ocppPublicUrl).hostname)
              .toLowerCase()
              .replace(/\.$/, ""),
            port: 443,
          },
    },
    ocppTls:
      e.OCPP_TLS_CERT && e.OCPP_TLS_KEY
        ? { certPath: path.resolve(e.OCPP_TLS_CERT), keyPath: path.resolve(e.OCPP_TLS_KEY) }
        : null,
  };
}

let cached: Env | undefined;

/** The validated configuration of this process. Throws EnvError on a bad value. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** For entry points: the configuration, or a one-line `config error: …` and exit code 1. */
export function envOrExit(): Env {
  try {
    return env();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    console.error(`config error: ${error.message}`);
    process.exit(1);
  }
}

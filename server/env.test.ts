import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

describe("configuration", () => {
  it("has defaults for everything", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      port: 3000,
      ocppPort: 9000,
      ocppProcesses: 1,
      serviceEnv: "development",
      databaseUrl: undefined,
    });
    expect(env.publicBaseUrl).toBe("http://localhost:3000");
    expect(env.ocppPublicUrl).toBe("ws://localhost:9000");
    expect(env.dataDir.endsWith(".data")).toBe(true);
  });

  it("keeps the public base URL as an origin and derives the OCPP URL from it", () => {
    const env = parseEnv({ PUBLIC_BASE_URL: "https://CP.example.com:443/", OCPP_PORT: "443" });
    expect(env.publicBaseUrl).toBe("https://cp.example.com");
    expect(env.ocppPublicUrl).toBe("wss://cp.example.com:443");
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["OCPP_PORT", "0"],
    ["OCPP_PROCESSES", "0"],
    ["OCPP_PROCESSES", "1.5"],
    ["OCPP_PROCESSES", "65"],
    ["OCPP_HANDSHAKES_PER_SECOND", "-1"],
    ["OCPP_HANDSHAKES_PER_SECOND", "2.5"],
    ["OCPP_HANDSHAKES_PER_SECOND", "many"],
    ["DATABASE_URL", "mysql://x"],
    ["PUBLIC_BASE_URL", "ftp://x"],
    ["PUBLIC_BASE_URL", "https://cp.example.com/charge"],
    ["SERVICE_ENV", "staging"],
    ["EMBEDDED_POSTGRES_SETTINGS", "work_mem"],
    ["EMBEDDED_POSTGRES_SETTINGS", "work_mem=4MB; DROP TABLE x"],
    ["EMBEDDED_POSTGRES_SETTINGS", "-c=1"],
  ])("refuses %s=%s with a one-line reason naming the variable", (name, value) => {
    let error: unknown;
    try {
      parseEnv({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message.startsWith(name)).toBe(true);
    expect(message).not.toContain("\n");
  });

  it("shares OCPP_HANDSHAKES_PER_SECOND out among the gateway processes; 0 takes them unpaced", () => {
    expect(
      parseEnv({ OCPP_HANDSHAKES_PER_SECOND: "300", OCPP_PROCESSES: "4" }).ocppHandshakesPerSecond,
    ).toBe(75);
    expect(
      parseEnv({ OCPP_HANDSHAKES_PER_SECOND: "10", OCPP_PROCESSES: "3" }).ocppHandshakesPerSecond,
    ).toBe(4);
    expect(parseEnv({ OCPP_HANDSHAKES_PER_SECOND: "0" }).ocppHandshakesPerSecond).toBeNull();
    expect(parseEnv({}).ocppHandshakesPerSecond).toBe(300);
    expect(parseEnv({ OCPP_PROCESSES: "7" }).ocppHandshakesPerSecond).toBe(43);
  });

  it("splits the embedded PostgreSQL's extra settings on spaces", () => {
    expect(parseEnv({}).embeddedPostgresSettings).toEqual([]);
    expect(
      parseEnv({
        EMBEDDED_POSTGRES_SETTINGS:
          " shared_preload_libraries=pg_stat_statements  pg_stat_statements.track=top ",
      }).embeddedPostgresSettings,
    ).toEqual(["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=top"]);
  });

  it("refuses one port for both the web process and the OCPP gateway", () => {
    expect(() => parseEnv({ PORT: "4000", OCPP_PORT: "4000" })).toThrow(
      /PORT and OCPP_PORT must differ.*4000/,
    );
    expect(() => parseEnv({ OCPP_PORT: "3000" })).toThrow(/must differ/);
    expect(parseEnv({ PORT: "4000", OCPP_PORT: "4001" }).ocppPort).toBe(4001);
  });

  it("needs the OCPP TLS certificate and key together, as readable files", () => {
    expect(() => parseEnv({ OCPP_TLS_CERT: "package.json" })).toThrow(
      /^OCPP_TLS_KEY must be set together/,
    );
    expect(() =>
      parseEnv({ OCPP_TLS_CERT: "package.json", OCPP_TLS_KEY: "/no/such/key.pem" }),
    ).toThrow(/^OCPP_TLS_KEY names no readable file/);
    const env = parseEnv({ OCPP_TLS_CERT: "package.json", OCPP_TLS_KEY: "package.json" });
    expect(env.ocppTls?.certPath.endsWith("package.json")).toBe(true);
    expect(env.ocppPublicUrl).toBe("wss://localhost:9000");
  });

  it("refuses private webhook destinations and a missing SECRET_KEY in production", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(() =>
      parseEnv({
        SERVICE_ENV: "production",
        SECRET_KEY: key,
        WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
      }),
    ).toThrow(/^WEBHOOK_ALLOW_PRIVATE_DESTINATIONS cannot be true in production/);
    expect(() => parseEnv({ SERVICE_ENV: "production" })).toThrow(
      /^SECRET_KEY is required in production/,
    );
    expect(
      parseEnv({ SERVICE_ENV: "test", WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true" })
        .webhookAllowPrivateDestinations,
    ).toBe(true);
    expect(
      parseEnv({ SERVICE_ENV: "production", SECRET_KEY: key }).webhookAllowPrivateDestinations,
    ).toBe(false);
  });

  it("signs in through the built-in provider unless an external issuer is configured in full", () => {
    expect(parseEnv({ PUBLIC_BASE_URL: "https://cp.example.com" }).oidc).toEqual({
      kind: "builtin",
      issuer: "https://cp.example.com/oidc",
      audience: "https://cp.example.com/v1",
    });
    expect(
      parseEnv({
        OIDC_ISSUER: "https://login.example.com/",
        OIDC_CLIENT_ID: "cp",
        OIDC_CLIENT_SECRET: "s3cret",
        OIDC_AUDIENCE: "api://cp",
      }).oidc,
    ).toEqual({
      kind: "external",
      issuer: "https://login.example.com",
      clientId: "cp",
      clientSecret: "s3cret",
      audience: "api://cp",
    });
    expect(() => parseEnv({ OIDC_ISSUER: "https://login.example.com" })).toThrow(
      /must be set together/,
    );
    expect(() =>
      parseEnv({ OIDC_ISSUER: "login", OIDC_CLIENT_ID: "a", OIDC_CLIENT_SECRET: "b" }),
    ).toThrow(/OIDC_ISSUER must be a URL/);
  });
  it("turns team billing on only with the platform key, its webhook secret and the metered price", () => {
    expect(parseEnv({}).teamBilling).toBeNull();
    // the card payments' key alone leaves team billing off: nothing is limited
    expect(parseEnv({ STRIPE_SECRET_KEY: "sk_test_abc123" }).teamBilling).toBeNull();
    expect(
      parseEnv({ STRIPE_SECRET_KEY: "sk_test_abc123", STRIPE_BILLING_WEBHOOK_SECRET: "whsec_b" })
        .teamBilling,
    ).toBeNull();
    expect(
      parseEnv({
        STRIPE_SECRET_KEY: "sk_test_abc123",
        STRIPE_BILLING_WEBHOOK_SECRET: "whsec_b",
        STRIPE_BILLING_PRICE_ID: "price_123",
      }).teamBilling,
    ).toEqual({
      webhookSecret: "whsec_b",
      priceId: "price_123",
      meterEvent: "active_chargers",
      graceDays: 14,
    });
    expect(() => parseEnv({ STRIPE_BILLING_PRICE_ID: "prod_1" })).toThrow(
      /^STRIPE_BILLING_PRICE_ID must be a Stripe price ID/,
    );
    expect(() => parseEnv({ STRIPE_BILLING_WEBHOOK_SECRET: "nope" })).toThrow(
      /^STRIPE_BILLING_WEBHOOK_SECRET must be a Stripe webhook signing secret \(whsec_…\)$/,
    );
    expect(() => parseEnv({ TEAM_BILLING_GRACE_DAYS: "0" })).toThrow(/^TEAM_BILLING_GRACE_DAYS/);
  });
  it("configures Stripe only when asked, never echoes its secrets, and keeps the test URL out of production", () => {
    expect(parseEnv({}).stripe).toEqual({
      secretKey: null,
      connectWebhookSecret: null,
      connectClientId: null,
      apiUrl: null,
    });
    expect(
      parseEnv({
        STRIPE_SECRET_KEY: "sk_test_abc123",
        STRIPE_CONNECT_WEBHOOK_SECRET: "whsec_xyz",
        STRIPE_CONNECT_CLIENT_ID: "ca_abc123",
        STRIPE_API_URL: "http://127.0.0.1:12111/",
      }).stripe,
    ).toEqual({
      secretKey: "sk_test_abc123",
      connectWebhookSecret: "whsec_xyz",
      connectClientId: "ca_abc123",
      apiUrl: "http://127.0.0.1:12111",
    });
    expect(() => parseEnv({ STRIPE_CONNECT_CLIENT_ID: "acct_1" })).toThrow(
      /^STRIPE_CONNECT_CLIENT_ID must be the platform's Connect client ID/,
    );
    expect(() => parseEnv({ STRIPE_SECRET_KEY: "pk_test_abc" })).toThrow(
      /^STRIPE_SECRET_KEY must be a Stripe secret key \(sk_test_… or sk_live_…\)$/,
    );
    expect(() => parseEnv({ STRIPE_CONNECT_WEBHOOK_SECRET: "sk_live_oops" })).toThrow(
      /^STRIPE_CONNECT_WEBHOOK_SECRET must be a Stripe webhook signing secret \(whsec_…\)$/,
    );
    expect(() => parseEnv({ STRIPE_API_URL: "http://127.0.0.1:1/v1" })).toThrow(
      /^STRIPE_API_URL must be an origin only/,
    );
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(() =>
      parseEnv({ SERVICE_ENV: "production", SECRET_KEY: key, STRIPE_API_URL: "http://x:1" }),
    ).toThrow(/^STRIPE_API_URL cannot be set in production/);
  });

  it("takes METRICS_TOKEN as a long token and never echoes a refused one", () => {
    expect(parseEnv({}).metricsToken).toBeNull();
    const token = "a".repeat(32);
    expect(parseEnv({ METRICS_TOKEN: token }).metricsToken).toBe(token);
    expect(() => parseEnv({ METRICS_TOKEN: "short-secret" })).toThrow(
      /^METRICS_TOKEN must be at least 32 printable characters, no spaces$/,
    );
    expect(() => parseEnv({ METRICS_TOKEN: `${token} x` })).toThrow(/^METRICS_TOKEN must/);
  });
  it("custom OCPP domains: Let's Encrypt and the system resolver by default; a resolver and a CA file when given", () => {
    const defaults = parseEnv({ OCPP_PUBLIC_URL: "wss://ocpp.chargecloud.example/" }).ocppDomains;
    expect(defaults).toEqual({
      dnsServer: null,
      cnameTarget: "ocpp.chargecloud.example",
      acme: {
        directoryUrl: "https://acme-v02.api.letsencrypt.org/directory",
        caCertPath: null,
        email: null,
      },
      httpChallengePort: null,
      tlsPort: null,
      tlsCheck: { host: "ocpp.chargecloud.example", port: 443 },
    });
    const set = parseEnv({
      OCPP_TLS_PORT: "8443",
      OCPP_DOMAINS_TLS_CHECK: "127.0.0.1:8443",
      OCPP_DOMAINS_DNS_SERVER: "127.0.0.1:5353",
      OCPP_DOMAINS_CNAME_TARGET: "GW.Example.net.",
      ACME_DIRECTORY_URL: "https://127.0.0.1:14000/dir",
      ACME_CA_CERT: "package.json",
      ACME_HTTP_PORT: "8080",
    }).ocppDomains;
    expect(set).toMatchObject({
      dnsServer: "127.0.0.1:5353",
      cnameTarget: "gw.example.net",
      acme: { directoryUrl: "https://127.0.0.1:14000/dir" },
      httpChallengePort: 8080,
      tlsPort: 8443,
      tlsCheck: { host: "127.0.0.1", port: 8443 },
    });
    expect(() => parseEnv({ OCPP_DOMAINS_TLS_CHECK: "gw.example.net" })).toThrow(
      /^OCPP_DOMAINS_TLS_CHECK must be host:port/,
    );
    expect(set.acme.caCertPath?.endsWith("package.json")).toBe(true);
    expect(() => parseEnv({ OCPP_DOMAINS_DNS_SERVER: "dns://x y" })).toThrow(
      /^OCPP_DOMAINS_DNS_SERVER must be a DNS server as host or host:port/,
    );
    expect(() => parseEnv({ ACME_CA_CERT: "/no/such/ca.pem" })).toThrow(
      /^ACME_CA_CERT names no readable file/,
    );
  });
});

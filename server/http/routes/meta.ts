import { z } from "zod";
import { env } from "../../env";
import { PROJECT_SCOPES } from "../../access/scopes";
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from "../../keys/create-api-key";
import { RATE_LIMIT_MAX, RATE_LIMIT_MIN } from "../../keys/set-rate-limit";
import { DomainError } from "../../errors";
import { MAX_BODY_BYTES } from "../body";
import { IDEMPOTENCY_TTL_HOURS } from "../idempotency";
import { defineRoute, type RouteDef } from "../route";
import { accessSchema, describeAccess } from "../../teams/describe-access";
import { API_VERSIONS, LATEST_VERSION, VERSION_STATUS } from "../../versions";

const tag = "Getting started";

const versionsBody = () => ({
  current: LATEST_VERSION,
  supported: API_VERSIONS.map((v) => ({ version: v, ...VERSION_STATUS[v] })),
});

/** Routes that describe the service. `allRoutes` is passed lazily to avoid an import cycle. */
export function metaRoutes(
  allRoutes: () => RouteDef[],
  openApi: () => Record<string, unknown>,
): RouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1",
      operationId: "discover",
      summary: "Discovery",
      tag,
      auth: "public",
      status: 200,
      response: z.object({
        name: z.string(),
        api_base_url: z.string(),
        openapi_url: z.string(),
        versions: z.object({
          current: z.string(),
          supported: z.array(
            z.object({ version: z.string(), status: z.string(), sunset: z.string().nullable() }),
          ),
        }),
        links: z.record(z.string(), z.string()),
      }),
      handler: () => {
        const base = `${env().publicBaseUrl}/v1`;
        return {
          body: {
            name: "Charger Management, Billing and Payments API",
            api_base_url: base,
            openapi_url: `${base}/openapi.json`,
            versions: versionsBody(),
            links: {
              health: `${base}/health`,
              config: `${base}/config`,
              capabilities: `${base}/capabilities`,
              access: `${base}/access`,
            },
          },
        };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/health",
      operationId: "health",
      summary: "Health: whether the service and its database answer",
      description:
        "200 when the database answers; 503 `service_unavailable` with `details.database` when it does not.",
      tag,
      auth: "public",
      status: 200,
      response: z.object({
        status: z.literal("ok"),
        database: z.object({ ok: z.literal(true), latency_ms: z.number() }),
        time: z.string(),
      }),
      handler: async ({ rootDb }) => {
        const started = performance.now();
        try {
          await rootDb.$queryRaw`SELECT 1`;
        } catch {
          throw new DomainError(
            "service_unavailable",
            "The database is not answering.",
            { database: "unreachable" },
            { retryAfterSeconds: 5 },
          );
        }
        const latency = Math.round((performance.now() - started) * 100) / 100;
        return {
          body: {
            status: "ok" as const,
            database: { ok: true as const, latency_ms: latency },
            time: new Date().toISOString(),
          },
        };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/config",
      operationId: "config",
      summary: "Public configuration",
      tag,
      auth: "public",
      status: 200,
      response: z.object({
        service_env: z.string(),
        api_base_url: z.string(),
        ocpp_base_url: z.string(),
        versions: z.unknown(),
        limits: z.record(z.string(), z.unknown()),
      }),
      handler: () => ({
        body: {
          service_env: env().serviceEnv,
          api_base_url: `${env().publicBaseUrl}/v1`,
          ocpp_base_url: `${env().ocppPublicUrl}/ocpp`,
          versions: versionsBody(),
          limits: {
            list_limit: { min: 1, max: 100, default: 50 },
            request_body_bytes: MAX_BODY_BYTES,
            idempotency_key_length: { min: 8, max: 128 },
            idempotency_key_retention_hours: IDEMPOTENCY_TTL_HOURS,
            rate_limit_per_minute: {
              min: RATE_LIMIT_MIN,
              max: RATE_LIMIT_MAX,
              default: DEFAULT_RATE_LIMIT_PER_MINUTE,
            },
            station_name_length: 36,
            external_reference_length: 128,
          },
        },
      }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/capabilities",
      operationId: "capabilities",
      summary: "What this deployment can do",
      tag,
      auth: "public",
      status: 200,
      response: z.object({
        ocpp_versions: z.array(z.string()),
        scopes: z.array(z.string()),
        routes: z.array(z.object({ method: z.string(), path: z.string() })),
      }),
      handler: () => ({
        body: {
          ocpp_versions: ["ocpp1.6", "ocpp2.0.1", "ocpp2.1"],
          scopes: [...PROJECT_SCOPES],
          routes: allRoutes().map((r) => ({ method: r.method, path: r.path })),
        },
      }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/openapi.json",
      operationId: "openapi",
      summary: "This API's OpenAPI 3.1 document",
      tag,
      auth: "public",
      status: 200,
      response: z.record(z.string(), z.unknown()),
      handler: () => ({ body: openApi() }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/access",
      operationId: "access",
      summary: "The caller's tenants, roles and scopes",
      description:
        "For an API key: its one project (none for a workspace key) and its effective scopes. For a signed-in user: every project of every team they belong to, with their roles and the scopes those roles grant.",
      tag: "Access and keys",
      auth: "caller",
      status: 200,
      response: accessSchema,
      handler: async ({ caller, db }) => ({ body: await describeAccess(db, caller) }),
    }),
  ];
}

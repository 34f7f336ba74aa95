// every domain's operation kinds and charger-transaction hooks, before anything uses them
import "../../domains";
import { env } from "../../env";
import { buildOpenApiDocument } from "../openapi-document";
import type { RouteDef } from "../route";
import { createRouter } from "../router";
import { meteredV1 } from "../metered-v1";
import { apiKeyRoutes } from "./api-keys";
import { billRoutes } from "./bills";
import { chargerUrlRoutes } from "./charger-urls";
import { chargingProfileRoutes } from "./charging-profiles";
import { chargingSessionRoutes } from "./charging-sessions";
import { displayImageRoute, displayRoutes } from "./displays";
import { configurationRoutes } from "./configuration";
import { deviceJobRoutes, diagnosticsFileRoute } from "./device-jobs";
import { eventRoutes } from "./events";
import { faultRoutes } from "./faults";
import { inviteRoutes } from "./invites";
import { locationRoutes } from "./locations";
import { memberRoutes } from "./members";
import { meRoutes } from "./me";
import { metaRoutes } from "./meta";
import { ocppDomainRoutes } from "./ocpp-domains";
import { operationRoutes } from "./operations";
import { overviewRoutes } from "./overview";
import { paymentAccountRoutes } from "./payment-account";
import { paymentRoutes } from "./payments";
import { projectRoutes } from "./projects";
import { sandboxRoutes } from "./sandbox";
import { siteLimitRoutes } from "./site-limits";
import { stationRoutes } from "./stations";
import { tariffRoutes } from "./tariffs";
import { teamBillingRoutes } from "./team-billing";
import { reservationRoutes } from "./reservations";
import { tokenRoutes } from "./tokens";
import { transactionRoutes } from "./transactions";
import { webhookRoutes } from "./webhooks";

/** Every /v1 route. The router, the OpenAPI document and /v1/capabilities all read this table. */
export const allRoutes: RouteDef[] = [];

let openApiCache: ReturnType<typeof buildOpenApiDocument> | undefined;
const openApi = () => (openApiCache ??= buildOpenApiDocument(allRoutes, env().publicBaseUrl));

/** The resource routes, each with its own types (the console's procedures are built from them). */
export const resourceRoutes = [
  ...locationRoutes,
  ...siteLimitRoutes,
  ...stationRoutes,
  ...displayRoutes,
  ...operationRoutes,
  ...configurationRoutes,
  ...chargingProfileRoutes,
  ...deviceJobRoutes,
  ...reservationRoutes,
  ...faultRoutes,
  ...transactionRoutes,
  ...overviewRoutes,
  ...tokenRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...ocppDomainRoutes,
  ...chargerUrlRoutes,
  ...tariffRoutes,
  ...billRoutes,
  ...paymentAccountRoutes,
  ...paymentRoutes,
  ...chargingSessionRoutes,
  ...meRoutes,
  ...projectRoutes,
  ...memberRoutes,
  ...inviteRoutes,
  ...apiKeyRoutes,
  ...sandboxRoutes,
  ...teamBillingRoutes,
];
export type ResourceRoute = (typeof resourceRoutes)[number];

allRoutes.push(
  ...metaRoutes(() => allRoutes, openApi),
  ...resourceRoutes,
  displayImageRoute,
  diagnosticsFileRoute,
);

export const handleV1 = meteredV1(createRouter(allRoutes));

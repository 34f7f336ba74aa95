import { z } from "zod";
import {
  createTariff,
  deleteTariff,
  getTariff,
  listTariffs,
  updateTariff,
} from "../../tariffs/manage-tariffs";
import { quoteTariff, simulateTariff } from "../../tariffs/price-tariff";
import {
  priceResultSchema,
  quoteBody,
  simulateBody,
  tariffBody,
  tariffBodyDoc,
  tariffSchema,
} from "../../tariffs/tariff-schema";
import { pageSchema, paginationQuery } from "../../lib/pagination";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Tariffs";
const tariffParams = z.object({ tenant_id: idParam, tariff_id: idParam });
const versionNote =
  "2026-10-15 responses carry `elements`, `tariff_alt_text`, `rules`, `time_zone`, the price bounds and the OCPI fields given (`type`, `tariff_alt_url`, `start_date_time`, `end_date_time`, `energy_mix`, `tax_included`, `country_code`, `party_id`, `last_updated`; null when absent); 2026-10-14 responses show a complex tariff as its base `rate_minor_per_kwh` plus `is_complex` and `pricing_summary`.";

export const tariffRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/tariffs",
    operationId: "listTariffs",
    summary: "List tariffs",
    description: versionNote,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: tenantParams,
    query: paginationQuery,
    status: 200,
    response: pageSchema(tariffSchema),
    handler: async ({ params, query, db, version }) => ({
      body: await listTariffs({ tenantId: params.tenant_id, page: query, version, db }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/tariffs",
    operationId: "createTariff",
    summary: "Create a tariff (simple or OCPI 2.2.1 complex)",
    description: `Simple: \`rate_minor_per_kwh\`. Complex: \`elements\` (OCPI 2.2.1; prices in dollars excl. VAT), optional \`tariff_alt_text\`, \`rules\`, \`time_zone\`, \`min_price\`, \`max_price\`. An OCPI 2.2.1 Tariff object is accepted as partners send it (its \`id\` goes in \`external_reference\`); \`currency\` must be USD. Sessions starting outside \`start_date_time\`/\`end_date_time\` are not priced (409 \`tariff_not_valid_at\`). 422 \`tariff_invalid\` lists every offending path in \`details.issues\`. ${versionNote}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write"],
    params: tenantParams,
    body: tariffBody,
    bodyDoc: tariffBodyDoc,
    idempotency: "optional",
    status: 201,
    response: tariffSchema,
    errors: ["tariff_invalid", "external_reference_taken"],
    handler: async ({ params, body, db, version }) => ({
      body: await createTariff({ tenantId: params.tenant_id, body, version, db }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/tariffs/simulate",
    operationId: "simulateTariff",
    summary: "Price a stored or inline tariff against a meter series or OCPI charging periods",
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: tenantParams,
    body: simulateBody,
    status: 200,
    response: priceResultSchema,
    errors: ["tariff_invalid", "transaction_start_unknown", "tariff_not_valid_at"],
    handler: async ({ params, body, db }) => ({
      body: await simulateTariff({ tenantId: params.tenant_id, input: body, db }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/tariffs/{tariff_id}",
    operationId: "getTariff",
    summary: "Read a tariff",
    description: versionNote,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: tariffParams,
    status: 200,
    response: tariffSchema,
    handler: async ({ params, db, version }) => ({
      body: await getTariff({
        tenantId: params.tenant_id,
        tariffId: params.tariff_id,
        version,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "PATCH",
    path: "/v1/tenants/{tenant_id}/tariffs/{tariff_id}",
    operationId: "updateTariff",
    summary: "Edit a tariff (a new version; earlier versions never change)",
    description: `Fields given replace the current ones; \`null\` removes an optional one. Changing only \`rate_minor_per_kwh\` of a complex tariff is 409 \`tariff_complex\`. ${versionNote}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write"],
    params: tariffParams,
    body: tariffBody,
    bodyDoc: tariffBodyDoc.partial(),
    idempotency: "optional",
    status: 200,
    response: tariffSchema,
    errors: ["tariff_invalid", "tariff_complex", "external_reference_taken"],
    handler: async ({ params, body, db, version }) => ({
      body: await updateTariff({
        tenantId: params.tenant_id,
        tariffId: params.tariff_id,
        body,
        version,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tenants/{tenant_id}/tariffs/{tariff_id}",
    operationId: "deleteTariff",
    summary: "Delete a tariff for new use (its versions stay for what already priced against them)",
    tag,
    auth: "tenant",
    scopes: ["billing:write"],
    params: tariffParams,
    status: 200,
    response: tariffSchema.extend({ deleted: z.literal(true) }),
    handler: async ({ params, db, version }) => ({
      body: await deleteTariff({
        tenantId: params.tenant_id,
        tariffId: params.tariff_id,
        version,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/tariffs/{tariff_id}/quote",
    operationId: "quoteTariff",
    summary: "Price a given energy and duration (charging evenly from start_at)",
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: tariffParams,
    body: quoteBody,
    status: 200,
    response: priceResultSchema,
    errors: ["transaction_start_unknown", "tariff_not_valid_at"],
    handler: async ({ params, body, db }) => ({
      body: await quoteTariff({
        tenantId: params.tenant_id,
        tariffId: params.tariff_id,
        input: body,
        db,
      }),
    }),
  }),
];

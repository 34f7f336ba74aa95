import { createLocation } from "../../locations/create-location";
import { getLocation } from "../../locations/get-location";
import { listLocations } from "../../locations/list-locations";
import {
  createLocationBody,
  externalReference,
  locationSchema,
} from "../../locations/location-schema";
import { pageSchema, paginationQuery } from "../../lib/pagination";
import { locationParams, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Locations";

export const locationRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/locations",
    operationId: "listLocations",
    summary: "List locations",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: tenantParams,
    query: paginationQuery.extend({ external_reference: externalReference.optional() }),
    status: 200,
    response: pageSchema(locationSchema),
    handler: async ({ params, query, db }) => ({
      body: await listLocations({
        tenantId: params.tenant_id,
        page: query,
        externalReference: query.external_reference,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/locations",
    operationId: "createLocation",
    summary: "Create a location",
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: tenantParams,
    body: createLocationBody,
    idempotency: "required",
    status: 201,
    response: locationSchema,
    errors: ["external_reference_taken"],
    handler: async ({ params, body, db }) => ({
      body: await createLocation({ tenantId: params.tenant_id, input: body, db }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/locations/{location_id}",
    operationId: "getLocation",
    summary: "Read a location",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: locationParams,
    status: 200,
    response: locationSchema,
    handler: async ({ params, db }) => ({
      body: await getLocation({ tenantId: params.tenant_id, locationId: params.location_id, db }),
    }),
  }),
];

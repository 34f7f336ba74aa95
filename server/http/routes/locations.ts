import { z } from "zod";
import { createLocation } from "../../locations/create-location";
import { deleteLocation } from "../../locations/delete-location";
import { getLocation } from "../../locations/get-location";
import { listLocations } from "../../locations/list-locations";
import {
  createLocationBody,
  externalReference,
  locationSchema,
  updateLocationBody,
} from "../../locations/location-schema";
import { updateLocation } from "../../locations/update-location";
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
  defineRoute({
    method: "PATCH",
    path: "/v1/tenants/{tenant_id}/locations/{location_id}",
    operationId: "updateLocation",
    summary: "Edit a location",
    description:
      "The fields given replace the current ones (an `address` is replaced whole); `external_reference: null` removes it. Its stations stay where they are.",
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: locationParams,
    body: updateLocationBody,
    idempotency: "required",
    status: 200,
    response: locationSchema,
    errors: ["external_reference_taken"],
    handler: async ({ params, body, db }) => ({
      body: await updateLocation({
        tenantId: params.tenant_id,
        locationId: params.location_id,
        input: body,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/tenants/{tenant_id}/locations/{location_id}",
    operationId: "deleteLocation",
    summary: "Delete a location",
    description:
      "Refused with 409 `location_has_stations` (`details.station_count`) while any station stands there: move or delete them first.",
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: locationParams,
    idempotency: "required",
    status: 200,
    response: z.object({ id: z.number().int(), deleted: z.literal(true) }),
    errors: ["location_has_stations"],
    handler: async ({ params, db }) => ({
      body: await deleteLocation({
        tenantId: params.tenant_id,
        locationId: params.location_id,
        db,
      }),
    }),
  }),
];

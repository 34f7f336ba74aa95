import { z } from "zod";
import { DomainError } from "../../errors";
import {
  deleteDisplay,
  getDisplay,
  setDisplay,
  syncStationDisplaysSoon,
} from "../../displays/manage-displays";
import { readDisplayImage } from "../../displays/display-images";
import { displaySchema, setDisplayBody } from "../../displays/display-schema";
import { idParam, stationParams } from "../params";
import { defineRoute } from "../route";

const tag = "Displays";
const path = "/v1/tenants/{tenant_id}/stations/{station_id}/evses/{evse_number}/display";
const displayParams = stationParams.extend({ evse_number: idParam });

/** After a set or delete committed: push (or clear) now when the charger is online. */
const syncAfterCommit = async ({
  body,
  rootDb,
}: {
  body: unknown;
  rootDb: Parameters<typeof syncStationDisplaysSoon>[0];
}) => {
  await syncStationDisplaysSoon(rootDb, (body as { station_id: number }).station_id);
  return body;
};

/**
 * Charger displays per EVSE (spec sections 1, 2 and 3; the spec leaves their paths "not shown").
 * An EVSE is addressed by its number (`evse_number`, as the station's connectors show it).
 */
export const displayRoutes = [
  defineRoute({
    method: "GET",
    path,
    operationId: "getDisplay",
    summary: "Read an EVSE's display",
    description:
      "The display with its `delivery` (`pending`, `applied`, `unsupported`; `shown`; the last push's refusal in `error`). A deleted display reads `deleted: true` while its row is kept (its screen may still show the QR: `delivery.shown`). 404 when the EVSE never had one.",
    tag,
    auth: "tenant",
    scopes: ["stations:read"],
    params: displayParams,
    status: 200,
    response: displaySchema,
    handler: async ({ params, db }) => ({
      body: await getDisplay({
        tenantId: params.tenant_id,
        stationId: params.station_id,
        evseNumber: params.evse_number,
        db,
      }),
    }),
  }),
  defineRoute({
    method: "PUT",
    path,
    operationId: "setDisplay",
    summary: "Set an EVSE's display",
    description:
      "Stores the https URL (at most 500 characters) the screen's QR code carries, and optionally a tariff of the same tenant whose price the screen shows. Answers at once with `delivery.state` `pending` (or `unsupported` where no adapter drives the screen: a printed QR is needed); the service pushes it when the charger is online, again after every reboot and every price change of the tariff, and `display.delivery_changed` follows every change. 409 `displays_disabled` while displays are switched off.",
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: displayParams,
    body: setDisplayBody,
    idempotency: "optional",
    status: 200,
    response: displaySchema,
    errors: ["displays_disabled"],
    handler: async ({ params, body, db }) => ({
      body: await setDisplay({
        tenantId: params.tenant_id,
        stationId: params.station_id,
        evseNumber: params.evse_number,
        input: body,
        db,
      }),
    }),
    afterCommit: syncAfterCommit,
  }),
  defineRoute({
    method: "DELETE",
    path,
    operationId: "deleteDisplay",
    summary: "Delete an EVSE's display",
    description:
      "Where the station's `display.clear` is true the screen is cleared (ClearDisplayMessage; `shown` until the charger accepts); where it is false the last QR stays on the screen until the charger reboots or another QR overwrites it, as `delivery.shown` says. 409 `displays_disabled` while displays are switched off.",
    tag,
    auth: "tenant",
    scopes: ["stations:write"],
    params: displayParams,
    idempotency: "optional",
    status: 200,
    response: displaySchema,
    errors: ["displays_disabled"],
    handler: async ({ params, db }) => ({
      body: await deleteDisplay({
        tenantId: params.tenant_id,
        stationId: params.station_id,
        evseNumber: params.evse_number,
        db,
      }),
    }),
    afterCommit: syncAfterCommit,
  }),
];

/**
 * The QR PNG a 2.0.1 charger screen loads (spec section 1: the one image route). Public (a
 * charger holds no credentials), addressed by the SHA-256 of its bytes, so it never changes:
 * cached for a year, immutable. Not a console procedure (its answer is not JSON).
 */
export const displayImageRoute = defineRoute({
  method: "GET",
  path: "/v1/display-images/{sha256}.png",
  operationId: "getDisplayImage",
  summary: "A display's QR code PNG",
  description:
    "The PNG of a QR code registered by a display push, by the SHA-256 (lower-case hex) of its bytes. `Cache-Control: public, max-age=31536000, immutable`. 404 `not_found` otherwise.",
  tag,
  auth: "public",
  params: z.object({
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex digits"),
  }),
  status: 200,
  produces: "image/png",
  response: z.custom<Uint8Array>((value) => value instanceof Uint8Array),
  handler: async ({ params, db }) => {
    const png = await readDisplayImage(db, params.sha256);
    if (!png) throw new DomainError("not_found", "No such image.", { resource: "display_image" });
    return {
      body: png,
      headers: {
        "Content-Type": "image/png",
        "Cache-Control": "public, max-age=31536000, immutable",
      },
    };
  },
});

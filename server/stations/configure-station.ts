import type { TenantPrincipal } from "../access/caller";
import { owningGateway } from "../charging/gateways";
import type { DbTx } from "../db";
import { DomainError, fieldError, notFound } from "../errors";
import { createOperation } from "../operations/create-operation";
import type {
  ChangeConfigurationInput,
  ReadConfigurationInput,
} from "./configuration/configuration-schema";
import {
  isConnectionKey,
  isPasswordKey,
  isProtectedKey,
  isSecretKey,
  keyName,
  type KeyRef,
} from "./configuration/keys";
import { stationConfigurationChange } from "./operation-kinds/configuration-change";
import { protocolMismatch, stationConfigurationRead } from "./operation-kinds/configuration-read";

/** The station, its protocol as last seen, and the live gateway holding it (or null). */
async function stationFor(db: DbTx, tenantId: number, stationId: number) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    select: { id: true, protocol: true },
  });
  if (!station) throw notFound("station");
  return { ...station, gatewayId: await owningGateway(db, stationId) };
}

/** Keys named for the protocol the station spoke last (checked again when it is sent). */
function checkProtocol(keys: readonly KeyRef[], protocol: string | null, field: string) {
  if (!protocol) return;
  const mismatch = protocolMismatch(keys, protocol);
  if (mismatch)
    throw fieldError("validation_failed", `${field}.${mismatch.index} ${mismatch.message}.`, [
      { field: `${field}.${mismatch.index}.component`, message: mismatch.message },
    ]);
}

/**
 * Reads the charger's configuration, as a `station.configuration_read` operation
 * (`./operation-kinds/configuration-read.ts`): 202, `dispatching` or `rejected`
 * (`station_offline`) at once. Its success replaces the station's last read.
 */
export async function readStationConfiguration({
  db,
  tenantId,
  stationId,
  input,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: ReadConfigurationInput;
  principal: TenantPrincipal;
}) {
  const station = await stationFor(db, tenantId, stationId);
  if (input.keys) checkProtocol(input.keys, station.protocol, "keys");
  return createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: stationConfigurationRead.scope,
    action: "read_configuration",
    request: input.keys ? { keys: input.keys } : {},
    gatewayId: station.gatewayId,
  });
}

/**
 * Changes the charger's configuration, as a `station.configuration_change` operation
 * (`./operation-kinds/configuration-change.ts`), after the guards (spec section 4, credentials
 * rule 5; section 5): a password key is set only through `PUT …/credentials` (422); a protected
 * key needs `stations:admin` (403 `stations_admin_required`); a connection key also needs
 * `confirm_connection_change: true` (422 `connection_change_unconfirmed`). Nothing is written or
 * sent when a guard refuses. `allow_protected` is ignored (the route answers its deprecation).
 */
export async function changeStationConfiguration({
  db,
  tenantId,
  stationId,
  input,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: ChangeConfigurationInput;
  principal: TenantPrincipal;
}) {
  const station = await stationFor(db, tenantId, stationId);
  const { changes } = input;
  checkProtocol(changes, station.protocol, "changes");
  if (station.protocol === "ocpp1.6" && changes.length > 1)
    throw fieldError("validation_failed", "OCPP 1.6 changes one key per request.", [
      { field: "changes", message: "must hold one change for an OCPP 1.6 station" },
    ]);
  const password = changes.findIndex(isPasswordKey);
  if (password >= 0)
    throw fieldError(
      "validation_failed",
      "The charger's connection password is set through PUT …/credentials, which keeps the service's copy in step.",
      [{ field: `changes.${password}.key`, message: "is the connection password" }],
    );
  const protectedKeys = changes.filter(isProtectedKey).map(keyName);
  if (protectedKeys.length && !principal.scopes.has("stations:admin"))
    throw new DomainError(
      "stations_admin_required",
      "Changing a protected configuration key needs the stations:admin scope.",
      { required_scopes: ["stations:admin"], keys: protectedKeys },
    );
  const connectionKeys = changes.filter(isConnectionKey).map(keyName);
  if (connectionKeys.length && input.confirm_connection_change !== true)
    throw new DomainError(
      "connection_change_unconfirmed",
      "Changing how the charger connects can lock it out: send confirm_connection_change: true.",
      {
        keys: connectionKeys,
        fields: [{ field: "confirm_connection_change", message: "must be true" }],
      },
    );
  const secrets: Record<string, string> = {};
  const shown = changes.map((c, i) => {
    const secret = isSecretKey(c);
    if (secret) secrets[String(i)] = c.value;
    return {
      ...(c.component !== undefined ? { component: c.component } : {}),
      key: c.key,
      value: secret ? null : c.value,
      ...(secret ? { secret: true } : {}),
    };
  });
  return createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: stationConfigurationChange.scope,
    action: "change_configuration",
    request: {
      changes: shown,
      ...(connectionKeys.length ? { confirm_connection_change: true } : {}),
    },
    secret: JSON.stringify(secrets),
    gatewayId: station.gatewayId,
  });
}

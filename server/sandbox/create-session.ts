import type { WorkspacePrincipal } from "../access/caller";
import { createBill } from "../bills/create-bill";
import type { DbTx } from "../db";
import { DomainError, fieldError } from "../errors";
import { newId } from "../lib/ids";
import { authorizePayment } from "../payments/authorize-payment";
import { atomically } from "./atomically";
import { SANDBOX_CHANNEL } from "./notices";
import { SANDBOX_TARIFF_REFERENCE } from "./provision";
import { loadSessionFacts, presentSandboxSession } from "./session-facts";
import type { CreateSandboxSessionInput, SandboxSessionResource } from "./session-schema";
import { enqueueDrive, publish } from "./session-status";

/**
 * `POST /v1/sessions`: a sandbox session on a free connector of the workspace's sandbox (or the
 * one named), priced by the sandbox's default tariff (or the one named). In one transaction, with
 * the production services: the bill (`csms`, on the sandbox tenant), its simulator payment
 * (authorized by its journaled attempt and approved by the settlement job, as a payer's Approve
 * on the hosted page would), the session (`starting`, holding its connector: one open session per
 * connector), its station's virtual charger wanted (`idle_since` null, `NOTIFY sandbox`), the
 * settlement job's `starting` phase, and `sandbox_session.status_changed` (previous_status null).
 * Serialized per sandbox (an advisory lock) so concurrent starts take different connectors;
 * all busy: 409 `no_free_connector`.
 */
export async function createSandboxSession(
  db: DbTx,
  principal: WorkspacePrincipal,
  input: CreateSandboxSessionInput,
): Promise<SandboxSessionResource> {
  const tenantId = principal.tenantId;
  return atomically(db, async (tx) => {
    const tariff = await tariffFor(tx, tenantId, input.tariff_id);
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`sandbox-connectors:${tenantId}`}))`;
    const connector = await freeConnector(tx, tenantId, input);
    const bill = await createBill({
      tenantId,
      actorId: principal.actorId,
      input: {
        station_id: connector.stationId,
        connector_id: connector.id,
        tariff_id: tariff,
        source: "csms",
        ...(input.hold_minor === undefined ? {} : { hold_minor: input.hold_minor }),
      },
      db: tx,
    });
    const payment = await authorizePayment({
      tenantId,
      actorId: principal.actorId,
      input: { bill_id: bill.id, service: "simulator" },
      db: tx,
    });
    const id = newId("sbs");
    await tx.sandboxSession.create({
      data: {
        id,
        tenantId,
        teamId: principal.teamId,
        stationId: connector.stationId,
        connectorId: connector.id,
        tariffId: bill.tariff_id,
        tariffVersion: bill.tariff_version,
        billId: bill.id,
        paymentId: payment.id,
        status: "starting",
        openConnectorId: connector.id,
        createdBy: principal.actorId,
      },
    });
    // An idle charger's virtual clock starts again from real time: a session's clock runs ahead
    // by what its own advances add (bounded), not by every earlier session's.
    await tx.$executeRaw`
      UPDATE sandbox_chargers
         SET idle_since = NULL,
             clock_offset_seconds = CASE WHEN idle_since IS NULL THEN clock_offset_seconds ELSE 0 END
       WHERE station_id = ${connector.stationId}`;
    await tx.$executeRaw`SELECT pg_notify(${SANDBOX_CHANNEL}, ${String(connector.stationId)})`;
    await enqueueDrive(tx, id, "starting");
    const session = await presentSandboxSession(tx, (await loadSessionFacts(tx, { id }))!);
    await publish(tx, session, null);
    return session;
  });
}

async function tariffFor(tx: DbTx, tenantId: number, tariffId: number | undefined) {
  const tariff = await tx.tariff.findFirst({
    where: {
      tenantId,
      deletedAt: null,
      ...(tariffId === undefined
        ? { externalReference: SANDBOX_TARIFF_REFERENCE }
        : { id: tariffId }),
    },
    select: { id: true },
  });
  if (!tariff)
    throw fieldError("validation_failed", "tariff_id names no tariff of the sandbox.", [
      { field: "tariff_id", message: "names no tariff of the sandbox" },
    ]);
  return tariff.id;
}

/**
 * The connector to charge on: the one named (it must be the sandbox's, of `station_id` when
 * given, and free), else the first free connector of the station named, else of the sandbox's
 * stations in their order. Free: no open session holds it (`open_connector_id`).
 */
async function freeConnector(tx: DbTx, tenantId: number, input: CreateSandboxSessionInput) {
  const connectors = await tx.$queryRaw<
    { id: number; station_id: number; session_id: string | null }[]
  >`
    SELECT c.id, c.station_id, s.id AS session_id
      FROM connectors c
      JOIN sandbox_chargers sc ON sc.station_id = c.station_id
      LEFT JOIN sandbox_sessions s ON s.open_connector_id = c.id
     WHERE c.tenant_id = ${tenantId}
     ORDER BY c.station_id, c.connector_number`;
  if (input.station_id !== undefined && !connectors.some((c) => c.station_id === input.station_id))
    throw fieldError("validation_failed", "station_id names no station of the sandbox.", [
      { field: "station_id", message: "names no sandbox station (GET /v1/locations lists them)" },
    ]);
  const candidates = connectors.filter(
    (c) =>
      (input.station_id === undefined || c.station_id === input.station_id) &&
      (input.connector_id === undefined || c.id === input.connector_id),
  );
  if (input.connector_id !== undefined && candidates.length === 0)
    throw new DomainError(
      "connector_not_found",
      "connector_id names no connector of the sandbox (of station_id when given).",
      { fields: [{ field: "connector_id", message: "names no sandbox connector" }] },
    );
  const free = candidates.find((c) => c.session_id === null);
  if (!free)
    throw new DomainError(
      "no_free_connector",
      "Every sandbox connector asked for has an open session: stop one (POST /v1/sessions/{session_id}/stop), or name another station_id or connector_id.",
      { open_session_ids: [...new Set(candidates.map((c) => c.session_id))] },
    );
  return { id: free.id, stationId: free.station_id };
}

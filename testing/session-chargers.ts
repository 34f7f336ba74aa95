import { aTariff, chargingTokenOf } from "./bills";
import { aSession, readSession } from "./sessions";
import { aRecordingCharger, type Answer } from "./recording-charger";

const PASSWORD = "sessions-charger-pass-1";

/** A recording charger (`aRecordingCharger`), a tariff and a `csms` external session on connector 1. */
export async function aChargerWithSession(options: {
  url: string;
  protocol: "ocpp1.6" | "ocpp2.0.1";
  answerStart?: Answer;
}) {
  const t = await aRecordingCharger({ ...options, password: PASSWORD });
  const tariff = await aTariff(t.tenantId, t.key, { rate_minor_per_kwh: 35 });
  const session = await aSession(t.tenantId, t.key, {
    station_id: t.station.id,
    connector_id: t.station.connectors[0]!.id,
    tariff_id: tariff.id,
    source: "csms",
    application_reference: "booking-1",
  });
  return {
    ...t,
    session,
    token: await chargingTokenOf(session.bill_id),
    read: () => readSession(t.tenantId, t.key, session.id),
  };
}

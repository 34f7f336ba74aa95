"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useProject } from "../context";
import { useV1Mutation } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { Button, Card, ErrorBox, SelectField, TextField } from "../ui";

/** "$12.50" or "12.5" as US cents; null when it is not an amount. */
export const centsOf = (text: string): number | null => {
  const m = /^\$?\s*(\d{1,6})(?:\.(\d{1,2}))?$/.exec(text.trim());
  return m ? Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0")) : null;
};

/**
 * A new bill: station and connector, tariff (its current version is fixed on the bill), source,
 * and optionally its hold (else the project's default). The API validates everything again and
 * its field messages are shown; a created bill opens its own page.
 */
export function CreateBill({ tenantId, onDone }: { tenantId: number; onDone: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const project = useProject(tenantId);
  const create = useV1Mutation(trpc.v1.createBill);
  const stations = useQuery(
    trpc.v1.listStations.queryOptions({ params: { tenant_id: tenantId }, query: { limit: 100 } }),
  );
  const tariffs = useQuery(
    trpc.v1.listTariffs.queryOptions({ params: { tenant_id: tenantId }, query: { limit: 100 } }),
  );
  const [stationId, setStationId] = useState("");
  const [connectorId, setConnectorId] = useState("");
  const [tariffId, setTariffId] = useState("");
  const [source, setSource] = useState<"simulated" | "csms">("simulated");
  const [hold, setHold] = useState("");
  const stationList = stations.data?.data ?? [];
  const station = stationList.find((s) => String(s.id) === stationId) ?? stationList[0];
  const connector =
    station?.connectors.find((c) => String(c.id) === connectorId) ?? station?.connectors[0];
  const tariff = tariffs.data?.data.find((t) => String(t.id) === tariffId) ?? tariffs.data?.data[0];
  const holdMinor = hold ? centsOf(hold) : undefined;
  const missing =
    stations.isPending || tariffs.isPending
      ? "Loading stations and tariffs…"
      : !station
        ? "Register a station first."
        : !tariff
          ? "Create a tariff first."
          : holdMinor === null
            ? "The hold is not an amount in dollars."
            : null;
  return (
    <Card title="New bill" testId="create-bill">
      <form
        className="grid max-w-3xl gap-3 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (!station || !connector || !tariff || holdMinor === null) return;
          void create
            .run({
              params: { tenant_id: tenantId },
              body: {
                station_id: station.id,
                connector_id: connector.id,
                tariff_id: tariff.id,
                source,
                ...(holdMinor === undefined ? {} : { hold_minor: holdMinor }),
              },
              idempotencyKey: newRequestKey(),
            })
            .then(
              (bill) => {
                onDone();
                router.push(`/console/t/${tenantId}/bills/${bill.id}`);
              },
              () => undefined,
            );
        }}
      >
        <SelectField
          label="Station"
          value={station ? String(station.id) : ""}
          onChange={(e) => {
            setStationId(e.target.value);
            setConnectorId("");
          }}
        >
          {stationList.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Connector"
          value={connector ? String(connector.id) : ""}
          onChange={(e) => setConnectorId(e.target.value)}
        >
          {(station?.connectors ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              Connector {c.connector_number} (EVSE {c.evse_number})
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Tariff"
          value={tariff ? String(tariff.id) : ""}
          onChange={(e) => setTariffId(e.target.value)}
        >
          {(tariffs.data?.data ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name || `Tariff ${t.id}`} (version {t.version})
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Source"
          value={source}
          onChange={(e) => setSource(e.target.value === "csms" ? "csms" : "simulated")}
        >
          <option value="simulated">Simulated (no charger; finalized with its energy)</option>
          <option value="csms">Charger (csms; started through the bill)</option>
        </SelectField>
        <TextField
          label="Hold (USD, optional)"
          hint="The most the payer's card is held for, $0.50 to $100; default the project's."
          inputMode="decimal"
          value={hold}
          onChange={(e) => setHold(e.target.value)}
        />
        <div className="flex items-end gap-2">
          <Button
            type="submit"
            variant="primary"
            disabledReason={project.denied("billing:write") ?? missing}
            disabled={create.isPending}
          >
            Create bill
          </Button>
          <Button onClick={onDone}>Cancel</Button>
        </div>
      </form>
      {missing && !project.denied("billing:write") ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{missing}</p>
      ) : null}
      {create.error ? (
        <div className="mt-3">
          <ErrorBox error={create.error} />
        </div>
      ) : null}
    </Card>
  );
}

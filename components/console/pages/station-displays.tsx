"use client";

import { useState } from "react";
import { ConfirmDialog } from "../confirm-dialog";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { Badge, Button, Card, ErrorBox, TextField } from "../ui";

type Station = V1["getStation"];
type Display = Station["display"]["evses"][number];

/**
 * Each EVSE's screen (server/displays/README.md): the QR preview (the PNG a 2.0.1 screen loads),
 * its delivery state, and, for people with stations:write, a form to set it and a confirmed clear.
 */
export function StationDisplays({ tenantId, station }: { tenantId: number; station: Station }) {
  const evses = [...new Set(station.connectors.map((c) => c.evse_number))].sort((a, b) => a - b);
  const { adapter, reason, clear } = station.display;
  return (
    <Card title="Screens">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400" data-testid="display-adapter">
        {adapter
          ? `Driven by ${adapter}.${clear === false ? " A cleared QR stays on the screen until the charger reboots or another QR replaces it." : ""}`
          : reason === "not_booted"
            ? "The charger has not booted yet: screens are pushed once it has."
            : `Not supported (${reason ?? "unknown"}): print the QR code instead.`}
      </p>
      <div className="grid gap-4 md:grid-cols-2">
        {evses.map((evse) => (
          <EvseScreen
            key={evse}
            tenantId={tenantId}
            stationId={station.id}
            evse={evse}
            display={station.display.evses.find((d) => d.evse_number === evse) ?? null}
          />
        ))}
      </div>
    </Card>
  );
}

function EvseScreen({
  tenantId,
  stationId,
  evse,
  display,
}: {
  tenantId: number;
  stationId: number;
  evse: number;
  display: Display | null;
}) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const set = useV1Mutation(trpc.v1.setDisplay);
  const remove = useV1Mutation(trpc.v1.deleteDisplay);
  const [url, setUrl] = useState("");
  const [tariff, setTariff] = useState("");
  const [confirming, setConfirming] = useState(false);
  const params = { tenant_id: tenantId, station_id: stationId, evse_number: evse };
  // Setting and clearing are for people with stations:write; the others see the screen only.
  const permitted = project.can("stations:write");
  return (
    <div className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
      <h3 className="mb-2 text-sm font-semibold">EVSE {evse}</h3>
      {display ? (
        <div className="flex gap-3">
          <img
            src={display.image_url}
            alt={`QR code for ${display.url}`}
            width={96}
            height={96}
            data-testid={`display-qr-${evse}`}
          />
          <div className="min-w-0 text-sm">
            <p className="break-all">{display.url}</p>
            {display.tariff_id ? <p>Shows tariff {display.tariff_id}</p> : null}
            <p className="mt-1 flex items-center gap-2">
              <Badge testId={`display-state-${evse}`} value={display.delivery.state} />
              <span>{display.delivery.shown ? "on screen" : "not on screen yet"}</span>
            </p>
            {display.delivery.error ? (
              <p className="mt-1 text-red-700 dark:text-red-400">
                Last push refused: {display.delivery.error.message}
              </p>
            ) : null}
          </div>
        </div>
      ) : (
        <p className="text-sm text-slate-500">No QR set.</p>
      )}
      {permitted ? (
        <form
          className="mt-3 flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void set
              .run({
                params,
                body: { url, ...(tariff ? { tariff_id: Number(tariff) } : {}) },
                idempotencyKey: newRequestKey(),
              })
              .then(
                () => setUrl(""),
                () => undefined,
              );
          }}
        >
          <div className="min-w-56 flex-1">
            <TextField
              label="QR link (https)"
              type="url"
              maxLength={500}
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              required
            />
          </div>
          <div className="w-28">
            <TextField
              label="Tariff ID"
              inputMode="numeric"
              pattern="[0-9]*"
              value={tariff}
              onChange={(e) => setTariff(e.target.value)}
            />
          </div>
          <Button type="submit" variant="primary" disabled={set.isPending}>
            Set
          </Button>
          {display ? (
            <Button type="button" onClick={() => setConfirming(true)}>
              Clear
            </Button>
          ) : null}
        </form>
      ) : project.loading ? null : (
        <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">
          {project.denied("stations:write")}
        </p>
      )}
      {set.error ? <ErrorBox error={set.error} /> : null}
      <ConfirmDialog
        open={permitted && confirming}
        title={`Clear EVSE ${evse}'s screen?`}
        confirmLabel="Clear"
        danger
        busy={remove.isPending}
        error={remove.error ? <ErrorBox error={remove.error} /> : null}
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          void remove.run({ params, idempotencyKey: newRequestKey() }).then(
            () => setConfirming(false),
            () => undefined,
          );
        }}
      >
        Drivers will no longer see this QR code
        {display?.delivery.shown ? " once the charger clears it" : ""}. Some chargers keep the last
        QR on screen until they reboot or another QR replaces it.
      </ConfirmDialog>
    </div>
  );
}

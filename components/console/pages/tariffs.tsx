"use client";

import { money } from "../money";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { OCPI_TARIFF_FIELDS } from "@/server/pricing/ocpi-fields";
import { useProject } from "../context";
import { ExportCsv, type CsvColumn } from "../csv";
import { useV1Mutation, type V1, type V1Input } from "../hooks";
import { useTRPC } from "../trpc";
import { isoToWall, wallToIso } from "../zoned-time";
import { draftToBody, ElementsEditor, tariffToDraft, type ComplexDraft } from "./tariff-elements";
import {
  Button,
  Card,
  Empty,
  ErrorBox,
  Field,
  fieldErrors,
  PageHeader,
  QueryState,
  Table,
  td,
  TextField,
  when,
  inputStyles,
  isRecord,
} from "../ui";

type Tariff = V1["getTariff"];

/** The table's columns, in its order, for its CSV export. */
const tariffColumns: CsvColumn<V1["listTariffs"]["data"][number]>[] = [
  { header: "Name", value: (t) => t.name || "(unnamed)" },
  { header: "Kind", value: (t) => (t.is_complex ? "complex" : "simple") },
  { header: "Summary", value: (t) => t.pricing_summary },
  { header: "Version", value: (t) => t.version },
  { header: "Updated", value: (t) => t.updated_at },
];

/** Each dimension's name and its billed volume in the unit a person reads. */
const DIMENSIONS: Record<string, { label: string; volume: (v: number) => string }> = {
  energy: { label: "Energy", volume: (wh) => `${(wh / 1000).toFixed(3)} kWh` },
  time: { label: "Charging time", volume: (s) => `${(s / 60).toFixed(1)} min` },
  parking_time: { label: "Idle time", volume: (s) => `${(s / 60).toFixed(1)} min` },
  flat: { label: "Session fee", volume: (n) => `${n} ${n === 1 ? "session" : "sessions"}` },
  reservation: { label: "Reservation", volume: (s) => `${(s / 60).toFixed(1)} min` },
  reservation_fee: { label: "Reservation fee", volume: (n) => `${n}` },
};

/** Fields a JSON edit of a complex tariff starts from: everything the API returns for it. */
const JSON_FIELDS = [
  "name",
  "time_zone",
  "elements",
  "tariff_alt_text",
  "rules",
  "min_price",
  "max_price",
  ...OCPI_TARIFF_FIELDS,
] as const;
const BOUNDS: Record<string, string> = {
  min_price: "Minimum price",
  max_price: "Maximum price",
};

const EXAMPLE_COMPLEX = {
  name: "Peak and off-peak",
  time_zone: "America/New_York",
  elements: [
    {
      price_components: [{ type: "ENERGY", price: 0.45, step_size: 1 }],
      restrictions: { start_time: "16:00", end_time: "21:00" },
    },
    { price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] },
    { price_components: [{ type: "PARKING_TIME", price: 6, step_size: 60 }] },
  ],
};

export function TariffsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const tariffs = useQuery(
    trpc.v1.listTariffs.queryOptions({
      params: { tenant_id: tenantId },
      query: { limit: 100 },
    }),
  );
  const [editing, setEditing] = useState<Tariff | "new" | null>(null);
  const [quoting, setQuoting] = useState<Tariff | null>(null);
  const denied = project.denied("billing:write");
  const client = useQueryClient();
  return (
    <>
      <PageHeader
        title="Tariffs"
        description="Prices for charging. Editing makes a new version; bills keep the version they priced against."
        actions={
          <>
            <ExportCsv
              filename={`tariffs-${tenantId}.csv`}
              columns={tariffColumns}
              load={(after: number | undefined) =>
                client.fetchQuery(
                  trpc.v1.listTariffs.queryOptions({
                    params: { tenant_id: tenantId },
                    query: { limit: 100, after: after ?? 0 },
                  }),
                )
              }
            />
            <Button variant="primary" disabledReason={denied} onClick={() => setEditing("new")}>
              New tariff
            </Button>
          </>
        }
      />
      {editing ? (
        <TariffEditor
          key={editing === "new" ? "new" : editing.id}
          tenantId={tenantId}
          tariff={editing === "new" ? null : editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
      {quoting ? <QuotePanel key={quoting.id} tenantId={tenantId} tariff={quoting} /> : null}
      <QueryState
        query={tariffs}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <Empty title="No tariffs yet">
            Create a simple per-kWh tariff or an OCPI tariff with elements.
          </Empty>
        }
      >
        {(d) => (
          <Table head={[...tariffColumns.map((c) => c.header), ""]}>
            {d.data.map((t) => (
              <tr
                key={t.id}
                id={`tariff-${t.id}`}
                data-testid="tariff-row"
                className="scroll-mt-4 target:bg-teal-50 dark:target:bg-teal-950"
              >
                <td className={td}>
                  {t.name || <span className="text-slate-500">(unnamed)</span>}
                </td>
                <td className={td}>{t.is_complex ? "complex" : "simple"}</td>
                <td className={td}>{t.pricing_summary}</td>
                <td className={td}>{t.version}</td>
                <td className={td}>{when(t.updated_at)}</td>
                <td className={`${td} flex gap-2`}>
                  <Button onClick={() => setQuoting(t)}>Quote</Button>
                  <Button disabledReason={denied} onClick={() => setEditing(t)}>
                    Edit
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
    </>
  );
}

function TariffEditor({
  tenantId,
  tariff,
  onClose,
}: {
  tenantId: number;
  tariff: Tariff | null;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const create = useV1Mutation(trpc.v1.createTariff);
  const update = useV1Mutation(trpc.v1.updateTariff);
  const remove = useV1Mutation(trpc.v1.deleteTariff);
  const [mode, setMode] = useState<"simple" | "complex" | "json">(
    tariff?.is_complex ? "complex" : "simple",
  );
  const [name, setName] = useState(tariff?.name ?? "");
  const [rate, setRate] = useState(String(tariff?.rate_minor_per_kwh ?? 35));
  const [draft, setDraft] = useState<ComplexDraft>(() =>
    tariff?.is_complex ? tariffToDraft(tariff) : { ...tariffToDraft(EXAMPLE_COMPLEX), name: "" },
  );
  const [json, setJson] = useState(() =>
    JSON.stringify(
      tariff?.is_complex
        ? Object.fromEntries(JSON_FIELDS.map((k) => [k, tariff[k]]).filter(([, v]) => v != null))
        : EXAMPLE_COMPLEX,
      null,
      2,
    ),
  );
  const [parseError, setParseError] = useState<string | null>(null);
  const error = create.error ?? update.error;
  const errors = new Map(fieldErrors(error).map((f) => [f.field, f.message]));

  const submit = () => {
    let body: V1Input["createTariff"]["body"];
    if (mode === "simple") body = { name: name || undefined, rate_minor_per_kwh: Number(rate) };
    else if (mode === "complex") body = draftToBody(draft);
    else {
      try {
        const parsed: unknown = JSON.parse(json);
        if (!isRecord(parsed)) {
          setParseError("Write one JSON object: { … }.");
          return;
        }
        body = parsed;
        setParseError(null);
      } catch (e) {
        setParseError(`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
    }
    const done = () => onClose();
    if (tariff)
      void update
        .run({ params: { tenant_id: tenantId, tariff_id: tariff.id }, body })
        .then(done, () => undefined);
    else void create.run({ params: { tenant_id: tenantId }, body }).then(done, () => undefined);
  };

  return (
    <Card
      title={tariff ? `Edit ${tariff.name} (version ${tariff.version})` : "New tariff"}
      testId="tariff-editor"
    >
      <div role="radiogroup" aria-label="Kind" className="mb-3 flex flex-wrap gap-4 text-sm">
        {(
          [
            ["simple", "Simple (price per kWh)"],
            ["complex", "Complex (OCPI 2.2.1 elements)"],
            ["json", "Complex, as JSON (alt text, rules, OCPI fields)"],
          ] as const
        ).map(([m, label]) => (
          <label key={m} className="flex items-center gap-1">
            <input type="radio" name="kind" checked={mode === m} onChange={() => setMode(m)} />
            {label}
          </label>
        ))}
      </div>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        className="grid gap-3"
      >
        {mode === "simple" ? (
          <div className="grid gap-3 sm:grid-cols-2">
            <TextField
              label="Name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={200}
            />
            <TextField
              label="Price per kWh (cents)"
              type="number"
              min={0}
              value={rate}
              onChange={(e) => setRate(e.target.value)}
              required
            />
          </div>
        ) : mode === "complex" ? (
          <ElementsEditor draft={draft} onChange={setDraft} errors={errors} />
        ) : (
          <label className="block text-sm">
            <span className="font-medium">
              Tariff (JSON: elements, rules and any OCPI 2.2.1 Tariff field; its id goes in
              external_reference)
            </span>
            <textarea
              className={`${inputStyles} h-72 font-mono text-xs`}
              value={json}
              onChange={(e) => setJson(e.target.value)}
              spellCheck={false}
            />
          </label>
        )}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="primary" disabled={create.isPending || update.isPending}>
            {tariff ? "Save new version" : "Create tariff"}
          </Button>
          <Button onClick={onClose}>Cancel</Button>
          {tariff ? (
            <Button
              variant="danger"
              onClick={() =>
                void remove
                  .run({ params: { tenant_id: tenantId, tariff_id: tariff.id } })
                  .then(onClose, () => undefined)
              }
            >
              Delete
            </Button>
          ) : null}
        </div>
      </form>
      {parseError ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {parseError}
        </p>
      ) : null}
      {error ? <ErrorBox error={error} /> : null}
      {remove.error ? <ErrorBox error={remove.error} /> : null}
    </Card>
  );
}

type Priced = V1["quoteTariff"];

/** A start time field in the tariff's zone (the zone its time-of-day restrictions are read in). */
function useStartField(tariff: Tariff) {
  const zone = tariff.time_zone ?? "UTC";
  const [wall, setWall] = useState(() => isoToWall(new Date(), zone));
  return { zone, wall, setWall, iso: wallToIso(wall, zone) };
}

const whole = (v: string, max: number) => /^[0-9]+(\.[0-9]+)?$/.test(v.trim()) && +v <= max;

function QuotePanel({ tenantId, tariff }: { tenantId: number; tariff: Tariff }) {
  const trpc = useTRPC();
  const quote = useV1Mutation(trpc.v1.quoteTariff);
  const [kwh, setKwh] = useState("20");
  const [minutes, setMinutes] = useState("60");
  const [reserved, setReserved] = useState("");
  const start = useStartField(tariff);
  const [errors, setErrors] = useState<Record<string, string>>({});
  return (
    <Card title={`Quote: ${tariff.name}`} testId="quote-panel">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
        Prices a session that charges evenly from its start. Time-of-day prices follow the start you
        choose, in the tariff&apos;s time zone ({start.zone}).
      </p>
      <form
        noValidate
        className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 sm:items-start"
        onSubmit={(e) => {
          e.preventDefault();
          const found: Record<string, string> = {};
          if (!start.iso) found.start = "Choose the date and time the session starts.";
          if (!whole(kwh, 10_000)) found.kwh = "Energy is a number of kWh from 0 to 10,000.";
          if (!whole(minutes, 31 * 1440))
            found.minutes = "Duration is a number of minutes from 0 to 44,640 (31 days).";
          if (reserved.trim() !== "" && !whole(reserved, 31 * 1440))
            found.reserved = "Leave it empty, or give minutes from 0 to 44,640.";
          setErrors(found);
          if (Object.keys(found).length || !start.iso) return;
          void quote
            .run({
              params: { tenant_id: tenantId, tariff_id: tariff.id },
              body: {
                energy_wh: Math.round(Number(kwh) * 1000),
                duration_seconds: Math.round(Number(minutes) * 60),
                start_at: start.iso,
                ...(reserved.trim() === ""
                  ? {}
                  : { reservation_seconds: Math.round(Number(reserved) * 60) }),
              },
            })
            .catch(() => undefined);
        }}
      >
        <Field label={`Starts at (${start.zone})`} error={errors.start}>
          {(a) => (
            <input
              {...a}
              className={inputStyles}
              type="datetime-local"
              value={start.wall}
              onChange={(e) => start.setWall(e.target.value)}
            />
          )}
        </Field>
        <Field label="Energy (kWh)" error={errors.kwh}>
          {(a) => (
            <input
              {...a}
              className={inputStyles}
              inputMode="decimal"
              value={kwh}
              onChange={(e) => setKwh(e.target.value)}
            />
          )}
        </Field>
        <Field label="Duration (minutes)" error={errors.minutes}>
          {(a) => (
            <input
              {...a}
              className={inputStyles}
              inputMode="numeric"
              value={minutes}
              onChange={(e) => setMinutes(e.target.value)}
            />
          )}
        </Field>
        <Field label="Reserved first (minutes, optional)" error={errors.reserved}>
          {(a) => (
            <input
              {...a}
              className={inputStyles}
              inputMode="numeric"
              value={reserved}
              onChange={(e) => setReserved(e.target.value)}
            />
          )}
        </Field>
        <div className="sm:col-span-2 lg:col-span-4">
          <Button type="submit" variant="primary" disabled={quote.isPending}>
            Price it
          </Button>
        </div>
      </form>
      {quote.error ? <ErrorBox error={quote.error} /> : null}
      {quote.data ? <PriceResult q={quote.data} testId="quote" /> : null}
      <SimulatePanel tenantId={tenantId} tariff={tariff} />
    </Card>
  );
}

/**
 * Simulate: the tariff against a session given by its start, its end and the energy its meter
 * counted (two meter readings), priced by the API's simulate route as a finished session would be.
 */
function SimulatePanel({ tenantId, tariff }: { tenantId: number; tariff: Tariff }) {
  const trpc = useTRPC();
  const simulate = useV1Mutation(trpc.v1.simulateTariff);
  const start = useStartField(tariff);
  const [endWall, setEndWall] = useState(() =>
    isoToWall(new Date(Date.now() + 3_600_000), start.zone),
  );
  const [kwh, setKwh] = useState("20");
  const [errors, setErrors] = useState<Record<string, string>>({});
  return (
    <section className="mt-6 border-t border-slate-200 pt-4 dark:border-slate-800">
      <h3 className="font-semibold">Simulate a session</h3>
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
        Prices a finished session from its meter: the reading at the start (0 kWh) and at the end.
      </p>
      <form
        noValidate
        className="grid gap-3 sm:grid-cols-3 sm:items-start"
        onSubmit={(e) => {
          e.preventDefault();
          const end = wallToIso(endWall, start.zone);
          const found: Record<string, string> = {};
          if (!start.iso) found.start = "Choose the date and time the session starts.";
          if (!end) found.end = "Choose the date and time the session ends.";
          else if (start.iso && end <= start.iso) found.end = "The end must come after the start.";
          if (!whole(kwh, 10_000)) found.kwh = "Energy is a number of kWh from 0 to 10,000.";
          setErrors(found);
          if (Object.keys(found).length || !start.iso || !end) return;
          void simulate
            .run({
              params: { tenant_id: tenantId },
              body: {
                tariff_id: tariff.id,
                session: {
                  started_at: start.iso,
                  stopped_at: end,
                  meter_values: [
                    { at: start.iso, energy_wh: 0 },
                    { at: end, energy_wh: Math.round(Number(kwh) * 1000) },
                  ],
                },
              },
            })
            .catch(() => undefined);
        }}
      >
        <Field label={`Session start (${start.zone})`} error={errors.start}>
          {(a) => (
            <input
              {...a}
              className={inputStyles}
              type="datetime-local"
              value={start.wall}
              onChange={(e) => start.setWall(e.target.value)}
            />
          )}
        </Field>
        <Field label={`Session end (${start.zone})`} error={errors.end}>
          {(a) => (
            <input
              {...a}
              className={inputStyles}
              type="datetime-local"
              value={endWall}
              onChange={(e) => setEndWall(e.target.value)}
            />
          )}
        </Field>
        <Field label="Energy charged (kWh)" error={errors.kwh}>
          {(a) => (
            <input
              {...a}
              className={inputStyles}
              inputMode="decimal"
              value={kwh}
              onChange={(e) => setKwh(e.target.value)}
            />
          )}
        </Field>
        <div className="sm:col-span-3">
          <Button type="submit" disabled={simulate.isPending}>
            Simulate
          </Button>
        </div>
      </form>
      {simulate.error ? <ErrorBox error={simulate.error} /> : null}
      {simulate.data ? <PriceResult q={simulate.data} testId="simulate" /> : null}
    </section>
  );
}

function PriceResult({ q, testId }: { q: Priced; testId: string }) {
  return (
    <div className="mt-4" data-testid={`${testId}-result`}>
      <p className="mb-1 text-sm font-medium" data-testid={`${testId}-summary`}>
        {q.price_summary}
      </p>
      <p className="mb-3 text-xs text-slate-600 dark:text-slate-400">Tariff: {q.pricing_summary}</p>
      {q.warnings.map((w) => (
        <p key={w.code + w.message} role="status" className="mb-2 text-xs text-amber-800">
          {w.message}
        </p>
      ))}
      <Table head={["Dimension", "Billed volume", "Excl. VAT", "Incl. VAT"]} label="Price">
        {Object.entries(q.dimensions).map(([name, d]) => (
          <tr key={name}>
            <td className={td}>{DIMENSIONS[name]?.label ?? name}</td>
            <td className={td}>{DIMENSIONS[name]?.volume(d.volume) ?? d.volume}</td>
            <td className={td}>{money(d.excl_vat_minor, q.currency)}</td>
            <td className={td}>{money(d.incl_vat_minor, q.currency)}</td>
          </tr>
        ))}
        {q.price_bound.applied ? (
          <tr>
            <td className={td}>{BOUNDS[q.price_bound.applied] ?? q.price_bound.applied}</td>
            <td className={td} />
            <td className={td}>{money(q.price_bound.excl_vat_minor, q.currency)}</td>
            <td className={td}>{money(q.price_bound.incl_vat_minor, q.currency)}</td>
          </tr>
        ) : null}
        <tr className="font-semibold">
          <td className={td}>Total</td>
          <td className={td} />
          <td className={td} data-testid={`${testId}-total`}>
            {money(q.total.excl_vat_minor, q.currency)}
          </td>
          <td className={td} data-testid={`${testId}-total-incl`}>
            {money(q.total.incl_vat_minor, q.currency)}
          </td>
        </tr>
      </Table>
    </div>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { OCPI_TARIFF_FIELDS } from "@/server/pricing/ocpi-fields";
import { useProject } from "../context";
import { useV1Mutation, type V1, type V1Input } from "../hooks";
import { useTRPC } from "../trpc";
import { draftToBody, ElementsEditor, tariffToDraft, type ComplexDraft } from "./tariff-elements";
import {
  Button,
  Card,
  Empty,
  ErrorBox,
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

const money = (minor: number) => `$${(minor / 100).toFixed(2)}`;

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
  return (
    <>
      <PageHeader
        title="Tariffs"
        description="Prices for charging. Editing makes a new version; bills keep the version they priced against."
        actions={
          <Button variant="primary" disabledReason={denied} onClick={() => setEditing("new")}>
            New tariff
          </Button>
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
          <Table head={["Name", "Kind", "Summary", "Version", "Updated", ""]}>
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

function QuotePanel({ tenantId, tariff }: { tenantId: number; tariff: Tariff }) {
  const trpc = useTRPC();
  const quote = useV1Mutation(trpc.v1.quoteTariff);
  const [kwh, setKwh] = useState("20");
  const [minutes, setMinutes] = useState("60");
  const [reserved, setReserved] = useState("");
  const q = quote.data;
  return (
    <Card title={`Quote: ${tariff.name}`} testId="quote-panel">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void quote
            .run({
              params: { tenant_id: tenantId, tariff_id: tariff.id },
              body: {
                energy_wh: Math.round(Number(kwh) * 1000),
                duration_seconds: Math.round(Number(minutes) * 60),
                ...(reserved.trim() === ""
                  ? {}
                  : { reservation_seconds: Math.round(Number(reserved) * 60) }),
              },
            })
            .catch(() => undefined);
        }}
      >
        <TextField
          label="Energy (kWh)"
          type="number"
          min={0}
          step="any"
          value={kwh}
          onChange={(e) => setKwh(e.target.value)}
        />
        <TextField
          label="Duration (minutes)"
          type="number"
          min={0}
          value={minutes}
          onChange={(e) => setMinutes(e.target.value)}
        />
        <TextField
          label="Reserved first (minutes, optional)"
          type="number"
          min={0}
          value={reserved}
          onChange={(e) => setReserved(e.target.value)}
        />
        <Button type="submit" variant="primary">
          Price it
        </Button>
      </form>
      {quote.error ? <ErrorBox error={quote.error} /> : null}
      {q ? (
        <div className="mt-4" data-testid="quote-result">
          <p className="mb-1 text-sm font-medium" data-testid="quote-summary">
            {q.price_summary}
          </p>
          <p className="mb-3 text-xs text-slate-600 dark:text-slate-400">
            Tariff: {q.pricing_summary}
          </p>
          {q.warnings.map((w) => (
            <p key={w.code + w.message} role="status" className="mb-2 text-xs text-amber-800">
              {w.message}
            </p>
          ))}
          <Table head={["Dimension", "Billed volume", "Excl. VAT", "Incl. VAT"]}>
            {Object.entries(q.dimensions).map(([name, d]) => (
              <tr key={name}>
                <td className={td}>{DIMENSIONS[name]?.label ?? name}</td>
                <td className={td}>{DIMENSIONS[name]?.volume(d.volume) ?? d.volume}</td>
                <td className={td}>{money(d.excl_vat_minor)}</td>
                <td className={td}>{money(d.incl_vat_minor)}</td>
              </tr>
            ))}
            {q.price_bound.applied ? (
              <tr>
                <td className={td}>{BOUNDS[q.price_bound.applied] ?? q.price_bound.applied}</td>
                <td className={td} />
                <td className={td}>{money(q.price_bound.excl_vat_minor)}</td>
                <td className={td}>{money(q.price_bound.incl_vat_minor)}</td>
              </tr>
            ) : null}
            <tr className="font-semibold">
              <td className={td}>Total</td>
              <td className={td} />
              <td className={td} data-testid="quote-total">
                {money(q.total.excl_vat_minor)}
              </td>
              <td className={td}>{money(q.total.incl_vat_minor)}</td>
            </tr>
          </Table>
        </div>
      ) : null}
    </Card>
  );
}

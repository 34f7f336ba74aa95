"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { EVENT_TYPES } from "@/server/events/event-types";
import { ExportCsv, type CsvColumn } from "../csv";
import {
  describeEvent,
  typeSuggestions,
  type ConnectorNumbers,
  type EventTarget,
} from "../event-lines";
import type { V1, V1Input } from "../hooks";
import { BillLink, PaymentLink, SessionLink, StationLink, TransactionLink } from "../links";
import { Pager } from "../pager";
import { useTRPC } from "../trpc";
import { Badge, Button, Empty, PageHeader, QueryState, TextField, when } from "../ui";

type Event = V1["listEvents"]["data"][number];
type Filters = {
  type?: string;
  station_id?: number;
  created_from?: string;
  created_before?: string;
};

const TYPES = typeSuggestions(Object.keys(EVENT_TYPES));
/** Fresh events kept above the first page before it is read again from the top. */
const MAX_FRESH = 50;
const PAGE = 25;

/** A date input's day (local midnight) as an ISO instant, or undefined. */
const dayStart = (day: string, plusDays = 0) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const d = new Date(`${day}T00:00:00`);
  d.setDate(d.getDate() + plusDays);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};

/** The types typed that are neither a type nor a family, said rather than ignored. */
const unknownTypes = (typed: string) =>
  typed
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t && !TYPES.includes(t));

export function EventsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const [type, setType] = useState("");
  const [station, setStation] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [problems, setProblems] = useState<{ type?: string; station?: string }>({});
  const [filters, setFilters] = useState<Filters>({});
  const [stationShown, setStationShown] = useState<{ id: number; name: string } | null>(null);
  const [cursors, setCursors] = useState([0]);
  const [fresh, setFresh] = useState<Event[]>([]);
  const stations = useQuery(
    trpc.v1.listStations.queryOptions(
      { params: { tenant_id: tenantId }, query: { limit: 100 } },
      { staleTime: 60_000 },
    ),
  );
  const connectors: ConnectorNumbers = new Map(
    stations.data?.data.flatMap((s) => s.connectors.map((c) => [c.id, c.connector_number])),
  );
  const names = new Map(stations.data?.data.map((s) => [s.id, s.name]));
  const input = (after: number, limit: number, order: "asc" | "desc"): V1Input["listEvents"] => ({
    params: { tenant_id: tenantId },
    query: { ...filters, order, after, limit },
  });
  const events = useQuery(
    trpc.v1.listEvents.queryOptions(input(cursors[cursors.length - 1] ?? 0, PAGE, "desc")),
  );
  const onFirstPage = cursors.length === 1;
  const pageTop = onFirstPage ? (events.data?.data[0]?.sequence ?? 0) : 0;
  const top = Math.max(fresh[0]?.sequence ?? 0, pageTop);
  // The live tail: what committed after the newest shown, polled from that cursor.
  const tail = useQuery(
    trpc.v1.listEvents.queryOptions(input(top, 100, "asc"), {
      enabled: events.isSuccess && onFirstPage,
      refetchInterval: 2_000,
    }),
  );
  const arrived = tail.data?.data;
  useEffect(() => {
    if (!arrived?.length) return;
    setFresh((now) => {
      const newest = Math.max(now[0]?.sequence ?? 0, pageTop);
      const added = arrived.filter((e) => e.sequence > newest).reverse();
      if (!added.length) return now;
      const next = [...added, ...now];
      if (next.length <= MAX_FRESH) return next;
      // Too many to keep above the page: read the first page again from the newest.
      void events.refetch();
      return [];
    });
  }, [arrived, events, pageTop]);

  const apply = async () => {
    const found: typeof problems = {};
    const unknown = unknownTypes(type);
    if (unknown.length)
      found.type = `Not an event type: ${unknown.join(", ")}. Pick one from the list, or a family such as payment.*`;
    let stationId: { id: number; name: string } | null = null;
    const typedName = station.trim();
    if (typedName) {
      const known = stations.data?.data.find(
        (s) => s.name.toLowerCase() === typedName.toLowerCase(),
      );
      if (known) stationId = { id: known.id, name: known.name };
      else {
        const matches = await client.fetchQuery(
          trpc.v1.listStations.queryOptions({
            params: { tenant_id: tenantId },
            query: { name: typedName, limit: 10 },
          }),
        );
        const exact = matches.data.find((s) => s.name.toLowerCase() === typedName.toLowerCase());
        const one = exact ?? (matches.data.length === 1 ? matches.data[0] : undefined);
        if (one) stationId = { id: one.id, name: one.name };
        else
          found.station = matches.data.length
            ? `"${typedName}" matches several stations (${matches.data
                .map((s) => s.name)
                .join(", ")}): type the whole name.`
            : `No station is named "${typedName}".`;
      }
    }
    setProblems(found);
    if (found.type || found.station) return;
    const clean = type
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean)
      .join(",");
    setFilters({
      ...(clean ? { type: clean } : {}),
      ...(stationId ? { station_id: stationId.id } : {}),
      ...(dayStart(from) ? { created_from: dayStart(from) } : {}),
      ...(dayStart(to, 1) ? { created_before: dayStart(to, 1) } : {}),
    });
    if (stationId) setStation(stationId.name);
    setStationShown(stationId);
    setCursors([0]);
    setFresh([]);
  };

  const columns: CsvColumn<Event>[] = [
    { header: "Sequence", value: (e) => e.sequence },
    { header: "Recorded", value: (e) => e.created_at },
    { header: "Type", value: (e) => e.type },
    {
      header: "Station",
      value: (e) =>
        e.station_id === undefined ? "" : (names.get(e.station_id) ?? `Station ${e.station_id}`),
    },
    { header: "Event", value: (e) => describeEvent(e, connectors).text },
    { header: "Data", value: (e) => JSON.stringify(e.data) },
  ];

  return (
    <>
      <PageHeader
        title="Event log"
        description="Everything that happened in this project, newest first. New events appear at the top as they happen."
        actions={
          <ExportCsv
            filename={`events-${tenantId}.csv`}
            columns={columns}
            load={(after: number | undefined) =>
              client.fetchQuery(trpc.v1.listEvents.queryOptions(input(after ?? 0, 100, "desc")))
            }
          />
        }
      />
      <form
        className="mb-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-5 lg:items-start"
        onSubmit={(e) => {
          e.preventDefault();
          void apply();
        }}
      >
        <div>
          <TextField
            label="Types"
            placeholder="connector.status_changed, payment.*"
            list="event-types"
            value={type}
            aria-invalid={problems.type ? true : undefined}
            aria-errormessage={problems.type ? "type-problem" : undefined}
            onChange={(e) => setType(e.target.value)}
          />
          <datalist id="event-types">
            {TYPES.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
          {problems.type ? <Problem id="type-problem">{problems.type}</Problem> : null}
        </div>
        <div>
          <TextField
            label="Station"
            placeholder="Station name"
            list="event-stations"
            value={station}
            aria-invalid={problems.station ? true : undefined}
            aria-errormessage={problems.station ? "station-problem" : undefined}
            onChange={(e) => setStation(e.target.value)}
          />
          <datalist id="event-stations">
            {stations.data?.data.map((s) => (
              <option key={s.id} value={s.name} />
            ))}
          </datalist>
          {problems.station ? <Problem id="station-problem">{problems.station}</Problem> : null}
        </div>
        <TextField
          label="From"
          type="date"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
        />
        <TextField label="Until" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        <div className="flex gap-2 lg:mt-6">
          <Button type="submit">Filter</Button>
          <Button
            onClick={() => {
              setType("");
              setStation("");
              setFrom("");
              setTo("");
              setProblems({});
              setFilters({});
              setStationShown(null);
              setCursors([0]);
              setFresh([]);
            }}
          >
            Clear
          </Button>
        </div>
      </form>
      {stationShown ? (
        <p className="mb-3 text-sm" data-testid="station-filter">
          Events of <StationLink tenantId={tenantId} stationId={stationShown.id} />
        </p>
      ) : null}
      <p className="sr-only" aria-live="polite">
        {fresh.length ? `${fresh.length} new events at the top` : ""}
      </p>
      <QueryState
        query={events}
        isEmpty={(d) => d.data.length === 0 && fresh.length === 0}
        empty={<Empty title="No events match" />}
      >
        {(d) => (
          <>
            <ol className="divide-y divide-slate-200 rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-800">
              {(onFirstPage
                ? [...fresh.filter((e) => e.sequence > pageTop), ...d.data]
                : d.data
              ).map((ev) => (
                <EventRow
                  key={ev.sequence}
                  ev={ev}
                  tenantId={tenantId}
                  connectors={connectors}
                  fresh={onFirstPage && fresh.includes(ev)}
                />
              ))}
            </ol>
            <Pager
              page={d}
              cursors={cursors}
              setCursors={(c) => {
                setCursors(c);
                setFresh([]);
              }}
            />
          </>
        )}
      </QueryState>
    </>
  );
}

function Problem({ id, children }: { id: string; children: string }) {
  return (
    <p id={id} role="alert" className="mt-1 text-xs text-red-700 dark:text-red-300">
      {children}
    </p>
  );
}

function TargetLink({ tenantId, target }: { tenantId: number; target: EventTarget }) {
  switch (target.kind) {
    case "transaction":
      return <TransactionLink tenantId={tenantId} id={target.id} />;
    case "bill":
      return <BillLink tenantId={tenantId} id={target.id} />;
    case "payment":
      return <PaymentLink tenantId={tenantId} billId={target.billId} id={target.id} />;
    case "session":
      return <SessionLink tenantId={tenantId} id={target.id} />;
  }
}

/** One event: its readable line with links, when and what type, and its JSON on request. */
function EventRow({
  ev,
  tenantId,
  connectors,
  fresh,
}: {
  ev: Event;
  tenantId: number;
  connectors: ConnectorNumbers;
  fresh: boolean;
}) {
  const { text, target } = describeEvent(ev, connectors);
  return (
    <li
      data-testid="event-row"
      data-sequence={ev.sequence}
      data-fresh={fresh ? "true" : undefined}
      className={`min-w-0 px-3 py-2 text-sm ${fresh ? "bg-teal-50 dark:bg-teal-950" : ""}`}
    >
      <p className="break-words" data-testid="event-line">
        {ev.station_id !== undefined ? (
          <>
            <StationLink tenantId={tenantId} stationId={ev.station_id} />{" "}
          </>
        ) : null}
        {text}
        {target ? (
          <>
            {" · "}
            <TargetLink tenantId={tenantId} target={target} />
          </>
        ) : null}
      </p>
      <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-600 dark:text-slate-400">
        <Badge value={ev.type} />
        <time dateTime={ev.created_at}>{when(ev.created_at)}</time>
        <span>#{ev.sequence}</span>
        {fresh ? <span className="font-medium text-teal-800 dark:text-teal-300">new</span> : null}
      </div>
      <details className="mt-1">
        <summary className="inline-flex min-h-6 cursor-pointer items-center text-xs text-teal-800 underline dark:text-teal-300">
          JSON of event {ev.sequence}
        </summary>
        <pre
          data-testid="event-json"
          // scrolls when long: focusable, so a keyboard scrolls it too
          tabIndex={0}
          role="region"
          aria-label={`JSON of event ${ev.sequence}`}
          className="mt-1 max-h-96 overflow-auto rounded bg-slate-50 p-2 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none text-xs break-all whitespace-pre-wrap dark:bg-slate-900"
        >
          {JSON.stringify(ev, null, 2)}
        </pre>
      </details>
    </li>
  );
}

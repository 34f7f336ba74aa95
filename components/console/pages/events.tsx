"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { EVENT_TYPES } from "@/server/events/event-types";
import { Pager } from "../pager";
import { useTRPC } from "../trpc";
import { Button, Empty, PageHeader, QueryState, Table, td, TextField, when } from "../ui";

export function EventsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [type, setType] = useState("");
  const [station, setStation] = useState("");
  const [filters, setFilters] = useState<{ type?: string; station_id?: number }>({});
  const [cursors, setCursors] = useState([0]);
  const events = useQuery(
    trpc.v1.listEvents.queryOptions(
      {
        params: { tenant_id: tenantId },
        query: { after: cursors[cursors.length - 1], limit: 25, ...filters },
      },
      { refetchInterval: 5_000 },
    ),
  );
  return (
    <>
      <PageHeader
        title="Event log"
        description="Everything that happened in this project, in order."
      />
      <form
        className="mb-4 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({
            ...(type.trim() ? { type: type.trim() } : {}),
            ...(station.trim() ? { station_id: Number(station) } : {}),
          });
          setCursors([0]);
        }}
      >
        <TextField
          label="Types"
          placeholder="connector.status_changed,station.connected"
          list="event-types"
          value={type}
          onChange={(e) => setType(e.target.value)}
        />
        <datalist id="event-types">
          {Object.keys(EVENT_TYPES).map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <TextField
          label="Station ID"
          inputMode="numeric"
          value={station}
          onChange={(e) => setStation(e.target.value)}
        />
        <Button type="submit">Filter</Button>
      </form>
      <QueryState
        query={events}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No events match" />}
      >
        {(d) => (
          <>
            <Table head={["#", "Type", "Station", "When", "Data"]}>
              {d.data.map((ev) => (
                <tr key={ev.id} data-testid="event-row">
                  <td className={td}>{ev.sequence}</td>
                  <td className={td}>{ev.type}</td>
                  <td className={td}>{ev.station_id ?? ""}</td>
                  <td className={td}>{when(ev.created_at)}</td>
                  <td className={`${td} max-w-md text-xs`}>
                    <code className="break-all">{JSON.stringify(ev.data)}</code>
                  </td>
                </tr>
              ))}
            </Table>
            <Pager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}

"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ExportCsv, type CsvColumn } from "../csv";
import type { V1 } from "../hooks";
import { Pager } from "../pager";
import { useTRPC } from "../trpc";
import { Card, Empty, QueryState, Table, td, when } from "../ui";

/**
 * A station's fault history (`listStationFaults`, newest first): its open faults first, marked,
 * then the cleared ones page by page; live like the rest of the station's page (read every 2 s),
 * and exported as CSV (every fault, open and cleared).
 */

type Fault = V1["listStationFaults"]["data"][number];
type Connectors = V1["getStation"]["connectors"];

const LIVE_MS = 2_000;
const PAGE = 25;

/** OCPP 1.6 error codes in words; OCPP 2.x reports none (`error_code` null). */
const ERROR_WORDS: Record<string, string> = {
  ConnectorLockFailure: "Connector lock failure",
  EVCommunicationError: "Communication with the vehicle failed",
  GroundFailure: "Ground failure",
  HighTemperature: "High temperature",
  InternalError: "Internal error",
  LocalListConflict: "Local authorization list conflict",
  OtherError: "Other error",
  OverCurrentFailure: "Over-current failure",
  OverVoltage: "Over-voltage",
  PowerMeterFailure: "Power meter failure",
  PowerSwitchFailure: "Power switch failure",
  ReaderFailure: "Card reader failure",
  ResetFailure: "Reset failed",
  UnderVoltage: "Under-voltage",
  WeakSignal: "Weak signal",
};

/** The error in words: a known code's words, an unknown code as given, else the status sent. */
export function faultWords(f: Pick<Fault, "error_code" | "ocpp_status">) {
  if (f.error_code) return ERROR_WORDS[f.error_code] ?? f.error_code;
  return f.ocpp_status === "Faulted" || !f.ocpp_status
    ? "Faulted (no error code sent)"
    : `${f.ocpp_status} (no error code sent)`;
}

/** "1" for connector 1, "whole station" for a station-wide fault. */
function connectorWords(f: Fault, connectors: Connectors) {
  if (f.connector_id === null) return "whole station";
  const c = connectors.find((x) => x.id === f.connector_id);
  return c ? String(c.connector_number) : `#${f.connector_id}`;
}

const vendorWords = (f: Fault) =>
  [f.vendor_id, f.vendor_error_code].filter(Boolean).join(" ") || "—";

/** The tables' columns (the first `SHOWN`), then what the file adds. */
const faultColumns = (connectors: Connectors): CsvColumn<Fault>[] => [
  { header: "Connector", value: (f) => connectorWords(f, connectors) },
  { header: "EVSE", value: (f) => f.evse_number ?? "—" },
  { header: "Error", value: (f) => faultWords(f) },
  { header: "Info", value: (f) => f.info ?? "—" },
  { header: "Vendor error", value: vendorWords },
  { header: "Raised", value: (f) => f.opened_at },
  { header: "Cleared", value: (f) => f.cleared_at ?? "open" },
  { header: "Fault", value: (f) => f.fault_id },
  { header: "Error code", value: (f) => f.error_code },
  { header: "OCPP status", value: (f) => f.ocpp_status },
];
const SHOWN = 7;

function FaultRows({
  rows,
  connectors,
  zone,
  open,
  label,
}: {
  rows: Fault[];
  connectors: Connectors;
  zone: string | null | undefined;
  open: boolean;
  label: string;
}) {
  const columns = faultColumns(connectors).slice(0, SHOWN);
  return (
    <Table head={columns.map((c) => c.header)} label={label}>
      {rows.map((f) => (
        <tr
          key={f.fault_id}
          data-testid={open ? "open-fault-row" : "cleared-fault-row"}
          className={open ? "bg-red-50 dark:bg-red-950" : undefined}
        >
          <td className={td}>{connectorWords(f, connectors)}</td>
          <td className={td}>{f.evse_number ?? "—"}</td>
          <td className={`${td} ${open ? "font-semibold text-red-800 dark:text-red-200" : ""}`}>
            {faultWords(f)}
          </td>
          <td className={`${td} break-words`}>{f.info ?? "—"}</td>
          <td className={`${td} break-all`}>{vendorWords(f)}</td>
          <td className={td}>{when(f.opened_at, zone)}</td>
          <td className={td}>{f.cleared_at ? when(f.cleared_at, zone) : "open"}</td>
        </tr>
      ))}
    </Table>
  );
}

export function StationFaults({
  tenantId,
  stationId,
  connectors,
  zone,
}: {
  tenantId: number;
  stationId: number;
  connectors: Connectors;
  /** the station's location's zone, as the rest of its page (`useStationZone`) */
  zone: string | null | undefined;
}) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const params = { tenant_id: tenantId, station_id: stationId };
  const [cursors, setCursors] = useState([0]);
  const open = useQuery(
    trpc.v1.listStationFaults.queryOptions(
      { params, query: { open: "true", limit: 100 } },
      { refetchInterval: LIVE_MS },
    ),
  );
  const history = useQuery(
    trpc.v1.listStationFaults.queryOptions(
      { params, query: { after: cursors[cursors.length - 1] ?? 0, limit: PAGE } },
      { refetchInterval: LIVE_MS },
    ),
  );
  return (
    <Card
      title="Faults"
      testId="station-faults"
      actions={
        <ExportCsv
          filename={`faults-station-${stationId}.csv`}
          columns={faultColumns(connectors)}
          load={(after: number | undefined) =>
            client.fetchQuery(
              trpc.v1.listStationFaults.queryOptions({
                params,
                query: { after: after ?? 0, limit: 100 },
              }),
            )
          }
        />
      }
    >
      <h3 className="mb-2 text-sm font-medium">Open now</h3>
      <div className="mb-4">
        <QueryState
          query={open}
          isEmpty={(d) => d.data.length === 0}
          empty={<Empty title="No open faults" />}
        >
          {(d) => (
            <div className="rounded-md border-l-4 border-red-600 pl-2">
              <FaultRows
                rows={d.data}
                connectors={connectors}
                zone={zone}
                open
                label="Open faults"
              />
            </div>
          )}
        </QueryState>
      </div>
      <h3 className="mb-2 text-sm font-medium">Cleared, newest first</h3>
      <p className="mb-2 text-xs text-slate-600 dark:text-slate-400">
        Cleared faults are kept 90 days.
      </p>
      <QueryState query={history}>
        {(d) => {
          const cleared = d.data.filter((f) => f.cleared_at !== null);
          return (
            <>
              {cleared.length === 0 ? (
                <Empty
                  title={cursors.length === 1 ? "No cleared faults" : "No cleared faults here"}
                />
              ) : (
                <FaultRows
                  rows={cleared}
                  connectors={connectors}
                  zone={zone}
                  open={false}
                  label="Cleared faults"
                />
              )}
              {cursors.length > 1 || d.has_more ? (
                <Pager page={d} cursors={cursors} setCursors={setCursors} />
              ) : null}
            </>
          );
        }}
      </QueryState>
    </Card>
  );
}

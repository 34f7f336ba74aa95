"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../confirm-dialog";
import { useProject } from "../context";
import { useV1Mutation, type V1, type V1Input } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { Badge, Button, Card, ErrorBox, SelectField, TextField } from "../ui";

type Station = V1["getStation"];
type Operation = V1["getOperation"];
type Transaction = V1["listTransactions"]["data"][number];
type Command = V1Input["sendCommand"]["body"];

const LIVE_MS = 2_000;
const TRIGGERS = [
  "StatusNotification",
  "MeterValues",
  "BootNotification",
  "Heartbeat",
  "FirmwareStatusNotification",
  "LogStatusNotification",
] as const;

/** What a reset, availability or trigger reaches: a connector, an EVSE, or the whole station. */
type Target = "connector" | "evse" | "station";

/**
 * The station's commands. Start, stop, unlock and the connector's availability act on the chosen
 * connector; reset, availability and trigger also on its EVSE or the whole station. Anything
 * disruptive (a reset, taking a connector, an EVSE or the station out of service, stopping a
 * transaction) asks for confirmation first; every button is disabled while the station is
 * offline (the service would refuse with `station_offline`).
 */
export function Commands({
  tenantId,
  station,
  active,
}: {
  tenantId: number;
  station: Station;
  active: Transaction[];
}) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const send = useV1Mutation(trpc.v1.sendCommand);
  const [opId, setOpId] = useState<string | null>(null);
  const op = useQuery(
    trpc.v1.getOperation.queryOptions(
      { params: { tenant_id: tenantId, operation_id: opId ?? "" } },
      { enabled: Boolean(opId), refetchInterval: LIVE_MS },
    ),
  );
  const [connector, setConnector] = useState(String(station.connectors[0]?.id ?? ""));
  const [target, setTarget] = useState<Target>("connector");
  const [trigger, setTrigger] = useState<(typeof TRIGGERS)[number]>("StatusNotification");
  const [token, setToken] = useState("CONSOLE-TOKEN");
  const [pending, setPending] = useState<{ command: Command; what: string; key: string } | null>(
    null,
  );
  const denied =
    project.denied("stations:control") ??
    (station.online ? null : "The station is offline: commands cannot reach it.");
  const chosen = station.connectors.find((c) => String(c.id) === connector);
  const evseNumber = chosen?.evse_number ?? 1;
  const targetFields = (): { connector_id?: number; evse_number?: number } =>
    target === "connector"
      ? { connector_id: Number(connector) }
      : target === "evse"
        ? { evse_number: evseNumber }
        : {};
  const targetWords =
    target === "connector"
      ? `connector ${chosen?.connector_number ?? "?"}`
      : target === "evse"
        ? `EVSE ${evseNumber}`
        : "the whole station";
  const command = (body: Command, idempotencyKey = newRequestKey()) =>
    send
      .run({
        params: { tenant_id: tenantId, station_id: station.id },
        body,
        idempotencyKey,
      })
      .then(
        (o) => setOpId(o.id),
        () => setOpId(null),
      );
  /**
   * A disruptive command waits for the person's confirmation; its key is made when the dialog
   * opens, so confirming again after a lost answer replays it rather than sends it twice.
   */
  const confirmFirst = (body: Command, what: string) =>
    setPending({ command: body, what, key: newRequestKey() });
  const current = op.data ?? send.data;

  return (
    <Card title="Commands" testId="commands">
      {denied ? <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">{denied}</p> : null}
      <div className="grid gap-3 sm:grid-cols-3 sm:items-end">
        <SelectField
          label="Connector"
          value={connector}
          onChange={(e) => setConnector(e.target.value)}
        >
          {station.connectors.map((c) => (
            <option key={c.id} value={c.id}>
              Connector {c.connector_number} (EVSE {c.evse_number})
            </option>
          ))}
        </SelectField>
        <TextField
          label="Token"
          value={token}
          maxLength={36}
          onChange={(e) => setToken(e.target.value)}
        />
        <Button
          variant="primary"
          disabledReason={denied}
          onClick={() => void command({ action: "start", connector_id: Number(connector), token })}
        >
          Start charging
        </Button>
      </div>
      <div className="mt-3 flex flex-wrap gap-2">
        {active.map((t) => (
          <Button
            key={t.id}
            disabledReason={denied}
            onClick={() =>
              confirmFirst(
                { action: "stop", transaction_id: t.id },
                `Stop transaction ${t.id}? The charger ends the session.`,
              )
            }
          >
            Stop transaction {t.id}
          </Button>
        ))}
        <Button
          disabledReason={denied}
          onClick={() => void command({ action: "unlock", connector_id: Number(connector) })}
        >
          Unlock connector
        </Button>
      </div>
      <div className="mt-4 grid gap-3 sm:grid-cols-3 sm:items-end">
        <SelectField
          label="Reset, availability and trigger reach"
          value={target}
          onChange={(e) => setTarget(e.target.value as Target)}
          data-testid="command-target"
        >
          <option value="connector">The chosen connector</option>
          <option value="evse">Its EVSE ({`EVSE ${evseNumber}`})</option>
          <option value="station">The whole station</option>
        </SelectField>
        <SelectField
          label="Message to trigger"
          value={trigger}
          onChange={(e) => setTrigger(e.target.value as (typeof TRIGGERS)[number])}
        >
          {TRIGGERS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </SelectField>
        <Button
          disabledReason={denied}
          onClick={() => void command({ action: "trigger", message: trigger, ...targetFields() })}
        >
          Trigger message
        </Button>
      </div>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button
          disabledReason={denied}
          onClick={() =>
            confirmFirst(
              { action: "availability", mode: "inoperative", ...targetFields() },
              `Take ${targetWords} out of service? No new session can start there until it is set operative again.`,
            )
          }
        >
          Set inoperative
        </Button>
        <Button
          disabledReason={denied}
          onClick={() =>
            void command({ action: "availability", mode: "operative", ...targetFields() })
          }
        >
          Set operative
        </Button>
        <Button
          disabledReason={
            denied ??
            (target === "connector" ? "A reset reaches an EVSE or the whole station." : null)
          }
          onClick={() =>
            confirmFirst(
              {
                action: "reset",
                mode: "soft",
                ...(target === "evse" ? { evse_number: evseNumber } : {}),
              },
              `Soft reset ${target === "evse" ? `EVSE ${evseNumber}` : "the whole station"}? It restarts once idle.`,
            )
          }
        >
          Soft reset
        </Button>
        <Button
          disabledReason={
            denied ??
            (target === "connector" ? "A reset reaches an EVSE or the whole station." : null)
          }
          variant="danger"
          onClick={() =>
            confirmFirst(
              {
                action: "reset",
                mode: "hard",
                ...(target === "evse" ? { evse_number: evseNumber } : {}),
              },
              `Hard reset ${target === "evse" ? `EVSE ${evseNumber}` : "the whole station"}? It restarts now, ending any session in progress.`,
            )
          }
        >
          Hard reset
        </Button>
      </div>
      <ConfirmDialog
        open={pending !== null}
        title="Confirm command"
        confirmLabel="Send"
        danger
        busy={send.isPending}
        onCancel={() => setPending(null)}
        onConfirm={() => {
          if (!pending) return;
          void command(pending.command, pending.key).finally(() => setPending(null));
        }}
      >
        <p data-testid="command-confirmation">{pending?.what}</p>
      </ConfirmDialog>
      {send.error ? <ErrorBox error={send.error} /> : null}
      {current ? (
        <p className="mt-3 text-sm" aria-live="polite">
          {current.action}: <Badge testId="operation-status" value={current.status} />
          <span className="ml-2">
            <Outcome operation={current} testId="operation-result" />
          </span>
        </p>
      ) : null}
    </Card>
  );
}

/**
 * An operation's result in words (what the charger answered, or the error's message; its code in
 * `data-error-code`), with the raw result one click away. Charger-supplied values are rendered as
 * text only. The station's commands and a charging session's operations both show it.
 */
export function Outcome({ operation, testId }: { operation: Operation; testId?: string }) {
  const result = operation.result;
  if (!result) {
    return operation.status === "dispatching" ? (
      <span className="text-slate-500">waiting for the charger…</span>
    ) : null;
  }
  const error = result.error;
  const refused =
    typeof error === "object" && error !== null && "code" in error && "message" in error
      ? { code: String(error.code), message: String(error.message) }
      : null;
  const words = refused
    ? refused.message
    : typeof result.charger_status === "string"
      ? `Charger answered ${result.charger_status}`
      : typeof result.applied === "string"
        ? `Password ${result.applied === "pushed" ? "pushed to the charger" : "stored for the next connection"}`
        : "Done";
  return (
    <details className="inline-block max-w-full align-top">
      <summary className="cursor-pointer" data-testid={testId} data-error-code={refused?.code}>
        {words}
      </summary>
      <code className="block text-xs break-all">{JSON.stringify(result)}</code>
    </details>
  );
}

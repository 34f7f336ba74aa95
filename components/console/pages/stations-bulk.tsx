"use client";

import Link from "next/link";
import { useState } from "react";
import { useV1Mutation } from "../hooks";
import { WithLocations } from "../with-locations";
import { newRequestKey, useTRPC } from "../trpc";
import { Button, Card, ErrorBox, Field, SelectField, inputStyles } from "../ui";

/** What POST …/stations/bulk takes in one request; longer lists go in several. */
const PER_REQUEST = 100;
/** The most lines one submission takes (a few requests). */
const MAX_LINES = 1_000;

type Line = { line: number; text: string; name: string };
type Outcome =
  { line: Line; station: { id: number; name: string } } | { line: Line; error: string };

/**
 * One line of the list: `name`, then optionally `connectors` (default 2) and `password`, separated
 * by commas. The values go to the API as they are, so its rules (and their messages) apply.
 */
function parseLine(text: string, locationId: number) {
  const [name = "", connectors = "", ...rest] = text.split(",").map((v) => v.trim());
  const password = rest.join(",").trim();
  const count = connectors === "" ? 2 : Number(connectors);
  return {
    name,
    location_id: locationId,
    connector_count: Number.isInteger(count) ? count : connectors,
    ...(password ? { password } : {}),
  };
}

/**
 * A refused line's reason: a field's rule by the field's own name (`password must be at least 16
 * characters`), not the request's path to it; any other refusal as the API words it.
 */
function inWords(error: { message: string; details: Record<string, unknown> }) {
  const fields = error.details.fields as { field: string; message: string }[] | undefined;
  const first = fields?.[0];
  if (!first) return error.message;
  return `${first.field.split(".").at(-1)} ${first.message}`;
}

/**
 * Registering a fleet at one location from a list, one station a line (POST …/stations/bulk, 100
 * a request, passwords kept memory-hard by the service): each line is answered in its place, a
 * registered station by its name and a link, a refused one by the API's reason; the refused lines
 * stay in the box to be fixed and sent again.
 */
export function RegisterMany({ tenantId, onDone }: { tenantId: number; onDone: () => void }) {
  const trpc = useTRPC();
  const bulk = useV1Mutation(trpc.v1.registerStations);
  const [locationId, setLocationId] = useState("");
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  // one key per submitted list: a retry after a lost answer replays each request
  const [key, setKey] = useState(newRequestKey);

  const submit = async (location: number) => {
    const lines: Line[] = text
      .split("\n")
      .map((raw, i) => ({ line: i + 1, text: raw, name: raw.split(",")[0]!.trim() }))
      .filter((l) => l.text.trim() !== "");
    if (lines.length === 0) return setProblem("Write one station a line.");
    if (lines.length > MAX_LINES) return setProblem(`At most ${MAX_LINES} lines at once.`);
    setProblem(undefined);
    const done: Outcome[] = [];
    for (let start = 0; start < lines.length; start += PER_REQUEST) {
      const chunk = lines.slice(start, start + PER_REQUEST);
      const answer = await bulk
        .run({
          params: { tenant_id: tenantId },
          idempotencyKey: `${key}-${start}`,
          body: { stations: chunk.map((l) => parseLine(l.text, location)) },
        })
        .catch(() => null);
      // the whole request was refused (bulk.error says why): its lines stay, with the rest
      if (!answer) break;
      for (const item of answer.data) {
        const line = chunk[item.index]!;
        done.push(
          "station" in item
            ? { line, station: { id: item.station.id, name: item.station.name } }
            : { line, error: inWords(item.error) },
        );
      }
    }
    setOutcomes(done);
    // what is left to send: the refused lines, and those of a request refused as a whole
    const answered = new Set(done.map((o) => o.line.line));
    const refusedLines = new Set(done.filter((o) => "error" in o).map((o) => o.line.line));
    const kept = lines.filter((l) => !answered.has(l.line) || refusedLines.has(l.line));
    setText(kept.map((l) => l.text).join("\n"));
    setKey(newRequestKey());
  };

  const registered = outcomes.filter((o) => "station" in o);
  const refused = outcomes.filter((o) => "error" in o);
  return (
    <Card title="Register many stations" testId="register-many">
      <WithLocations tenantId={tenantId}>
        {(locations) => (
          <form
            noValidate
            className="grid gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              void submit(Number(locationId || locations[0]!.id));
            }}
          >
            <div className="max-w-sm">
              <SelectField
                label="Location"
                value={locationId}
                onChange={(e) => setLocationId(e.target.value)}
              >
                {locations.map((l) => (
                  <option key={l.id} value={l.id}>
                    {l.name}
                  </option>
                ))}
              </SelectField>
            </div>
            <Field
              label="Stations, one a line"
              hint="name, connectors (1 to 16; 2 if left out), password (optional, 16 to 40 characters), e.g. PARK-01, 2, a-long-password-01"
              error={problem}
            >
              {(a) => (
                <textarea
                  {...a}
                  className={`${inputStyles} min-h-32 font-mono`}
                  value={text}
                  spellCheck={false}
                  autoComplete="off"
                  onChange={(e) => {
                    setText(e.target.value);
                    setProblem(undefined);
                  }}
                />
              )}
            </Field>
            <div className="flex gap-2">
              <Button type="submit" variant="primary" disabled={bulk.isPending}>
                {bulk.isPending ? "Registering…" : "Register"}
              </Button>
              <Button onClick={onDone}>Close</Button>
            </div>
          </form>
        )}
      </WithLocations>
      {bulk.error ? (
        <div className="mt-3">
          <ErrorBox error={bulk.error} />
        </div>
      ) : null}
      {outcomes.length > 0 ? (
        <div role="status" className="mt-4 text-sm" data-testid="registered-many">
          <p className="font-medium">
            {registered.length} registered
            {refused.length > 0 ? `, ${refused.length} refused (left in the box to fix)` : ""}.
          </p>
          <ul className="mt-2 grid gap-1">
            {outcomes.map((o) => (
              <li key={o.line.line} data-testid="bulk-line">
                Line {o.line.line}:{" "}
                {"station" in o ? (
                  <Link
                    className="underline"
                    href={`/console/t/${tenantId}/stations/${o.station.id}`}
                  >
                    {o.station.name}
                  </Link>
                ) : (
                  <>
                    <strong>{o.line.name || "(no name)"}</strong>{" "}
                    <span className="text-red-700 dark:text-red-300">{o.error}</span>
                  </>
                )}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Card>
  );
}

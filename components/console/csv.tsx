"use client";

import { useState } from "react";
import { Button } from "./ui";

/**
 * CSV export for every list page: one column table per page, the same filters as the table on
 * screen, every page of them read through the list's own procedure (at most `MAX_ROWS`), and one
 * RFC 4180 file (quoted where needed, CRLF line ends, a byte-order mark so spreadsheets read UTF-8).
 */

export type CsvColumn<T> = {
  header: string;
  value: (row: T) => string | number | null | undefined;
};

export const MAX_ROWS = 10_000;

function cell(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? "" : String(value);
  // A leading =, +, - or @ would be read as a formula by a spreadsheet: prefix it.
  const safe = /^[=+\-@\t\r]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv<T>(columns: CsvColumn<T>[], rows: T[]): string {
  const lines = [columns.map((c) => cell(c.header)).join(",")];
  for (const row of rows) lines.push(columns.map((c) => cell(c.value(row))).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

type Page<T, C> = { data: T[]; next_cursor: C | null; has_more: boolean };

/** Reads every page from `first` on: `load(cursor)` is the list's procedure with the page's filters. */
export async function readAll<T, C>(
  load: (after: C | undefined) => Promise<Page<T, C>>,
): Promise<{ rows: T[]; capped: boolean }> {
  const rows: T[] = [];
  let after: C | undefined;
  for (;;) {
    const page = await load(after);
    rows.push(...page.data);
    if (rows.length >= MAX_ROWS) return { rows: rows.slice(0, MAX_ROWS), capped: true };
    if (!page.has_more || page.next_cursor === null) return { rows, capped: false };
    after = page.next_cursor;
  }
}

export function downloadCsv(filename: string, csv: string) {
  const url = URL.createObjectURL(new Blob(["\uFEFF", csv], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** "Export CSV": what the list's filters select, every page of it, as a file. */
export function ExportCsv<T, C>({
  filename,
  columns,
  load,
}: {
  filename: string;
  columns: CsvColumn<T>[];
  load: (after: C | undefined) => Promise<Page<T, C>>;
}) {
  const [state, setState] = useState<"idle" | "busy" | { error: string } | { capped: number }>(
    "idle",
  );
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Button
        disabled={state === "busy"}
        onClick={() => {
          setState("busy");
          readAll(load)
            .then(({ rows, capped }) => {
              downloadCsv(filename, toCsv(columns, rows));
              setState(capped ? { capped: rows.length } : "idle");
            })
            .catch((e: unknown) =>
              setState({ error: e instanceof Error ? e.message : "the export failed" }),
            );
        }}
      >
        {state === "busy" ? "Exporting…" : "Export CSV"}
      </Button>
      {typeof state === "object" ? (
        <span role="status" className="text-sm text-slate-700 dark:text-slate-300">
          {"error" in state
            ? `Export failed: ${state.error}`
            : `Exported the first ${state.capped.toLocaleString()} rows; narrow the filters for the rest.`}
        </span>
      ) : null}
    </div>
  );
}

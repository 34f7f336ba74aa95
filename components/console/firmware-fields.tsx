"use client";

import { useState } from "react";
import { TextField } from "./ui";

/** A firmware update as the console's forms take it: the URL, when to fetch it, how many retries. */
export type FirmwareDraft = { location: string; retrieveAt: string; retries: string };

/** The form's state, empty but for 3 retries. */
export function useFirmwareDraft() {
  return useState<FirmwareDraft>({ location: "", retrieveAt: "", retries: "3" });
}

/** The API's firmware request (`scheduleFirmwareUpdate`'s body, a batch's `firmware`). */
export function firmwareRequest(d: FirmwareDraft) {
  return {
    location: d.location,
    ...(d.retrieveAt ? { retrieve_at: new Date(d.retrieveAt).toISOString() } : {}),
    ...(d.retries ? { retries: Number(d.retries) } : {}),
  };
}

/** Why the draft cannot be sent yet, in words; null when it can. */
export const firmwareProblem = (d: FirmwareDraft) =>
  d.location.startsWith("https://") ? null : "Give the firmware's https URL.";

/** What the charger will do, for the confirmation: "downloads <url> at <time>, retrying 3 times,". */
export function FirmwareWords({
  draft: d,
  retries = true,
}: {
  draft: FirmwareDraft;
  retries?: boolean;
}) {
  return (
    <>
      downloads <strong className="break-all">{d.location}</strong>
      {d.retrieveAt ? ` at ${new Date(d.retrieveAt).toLocaleString()}` : " now"}
      {retries && d.retries ? `, retrying ${d.retries} times,` : ""}
    </>
  );
}

/** The three fields of a firmware update, laid out by the caller's grid. */
export function FirmwareFields({
  draft,
  onChange,
}: {
  draft: FirmwareDraft;
  onChange: (next: FirmwareDraft) => void;
}) {
  return (
    <>
      <TextField
        label="Firmware URL (https)"
        value={draft.location}
        onChange={(e) => onChange({ ...draft, location: e.target.value })}
      />
      <TextField
        label="Retrieve at"
        type="datetime-local"
        hint="empty: now"
        value={draft.retrieveAt}
        onChange={(e) => onChange({ ...draft, retrieveAt: e.target.value })}
      />
      <TextField
        label="Retries"
        type="number"
        min={0}
        value={draft.retries}
        onChange={(e) => onChange({ ...draft, retries: e.target.value })}
      />
    </>
  );
}

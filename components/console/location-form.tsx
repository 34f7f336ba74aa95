"use client";

import { useMemo, useState, useSyncExternalStore } from "react";
import type { V1 } from "./hooks";
import { allTimeZones, countryName, countryOptions, defaultZone, zonesOf } from "./location-places";
import {
  apiError,
  Button,
  errorMessage,
  Field,
  fieldErrors,
  inputStyles,
  selectStyles,
} from "./ui";

type Location = V1["getLocation"];

export type LocationFormValues = {
  name: string;
  street: string;
  city: string;
  postal_code: string;
  country: string;
  latitude: string;
  longitude: string;
  time_zone: string;
};
type Key = keyof LocationFormValues;
type Errors = Partial<Record<Key, string>>;

export const emptyLocation: LocationFormValues = {
  name: "",
  street: "",
  city: "",
  postal_code: "",
  country: "",
  latitude: "",
  longitude: "",
  time_zone: "",
};

export function valuesOf(l: Location): LocationFormValues {
  return {
    name: l.name,
    street: l.address.street,
    city: l.address.city,
    postal_code: l.address.postal_code ?? "",
    country: l.address.country,
    latitude: String(l.coordinates.latitude),
    longitude: String(l.coordinates.longitude),
    time_zone: l.time_zone,
  };
}

/** The /v1 body of the form's values (create and edit send the same fields). */
export function bodyOf(v: LocationFormValues) {
  return {
    name: v.name.trim(),
    address: {
      street: v.street.trim(),
      city: v.city.trim(),
      ...(v.postal_code.trim() ? { postal_code: v.postal_code.trim() } : {}),
      country: v.country,
    },
    coordinates: { latitude: Number(v.latitude), longitude: Number(v.longitude) },
    time_zone: v.time_zone,
  };
}

/** What the person is told beside each field, in words (never the API's path or code). */
const WORDS: Record<Key, string> = {
  name: "Give the location a name (up to 200 characters).",
  street: "Enter the street address (up to 200 characters).",
  city: "Enter the city (up to 100 characters).",
  postal_code: "A postal code is up to 20 characters.",
  country: "Choose the country from the list.",
  latitude: "Latitude is a number from -90 to 90, e.g. 51.5074.",
  longitude: "Longitude is a number from -180 to 180, e.g. -0.1278.",
  time_zone: "Choose the location's time zone from the list.",
};

/** The checks the API makes, said before sending. */
function check(v: LocationFormValues): Errors {
  const errors: Errors = {};
  const number = (s: string, limit: number) =>
    s.trim() !== "" && Number.isFinite(Number(s)) && Math.abs(Number(s)) <= limit;
  if (!v.name.trim() || v.name.trim().length > 200) errors.name = WORDS.name;
  if (!v.street.trim() || v.street.trim().length > 200) errors.street = WORDS.street;
  if (!v.city.trim() || v.city.trim().length > 100) errors.city = WORDS.city;
  if (v.postal_code.trim().length > 20) errors.postal_code = WORDS.postal_code;
  if (!/^[A-Z]{2}$/.test(v.country)) errors.country = WORDS.country;
  if (!number(v.latitude, 90)) errors.latitude = WORDS.latitude;
  if (!number(v.longitude, 180)) errors.longitude = WORDS.longitude;
  if (!v.time_zone) errors.time_zone = WORDS.time_zone;
  return errors;
}

/** The API's refusal as field messages: its field paths mapped to the form's fields. */
function refusal(error: unknown): { fields: Errors; other: string | null } {
  const fields: Errors = {};
  const key = (path: string): Key | null => {
    const last = path.split(/[.[\]]/).filter(Boolean);
    const name = last[last.length - 1] ?? "";
    return name in WORDS ? (name as Key) : null;
  };
  for (const f of fieldErrors(error)) {
    const k = key(f.field);
    if (k) fields[k] = WORDS[k];
  }
  const api = apiError(error);
  if (Object.keys(fields).length > 0) return { fields, other: null };
  if (api?.code === "external_reference_taken")
    return { fields, other: "Another location already has this external reference." };
  return { fields, other: errorMessage(error) };
}

const subscribe = () => () => undefined;
/** True once in the browser: the pickers' lists come from the browser's Intl data. */
const useInBrowser = () =>
  useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );

/**
 * A location's fields with a country picker (names from Intl.DisplayNames) and an IANA time-zone
 * picker that follows the country where it has one zone (GB: Europe/London) and lists a
 * country's own zones first. Rules are checked before sending and the API's refusals are said
 * beside their fields; what the person typed stays after a failed submit.
 */
export function LocationForm({
  initial,
  submitLabel,
  disabledReason,
  onSubmit,
  onCancel,
  resetAfter = false,
}: {
  initial: LocationFormValues;
  submitLabel: string;
  disabledReason?: string | null;
  onSubmit: (body: ReturnType<typeof bodyOf>) => Promise<unknown>;
  onCancel?: () => void;
  /** clear the form after a successful submit (a new location) */
  resetAfter?: boolean;
}) {
  const [v, setV] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const [other, setOther] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inBrowser = useInBrowser();
  const countries = useMemo(() => (inBrowser ? countryOptions() : []), [inBrowser]);
  const zones = useMemo(() => (inBrowser ? allTimeZones() : []), [inBrowser]);
  const local = useMemo(() => (inBrowser ? zonesOf(v.country) : []), [inBrowser, v.country]);

  const set = (k: Key) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    const value = e.target.value;
    setV((prev) =>
      k === "country"
        ? { ...prev, country: value, time_zone: defaultZone(value, prev.time_zone) }
        : { ...prev, [k]: value },
    );
    setErrors((prev) => ({
      ...prev,
      [k]: undefined,
      ...(k === "country" ? { time_zone: undefined } : {}),
    }));
  };
  const input = (k: Key, props: React.InputHTMLAttributes<HTMLInputElement> = {}) => (
    <Field label={LABELS[k]} error={errors[k]} hint={HINTS[k]}>
      {(a) => (
        <input {...a} {...props} name={k} value={v[k]} onChange={set(k)} className={inputStyles} />
      )}
    </Field>
  );
  // the saved zone or country stays offered even if this browser does not know it
  const otherZones = zones.filter((z) => !local.includes(z));
  const zoneListed = v.time_zone === "" || zones.includes(v.time_zone);
  const countryListed = v.country === "" || countries.some((c) => c.code === v.country);

  return (
    <form
      noValidate
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 lg:items-start"
      onSubmit={(e) => {
        e.preventDefault();
        const found = check(v);
        setErrors(found);
        setOther(null);
        if (Object.keys(found).length > 0) return;
        setBusy(true);
        onSubmit(bodyOf(v)).then(
          () => {
            setBusy(false);
            if (resetAfter) setV(initial);
          },
          (error: unknown) => {
            setBusy(false);
            const r = refusal(error);
            setErrors(r.fields);
            setOther(r.other);
          },
        );
      }}
    >
      {input("name", { autoComplete: "off" })}
      {input("street", { autoComplete: "street-address" })}
      {input("city", { autoComplete: "address-level2" })}
      {input("postal_code", { autoComplete: "postal-code" })}
      <Field label="Country" error={errors.country}>
        {(a) => (
          <select
            {...a}
            name="country"
            value={v.country}
            onChange={set("country")}
            className={selectStyles}
          >
            <option value="">Choose a country…</option>
            {countryListed ? null : <option value={v.country}>{countryName(v.country)}</option>}
            {countries.map((c) => (
              <option key={c.code} value={c.code}>
                {c.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label="Time zone"
        error={errors.time_zone}
        hint={
          local.length === 1
            ? `Set from the country; change it if the site keeps another zone.`
            : "The zone the site's dates are shown in."
        }
      >
        {(a) => (
          <select
            {...a}
            name="time_zone"
            value={v.time_zone}
            onChange={set("time_zone")}
            className={selectStyles}
          >
            <option value="">Choose a time zone…</option>
            {zoneListed ? null : <option value={v.time_zone}>{v.time_zone}</option>}
            {local.length > 0 ? (
              <optgroup label={`In ${countryName(v.country)}`}>
                {local.map((z) => (
                  <option key={z} value={z}>
                    {z.replaceAll("_", " ")}
                  </option>
                ))}
              </optgroup>
            ) : null}
            <optgroup label="All time zones">
              {otherZones.map((z) => (
                <option key={z} value={z}>
                  {z.replaceAll("_", " ")}
                </option>
              ))}
            </optgroup>
          </select>
        )}
      </Field>
      {input("latitude", { inputMode: "decimal" })}
      {input("longitude", { inputMode: "decimal" })}
      <div className="flex flex-wrap items-center gap-2 sm:col-span-2 lg:col-span-4">
        <Button type="submit" variant="primary" disabledReason={disabledReason} disabled={busy}>
          {submitLabel}
        </Button>
        {onCancel ? (
          <Button type="button" onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
        {other ? (
          <p
            role="alert"
            data-testid="form-error"
            className="text-sm text-red-700 dark:text-red-300"
          >
            {other}
          </p>
        ) : null}
        {Object.keys(errors).some((k) => errors[k as Key]) ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            Check the fields marked above.
          </p>
        ) : null}
      </div>
    </form>
  );
}

const LABELS: Record<Key, string> = {
  name: "Name",
  street: "Street",
  city: "City",
  postal_code: "Postal code (optional)",
  country: "Country",
  latitude: "Latitude",
  longitude: "Longitude",
  time_zone: "Time zone",
};

const HINTS: Partial<Record<Key, string>> = {
  latitude: "Decimal degrees, -90 to 90 (north is positive).",
  longitude: "Decimal degrees, -180 to 180 (east is positive).",
};

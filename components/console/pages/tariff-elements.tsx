"use client";

import type { z } from "zod";
import {
  DAYS_OF_WEEK,
  DIMENSION_TYPES,
  type RESERVATION_RESTRICTIONS,
  type restrictionsSchema,
} from "@/server/pricing/tariff-schema";
import type { V1 } from "../hooks";
import { Button, inputStyles, isRecord, selectStyles } from "../ui";

export type ComponentDraft = { type: string; price: string; vat: string; step_size: string };
export type ElementDraft = { components: ComponentDraft[]; restrictions: Record<string, string> };
export type ComplexDraft = {
  name: string;
  time_zone: string;
  elements: ElementDraft[];
  min_price: string;
  max_price: string;
};

/** Restrictions with a text or number input: [key, label, input type, unit]. */
const RESTRICTIONS: [keyof z.input<typeof restrictionsSchema>, string, string, string][] = [
  ["start_time", "From time", "time", ""],
  ["end_time", "To time", "time", ""],
  ["start_date", "From date", "date", ""],
  ["end_date", "To date (exclusive)", "date", ""],
  ["min_kwh", "Min energy", "number", "kWh"],
  ["max_kwh", "Max energy", "number", "kWh"],
  ["min_power", "Min power", "number", "kW"],
  ["max_power", "Max power", "number", "kW"],
  ["min_current", "Min current", "number", "A"],
  ["max_current", "Max current", "number", "A"],
  ["min_duration", "Min duration", "number", "s"],
  ["max_duration", "Max duration", "number", "s"],
];
const NUMERIC = new Set<string>(RESTRICTIONS.filter(([, , t]) => t === "number").map(([k]) => k));
/** OCPI `reservation` restriction: which time an element prices. */
const PRICES: [(typeof RESERVATION_RESTRICTIONS)[number] | "", string][] = [
  ["", "Sessions"],
  ["RESERVATION", "Reservations (used or expired)"],
  ["RESERVATION_EXPIRES", "Expired reservations first"],
];

export const emptyComponent = (): ComponentDraft => ({
  type: "ENERGY",
  price: "",
  vat: "",
  step_size: "",
});
export const emptyElement = (): ElementDraft => ({
  components: [emptyComponent()],
  restrictions: {},
});

const num = (s: string) => (s.trim() === "" ? undefined : Number(s));

/** The API body of a draft: strings become numbers, empty fields are left out. */
export function draftToBody(d: ComplexDraft): Record<string, unknown> {
  return {
    ...(d.name.trim() ? { name: d.name.trim() } : {}),
    ...(d.time_zone.trim() ? { time_zone: d.time_zone.trim() } : {}),
    ...(d.min_price.trim() ? { min_price: { excl_vat: Number(d.min_price) } } : {}),
    ...(d.max_price.trim() ? { max_price: { excl_vat: Number(d.max_price) } } : {}),
    elements: d.elements.map((e) => {
      const restrictions = Object.fromEntries(
        Object.entries(e.restrictions)
          .filter(([, v]) => v.trim() !== "")
          .map(([k, v]) => [
            k,
            k === "day_of_week" ? v.split(",").filter(Boolean) : NUMERIC.has(k) ? Number(v) : v,
          ]),
      );
      return {
        price_components: e.components.map((c) => ({
          type: c.type,
          price: num(c.price) ?? Number.NaN,
          ...(num(c.vat) !== undefined ? { vat: num(c.vat) } : {}),
          ...(num(c.step_size) !== undefined ? { step_size: num(c.step_size) } : {}),
        })),
        ...(Object.keys(restrictions).length ? { restrictions } : {}),
      };
    }),
  };
}

/** A draft of a stored complex tariff (its elements are read as the API stores them, OCPI's). */
export function tariffToDraft(
  t: Pick<V1["getTariff"], "name" | "time_zone" | "elements" | "min_price" | "max_price">,
): ComplexDraft {
  const text = (v: unknown) => (typeof v === "number" || typeof v === "string" ? String(v) : "");
  const elements = (t.elements ?? []).filter(isRecord).map((e) => ({
    components: (Array.isArray(e.price_components) ? e.price_components : [])
      .filter(isRecord)
      .map((c) => ({
        type: text(c.type),
        price: text(c.price),
        vat: text(c.vat),
        step_size: text(c.step_size),
      })),
    restrictions: Object.fromEntries(
      Object.entries(isRecord(e.restrictions) ? e.restrictions : {}).map(([k, v]) => [
        k,
        Array.isArray(v) ? v.map(text).join(",") : text(v),
      ]),
    ),
  }));
  return {
    name: t.name,
    time_zone: t.time_zone ?? "",
    elements: elements.length ? elements : [emptyElement()],
    min_price: t.min_price ? String(t.min_price.excl_vat) : "",
    max_price: t.max_price ? String(t.max_price.excl_vat) : "",
  };
}

function Small({
  label,
  error,
  children,
}: {
  label: string;
  error?: string;
  children: React.ReactElement<{ id?: string }>;
}) {
  return (
    <label className="block text-xs">
      <span className="font-medium">{label}</span>
      {children}
      {error ? (
        <span role="alert" className="mt-0.5 block text-red-700 dark:text-red-400">
          {error}
        </span>
      ) : null}
    </label>
  );
}

/**
 * OCPI 2.2.1 elements as a form: each element's price components (dimension, price in dollars,
 * VAT %, step size) and restrictions. `errors` maps API paths (e.g. `elements.0.price_components.0.price`)
 * to messages shown beside the field.
 */
export function ElementsEditor({
  draft,
  onChange,
  errors,
}: {
  draft: ComplexDraft;
  onChange: (d: ComplexDraft) => void;
  errors: Map<string, string>;
}) {
  const setElement = (i: number, e: ElementDraft) =>
    onChange({ ...draft, elements: draft.elements.map((x, j) => (j === i ? e : x)) });
  const cell = `${inputStyles} mt-0.5 py-1 text-xs`;
  const selectCell = `${selectStyles} mt-0.5 py-1 text-xs`;
  return (
    <div className="space-y-4">
      <div className="grid gap-3 sm:grid-cols-4">
        <Small label="Name" error={errors.get("name")}>
          <input
            className={cell}
            value={draft.name}
            onChange={(e) => onChange({ ...draft, name: e.target.value })}
          />
        </Small>
        <Small label="Time zone (IANA)" error={errors.get("time_zone")}>
          <input
            className={cell}
            placeholder="America/New_York"
            value={draft.time_zone}
            onChange={(e) => onChange({ ...draft, time_zone: e.target.value })}
          />
        </Small>
        <Small label="Minimum price ($, excl. VAT)" error={errors.get("min_price.excl_vat")}>
          <input
            className={cell}
            inputMode="decimal"
            value={draft.min_price}
            onChange={(e) => onChange({ ...draft, min_price: e.target.value })}
          />
        </Small>
        <Small label="Maximum price ($, excl. VAT)" error={errors.get("max_price.excl_vat")}>
          <input
            className={cell}
            inputMode="decimal"
            value={draft.max_price}
            onChange={(e) => onChange({ ...draft, max_price: e.target.value })}
          />
        </Small>
      </div>
      {errors.get("elements") ? (
        <p role="alert" className="text-xs text-red-700">
          {errors.get("elements")}
        </p>
      ) : null}
      {draft.elements.map((el, i) => (
        <fieldset
          key={i}
          className="rounded-md border border-slate-200 p-3 dark:border-slate-700"
          data-testid="tariff-element"
        >
          <legend className="px-1 text-sm font-medium">Element {i + 1}</legend>
          {el.components.map((c, k) => {
            const at = `elements.${i}.price_components.${k}`;
            const setC = (patch: Partial<ComponentDraft>) =>
              setElement(i, {
                ...el,
                components: el.components.map((x, j) => (j === k ? { ...x, ...patch } : x)),
              });
            return (
              <div key={k} className="mb-2 grid grid-cols-2 gap-2 sm:grid-cols-5 sm:items-end">
                <Small label="Dimension" error={errors.get(`${at}.type`)}>
                  <select
                    className={selectCell}
                    value={c.type}
                    onChange={(e) => setC({ type: e.target.value })}
                  >
                    {DIMENSION_TYPES.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </select>
                </Small>
                <Small
                  label={
                    c.type === "ENERGY"
                      ? "Price ($/kWh)"
                      : c.type === "FLAT"
                        ? "Price ($)"
                        : "Price ($/hour)"
                  }
                  error={errors.get(`${at}.price`)}
                >
                  <input
                    className={cell}
                    inputMode="decimal"
                    value={c.price}
                    onChange={(e) => setC({ price: e.target.value })}
                  />
                </Small>
                <Small label="VAT (%)" error={errors.get(`${at}.vat`)}>
                  <input
                    className={cell}
                    inputMode="decimal"
                    value={c.vat}
                    onChange={(e) => setC({ vat: e.target.value })}
                  />
                </Small>
                <Small
                  label={
                    c.type === "ENERGY"
                      ? "Step (Wh)"
                      : c.type === "FLAT"
                        ? "Step (unused)"
                        : "Step (s)"
                  }
                  error={errors.get(`${at}.step_size`)}
                >
                  <input
                    className={cell}
                    inputMode="numeric"
                    value={c.step_size}
                    onChange={(e) => setC({ step_size: e.target.value })}
                  />
                </Small>
                <Button
                  disabled={el.components.length === 1}
                  onClick={() =>
                    setElement(i, { ...el, components: el.components.filter((_, j) => j !== k) })
                  }
                >
                  Remove component
                </Button>
              </div>
            );
          })}
          <Button
            onClick={() =>
              setElement(i, { ...el, components: [...el.components, emptyComponent()] })
            }
          >
            Add price component
          </Button>
          <details className="mt-3" open={Object.keys(el.restrictions).length > 0}>
            <summary className="cursor-pointer text-sm">
              Restrictions (when this element applies)
            </summary>
            <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4">
              {RESTRICTIONS.map(([key, label, type, unit]) => (
                <Small
                  key={key}
                  label={unit ? `${label} (${unit})` : label}
                  error={errors.get(`elements.${i}.restrictions.${key}`)}
                >
                  <input
                    className={cell}
                    type={type === "number" ? "text" : type}
                    inputMode={type === "number" ? "decimal" : undefined}
                    value={el.restrictions[key] ?? ""}
                    onChange={(e) =>
                      setElement(i, {
                        ...el,
                        restrictions: { ...el.restrictions, [key]: e.target.value },
                      })
                    }
                  />
                </Small>
              ))}
            </div>
            <div className="mt-2 max-w-xs">
              <Small label="Prices" error={errors.get(`elements.${i}.restrictions.reservation`)}>
                <select
                  className={selectCell}
                  value={el.restrictions.reservation ?? ""}
                  onChange={(e) =>
                    setElement(i, {
                      ...el,
                      restrictions: { ...el.restrictions, reservation: e.target.value },
                    })
                  }
                >
                  {PRICES.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </Small>
            </div>
            <fieldset className="mt-2">
              <legend className="text-xs font-medium">Days of week</legend>
              <div className="flex flex-wrap gap-2">
                {DAYS_OF_WEEK.map((d) => {
                  const days = (el.restrictions.day_of_week ?? "").split(",").filter(Boolean);
                  return (
                    <label key={d} className="flex items-center gap-1 text-xs">
                      <input
                        type="checkbox"
                        checked={days.includes(d)}
                        onChange={(e) =>
                          setElement(i, {
                            ...el,
                            restrictions: {
                              ...el.restrictions,
                              day_of_week: (e.target.checked
                                ? [...days, d]
                                : days.filter((x) => x !== d)
                              ).join(","),
                            },
                          })
                        }
                      />
                      {d.slice(0, 3)}
                    </label>
                  );
                })}
              </div>
              {errors.get(`elements.${i}.restrictions.day_of_week`) ? (
                <p role="alert" className="text-xs text-red-700">
                  {errors.get(`elements.${i}.restrictions.day_of_week`)}
                </p>
              ) : null}
            </fieldset>
          </details>
          <Button
            className="mt-3"
            variant="danger"
            disabled={draft.elements.length === 1}
            onClick={() =>
              onChange({ ...draft, elements: draft.elements.filter((_, j) => j !== i) })
            }
          >
            Remove element
          </Button>
        </fieldset>
      ))}
      <Button onClick={() => onChange({ ...draft, elements: [...draft.elements, emptyElement()] })}>
        Add element
      </Button>
    </div>
  );
}

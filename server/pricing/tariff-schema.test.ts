import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tariffArbitrary } from "../../testing/pricing-arbitraries";
import { type TariffSnapshot, validateTariff } from "./tariff-schema";
import { OCPI_TARIFF } from "../../testing/pricing";

const energy = { type: "ENERGY", price: 0.3, step_size: 1 };
const complex = (restrictions: object, extra: object = {}) => ({
  time_zone: "America/Chicago",
  elements: [{ price_components: [energy], restrictions }],
  ...extra,
});

function pathsOf(input: unknown): string[] {
  const r = validateTariff(input);
  return r.ok ? [] : r.issues.map((i) => i.path);
}

describe("validateTariff accepts", () => {
  it("a simple tariff and fills defaults", () => {
    const r = validateTariff({ rate_minor_per_kwh: 30 });
    expect(r).toEqual({ ok: true, tariff: { currency: "USD", rate_minor_per_kwh: 30 } });
  });

  it("every OCPI restriction, alt text, rules and bounds together", () => {
    const r = validateTariff({
      rate_minor_per_kwh: 25,
      time_zone: "America/New_York",
      tariff_alt_text: [{ language: "en", text: "Peak $0.40/kWh" }],
      elements: [
        {
          price_components: [
            { type: "ENERGY", price: 0.4, vat: 8.25, step_size: 1 },
            { type: "TIME", price: 1.2, step_size: 60 },
            { type: "PARKING_TIME", price: 6, step_size: 900 },
            { type: "FLAT", price: 1 },
          ],
          restrictions: {
            start_time: "17:00",
            end_time: "21:00",
            start_date: "2026-10-15",
            end_date: "2027-01-01",
            min_kwh: 0,
            max_kwh: 50.5,
            min_current: 6,
            max_current: 32,
            min_power: 0,
            max_power: 22,
            min_duration: 0,
            max_duration: 7200,
            day_of_week: ["MONDAY", "FRIDAY"],
          },
        },
        {
          price_components: [{ type: "ENERGY", price: 0.2 }],
          restrictions: { reservation: "RESERVATION" },
        },
      ],
      min_price: { excl_vat: 1, incl_vat: 1.08 },
      max_price: { excl_vat: 50 },
      rules: {
        group_discounts: [{ pricing_group: "fleet", percent_off: 10 }],
        merchant_validations: [{ code: "CAFE-5", label: "Cafe", amount_off_minor: 500 }],
        session_cost_cap_minor: 4000,
        flat_fee_without_energy: "waive",
      },
    });
    expect(r.ok).toBe(true);
  });
});

describe("OCPI Tariff objects as partners send them", () => {
  it("keep every field exactly as sent (round trip)", () => {
    expect(validateTariff(OCPI_TARIFF)).toEqual({ ok: true, tariff: OCPI_TARIFF });
  });

  it("accept a FLAT component with step_size 0 or none (it has no step unit)", () => {
    const flat = (c: object) => validateTariff({ elements: [{ price_components: [c] }] });
    expect(flat({ type: "FLAT", price: 1, step_size: 0 }).ok).toBe(true);
    expect(flat({ type: "FLAT", price: 1 }).ok).toBe(true);
    expect(
      pathsOf({ elements: [{ price_components: [{ type: "FLAT", price: 1, step_size: -1 }] }] }),
    ).toEqual(["elements.0.price_components.0.step_size"]);
  });

  it("refuse what cannot be billed, saying why", () => {
    const messages = (input: unknown) => {
      const r = validateTariff(input);
      return r.ok ? [] : r.issues.map((i) => `${i.path} ${i.message}`);
    };
    expect(messages({ ...OCPI_TARIFF, currency: "EUR" })).toEqual([
      'currency must be USD: payments are in US dollars only, so a tariff in "EUR" cannot be billed',
    ]);
    expect(messages({ ...OCPI_TARIFF, tax_included: "YES" })).toEqual([
      "tax_included YES is not supported: prices are excl. VAT (OCPI 2.2.1); send them excl. VAT with `vat` per component",
    ]);
    expect(messages({ ...OCPI_TARIFF, id: "20" })).toEqual([
      "id is the service's own: send an OCPI tariff's id as external_reference",
    ]);
    expect(messages({ ...OCPI_TARIFF, end_date_time: "2025-12-31T23:59:59Z" })).toEqual([
      "end_date_time must be after start_date_time",
    ]);
  });
});

describe("validateTariff refuses, naming the path", () => {
  const cases: [string, unknown, string][] = [
    ["no rate and no elements", {}, "rate_minor_per_kwh"],
    ["fractional rate", { rate_minor_per_kwh: 30.5 }, "rate_minor_per_kwh"],
    ["negative rate", { rate_minor_per_kwh: -1 }, "rate_minor_per_kwh"],
    ["non-USD currency", { currency: "EUR", rate_minor_per_kwh: 30 }, "currency"],
    ["bad OCPI type", { rate_minor_per_kwh: 30, type: "CHEAP" }, "type"],
    [
      "alt url not http",
      { rate_minor_per_kwh: 30, tariff_alt_url: "ftp://x.org/t" },
      "tariff_alt_url",
    ],
    [
      "start_date_time not a date",
      { rate_minor_per_kwh: 30, start_date_time: "2026-01-01" },
      "start_date_time",
    ],
    [
      "last_updated impossible",
      { rate_minor_per_kwh: 30, last_updated: "2026-13-01T00:00:00Z" },
      "last_updated",
    ],
    ["country code", { rate_minor_per_kwh: 30, country_code: "USA" }, "country_code"],
    ["party id", { rate_minor_per_kwh: 30, party_id: "CP" }, "party_id"],
    [
      "energy source",
      {
        rate_minor_per_kwh: 30,
        energy_mix: { is_green_energy: true, energy_sources: [{ source: "SUN", percentage: 1 }] },
      },
      "energy_mix.energy_sources.0.source",
    ],
    ["unknown field", { rate_minor_per_kwh: 30, colour: "red" }, "colour"],
    ["empty elements", { elements: [] }, "elements"],
    [
      "element without components",
      { elements: [{ price_components: [] }] },
      "elements.0.price_components",
    ],
    [
      "negative price",
      { elements: [{ price_components: [{ ...energy, price: -0.1 }] }] },
      "elements.0.price_components.0.price",
    ],
    [
      "price with 5 decimals",
      { elements: [{ price_components: [{ ...energy, price: 0.12345 }] }] },
      "elements.0.price_components.0.price",
    ],
    [
      "price not a number",
      { elements: [{ price_components: [{ ...energy, price: "0.3" }] }] },
      "elements.0.price_components.0.price",
    ],
    [
      "unknown component type",
      { elements: [{ price_components: [{ ...energy, type: "POWER" }] }] },
      "elements.0.price_components.0.type",
    ],
    [
      "step_size 0",
      { elements: [{ price_components: [{ ...energy, step_size: 0 }] }] },
      "elements.0.price_components.0.step_size",
    ],
    [
      "negative step_size",
      { elements: [{ price_components: [{ ...energy, step_size: -5 }] }] },
      "elements.0.price_components.0.step_size",
    ],
    [
      "fractional step_size",
      { elements: [{ price_components: [{ ...energy, step_size: 1.5 }] }] },
      "elements.0.price_components.0.step_size",
    ],
    [
      "VAT above 100",
      { elements: [{ price_components: [{ ...energy, vat: 101 }] }] },
      "elements.0.price_components.0.vat",
    ],
    [
      "negative VAT",
      { elements: [{ price_components: [{ ...energy, vat: -1 }] }] },
      "elements.0.price_components.0.vat",
    ],
    [
      "repeated component type",
      { elements: [{ price_components: [energy, energy] }] },
      "elements.0.price_components.1.type",
    ],
    ["hour 25", complex({ start_time: "25:00" }), "elements.0.restrictions.start_time"],
    ["one-digit hour", complex({ start_time: "7:00" }), "elements.0.restrictions.start_time"],
    ["minute 60", complex({ end_time: "12:60" }), "elements.0.restrictions.end_time"],
    ["24:00", complex({ end_time: "24:00" }), "elements.0.restrictions.end_time"],
    [
      "equal start and end time",
      complex({ start_time: "08:00", end_time: "08:00" }),
      "elements.0.restrictions.end_time",
    ],
    ["bad date", complex({ start_date: "15/10/2026" }), "elements.0.restrictions.start_date"],
    [
      "not a calendar date",
      complex({ start_date: "2026-02-30" }),
      "elements.0.restrictions.start_date",
    ],
    [
      "end_date before start_date",
      complex({ start_date: "2026-05-01", end_date: "2026-04-01" }),
      "elements.0.restrictions.end_date",
    ],
    [
      "end_date equal to start_date",
      complex({ start_date: "2026-05-01", end_date: "2026-05-01" }),
      "elements.0.restrictions.end_date",
    ],
    [
      "min_kwh above max_kwh",
      complex({ min_kwh: 10, max_kwh: 5 }),
      "elements.0.restrictions.max_kwh",
    ],
    [
      "min_current equal to max_current",
      complex({ min_current: 16, max_current: 16 }),
      "elements.0.restrictions.max_current",
    ],
    [
      "min_power above max_power",
      complex({ min_power: 50, max_power: 22 }),
      "elements.0.restrictions.max_power",
    ],
    [
      "min_duration above max_duration",
      complex({ min_duration: 7200, max_duration: 3600 }),
      "elements.0.restrictions.max_duration",
    ],
    ["fractional duration", complex({ min_duration: 1.5 }), "elements.0.restrictions.min_duration"],
    ["negative kWh", complex({ min_kwh: -1 }), "elements.0.restrictions.min_kwh"],
    ["unknown day", complex({ day_of_week: ["FUNDAY"] }), "elements.0.restrictions.day_of_week.0"],
    [
      "lower-case day",
      complex({ day_of_week: ["monday"] }),
      "elements.0.restrictions.day_of_week.0",
    ],
    ["no days", complex({ day_of_week: [] }), "elements.0.restrictions.day_of_week"],
    [
      "repeated day",
      complex({ day_of_week: ["MONDAY", "MONDAY"] }),
      "elements.0.restrictions.day_of_week",
    ],
    [
      "unknown reservation",
      complex({ reservation: "MAYBE" }),
      "elements.0.restrictions.reservation",
    ],
    ["unknown restriction", complex({ min_soc: 20 }), "elements.0.restrictions.min_soc"],
    ["bad time zone", complex({}, { time_zone: "Mars/Olympus" }), "time_zone"],
    ["abbreviation as time zone", complex({}, { time_zone: "EST" }), "time_zone"],
    [
      "local time without a time zone",
      { elements: [{ price_components: [energy], restrictions: { start_time: "08:00" } }] },
      "time_zone",
    ],
    [
      "min_price above max_price",
      complex({}, { min_price: { excl_vat: 10 }, max_price: { excl_vat: 5 } }),
      "max_price.excl_vat",
    ],
    [
      "fractional cents in min_price",
      complex({}, { min_price: { excl_vat: 1.005 } }),
      "min_price.excl_vat",
    ],
    [
      "incl_vat below excl_vat",
      complex({}, { max_price: { excl_vat: 10, incl_vat: 9 } }),
      "max_price.incl_vat",
    ],
    [
      "rate disagreeing with a simple element",
      { rate_minor_per_kwh: 25, elements: [{ price_components: [energy] }] },
      "rate_minor_per_kwh",
    ],
    [
      "alt text language",
      complex({}, { tariff_alt_text: [{ language: "English", text: "x" }] }),
      "tariff_alt_text.0.language",
    ],
    [
      "discount with percent and amount",
      complex(
        {},
        {
          rules: { group_discounts: [{ pricing_group: "a", percent_off: 5, amount_off_minor: 5 }] },
        },
      ),
      "rules.group_discounts.0.percent_off",
    ],
    [
      "discount with neither",
      complex({}, { rules: { merchant_validations: [{ code: "a" }] } }),
      "rules.merchant_validations.0.percent_off",
    ],
    [
      "percent above 100",
      complex({}, { rules: { group_discounts: [{ pricing_group: "a", percent_off: 150 }] } }),
      "rules.group_discounts.0.percent_off",
    ],
    [
      "repeated pricing group",
      complex(
        {},
        {
          rules: {
            group_discounts: [
              { pricing_group: "a", percent_off: 5 },
              { pricing_group: "a", percent_off: 6 },
            ],
          },
        },
      ),
      "rules.group_discounts.1.pricing_group",
    ],
    [
      "repeated validation code",
      complex(
        {},
        {
          rules: {
            merchant_validations: [
              { code: "a", amount_off_minor: 5 },
              { code: "a", amount_off_minor: 6 },
            ],
          },
        },
      ),
      "rules.merchant_validations.1.code",
    ],
    [
      "bad pricing group",
      complex({}, { rules: { group_discounts: [{ pricing_group: "has space", percent_off: 5 }] } }),
      "rules.group_discounts.0.pricing_group",
    ],
    [
      "unknown no-energy fee choice",
      complex({}, { rules: { flat_fee_without_energy: "refund" } }),
      "rules.flat_fee_without_energy",
    ],
    [
      "negative cap",
      complex({}, { rules: { session_cost_cap_minor: -1 } }),
      "rules.session_cost_cap_minor",
    ],
  ];

  it.each(cases)("%s", (_name, input, path) => {
    expect(pathsOf(input)).toContain(path);
  });
});

/** A mutation turns a valid tariff into an invalid one and names the path it must be reported at. */
type Mutation = (t: TariffSnapshot, i: number, j: number) => [unknown, string];

const clone = (t: TariffSnapshot) => structuredClone(t) as { [k: string]: any };

const onComponent =
  (field: string, value: unknown): Mutation =>
  (t, i, j) => {
    const c = clone(t);
    const e = i % c.elements.length;
    const k = j % c.elements[e].price_components.length;
    c.elements[e].price_components[k][field] = value;
    return [c, `elements.${e}.price_components.${k}.${field}`];
  };

const onRestrictions =
  (values: Record<string, unknown>, field: string): Mutation =>
  (t, i) => {
    const c = clone(t);
    const e = i % c.elements.length;
    c.elements[e].restrictions = { ...values };
    return [c, `elements.${e}.restrictions.${field}`];
  };

const MUTATIONS: Record<string, Mutation> = {
  negativePrice: onComponent("price", -0.01),
  longPrice: onComponent("price", 1.00001),
  zeroStep: (t, i) => {
    // zero means nothing on FLAT and is accepted there; on the other types it is refused
    const c = clone(t);
    const e = i % c.elements.length;
    c.elements[e].price_components = [{ type: "ENERGY", price: 0.3, step_size: 0 }];
    return [c, `elements.${e}.price_components.0.step_size`];
  },
  negativeStep: onComponent("step_size", -1),
  fractionalStep: onComponent("step_size", 2.5),
  hugeVat: onComponent("vat", 100.5),
  badType: onComponent("type", "RESERVATION"),
  badStartTime: onRestrictions({ start_time: "25:00" }, "start_time"),
  badEndTime: onRestrictions({ end_time: "9:5" }, "end_time"),
  emptyWindow: onRestrictions({ start_time: "10:00", end_time: "10:00" }, "end_time"),
  datesReversed: onRestrictions({ start_date: "2026-12-01", end_date: "2026-01-01" }, "end_date"),
  kwhReversed: onRestrictions({ min_kwh: 3, max_kwh: 2 }, "max_kwh"),
  powerReversed: onRestrictions({ min_power: 11, max_power: 7.4 }, "max_power"),
  currentReversed: onRestrictions({ min_current: 32, max_current: 16 }, "max_current"),
  durationReversed: onRestrictions({ min_duration: 60, max_duration: 30 }, "max_duration"),
  badDay: onRestrictions({ day_of_week: ["MONDAY", "SOMEDAY"] }, "day_of_week.1"),
  noDays: onRestrictions({ day_of_week: [] }, "day_of_week"),
  unknownRestriction: onRestrictions({ max_soc: 80 }, "max_soc"),
  noComponents: (t, i) => {
    const c = clone(t);
    const e = i % c.elements.length;
    c.elements[e].price_components = [];
    return [c, `elements.${e}.price_components`];
  },
  noElements: (t) => [{ ...clone(t), elements: [] }, "elements"],
  badZone: (t) => [{ ...clone(t), time_zone: "Nowhere/Special" }, "time_zone"],
  zoneMissing: (t, i) => {
    const c = clone(t);
    delete c.time_zone;
    c.elements[i % c.elements.length].restrictions = { day_of_week: ["SUNDAY"] };
    return [c, "time_zone"];
  },
  boundsReversed: (t) => [
    { ...clone(t), min_price: { excl_vat: 2 }, max_price: { excl_vat: 1 } },
    "max_price.excl_vat",
  ],
  unknownField: (t) => [{ ...clone(t), discount: 5 }, "discount"],
};

describe("validateTariff (properties)", () => {
  it("accepts generated tariffs and is idempotent on its own output", () => {
    fc.assert(
      fc.property(tariffArbitrary(), (t) => {
        expect(validateTariff(t)).toEqual({ ok: true, tariff: t });
      }),
      { numRuns: 200 },
    );
  });

  it("reports every mutation at the mutated path", () => {
    fc.assert(
      fc.property(
        tariffArbitrary(),
        fc.constantFrom(...Object.keys(MUTATIONS)),
        fc.nat(),
        fc.nat(),
        (t, name, i, j) => {
          const [input, path] = (MUTATIONS[name] as Mutation)(t, i, j);
          expect(pathsOf(input)).toContain(path);
        },
      ),
      { numRuns: 400 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { aTenantWithKey } from "../../testing/builders";
import { OCPI_TARIFF } from "../../testing/pricing";
import { priceResultSchema, tariffSchema } from "./tariff-schema";

const complex = {
  name: "Peak and off-peak",
  time_zone: "America/New_York",
  elements: [
    {
      price_components: [{ type: "ENERGY", price: 0.45, step_size: 1 }],
      restrictions: { start_time: "17:00", end_time: "21:00" },
    },
    {
      price_components: [
        { type: "ENERGY", price: 0.3, step_size: 1 },
        { type: "PARKING_TIME", price: 6, step_size: 60 },
      ],
    },
  ],
  tariff_alt_text: [{ language: "en", text: "45c/kWh 5-9pm, else 30c/kWh; parking $6/h" }],
};

describe("tariffs", () => {
  it("creates simple and complex tariffs, shaped per version", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const simple = await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
      key,
      body: { name: "Flat", rate_minor_per_kwh: 35 },
    });
    expect(simple.status).toBe(201);
    expect(simple.body).toMatchObject({
      rate_minor_per_kwh: 35,
      is_complex: false,
      version: 1,
      elements: [{ price_components: [{ type: "ENERGY", price: 0.35, step_size: 1 }] }],
    });
    expect(simple.body.pricing_summary).toEqual(expect.any(String));
    const made = await call("POST", `/v1/tenants/${tenantId}/tariffs`, { key, body: complex });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      is_complex: true,
      rate_minor_per_kwh: 30,
      time_zone: "America/New_York",
      elements: complex.elements,
      tariff_alt_text: complex.tariff_alt_text,
    });
    const old = await call("GET", `/v1/tenants/${tenantId}/tariffs/${made.body.id}`, {
      key,
      headers: { "service-version": "2026-10-14" },
    });
    expect(old.headers.get("service-version")).toBe("2026-10-14");
    expect(old.body).not.toHaveProperty("elements");
    expect(old.body).not.toHaveProperty("rules");
    expect(old.body).toMatchObject({
      rate_minor_per_kwh: 30,
      is_complex: true,
      pricing_summary: made.body.pricing_summary,
    });
    const list = await call("GET", `/v1/tenants/${tenantId}/tariffs`, { key });
    expect(list.body.data.map((t: { id: number }) => t.id)).toEqual([simple.body.id, made.body.id]);
  });

  it("refuses invalid tariffs with 422 tariff_invalid naming every offending path", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const res = await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
      key,
      body: {
        elements: [
          {
            price_components: [{ type: "ENERGY", price: -1, step_size: 0 }],
            restrictions: { start_time: "25:00" },
          },
        ],
        colour: "red",
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("tariff_invalid");
    const paths = res.body.error.details.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "elements.0.price_components.0.price",
        "elements.0.price_components.0.step_size",
        "elements.0.restrictions.start_time",
        "colour",
      ]),
    );
    expect(
      (await call("POST", `/v1/tenants/${tenantId}/tariffs`, { key, body: {} })).body.error.details
        .issues[0].path,
    ).toBe("rate_minor_per_kwh");
  });

  it("edits write a new version; the earlier snapshot never changes; complex base-rate-only edits are tariff_complex", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const made = (
      await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
        key,
        body: { rate_minor_per_kwh: 40 },
      })
    ).body;
    const edited = await call("PATCH", `/v1/tenants/${tenantId}/tariffs/${made.id}`, {
      key,
      body: { rate_minor_per_kwh: 42, name: "Raised" },
    });
    expect(edited.body).toMatchObject({ version: 2, rate_minor_per_kwh: 42, name: "Raised" });
    const versions = await db().tariffVersion.findMany({
      where: { tariffId: made.id },
      orderBy: { version: "asc" },
    });
    expect(
      versions.map((v) => (v.snapshot as { rate_minor_per_kwh: number }).rate_minor_per_kwh),
    ).toEqual([40, 42]);
    const toComplex = await call("PATCH", `/v1/tenants/${tenantId}/tariffs/${made.id}`, {
      key,
      body: { elements: complex.elements, time_zone: "America/New_York" },
    });
    expect(toComplex.body).toMatchObject({ version: 3, is_complex: true });
    const refused = await call("PATCH", `/v1/tenants/${tenantId}/tariffs/${made.id}`, {
      key,
      body: { rate_minor_per_kwh: 50 },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("tariff_complex");
    const bad = await call("PATCH", `/v1/tenants/${tenantId}/tariffs/${made.id}`, {
      key,
      body: { time_zone: "Mars/Base" },
    });
    expect(bad.body.error).toMatchObject({ code: "tariff_invalid" });
    expect(await db().tariffVersion.count({ where: { tariffId: made.id } })).toBe(3);
    const del = await call("DELETE", `/v1/tenants/${tenantId}/tariffs/${made.id}`, { key });
    expect(del.body).toMatchObject({ id: made.id, deleted: true });
    expect((await call("GET", `/v1/tenants/${tenantId}/tariffs/${made.id}`, { key })).status).toBe(
      404,
    );
    expect(await db().tariffVersion.count({ where: { tariffId: made.id } })).toBe(3);
  });

  it("quotes and simulates with the engine's full breakdown", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const simple = (
      await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
        key,
        body: { rate_minor_per_kwh: 35 },
      })
    ).body;
    // 20 kWh at 35 cents = 700 cents, no VAT
    const quote = await call("POST", `/v1/tenants/${tenantId}/tariffs/${simple.id}/quote`, {
      key,
      body: { energy_wh: 20_000, duration_seconds: 3600 },
    });
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({
      tariff_id: simple.id,
      tariff_version: 1,
      total: { excl_vat_minor: 700, incl_vat_minor: 700 },
      pricing_summary: "$0.35 per kWh",
      price_summary:
        "20 kWh over 1 h (1 h charging): $7.00 incl. VAT, $7.00 excl. VAT. Energy $7.00.",
    });
    expect(priceResultSchema.safeParse(quote.body).error).toBeUndefined();
    // inline complex tariff, meter series off-peak (UTC 14:00 = 10:00 New York): 10 kWh at 30c = 300,
    // then 30 idle minutes after charging at $6/h in 60 s steps = 300 cents
    const readings = [
      { at: "2026-11-22T14:00:00Z", energy_wh: 0 },
      { at: "2026-11-22T15:00:00Z", energy_wh: 10_000 },
      { at: "2026-11-22T15:30:00Z", energy_wh: 10_000 },
    ];
    const sim = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      body: { tariff: complex, session: { meter_values: readings } },
    });
    expect(sim.status, JSON.stringify(sim.body)).toBe(200);
    expect(sim.body.dimensions.energy.excl_vat_minor).toBe(300);
    expect(sim.body.dimensions.parking_time.excl_vat_minor).toBe(300);
    expect(sim.body.total.excl_vat_minor).toBe(600);
    expect(sim.body.activity).toMatchObject({ method: "meter_values" });
    expect(sim.body.price_summary).toBe(
      "10 kWh over 1 h 30 min (1 h charging, 30 min idle): $6.00 incl. VAT, $6.00 excl. VAT. " +
        "Energy $3.00, idle time $3.00.",
    );
    expect(priceResultSchema.safeParse(sim.body).error).toBeUndefined();
    const noStart = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      body: {
        tariff: complex,
        session: {
          charging_periods: [
            {
              start_date_time: "2026-11-22T14:00:00Z",
              dimensions: [{ type: "ENERGY", volume: 5 }],
            },
          ],
          start_date_time: null,
          end_date_time: "2026-11-22T15:00:00Z",
        },
      },
    });
    expect(noStart.status).toBe(409);
    expect(noStart.body.error.code).toBe("transaction_start_unknown");
    const other = await aTenantWithKey();
    expect(
      (
        await call("POST", `/v1/tenants/${other.tenantId}/tariffs/simulate`, {
          key: other.key,
          body: { tariff_id: simple.id, session: { meter_values: readings } },
        })
      ).status,
    ).toBe(404);
  });

  it("takes an OCPI Tariff object with every field and returns each field as sent", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const made = await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
      key,
      body: { ...OCPI_TARIFF, external_reference: "DE-ALL-20" },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(tariffSchema.strict().safeParse(made.body).error).toBeUndefined();
    const read = await call("GET", `/v1/tenants/${tenantId}/tariffs/${made.body.id}`, { key });
    for (const [field, value] of Object.entries(OCPI_TARIFF)) {
      expect(read.body[field], field).toEqual(value);
    }
    expect(read.body.external_reference).toBe("DE-ALL-20");
    // 2026-10-14 clients do not see the OCPI fields; the validity window makes the tariff complex
    const old = await call("GET", `/v1/tenants/${tenantId}/tariffs/${made.body.id}`, {
      key,
      headers: { "service-version": "2026-10-14" },
    });
    expect(old.body).not.toHaveProperty("energy_mix");
    expect(old.body).not.toHaveProperty("start_date_time");
    expect(old.body.is_complex).toBe(true);
    // `null` removes one; the others stay
    const edited = await call("PATCH", `/v1/tenants/${tenantId}/tariffs/${made.body.id}`, {
      key,
      body: { energy_mix: null },
    });
    expect(edited.body).toMatchObject({ version: 2, energy_mix: null, party_id: "CPO" });
  });

  it("refuses a non-USD tariff with the reason, and prices only sessions starting in its validity window", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const eur = await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
      key,
      body: { ...OCPI_TARIFF, currency: "EUR" },
    });
    expect(eur.status).toBe(422);
    expect(eur.body.error).toMatchObject({ code: "tariff_invalid" });
    expect(eur.body.error.message).toMatch(/currency must be USD: payments are in US dollars only/);
    const windowed = (
      await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
        key,
        body: {
          rate_minor_per_kwh: 30,
          start_date_time: "2027-01-01T00:00:00Z",
          end_date_time: "2027-02-01T00:00:00Z",
        },
      })
    ).body;
    const quote = (start_at: string) =>
      call("POST", `/v1/tenants/${tenantId}/tariffs/${windowed.id}/quote`, {
        key,
        body: { energy_wh: 10_000, duration_seconds: 3600, start_at },
      });
    // 10 kWh x 30 c = 300 c
    expect((await quote("2027-01-15T10:00:00Z")).body.total.excl_vat_minor).toBe(300);
    const early = await quote("2026-12-31T10:00:00Z");
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({
      code: "tariff_not_valid_at",
      details: {
        valid_from: "2027-01-01T00:00:00.000Z",
        valid_until: "2027-02-01T00:00:00.000Z",
        session_started_at: "2026-12-31T10:00:00.000Z",
      },
    });
    const sim = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      body: {
        tariff_id: windowed.id,
        session: {
          meter_values: [
            { at: "2027-02-01T00:00:00Z", energy_wh: 0 },
            { at: "2027-02-01T01:00:00Z", energy_wh: 1000 },
          ],
        },
      },
    });
    expect(sim.status).toBe(409);
    expect(sim.body.error.code).toBe("tariff_not_valid_at");
  });

  it("prices reservations: a quote's reservation_seconds, a meter series' reservation, OCPI RESERVATION_TIME", async () => {
    const { tenantId, key } = await aTenantWithKey();
    const tariff = {
      elements: [
        {
          price_components: [
            { type: "TIME", price: 3, step_size: 300 },
            { type: "FLAT", price: 1.5, step_size: 0 },
          ],
          restrictions: { reservation: "RESERVATION" },
        },
        {
          price_components: [{ type: "FLAT", price: 4 }],
          restrictions: { reservation: "RESERVATION_EXPIRES" },
        },
        { price_components: [{ type: "ENERGY", price: 0.3 }] },
      ],
    };
    const made = (await call("POST", `/v1/tenants/${tenantId}/tariffs`, { key, body: tariff }))
      .body;
    // 20 min reserved x 300 c/h = 100 c, fee 150 c; then 10 kWh x 30 c = 300 c -> 550 c
    const quote = await call("POST", `/v1/tenants/${tenantId}/tariffs/${made.id}/quote`, {
      key,
      body: {
        energy_wh: 10_000,
        duration_seconds: 3600,
        start_at: "2026-11-22T14:00:00Z",
        reservation_seconds: 1200,
      },
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(priceResultSchema.safeParse(quote.body).error).toBeUndefined();
    expect(quote.body.dimensions.reservation).toMatchObject({ volume: 1200, excl_vat_minor: 100 });
    expect(quote.body.dimensions.reservation_fee).toMatchObject({ excl_vat_minor: 150 });
    expect(quote.body.total.excl_vat_minor).toBe(550);
    expect(quote.body.price_summary).toBe(
      "10 kWh over 1 h (1 h charging) after 20 min reserved: $5.50 incl. VAT, $5.50 excl. VAT. " +
        "Energy $3.00, reservation $1.00, reservation fee $1.50.",
    );
    expect(quote.body.warnings).toEqual([]);
    // the same as a meter series with its reservation, inline
    const meter = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      body: {
        tariff,
        session: {
          meter_values: [
            { at: "2026-11-22T14:20:00Z", energy_wh: 0 },
            { at: "2026-11-22T15:20:00Z", energy_wh: 10_000 },
          ],
          reservation: { started_at: "2026-11-22T14:00:00Z" },
        },
      },
    });
    expect(meter.status, JSON.stringify(meter.body)).toBe(200);
    expect(meter.body.total).toEqual(quote.body.total);
    expect(meter.body.activity.reservation).toMatchObject({ status: "used", seconds: 1200 });
    // expired, as OCPI periods: 45 min -> 45 min (step 300) x 300 c/h = 225 c; expiry fee 400 c
    const expired = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      body: {
        tariff_id: made.id,
        session: {
          charging_periods: [
            {
              start_date_time: "2026-11-22T14:00:00Z",
              dimensions: [{ type: "RESERVATION_TIME", volume: 0.75 }],
            },
          ],
          start_date_time: "2026-11-22T14:00:00Z",
          end_date_time: "2026-11-22T14:45:00Z",
        },
      },
    });
    expect(expired.status, JSON.stringify(expired.body)).toBe(200);
    expect(priceResultSchema.safeParse(expired.body).error).toBeUndefined();
    expect(expired.body.total.excl_vat_minor).toBe(625);
    expect(expired.body.activity.reason).toBe("reservation_expired");
    // an expired reservation as a meter series needs no readings
    const expiredMeter = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      body: {
        tariff_id: made.id,
        session: {
          meter_values: [],
          reservation: {
            started_at: "2026-11-22T14:00:00Z",
            ended_at: "2026-11-22T14:45:00Z",
            expired: true,
          },
        },
      },
    });
    expect(expiredMeter.body.total).toEqual(expired.body.total);
    const noReadings = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      body: { tariff_id: made.id, session: { meter_values: [] } },
    });
    expect(noReadings.status).toBe(422);
  });

  it("prices a CDR whose first period starts before its start_date_time, with a warning", async () => {
    const { tenantId, key } = await aTenantWithKey();
    // 10 kWh x 35 c = 350 c, priced from the period's own start
    const sim = await call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
      key,
      body: {
        tariff: { rate_minor_per_kwh: 35 },
        session: {
          charging_periods: [
            {
              start_date_time: "2026-11-22T13:59:30Z",
              dimensions: [{ type: "ENERGY", volume: 10 }],
            },
          ],
          start_date_time: "2026-11-22T14:00:00Z",
          end_date_time: "2026-11-22T15:00:00Z",
        },
      },
    });
    expect(sim.status, JSON.stringify(sim.body)).toBe(200);
    expect(priceResultSchema.safeParse(sim.body).error).toBeUndefined();
    expect(sim.body.total.excl_vat_minor).toBe(350);
    expect(sim.body.warnings).toMatchObject([
      { code: "charging_period_before_start", details: { seconds_before: 30 } },
    ]);
  });

  it("reads numbers in exponent notation exactly: a current of 5.960464477539063e-8 A or 1e-300 A is below a 1.6e1 A restriction, 1.6e1 meets it; a price past 4 places is a 422", async () => {
    const { tenantId, key } = await aTenantWithKey();
    // 50c/kWh while drawing at least 16 A, else 30c/kWh
    const byCurrent = {
      elements: [
        {
          price_components: [{ type: "ENERGY", price: 0.5, step_size: 1 }],
          restrictions: { min_current: 16 },
        },
        { price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] },
      ],
    };
    const simulate = (current: string) =>
      call("POST", `/v1/tenants/${tenantId}/tariffs/simulate`, {
        key,
        // raw JSON text: JSON.stringify would write 1.6e1 as 16
        raw: `{"tariff":${JSON.stringify(byCurrent)},"session":{"meter_values":[
          {"at":"2026-11-22T14:00:00Z","energy_wh":0,"current_a":${current}},
          {"at":"2026-11-22T15:00:00Z","energy_wh":1e4,"current_a":${current}}]}}`,
        headers: { "content-type": "application/json" },
      });
    for (const [current, cents] of [
      ["1.6e1", 500],
      ["1.6E+1", 500],
      ["5.960464477539063e-8", 300],
      ["1e-300", 300],
      ["-0", 300],
    ] as const) {
      const sim = await simulate(current);
      expect(sim.status, `${current}: ${JSON.stringify(sim.body)}`).toBe(200);
      expect(sim.body.total.excl_vat_minor, current).toBe(cents);
    }
    expect((await simulate("1e21")).status).toBe(422);
    // a price takes 4 decimal places; in exponent form too: 1e-4 is one, 1e-300 and 6e-8 too many
    for (const [price, status] of [
      ["1e-4", 201],
      ["1e-300", 422],
      ["5.960464477539063e-8", 422],
      ["1e21", 422],
    ] as const) {
      const made = await call("POST", `/v1/tenants/${tenantId}/tariffs`, {
        key,
        raw: `{"elements":[{"price_components":[{"type":"ENERGY","price":${price}}]}]}`,
        headers: { "content-type": "application/json" },
      });
      expect(made.status, `${price}: ${JSON.stringify(made.body)}`).toBe(status);
      if (status === 422) expect(made.body.error.code).toBe("tariff_invalid");
    }
  });
});

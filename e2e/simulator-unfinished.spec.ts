import { expect, test } from "@playwright/test";
import { accessTokenOf, anEmail, base, direct, signUp } from "./fixtures/people";

// Spec section 4, managed paid charging rule 8, in the browser: on the simulator's hosted page the
// payer leaves 3-D Secure unfinished and is sent back to the return URL, yet the payment stays
// pending to reconcile; coming back and approving authorizes it.
test("a 3-D Secure left unfinished on the simulator's page authorizes nothing until it is finished", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signUp(page, "Unfinished Payer", anEmail("unfinished"));
  await page.getByLabel("Team name").fill("Unfinished fleet");
  await page.getByLabel("Project name").fill("Paid charging");
  await page.getByRole("button", { name: "Create project" }).click();
  await page.waitForURL(/\/console\/t\/\d+\/overview/);
  const tenantId = Number(/\/console\/t\/(\d+)\//.exec(page.url())?.[1]);
  const token = await accessTokenOf(page);
  const v1 = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${direct()}/v1/tenants/${tenantId}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "idempotency-key": `e2e-${Date.now()}-${Math.random().toString(36).slice(2)}`,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Record<string, unknown> & { id: string };
    expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
    return json;
  };
  const location = await v1("POST", "/locations", {
    name: "Depot",
    address: { street: "1 Main St", city: "Springfield", postal_code: "12345", country: "US" },
    coordinates: { latitude: 40.7128, longitude: -74.006 },
    time_zone: "America/New_York",
  });
  const station = (await v1("POST", "/stations", {
    name: `UNF-${Date.now().toString(36)}`,
    location_id: location.id,
    connector_count: 1,
  })) as unknown as { id: number; connectors: { id: number }[] };
  const tariff = await v1("POST", "/tariffs", { rate_minor_per_kwh: 35 });
  const bill = await v1("POST", "/bills", {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
    source: "simulated",
    hold_minor: 2500,
  });
  const returnUrl = `${base()}/pay/return`;
  const payment = (await v1("POST", "/payments", {
    bill_id: bill.id,
    service: "simulator",
    return_url: returnUrl,
  })) as unknown as { id: string; next_action: { url: string } };
  const checkoutUrl = payment.next_action.url;

  await page.goto(checkoutUrl);
  await expect(page.getByTestId("amount")).toHaveText("$25.00");
  await page.getByRole("button", { name: /Leave unfinished \(3-D Secure\)/ }).click();
  // Sent back to the return URL, as a 3-D Secure redirect does whatever the outcome.
  await page.waitForURL(returnUrl);
  const pending = await v1("GET", `/payments/${payment.id}`);
  expect(pending).toMatchObject({
    status: "pending",
    next_action: { type: "reconcile", reason: "incomplete_authorization" },
  });

  await page.goto(checkoutUrl);
  await expect(page.getByRole("status")).toContainText("3-D Secure was started and not finished");
  await expect(page.getByRole("button", { name: /Leave unfinished/ })).toHaveCount(0);
  await page.getByRole("button", { name: /Approve/ }).click();
  await page.waitForURL(returnUrl);
  const authorized = await v1("GET", `/payments/${payment.id}`);
  expect(authorized).toMatchObject({ status: "authorized", next_action: null });
});

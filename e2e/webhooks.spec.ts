import { expect, test } from "@playwright/test";
import Stripe from "stripe";
import { aReceiver } from "../testing/webhooks";
import { loopback } from "./fixtures/product";

// Requests from this process reach the product at loopback (fixtures/product.ts).
const base = () => loopback(process.env.E2E_BASE_URL!);
const tenant = () => process.env.E2E_TENANT_ID!;
const auth = { authorization: `Bearer ${process.env.E2E_API_KEY}` };

test("the product's ocpp process delivers a signed test event that the Stripe SDK verifies", async ({
  request,
}) => {
  const receiver = await aReceiver();
  try {
    const created = await request.post(`${base()}/v1/tenants/${tenant()}/webhooks`, {
      headers: auth,
      data: { url: receiver.url, events: ["webhook.test", "station.connected"] },
    });
    expect(created.status()).toBe(201);
    const webhook = await created.json();
    const test = await request.post(
      `${base()}/v1/tenants/${tenant()}/webhooks/${webhook.id}/test`,
      { headers: auth },
    );
    expect(test.status()).toBe(202);
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
    const got = receiver.received[0]!;
    const event = new Stripe("sk_test_unused", { telemetry: false }).webhooks.constructEvent(
      got.body,
      String(got.headers["service-signature"]),
      webhook.secret,
    ) as unknown as { id: string; type: string };
    expect(event).toMatchObject({ id: (await test.json()).event_id, type: "webhook.test" });
    await expect
      .poll(
        async () =>
          (
            await (
              await request.get(
                `${base()}/v1/tenants/${tenant()}/webhooks/${webhook.id}/deliveries`,
                { headers: auth },
              )
            ).json()
          ).data[0]?.status,
      )
      .toBe("acknowledged");
    await request.delete(`${base()}/v1/tenants/${tenant()}/webhooks/${webhook.id}`, {
      headers: auth,
    });
  } finally {
    await receiver.close();
  }
});

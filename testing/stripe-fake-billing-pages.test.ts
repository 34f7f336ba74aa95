import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeFake, type StripeFake } from "./stripe-fake";

let fake: StripeFake;
beforeAll(async () => {
  fake = await startStripeFake();
});
afterAll(() => fake.close());

const form = (fields: Record<string, string>) => ({
  method: "POST",
  redirect: "manual" as const,
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

function aCustomer(teamId: number) {
  const answer = fake.billing.createCustomer("platform", { metadata: { team_id: String(teamId) } });
  return (answer.body as { id: string }).id;
}

/**
 * The fake's hosted pages and HTTP controls that the e2e specs drive from another process
 * (stripe-fake-billing-pages.ts), as Stripe's pages behave.
 */
describe("the Stripe fake's team billing pages", () => {
  it("a setup page keeps a declined card on the page with the reason, and sends a saved one back", async () => {
    const customer = aCustomer(1);
    // (a copy: Stripe, and the fake, drop a completed session's url)
    const session = structuredClone(
      fake.billing.createSetupSession("platform", {
        customer,
        success_url: "http://app.test/billing?setup=card&result=done",
        cancel_url: "http://app.test/billing?setup=card&result=canceled",
        allowed_payment_method_types: ["card"],
      }).body as { id: string; url: string },
    );
    const page = await (await fetch(session.url)).text();
    expect(page).toContain("Save card");
    expect(page).toContain('href="http://app.test/billing?setup=card&amp;result=canceled"');

    const declined = await fetch(session.url, form({ outcome: "card_decline_insufficient_funds" }));
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain(
      '<p role="alert">Your card has insufficient funds.</p>',
    );
    expect(fake.billing.sessions.get(session.id)?.status).toBe("open");

    const saved = await fetch(session.url, form({ outcome: "card_success" }));
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe("http://app.test/billing?setup=card&result=done");
    expect(fake.billing.sessions.get(session.id)?.status).toBe("complete");
    expect(await (await fetch(session.url)).text()).toContain("no longer open");
  });

  it("invoices: opened by the control (with the secret key only), paid on the hosted page, each event delivered signed to the webhook endpoint", async () => {
    const received: Stripe.Event[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push(
          Stripe.webhooks.constructEvent(
            Buffer.concat(chunks).toString(),
            String(req.headers["stripe-signature"]),
            fake.webhookSecret,
          ),
        );
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    fake.deliverPlatformEvents(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    aCustomer(2);
    const control = `${fake.url}/_fake/billing/invoices`;
    const body = { team_id: "2", amount: "2400", due_in_days: "-15" };
    expect((await fetch(control, form(body))).status).toBe(401);
    const opened = await fetch(control, {
      ...form(body),
      headers: {
        ...form(body).headers,
        authorization: `Bearer ${fake.secretKey}`,
      },
    });
    expect(opened.status).toBe(200);
    const { id } = (await opened.json()) as { id: string };

    const page = await (await fetch(`${fake.url}/i/${id}`)).text();
    expect(page).toContain("Pay this invoice");
    const paid = await fetch(`${fake.url}/i/${id}/pay`, form({}));
    expect(paid.status).toBe(303);
    expect(fake.billing.invoices.get(id)?.status).toBe("paid");
    await fake.settled();
    expect(received.map((e) => e.type)).toEqual([
      "invoice.created",
      "invoice.finalized",
      "invoice.payment_succeeded",
      "invoice.paid",
    ]);
    receiver.close();
  });
});

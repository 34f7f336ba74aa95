import { db } from "../server/db";
import { receiveStripeBillingWebhook } from "../server/http/stripe-billing-webhook";
import { createBillingStripe, type TeamBillingConfig } from "../server/team-billing/stripe-billing";
import { call } from "./api";
import type { FakeEvent, StripeFake } from "./stripe-fake";
import { aTenantWithKey } from "./builders";
import { aMember, accessTokenFor, type TestUser } from "./users";

export const TEST_PRICE = "price_activecharger";

/** Team billing as configuration would build it, against the Stripe fake. */
export const teamBillingOverFake = (
  fake: StripeFake,
  options: { timeoutMs?: number; graceDays?: number } = {},
): TeamBillingConfig => ({
  stripe: createBillingStripe({
    secretKey: fake.secretKey,
    webhookSecret: fake.webhookSecret,
    apiUrl: fake.url,
    timeoutMs: options.timeoutMs ?? 5_000,
  }),
  priceId: TEST_PRICE,
  meterEvent: "active_chargers",
  graceDays: options.graceDays ?? 14,
});

/** The environment a runner child process needs for team billing against the fake. */
export const teamBillingEnv = (fake: StripeFake) => ({
  STRIPE_SECRET_KEY: fake.secretKey,
  STRIPE_BILLING_WEBHOOK_SECRET: fake.webhookSecret,
  STRIPE_BILLING_PRICE_ID: TEST_PRICE,
  STRIPE_API_URL: fake.url,
});

/** A team with a project, an API key, and its owner signed in. */
export async function aBillingTeam() {
  const t = await aTenantWithKey();
  const owner: TestUser = {
    userId: t.ownerUserId,
    email: "",
    token: await accessTokenFor(t.ownerUserId),
  };
  return { ...t, owner, member: (role: Parameters<typeof aMember>[1]) => aMember(t.teamId, role) };
}

export const billingPath = (teamId: number, rest = "") => `/v1/teams/${teamId}/billing${rest}`;

/** Starts a setup, the person finishes it on Stripe's page as told, and `/sync` reads it back. */
export async function aMethodOnFile(
  fake: StripeFake,
  teamId: number,
  token: string,
  kind: "card" | "bank_account" = "card",
) {
  const segment = kind === "card" ? "payment-method" : "bank-account";
  const started = await call("POST", billingPath(teamId, `/${segment}/setup`), { key: token });
  if (started.status !== 200) throw new Error(`setup: ${JSON.stringify(started.body)}`);
  fake.billing.completeSetup(
    sessionOf(started.body.setup.url as string),
    kind === "card" ? { card: "success" } : { bank: "instant" },
  );
  const synced = await call("POST", billingPath(teamId, `/${segment}/sync`), { key: token });
  if (synced.body?.setup?.status !== "saved")
    throw new Error(`sync: ${JSON.stringify(synced.body)}`);
  return synced.body;
}

/** The Checkout Session id at the end of a setup page's URL. */
export const sessionOf = (url: string) => url.split("/").pop()!;

/** Delivers the fake's platform events of these types to the billing webhook, signed by Stripe. */
export async function deliverBillingEvents(fake: StripeFake, events: FakeEvent[], times = 1) {
  const statuses: number[] = [];
  for (const event of events)
    for (let i = 0; i < times; i++) {
      const { payload, signature } = fake.sign(event);
      const res = await receiveStripeBillingWebhook(
        new Request("http://localhost:3000/api/stripe/billing-webhook", {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": signature },
          body: payload,
        }),
      );
      statuses.push(res.status);
    }
  return statuses;
}

export const customerOf = async (teamId: number) =>
  (await db().teamBilling.findUniqueOrThrow({ where: { teamId } })).customerRef!;

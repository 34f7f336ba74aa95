import { requireUser } from "../../access/caller";
import {
  connectedPaymentAccountSchema,
  connectPaymentAccountBody,
  paymentAccountSchema,
} from "../../payments/accounts/account-schema";
import { requireAccountManager } from "../../payments/accounts/account-access";
import { connectPaymentAccount } from "../../payments/accounts/connect-payment-account";
import { disconnectPaymentAccount } from "../../payments/accounts/disconnect-payment-account";
import { getPaymentAccount } from "../../payments/accounts/get-payment-account";
import { refreshPaymentAccount } from "../../payments/accounts/refresh-payment-account";
import { tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Payment account";
const path = "/v1/tenants/{tenant_id}/payment-account";
const WHO =
  "Signed-in owners and admins of the project's team, and platform admins (API keys, whatever their scopes: 403 `user_token_required`; other roles: 403 `forbidden`).";
const STATES = `
| Status | Meaning |
| --- | --- |
| \`not_connected\` | no account was ever connected |
| \`onboarding\` | connected; Stripe's onboarding is not finished |
| \`active\` | Stripe enables charges: \`card\` payments can be taken |
| \`restricted\` | details submitted, but Stripe does not (or no longer) enable charges: see \`requirements_due\` |
| \`access_revoked\` | Stripe says the platform can no longer reach it (its owner removed the platform, or its access was revoked): no \`card\` payments; disconnect and connect again |
| \`disconnected\` | disconnected by a person (who connected it and when stay on record) |

The stored state follows Stripe's when it is refreshed (POST …/refresh, the console's return from onboarding, Stripe's \`account.updated\` and \`account.application.deauthorized\` webhooks). No event is emitted: the account is the team's business with Stripe, and payments read its state when they need it. \`attempts\` is the journal of Stripe calls that change something (creating the account, deauthorizing it), each with its idempotency key as \`id\`.`.trim();
const UNAVAILABLE =
  "Without the platform's Stripe keys (`STRIPE_SECRET_KEY`) 409 `payment_service_unavailable` (`details.reason`); Stripe not answering in time is 503 `service_unavailable` (try again).";

export const paymentAccountRoutes = [
  defineRoute({
    method: "GET",
    path,
    operationId: "getPaymentAccount",
    summary: "The project's payment account (Stripe) and its state",
    description: `${WHO} Platform support may read. The state as last stored; works without Stripe keys.\n\n${STATES}`,
    tag,
    auth: "tenant",
    params: tenantParams,
    status: 200,
    response: paymentAccountSchema,
    errors: ["user_token_required", "forbidden"],
    handler: async ({ params, db, principal }) => {
      await requireAccountManager(db, principal, "read");
      return { body: await getPaymentAccount({ tenantId: params.tenant_id, db }) };
    },
  }),
  defineRoute({
    method: "POST",
    path,
    operationId: "connectPaymentAccount",
    summary: "Connect the project's Stripe account and get an onboarding link",
    description: `${WHO} Creates a Stripe Standard connected account (\`country\`, default \`US\`), or links \`account_ref\`, an existing account the platform can reach (422 \`validation_failed\` when Stripe knows none), and answers it with a Stripe onboarding link (Account Links, \`account_onboarding\`) whose return and refresh URLs are the console's payment-account page under PUBLIC_BASE_URL. Links are single-use and short-lived: asking again while connected answers a new link for the same account, and is how onboarding is resumed. Another \`account_ref\` while one is connected: 409 \`payment_account_connected\` (disconnect first); an account connected to another project: 409 \`payment_account_taken\`. Repeating the request is safe (no Idempotency-Key): a new account is created by a journaled call (\`attempts\`, kind \`create\`), one in flight per project, whose key is its attempt's id; the answer waits up to 3 s for it, and 503 \`service_unavailable\` means Stripe has not confirmed it yet: asking again continues the same creation, so Stripe makes one account however often it is asked (a creation Stripe answered with a 500, which it replays for its key, is given up for a new one after ten minutes). ${UNAVAILABLE}\n\n${STATES}`,
    tag,
    auth: "tenant",
    params: tenantParams,
    body: connectPaymentAccountBody,
    status: 200,
    response: connectedPaymentAccountSchema,
    errors: [
      "user_token_required",
      "forbidden",
      "payment_service_unavailable",
      "payment_account_connected",
      "payment_account_taken",
      "payment_account_unreachable",
    ],
    handler: async ({ params, body, rootDb, principal }) => {
      await requireAccountManager(rootDb, principal, "write");
      return {
        body: await connectPaymentAccount({
          tenantId: params.tenant_id,
          caller: requireUser(principal),
          input: body,
          db: rootDb,
        }),
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: `${path}/refresh`,
    operationId: "refreshPaymentAccount",
    summary: "Read the payment account's state from Stripe and store it",
    description: `${WHO} No body. Stores what Stripe says now (charges enabled, details submitted, requirements due) and answers it; when Stripe says the platform cannot reach the account any more (access revoked, or deleted) it is stored and answered as \`access_revoked\`. 404 \`not_found\` when no account is connected. ${UNAVAILABLE}\n\n${STATES}`,
    tag,
    auth: "tenant",
    params: tenantParams,
    status: 200,
    response: paymentAccountSchema,
    errors: ["user_token_required", "forbidden", "payment_service_unavailable"],
    handler: async ({ params, rootDb, principal }) => {
      await requireAccountManager(rootDb, principal, "write");
      return { body: await refreshPaymentAccount({ tenantId: params.tenant_id, db: rootDb }) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path,
    operationId: "disconnectPaymentAccount",
    summary: "Disconnect the project's payment account",
    description: `${WHO} The service stops taking card payments on it at once, and tells Stripe: a \`deauthorize\` call is journaled (\`attempts\`), which ends the platform's access through Connect OAuth (the platform's \`STRIPE_CONNECT_CLIENT_ID\`) once no payment on the account is still open (pending, authorized, or a call in flight), and not at all if the account is connected again first; its attempt says what Stripe answered (\`failed\` with Stripe's reason where Stripe does not deauthorize the account, or without a client id). Nothing is deleted at Stripe: the account and its money stay its owner's (refunds of its past payments are then made in its own dashboard). Answers the account, \`disconnected\`. 404 \`not_found\` when none is connected. Works without Stripe keys.\n\n${STATES}`,
    tag,
    auth: "tenant",
    params: tenantParams,
    status: 200,
    response: paymentAccountSchema,
    errors: ["user_token_required", "forbidden"],
    handler: async ({ params, rootDb, principal }) => {
      await requireAccountManager(rootDb, principal, "write");
      return {
        body: await disconnectPaymentAccount({
          tenantId: params.tenant_id,
          userId: requireUser(principal).userId,
          db: rootDb,
        }),
      };
    },
  }),
];

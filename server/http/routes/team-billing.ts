import {
  billingProfileSchema,
  invoiceSchema,
  invoicingBody,
  setupStartedSchema,
  setupSyncedSchema,
  usageSchema,
} from "../../team-billing/billing-schema";
import { readProfile, requireBillingReader } from "../../team-billing/profile";
import { removeMethod } from "../../team-billing/remove-method";
import { setInvoicing } from "../../team-billing/set-invoicing";
import { startSetup, type MethodRoute } from "../../team-billing/setup-method";
import { syncMethod } from "../../team-billing/sync-method";
import { listInvoices, listUsage } from "../../team-billing/usage";
import { listOf } from "../../lib/pagination";
import { teamParams } from "../params";
import { defineRoute } from "../route";

const tag = "Team billing";
const base = "/v1/teams/{team_id}/billing";
const READERS =
  "Signed-in owners, admins and billing members of the team, and platform staff (API keys: 403 `user_token_required`; other roles: 403 `forbidden`; non-members: 404 as for an unknown team). Works with team billing off (`enabled: false`).";
const MANAGERS =
  "Signed-in owners and billing members of the team only (API keys: 403 `user_token_required`; admins, other roles and platform staff: 403 `forbidden`; non-members: 404). With team billing off: 409 `team_billing_off`. Stripe not answering within 3 s: 503 `service_unavailable` (ask again).";
export const PLAN_TEXT =
  "The plan, `standard`: up to 5 active chargers a month and 2 projects free; beyond, $8.00 (800 US cents) per active charger per month (a station of the team's projects with a charging session started that month; sandbox chargers never count), reported to Stripe's meter and charged on the monthly invoice. Without a card or bank account on file (or staff-set invoicing) a team has at most 2 projects (409 `project_limit`), with one up to 20. Suspension: an invoice still unpaid `grace_days` (default 14) after its automatic payment failed or its due date passed suspends the team: creating projects and registering stations then answer 402 `billing_suspended`; reads, commands, bills, payments and chargers keep working (no driver is stranded), and paying the invoice lifts it at once.";

// `Noun` is a type parameter so each call's operationIds are literals (`setupTeamCard`), which the
// console's procedures (server/trpc/operations.ts) pick routes by.
function methodRoutes<Noun extends "Card" | "BankAccount">(
  kind: MethodRoute,
  segment: "payment-method" | "bank-account",
  Noun: Noun,
) {
  const noun = kind === "card" ? "card" : "US bank account";
  const how =
    kind === "card"
      ? "a Stripe-hosted page (Checkout in `setup` mode) where the person enters a card"
      : "a Stripe-hosted page (Checkout in `setup` mode, `us_bank_account`) where the person links a US bank account, verified instantly through Stripe Financial Connections where the bank offers it (else by microdeposits: `/sync` then answers `verification_pending`)";
  return [
    defineRoute({
      method: "POST",
      path: `${base}/${segment}/setup`,
      operationId: `setupTeam${Noun}`,
      summary: `Start putting a ${noun} on file for the team's bill`,
      description: `${MANAGERS} No body. Answers the URL of ${how}, made by a journaled call (its id is Stripe's Idempotency-Key; see \`calls\`). Nothing is on file until POST …/${segment}/sync reads the result back from Stripe: returning from the page is no proof. Asking again makes a new page.`,
      tag,
      auth: "user",
      params: teamParams,
      status: 200,
      response: setupStartedSchema,
      errors: ["forbidden", "team_billing_off"],
      handler: async ({ caller, rootDb, params }) => ({
        body: await startSetup({ teamId: params.team_id, caller, kind, db: rootDb }),
      }),
    }),
    defineRoute({
      method: "POST",
      path: `${base}/${segment}/sync`,
      operationId: `syncTeam${Noun}`,
      summary: `Read the ${noun} setup's result from Stripe`,
      description: `${MANAGERS} No body. Reads the last setup page's SetupIntent from Stripe and answers \`setup.status\`: \`saved\` (on file now, replacing the previous ${noun} which is detached, and the team's default for invoices; the team's Subscription to the metered price is made if it has none), \`declined\` (\`setup.error\` says Stripe's reason; the same page takes another try), \`verification_pending\` (a bank account waiting for microdeposits), \`open\` (not finished), \`expired\` (start again) or \`none\` (no setup started).`,
      tag,
      auth: "user",
      params: teamParams,
      status: 200,
      response: setupSyncedSchema,
      errors: ["forbidden", "team_billing_off"],
      handler: async ({ caller, rootDb, params }) => ({
        body: await syncMethod({ teamId: params.team_id, caller, kind, db: rootDb }),
      }),
    }),
    defineRoute({
      method: "DELETE",
      path: `${base}/${segment}`,
      operationId: `deleteTeam${Noun}`,
      summary: `Take the team's ${noun} off file`,
      description: `${MANAGERS} Detaches it from the team's Stripe Customer (a journaled call); when it was the default, the other method on file (if any) becomes the default. 404 \`not_found\` when none is on file. Without any method on file, automatic invoices cannot be collected and the grace period runs.`,
      tag,
      auth: "user",
      params: teamParams,
      status: 200,
      response: billingProfileSchema,
      errors: ["forbidden", "team_billing_off"],
      handler: async ({ caller, rootDb, params }) => ({
        body: await removeMethod({ teamId: params.team_id, caller, kind, db: rootDb }),
      }),
    }),
  ];
}

export const teamBillingRoutes = [
  defineRoute({
    method: "GET",
    path: base,
    operationId: "getTeamBilling",
    summary: "The team's billing profile: plan, standing, methods on file, invoicing",
    description: `${READERS} \`status\`: \`active\`, \`past_due\` (an invoice is overdue, within the grace period) or \`suspended\`; \`what_to_do\` says how to get back to \`active\`. \`calls\`: the latest calls to Stripe about the team (the journal). ${PLAN_TEXT}`,
    tag,
    auth: "user",
    params: teamParams,
    status: 200,
    response: billingProfileSchema,
    errors: ["forbidden"],
    handler: async ({ caller, db, params }) => {
      await requireBillingReader(db, caller, params.team_id);
      return { body: await readProfile(db, params.team_id) };
    },
  }),
  defineRoute({
    method: "GET",
    path: `${base}/invoices`,
    operationId: "listTeamInvoices",
    summary: "The team's invoices from the service, newest first",
    description: `${READERS} The last 24, as Stripe last said (each invoice webhook reads it again): amounts in US cents, Stripe's hosted page and PDF, \`overdue_since\` when its payment failed or its due date passed.`,
    tag,
    auth: "user",
    params: teamParams,
    status: 200,
    response: listOf(invoiceSchema),
    errors: ["forbidden"],
    handler: async ({ caller, db, params }) => {
      await requireBillingReader(db, caller, params.team_id);
      return { body: { data: await listInvoices(db, params.team_id) } };
    },
  }),
  defineRoute({
    method: "GET",
    path: `${base}/usage`,
    operationId: "listTeamUsage",
    summary: "The team's usage by month, newest first",
    description: `${READERS} This month's figures are read live; earlier months as recorded by the usage job (every 15 minutes). \`active_chargers\`: stations of the team's projects with a charging session started that month (UTC); \`charging_sessions\` and \`energy_wh\` of those sessions; \`api_requests\`: /v1 requests answered for the team's projects that month (4xx included; 429, 5xx and unauthenticated requests not; the sandbox's not included), counted by each web process and written every 5 seconds; shown, not priced. \`billable_active_chargers\` are those beyond the plan's 5 free; \`reported_active_chargers\` is what Stripe's meter was told so far; \`estimated_minor\` the month's charge at the plan's price.`,
    tag,
    auth: "user",
    params: teamParams,
    status: 200,
    response: listOf(usageSchema),
    errors: ["forbidden"],
    handler: async ({ caller, db, params }) => {
      await requireBillingReader(db, caller, params.team_id);
      return { body: { data: await listUsage(db, params.team_id) } };
    },
  }),
  ...methodRoutes("card", "payment-method", "Card"),
  ...methodRoutes("bank_account", "bank-account", "BankAccount"),
  defineRoute({
    method: "PATCH",
    path: "/v1/admin/billing-teams/{team_id}/invoicing",
    operationId: "setTeamInvoicing",
    summary: "Switch a team between automatic charging and invoices (staff)",
    description:
      "Signed-in platform admins only (anyone else: 403 `forbidden`; API keys: 403 `user_token_required`). `mode`: `automatic` (charge the card or bank account on file) or `send_invoice` (Stripe emails an invoice to pay within 30 days; counts as a billing method on file). The team's Stripe Subscription follows through a journaled call. 404 for an unknown team; with team billing off: 409 `team_billing_off`.",
    tag,
    auth: "user",
    params: teamParams,
    body: invoicingBody,
    status: 200,
    response: billingProfileSchema,
    errors: ["forbidden", "team_billing_off"],
    handler: async ({ caller, rootDb, params, body }) => ({
      body: await setInvoicing({ teamId: params.team_id, caller, mode: body.mode, db: rootDb }),
    }),
  }),
];

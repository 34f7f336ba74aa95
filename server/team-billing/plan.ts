/**
 * The one plan, `standard` (server/team-billing/README.md, "The plan"): a charging platform's
 * cost follows the chargers it runs, so that is what is priced.
 * - Free every month: up to 5 active chargers, and up to 2 projects.
 * - Beyond: $8.00 per active charger per month (an active charger: a station of the team's
 *   projects with a charging session started that month; sandbox chargers never count), billed
 *   through Stripe's meter on the monthly invoice.
 * - Projects: 2 without a billing method on file (a card, a US bank account, or staff-set
 *   invoicing), up to the service's 20 with one (409 `project_limit`).
 */
export const PLAN = {
  id: "standard",
  name: "Standard",
  currency: "usd",
  included_active_chargers: 5,
  price_per_active_charger_minor: 800,
  included_projects: 2,
  /** the service's own cap, billing on or off (teams/projects.ts) */
  max_projects: 20,
} as const;

/** Chargers billed for a month: the active ones beyond the free allowance. */
export const billableChargers = (activeChargers: number) =>
  Math.max(0, activeChargers - PLAN.included_active_chargers);

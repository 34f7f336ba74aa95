import { PROJECT_SCOPES, type Scope } from "@/server/access/scopes";
import type { TeamRole } from "@/server/access/roles";

/** Each project scope in words (spec section 5), shown beside its box when a key is made. */
export const SCOPE_WORDS: Record<Scope, string> = {
  "stations:read": "Read stations, locations, screens, faults and charger events.",
  "stations:write":
    "Register and move stations, create locations, set screens, set an offline station's password.",
  "stations:control": "Send commands to chargers: start, stop, reset, unlock, availability.",
  "stations:admin":
    "Protected configuration keys, and pushing a password to a connected charger (owners and admins).",
  "billing:read": "Read transactions, tariffs, bills, payments and external sessions.",
  "billing:write": "Create tariffs and bills, take payments, create external sessions.",
  "billing:refund": "Refund a payment.",
  "settlement:write": "Run sessions your application pays for itself and report how they ended.",
  "webhooks:write": "Create, edit and disable webhook endpoints (includes reading them).",
  "webhooks:read": "List webhook endpoints and their deliveries.",
};

/** Scope presets offered when a key is made; the boxes stay editable after one is picked. */
export const SCOPE_PRESETS: { name: string; words: string; scopes: readonly Scope[] }[] = [
  {
    name: "Full access",
    words: "Everything your role allows.",
    scopes: PROJECT_SCOPES,
  },
  {
    name: "Read only",
    words: "Reads stations, billing and webhooks; changes nothing.",
    scopes: ["stations:read", "billing:read", "webhooks:read"],
  },
  {
    name: "Charging app",
    words: "A driver app: finds chargers, starts and stops sessions, and settles what it charges.",
    scopes: [
      "stations:read",
      "stations:control",
      "billing:read",
      "billing:write",
      "settlement:write",
    ],
  },
];

/** Each team role in words (server/access/roles.ts), where a role is picked. */
export const ROLE_WORDS: Record<TeamRole, string> = {
  owner: "Everything, including the team's workspace keys; an owner cannot be removed by an admin.",
  admin: "Everything in every project, invites and roles, and the payment account.",
  developer: "API keys, stations, tariffs, bills and webhooks; no refunds or protected settings.",
  operator: "Watches everything and sends commands to chargers; changes no settings or money.",
  viewer: "Reads stations, billing and webhooks; changes nothing.",
  billing: "The team's billing pages and card only; no project data.",
};

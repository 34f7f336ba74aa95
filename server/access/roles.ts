import { PROJECT_SCOPES, type Scope } from "./scopes";

/** Roles a team member can hold, most powerful first. */
export const TEAM_ROLES = ["owner", "admin", "developer", "operator", "viewer", "billing"] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** Roles of the service's own staff, held across every team. */
export const PLATFORM_ROLES = ["platform-admin", "platform-support"] as const;
export type PlatformRole = (typeof PLATFORM_ROLES)[number];

export const isTeamRole = (value: string): value is TeamRole =>
  (TEAM_ROLES as readonly string[]).includes(value);
export const isPlatformRole = (value: string | null | undefined): value is PlatformRole =>
  (PLATFORM_ROLES as readonly string[]).includes(value ?? "");

const READ: Scope[] = ["stations:read", "billing:read", "webhooks:read"];

/**
 * Project scopes each role grants (spec section 5). `stations:admin` is held by owners, admins and
 * platform administrators only; the billing role reads the team's billing pages and manages its
 * card, so it holds no project scope.
 */
export const ROLE_SCOPES: Record<TeamRole | PlatformRole, readonly Scope[]> = {
  owner: PROJECT_SCOPES,
  admin: PROJECT_SCOPES,
  developer: PROJECT_SCOPES.filter((s) => s !== "stations:admin" && s !== "billing:refund"),
  operator: [...READ, "stations:control"],
  viewer: READ,
  billing: [],
  "platform-admin": PROJECT_SCOPES,
  "platform-support": READ,
};

/** Roles allowed to do each team-level thing. */
export const TEAM_PERMISSIONS = {
  /** invite, change roles, remove members, create and rename projects */
  manageTeam: ["owner", "admin"],
  /** create and revoke project API keys */
  manageProjectKeys: ["owner", "admin", "developer"],
  /** create and revoke workspace keys */
  manageWorkspaceKeys: ["owner"],
  /** connect, refresh and disconnect the project's payment (Stripe) account */
  managePaymentAccount: ["owner", "admin"],
  /** put a card or bank account on file for the team's own bill, or remove it (team billing) */
  manageBilling: ["owner", "billing"],
  /** read the team's billing profile, invoices and usage */
  readBilling: ["owner", "admin", "billing"],
} as const satisfies Record<string, readonly TeamRole[]>;

export type TeamPermission = keyof typeof TEAM_PERMISSIONS;

export function roleAllows(role: string | null | undefined, permission: TeamPermission): boolean {
  return (TEAM_PERMISSIONS[permission] as readonly string[]).includes(role ?? "");
}

/** The scopes of a team role and a platform role together. */
export function scopesOf(teamRole: string | null, platformRole: string | null): Set<Scope> {
  const scopes = new Set<Scope>();
  if (teamRole && isTeamRole(teamRole)) for (const s of ROLE_SCOPES[teamRole]) scopes.add(s);
  if (isPlatformRole(platformRole)) for (const s of ROLE_SCOPES[platformRole]) scopes.add(s);
  return scopes;
}

/**
 * A team's branding (display name, accent colour, logo URL): set through `PUT /v1/branding` by
 * its workspace, shown on every page the service shows drivers for any tenant of the team (the
 * simulator's hosted checkout and the payment return page). Below payments and teams, which
 * both read it.
 */
import { z } from "zod";
import type { DbTx } from "../db";

/** `#rrggbb`: the only form a colour takes, so it can be put in a style attribute as it is. */
export const ACCENT_PATTERN = /^#[0-9a-fA-F]{6}$/;

const httpsUrl = z
  .string()
  .max(500)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "https:" && !url.username && !url.password && url.hostname !== "";
    } catch {
      return false;
    }
  }, "must be an https URL without credentials");

export const brandingBody = z.strictObject({
  display_name: z
    .string()
    .trim()
    .min(1)
    .max(80)
    .describe("the name drivers see on the checkout and return pages"),
  accent_color: z
    .string()
    .regex(ACCENT_PATTERN, "must be a colour as #rrggbb")
    .nullable()
    .optional()
    .describe("`#rrggbb`; null or absent: the service's own colour"),
  logo_url: httpsUrl
    .nullable()
    .optional()
    .describe("an https image URL (at most 500 characters); null or absent: no logo"),
});
export type BrandingInput = z.infer<typeof brandingBody>;

export const brandingSchema = z.object({
  team_id: z.number().int(),
  display_name: z.string().describe("the team's name until one is set"),
  accent_color: z.string().nullable(),
  logo_url: z.string().nullable(),
  custom: z.boolean().describe("true once set with PUT /v1/branding"),
});
export type BrandingResource = z.infer<typeof brandingSchema>;

type TeamBrand = {
  id: number;
  name: string;
  brandName: string | null;
  brandAccent: string | null;
  brandLogoUrl: string | null;
};

export function presentBranding(team: TeamBrand): BrandingResource {
  return {
    team_id: team.id,
    display_name: team.brandName ?? team.name,
    accent_color: team.brandAccent,
    logo_url: team.brandLogoUrl,
    custom: team.brandName !== null,
  };
}

const brandSelect = {
  id: true,
  name: true,
  brandName: true,
  brandAccent: true,
  brandLogoUrl: true,
} as const;

/**
 * `PUT /v1/branding`: the workspace's display name, accent colour and logo, all at once (a field
 * left out is cleared). Shown to drivers on the simulator's hosted checkout page and the return
 * page, for payments of every tenant of the team (its projects and its sandbox), escaped as text;
 * the colour only as a validated `#rrggbb`, the logo only as an https image loaded without a
 * referrer.
 */
export async function setBranding(db: DbTx, teamId: number, input: BrandingInput) {
  const team = await db.team.update({
    where: { id: teamId },
    data: {
      brandName: input.display_name,
      brandAccent: input.accent_color ?? null,
      brandLogoUrl: input.logo_url ?? null,
    },
    select: brandSelect,
  });
  return presentBranding(team);
}

export async function brandingOf(db: DbTx, teamId: number) {
  return presentBranding(
    await db.team.findUniqueOrThrow({ where: { id: teamId }, select: brandSelect }),
  );
}

/** What a driver's page shows of a tenant's team: its branding, with colours safe to style with. */
export async function driverBranding(db: DbTx, tenantId: number) {
  const tenant = await db.tenant.findUnique({
    where: { id: tenantId },
    select: { name: true, team: { select: brandSelect } },
  });
  if (!tenant) return null;
  const accent = tenant.team.brandAccent;
  return {
    displayName: tenant.team.brandName ?? tenant.name,
    accent: accent && ACCENT_PATTERN.test(accent) ? accent : null,
    accentText: accent && ACCENT_PATTERN.test(accent) ? readableOn(accent) : null,
    logoUrl: tenant.team.brandLogoUrl?.startsWith("https://") ? tenant.team.brandLogoUrl : null,
  };
}
export type DriverBranding = NonNullable<Awaited<ReturnType<typeof driverBranding>>>;

/** Black or white, whichever reads better on the colour (WCAG relative luminance). */
function readableOn(hex: string): "#000000" | "#ffffff" {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? "#000000" : "#ffffff";
}

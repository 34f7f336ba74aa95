import { z } from "zod";

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  kind: z.enum(["project", "workspace"]),
  tenant_id: z.number().int().nullable(),
  team_id: z.number().int().nullable(),
  scopes: z.array(z.string()),
  api_version: z.string(),
  owner: z.object({ user_id: z.number().int(), email: z.string() }).nullable(),
  prefix: z.string(),
  rate_limit_per_minute: z.number().int(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export const createdApiKeySchema = apiKeySchema.extend({
  secret: z.string().describe("shown once, here; only a hash is kept"),
});

/** What a key's row is read with to be presented. */
export const apiKeyInclude = { owner: { select: { id: true, email: true } } } as const;

export type ApiKeyRow = {
  id: string;
  name: string | null;
  tenantId: number | null;
  teamId: number | null;
  scopes: string[];
  apiVersion: string;
  secretPrefix: string;
  rateLimitPerMinute: number;
  createdAt: Date;
  revokedAt: Date | null;
  owner: { id: number; email: string } | null;
};

/** The API shape of a key: never its secret or the secret's hash. */
export const presentApiKey = (k: ApiKeyRow): z.infer<typeof apiKeySchema> => ({
  id: k.id,
  name: k.name,
  kind: k.tenantId === null ? "workspace" : "project",
  tenant_id: k.tenantId,
  team_id: k.teamId,
  scopes: k.scopes,
  api_version: k.apiVersion,
  owner: k.owner ? { user_id: k.owner.id, email: k.owner.email } : null,
  prefix: k.secretPrefix,
  rate_limit_per_minute: k.rateLimitPerMinute,
  created_at: k.createdAt.toISOString(),
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

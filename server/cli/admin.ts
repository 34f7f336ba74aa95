/**
 * Operator CLI, usable before any console exists and whether or not the service runs:
 *   npm run admin -- bootstrap --email <email> --team <name> --project <name> [--scopes a,b]
 *   npm run admin -- create-key --tenant <id> [--scopes a,b]
 *   npm run admin -- revoke-key <key id>
 *   npm run admin -- set-rate-limit <key id> <requests per minute>
 *   npm run admin -- set-authorization --tenant <id> <accept_all|known_tokens>
 *   npm run admin -- set-platform-role --email <email> <platform-admin|platform-support|none>
 *   npm run admin -- suspend-user --email <email> [--undo]
 * stdout carries exactly one JSON object; everything else goes to stderr.
 */
import { parseArgs } from "node:util";
// every domain's operation kinds and charger-transaction hooks, before anything uses them
import "../domains";
import { closeDb, db, useDatabaseUrl } from "../db";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../db/embedded";
import { applyMigrations } from "../db/migrate";
import { env, EnvError } from "../env";
import { DomainError } from "../errors";
import { createOperatorKey } from "../keys/create-api-key";
import { revokeApiKey } from "../keys/revoke-api-key";
import { PROJECT_SCOPES, parseScopeList, type Scope } from "../access/scopes";
import { RATE_LIMIT_MAX, RATE_LIMIT_MIN, setApiKeyRateLimit } from "../keys/set-rate-limit";
import { bootstrapProject } from "./bootstrap-project";
import { isPlatformRole, PLATFORM_ROLES } from "../access/roles";

const USAGE = `usage:
  admin bootstrap --email <email> --team <name> --project <name> [--scopes <comma-separated>]
  admin create-key --tenant <id> [--scopes <comma-separated>]
  admin revoke-key <key id>
  admin set-rate-limit <key id> <${RATE_LIMIT_MIN}-${RATE_LIMIT_MAX}>
  admin set-authorization --tenant <id> <accept_all|known_tokens>
  admin set-platform-role --email <email> <platform-admin|platform-support|none>
  admin suspend-user --email <email> [--undo]`;

class UsageError extends Error {}
class NotFoundError extends Error {}

/** A service's `not_found` as the command line words it. */
const notFoundAs = (message: string) => (error: unknown) => {
  if (error instanceof DomainError && error.code === "not_found") throw new NotFoundError(message);
  throw error;
};

function scopesOf(value: string | undefined): Scope[] {
  if (value === undefined) return [...PROJECT_SCOPES];
  try {
    return parseScopeList(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const raw = values[name];
  const value = typeof raw === "string" ? raw.trim() : "";
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

async function run(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const options = {
    email: { type: "string" },
    team: { type: "string" },
    project: { type: "string" },
    scopes: { type: "string" },
    tenant: { type: "string" },
    undo: { type: "boolean" },
  } as const;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  switch (command) {
    case "bootstrap": {
      const email = required(values, "email");
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
        throw new UsageError("--email must be an email address");
      return bootstrapProject({
        email,
        teamName: required(values, "team"),
        projectName: required(values, "project"),
        scopes: scopesOf(values.scopes),
      });
    }
    case "create-key": {
      const tenantId = Number(required(values, "tenant"));
      if (!Number.isInteger(tenantId) || tenantId < 1)
        throw new UsageError("--tenant must be a tenant ID");
      return { api_key: await createOperatorKey({ tenantId, scopes: scopesOf(values.scopes) }) };
    }
    case "revoke-key": {
      const keyId = positionals[0];
      if (!keyId || positionals.length !== 1) throw new UsageError("revoke-key takes one key ID");
      const key = await revokeApiKey({ keyId }).catch(notFoundAs(`no key ${keyId}`));
      return { id: key.id, revoked: true, revoked_at: key.revokedAt?.toISOString() ?? null };
    }
    case "set-rate-limit": {
      const [keyId, value] = positionals;
      const perMinute = Number(value);
      if (
        !keyId ||
        !Number.isInteger(perMinute) ||
        perMinute < RATE_LIMIT_MIN ||
        perMinute > RATE_LIMIT_MAX
      ) {
        throw new UsageError(
          `set-rate-limit takes a key ID and an integer from ${RATE_LIMIT_MIN} to ${RATE_LIMIT_MAX}`,
        );
      }
      const key = await setApiKeyRateLimit({ keyId, perMinute, changedBy: null });
      if (!key) throw new NotFoundError(`no key ${keyId}`);
      return { id: key.id, rate_limit_per_minute: key.rateLimitPerMinute };
    }
    case "set-authorization": {
      const tenantId = Number(required(values, "tenant"));
      const mode = positionals[0];
      if (
        !Number.isInteger(tenantId) ||
        tenantId < 1 ||
        (mode !== "accept_all" && mode !== "known_tokens")
      ) {
        throw new UsageError(
          "set-authorization takes --tenant <id> and accept_all or known_tokens",
        );
      }
      if (!(await db().tenant.findUnique({ where: { id: tenantId } })))
        throw new NotFoundError(`no tenant ${tenantId}`);
      const tenant = await db().tenant.update({
        where: { id: tenantId },
        data: { authorizationMode: mode },
      });
      return { tenant_id: tenant.id, authorization_mode: tenant.authorizationMode };
    }
    case "set-platform-role": {
      const email = required(values, "email").toLowerCase();
      const role = positionals[0];
      if (positionals.length !== 1 || (role !== "none" && !isPlatformRole(role))) {
        throw new UsageError(
          `set-platform-role takes --email and one of ${PLATFORM_ROLES.join(", ")}, none`,
        );
      }
      const user = await db().user.findUnique({ where: { email } });
      if (!user) throw new NotFoundError(`no user ${email}`);
      const updated = await db().user.update({
        where: { id: user.id },
        data: { platformRole: role === "none" ? null : role },
      });
      return { user_id: updated.id, platform_role: updated.platformRole };
    }
    case "suspend-user": {
      const email = required(values, "email").toLowerCase();
      const user = await db().user.findUnique({ where: { email } });
      if (!user) throw new NotFoundError(`no user ${email}`);
      // Takes effect on the next request: keys, tokens and console sessions all recheck it.
      const updated = await db().user.update({
        where: { id: user.id },
        data: { suspendedAt: values.undo ? null : new Date() },
      });
      return { user_id: updated.id, suspended: updated.suspendedAt !== null };
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : "no command given");
  }
}

async function main() {
  const argv = process.argv.slice(2);
  let database: EmbeddedDatabase | undefined;
  let code = 0;
  try {
    const config = env();
    let url = config.databaseUrl;
    if (!url) {
      // Reuse the embedded server `npm start` runs on this DATA_DIR, or start it for this command.
      database = await startEmbeddedDatabase({ dataDir: config.dataDir, reuseRunning: true });
      url = database.url;
      useDatabaseUrl(url);
    }
    await applyMigrations(url);
    const output = await run(argv);
    process.stdout.write(`${JSON.stringify(output)}\n`);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`admin: ${error.message}\n${USAGE}\n`);
      code = 2;
    } else if (error instanceof EnvError) {
      process.stderr.write(`config error: ${error.message}\n`);
      code = 1;
    } else {
      process.stderr.write(
        `admin: ${error instanceof NotFoundError || error instanceof DomainError ? error.message : String((error as Error).stack ?? error)}\n`,
      );
      code = 1;
    }
  } finally {
    await closeDb().catch(() => {});
    if (database?.owned) await database.stop().catch(() => {});
  }
  process.exit(code);
}

await main();

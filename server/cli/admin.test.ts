import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/** The real CLI, as an operator runs it, against its own embedded PostgreSQL in a temp DATA_DIR. */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-cli-"));
const ROOT = path.resolve(import.meta.dirname, "..", "..");

function admin(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const res = spawnSync(
    path.join(ROOT, "node_modules", ".bin", "tsx"),
    ["--conditions=react-server", "server/cli/admin.ts", ...args],
    { cwd: ROOT, env, encoding: "utf8" },
  );
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe("admin CLI", () => {
  it("bootstraps, reuses, creates and revokes keys, printing exactly one JSON object", () => {
    const first = admin(
      "bootstrap",
      "--email",
      "Ops@Example.com",
      "--team",
      "Acme",
      "--project",
      "Chargers",
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim().split("\n")).toHaveLength(1);
    const boot = JSON.parse(first.stdout);
    expect(boot).toEqual({
      user_id: expect.any(Number),
      team_id: expect.any(Number),
      tenant_id: expect.any(Number),
      api_key: {
        id: expect.stringMatching(/^key_/),
        secret: expect.stringMatching(/^cpk_live_/),
        scopes: expect.arrayContaining(["stations:read", "webhooks:read"]),
        api_version: "2026-10-15",
      },
    });
    expect(boot.api_key.scopes).toHaveLength(10);

    const again = JSON.parse(
      admin(
        "bootstrap",
        "--email",
        "ops@example.com",
        "--team",
        "Acme",
        "--project",
        "Chargers",
        "--scopes",
        "stations:read",
      ).stdout,
    );
    expect([again.user_id, again.team_id, again.tenant_id]).toEqual([
      boot.user_id,
      boot.team_id,
      boot.tenant_id,
    ]);
    expect(again.api_key.id).not.toBe(boot.api_key.id);
    expect(again.api_key.scopes).toEqual(["stations:read"]);

    const created = admin(
      "create-key",
      "--tenant",
      String(boot.tenant_id),
      "--scopes",
      "billing:read,billing:write",
    );
    expect(JSON.parse(created.stdout).api_key.scopes).toEqual(["billing:read", "billing:write"]);

    const limited = admin("set-rate-limit", boot.api_key.id, "60");
    expect(limited.code, limited.stderr).toBe(0);
    expect(JSON.parse(limited.stdout)).toEqual({ id: boot.api_key.id, rate_limit_per_minute: 60 });
    const missing = admin("set-rate-limit", "key_doesnotexist", "60");
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");

    const revoked = admin("revoke-key", boot.api_key.id);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: boot.api_key.id, revoked: true });
  }, 90_000);

  it("grants and removes platform roles and suspends people", () => {
    const boot = JSON.parse(
      admin("bootstrap", "--email", "staff@example.com", "--team", "S", "--project", "P").stdout,
    );
    const key = boot.api_key.id as string;
    expect(
      JSON.parse(
        admin("set-platform-role", "--email", "Staff@example.com", "platform-admin").stdout,
      ),
    ).toEqual({
      user_id: boot.user_id,
      platform_role: "platform-admin",
    });
    expect(
      JSON.parse(admin("set-platform-role", "--email", "staff@example.com", "none").stdout)
        .platform_role,
    ).toBeNull();
    expect(admin("set-platform-role", "--email", "staff@example.com", "root").code).toBe(2);
    expect(admin("set-platform-role", "--email", "nobody@example.com", "none").code).toBe(1);
    expect(JSON.parse(admin("suspend-user", "--email", "staff@example.com").stdout).suspended).toBe(
      true,
    );
    expect(
      JSON.parse(admin("suspend-user", "--email", "staff@example.com", "--undo").stdout).suspended,
    ).toBe(false);
    expect(key).toMatch(/^key_/);
  }, 90_000);

  it("answers bad arguments with a usage error (exit 2) and unknown things with exit 1, stdout empty", () => {
    for (const args of [
      ["bootstrap", "--email", "x@y.z"],
      ["bootstrap", "--email", "not-an-email", "--team", "a", "--project", "b"],
      ["create-key", "--tenant", "1", "--scopes", "bogus"],
      ["frobnicate"],
      [],
    ]) {
      const res = admin(...args);
      expect(res.code, args.join(" ")).toBe(2);
      expect(res.stdout).toBe("");
      expect(res.stderr).toContain("usage:");
    }
    const missing = admin("revoke-key", "key_missing");
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(admin("create-key", "--tenant", "999999").code).toBe(1);
  }, 90_000);
});

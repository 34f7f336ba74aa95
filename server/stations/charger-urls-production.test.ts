import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { aUser } from "../../testing/users";

// Production: preproduction charger URLs are never offered (charger-urls.test.ts: preproduction).
process.env.SERVICE_ENV = "production";

describe("preproduction charger URLs in production", () => {
  it("stations never show charger_id, username or connection_base_url (absent, not null)", async () => {
    const project = await aTenantWithKey();
    // even with a row left from a preproduction copy of the database
    await db().tenantChargerUrls.create({ data: { tenantId: project.tenantId, enabled: true } });
    const created = await aStation(project.tenantId, project.key);
    const one = await call("GET", `/v1/tenants/${project.tenantId}/stations/${created.id}`, {
      key: project.key,
    });
    const list = await call("GET", `/v1/tenants/${project.tenantId}/stations`, {
      key: project.key,
    });
    for (const body of [created, one.body, list.body.data[0]])
      for (const field of ["charger_id", "username", "connection_base_url"])
        expect(body).not.toHaveProperty(field);
  });

  it("the admin routes answer 409 project_urls_disabled to staff, 403 to anyone else", async () => {
    const project = await aTenantWithKey();
    const admin = await aUser({ platformRole: "platform-admin" });
    const support = await aUser({ platformRole: "platform-support" });
    const path = `/v1/admin/tenants/${project.tenantId}/charger-urls`;
    for (const [method, key] of [
      ["GET", admin.token],
      ["GET", support.token],
      ["PUT", admin.token],
    ] as const) {
      const res = await call(method, path, {
        key,
        ...(method === "PUT" ? { body: { enabled: true } } : {}),
      });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("project_urls_disabled");
    }
    const bySupport = await call("PUT", path, { key: support.token, body: { enabled: true } });
    expect(bySupport.status).toBe(403);
    // the project's own view says the same
    const own = await call("GET", `/v1/tenants/${project.tenantId}/charger-urls`, {
      key: project.key,
    });
    expect(own.status).toBe(409);
    expect(own.body.error.code).toBe("project_urls_disabled");
  });
});

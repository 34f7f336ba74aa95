import { describe, expect, it } from "vitest";
import { call } from "../../testing/api";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { aMember, aUser } from "../../testing/users";

// Preproduction: project-scoped charger URLs are offered (server/stations/charger-urls.ts).
// charger-urls-production.test.ts holds the production side (one environment per process).
process.env.SERVICE_ENV = "preproduction";
process.env.OCPP_PUBLIC_URL = "wss://ocpp.preprod.example";

const path = (tenantId: number) => `/v1/admin/tenants/${tenantId}/charger-urls`;

describe("preproduction charger URLs", () => {
  it("stations carry charger_id, username and connection_base_url on every read", async () => {
    const project = await aTenantWithKey();
    const created = await aStation(project.tenantId, project.key);
    const expected = {
      charger_id: `p${project.tenantId}-${created.name}`,
      username: `p${project.tenantId}-${created.name}`,
      connection_base_url: "wss://ocpp.preprod.example/ocpp",
    };
    expect(created).toMatchObject(expected);
    const one = await call("GET", `/v1/tenants/${project.tenantId}/stations/${created.id}`, {
      key: project.key,
    });
    expect(one.body).toMatchObject(expected);
    const list = await call("GET", `/v1/tenants/${project.tenantId}/stations`, {
      key: project.key,
    });
    expect(list.body.data[0]).toMatchObject(expected);
    // the charger ID fits OCPP's 48-character identity for the longest name
    expect(`p2147483647-${"x".repeat(36)}`).toHaveLength(48);
  });

  it("staff read (both platform roles) and override (platform-admin only); nobody else", async () => {
    const project = await aTenantWithKey();
    const admin = await aUser({ platformRole: "platform-admin" });
    const support = await aUser({ platformRole: "platform-support" });
    const owner = await aMember(project.teamId, "owner");
    const stranger = await aUser();

    for (const reader of [admin, support]) {
      const read = await call("GET", path(project.tenantId), { key: reader.token });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        tenant_id: project.tenantId,
        enabled: true,
        connection_base_url: "wss://ocpp.preprod.example/ocpp",
        base_url_override: null,
        updated_by: null,
      });
    }
    for (const other of [owner, stranger]) {
      const read = await call("GET", path(project.tenantId), { key: other.token });
      expect(read.status).toBe(403);
      expect(read.body.error.code).toBe("forbidden");
    }
    for (const writer of [support, owner, stranger]) {
      const write = await call("PUT", path(project.tenantId), {
        key: writer.token,
        body: { enabled: false },
      });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe("forbidden");
    }
    // an API key is no staff member, even the project's own
    const byKey = await call("GET", path(project.tenantId), { key: project.key });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("user_token_required");
    // nothing changed
    const after = await call("GET", path(project.tenantId), { key: admin.token });
    expect(after.body.enabled).toBe(true);
    const unknown = await call("GET", path(2000000000), { key: admin.token });
    expect(unknown.status).toBe(404);
  });

  it("an override round trip: a base of the tenant's own, off, back on, back to the default", async () => {
    const project = await aTenantWithKey();
    const station = await aStation(project.tenantId, project.key);
    const admin = await aUser({ platformRole: "platform-admin" });
    const stationPath = `/v1/tenants/${project.tenantId}/stations/${station.id}`;

    const based = await call("PUT", path(project.tenantId), {
      key: admin.token,
      body: { connection_base_url: "wss://acme.preprod.example/ocpp/", note: "ticket 42" },
    });
    expect(based.status).toBe(200);
    expect(based.body).toMatchObject({
      enabled: true,
      connection_base_url: "wss://acme.preprod.example/ocpp",
      base_url_override: "wss://acme.preprod.example/ocpp",
      default_connection_base_url: "wss://ocpp.preprod.example/ocpp",
      note: "ticket 42",
      updated_by: admin.userId,
    });
    expect((await call("GET", path(project.tenantId), { key: admin.token })).body).toEqual(
      based.body,
    );
    expect((await call("GET", stationPath, { key: project.key })).body.connection_base_url).toBe(
      "wss://acme.preprod.example/ocpp",
    );

    const projectView = `/v1/tenants/${project.tenantId}/charger-urls`;
    expect((await call("GET", projectView, { key: project.key })).body).toEqual({
      tenant_id: project.tenantId,
      connection_base_url: "wss://acme.preprod.example/ocpp",
      charger_id_format: "p<tenant_id>-<station name>",
      username: "the charger_id",
    });

    const off = await call("PUT", path(project.tenantId), {
      key: admin.token,
      body: { enabled: false },
    });
    // the project sees why its stations carry no charger_id
    const disabled = await call("GET", projectView, { key: project.key });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe("project_urls_disabled");
    expect(off.body).toMatchObject({
      enabled: false,
      base_url_override: "wss://acme.preprod.example/ocpp",
    });
    const hidden = (await call("GET", stationPath, { key: project.key })).body;
    for (const field of ["charger_id", "username", "connection_base_url"])
      expect(hidden).not.toHaveProperty(field);

    const on = await call("PUT", path(project.tenantId), {
      key: admin.token,
      body: { enabled: true, connection_base_url: null },
    });
    expect(on.body).toMatchObject({
      enabled: true,
      connection_base_url: "wss://ocpp.preprod.example/ocpp",
      base_url_override: null,
      note: "ticket 42",
    });
    expect((await call("GET", stationPath, { key: project.key })).body.charger_id).toBe(
      `p${project.tenantId}-${station.name}`,
    );
    expect((await call("GET", projectView, { key: project.key })).status).toBe(200);
  });

  it("refuses a base that is not a ws(s) URL ending in /ocpp, in words, and keeps the state", async () => {
    const project = await aTenantWithKey();
    const admin = await aUser({ platformRole: "platform-admin" });
    for (const bad of [
      "https://x.example/ocpp",
      "wss://x.example/other",
      "wss://u:p@x.example/ocpp",
      "nope",
    ]) {
      const res = await call("PUT", path(project.tenantId), {
        key: admin.token,
        body: { connection_base_url: bad },
      });
      expect(res.status).toBe(422);
      expect(res.body.error.details.fields[0]).toMatchObject({ field: "connection_base_url" });
    }
    const unknownField = await call("PUT", path(project.tenantId), {
      key: admin.token,
      body: { charger_id: "x" },
    });
    expect(unknownField.status).toBe(422);
    const read = await call("GET", path(project.tenantId), { key: admin.token });
    expect(read.body.base_url_override).toBeNull();
  });
});

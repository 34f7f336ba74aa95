import { describe, expect, it } from "vitest";
import type { RPCClient } from "ocpp-rpc";
import { db } from "../server/db";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey, anotherKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

type Answer = (params: any) => Record<string, unknown>;

/** A connected charger whose configuration calls answer as `answers` says, each call recorded. */
async function setup(protocol: "ocpp1.6" | "ocpp2.0.1", answers: Record<string, Answer>) {
  const t = await aTenantWithKey();
  const operator = await anotherKey(t.tenantId, ["stations:read", "stations:control"]);
  const station = await aStationWithPassword(t, "configuration-pass-01");
  const received: [string, any][] = [];
  const charger: RPCClient = await aConnectedCharger(
    gw,
    station,
    "configuration-pass-01",
    protocol,
    (c) => {
      for (const [action, answer] of Object.entries(answers))
        c.handle(action, ({ params }: { params?: any }) => {
          received.push([action, params]);
          return Promise.resolve(answer(params));
        });
    },
  );
  const base = `/v1/tenants/${t.tenantId}/stations/${station.id}`;
  await waitUntil(async () => (await call("GET", base, { key: t.key })).body.online);
  const read = (body: Record<string, unknown> = {}, key = t.key) =>
    call("POST", `${base}/configuration/read`, { key, body, idempotencyKey: idem() });
  const change = (body: Record<string, unknown>, key = t.key) =>
    call("PATCH", `${base}/configuration`, { key, body, idempotencyKey: idem() });
  const events = async (type: string) =>
    (
      await db().event.findMany({ where: { tenantId: t.tenantId, type }, orderBy: { id: "asc" } })
    ).map((e) => e.data as any);
  return { ...t, operator, station, charger, base, received, read, change, events };
}

describe("station configuration through the API (OCPP 1.6)", () => {
  it("reads every key with the charger's readonly flags, never keeping a secret, and the station shows the read", async () => {
    const s = await setup("ocpp1.6", {
      GetConfiguration: (p) =>
        p.key
          ? {
              configurationKey: [{ key: "HeartbeatInterval", readonly: false, value: "60" }],
              unknownKey: ["Nope"],
            }
          : {
              configurationKey: [
                { key: "HeartbeatInterval", readonly: false, value: "300" },
                { key: "NumberOfConnectors", readonly: true, value: "1" },
                { key: "ModemPassword", readonly: false, value: "hunter2-secret" },
              ],
            },
    });
    try {
      const all = await s.read({}, s.operator);
      expect(all.status).toBe(202);
      expect(s.received).toEqual([["GetConfiguration", {}]]);
      expect(all.body.status).toBe("succeeded");
      expect(all.body.result.keys).toEqual([
        {
          component: null,
          key: "HeartbeatInterval",
          value: "300",
          readonly: false,
          secret: false,
          status: null,
        },
        {
          component: null,
          key: "NumberOfConnectors",
          value: "1",
          readonly: true,
          secret: false,
          status: null,
        },
        {
          component: null,
          key: "ModemPassword",
          value: null,
          readonly: false,
          secret: true,
          status: null,
        },
      ]);
      const station = (await call("GET", s.base, { key: s.key })).body;
      expect(station.configuration).toMatchObject({
        operation_id: all.body.id,
        keys: all.body.result.keys,
      });
      expect(Date.parse(station.configuration.read_at)).toBeGreaterThan(Date.now() - 60_000);
      const row = await db().station.findUniqueOrThrow({ where: { id: s.station.id } });
      expect(JSON.stringify(row.configuration)).not.toContain("hunter2");
      expect(row.configurationReadAt).not.toBeNull();

      const named = await s.read({ keys: [{ key: "HeartbeatInterval" }, { key: "Nope" }] });
      expect(s.received[1]).toEqual(["GetConfiguration", { key: ["HeartbeatInterval", "Nope"] }]);
      expect(named.body.result.unknown_keys).toEqual([{ component: null, key: "Nope" }]);

      const withComponent = await s.read({
        keys: [{ component: "OCPPCommCtrlr", key: "HeartbeatInterval" }],
      });
      expect(withComponent.status).toBe(422);
      expect(withComponent.body.error.code).toBe("validation_failed");
    } finally {
      await s.charger.close({ force: true });
    }
  });

  it("changes one key; protected keys need stations:admin, connection keys also confirm_connection_change; allow_protected is ignored with deprecation headers", async () => {
    const s = await setup("ocpp1.6", {
      ChangeConfiguration: (p) => ({
        status: p.key === "WebSocketURL" ? "RebootRequired" : "Accepted",
      }),
    });
    try {
      const plain = await s.change(
        { changes: [{ key: "HeartbeatInterval", value: "120" }] },
        s.operator,
      );
      expect(plain.status).toBe(202);
      expect(plain.headers.get("deprecation")).toBeNull();
      expect(plain.body).toMatchObject({
        status: "succeeded",
        result: {
          keys: [
            {
              component: null,
              key: "HeartbeatInterval",
              status: "Accepted",
              reboot_required: false,
            },
          ],
          reboot_required: false,
        },
      });
      expect(s.received).toEqual([
        ["ChangeConfiguration", { key: "HeartbeatInterval", value: "120" }],
      ]);

      // protected: 403 without stations:admin, allow_protected or not; nothing sent
      const refused = await s.change(
        { changes: [{ key: "AuthorizeRemoteTxRequests", value: "false" }], allow_protected: true },
        s.operator,
      );
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("stations_admin_required");
      expect(refused.headers.get("deprecation")).toBe(`@${Date.UTC(2026, 9, 17) / 1000}`);
      expect(refused.headers.get("sunset")).toBe("Sat, 17 Apr 2027 00:00:00 GMT");
      expect(refused.headers.get("link")).toBe(
        '</v1/openapi.json>; rel="deprecation"; type="text/html"',
      );
      const admin = await s.change({
        changes: [{ key: "AuthorizeRemoteTxRequests", value: "false" }],
        allow_protected: false,
      });
      expect(admin.body.status).toBe("succeeded");
      expect(admin.headers.get("deprecation")).toBe(`@${Date.UTC(2026, 9, 17) / 1000}`);
      expect(admin.headers.get("sunset")).toBe("Sat, 17 Apr 2027 00:00:00 GMT");

      // connection keys: stations:admin first, then confirm_connection_change
      const url = { changes: [{ key: "WebSocketURL", value: "wss://example.test/ocpp" }] };
      const noAdmin = await s.change({ ...url, confirm_connection_change: true }, s.operator);
      expect(noAdmin.status).toBe(403);
      expect(noAdmin.body.error.code).toBe("stations_admin_required");
      for (const confirm of [undefined, false]) {
        const unconfirmed = await s.change({ ...url, confirm_connection_change: confirm });
        expect(unconfirmed.status).toBe(422);
        expect(unconfirmed.body.error.code).toBe("connection_change_unconfirmed");
        expect(unconfirmed.body.error.details.keys).toEqual([
          { component: null, key: "WebSocketURL" },
        ]);
      }
      for (const key of ["OCPPID", "SecurityProfile"]) {
        const other = await s.change({ changes: [{ key, value: "2" }] });
        expect(other.body.error.code).toBe("connection_change_unconfirmed");
      }
      expect(s.received).toHaveLength(2); // nothing sent for a refusal
      const confirmed = await s.change({ ...url, confirm_connection_change: true });
      expect(confirmed.body).toMatchObject({
        status: "succeeded",
        result: {
          keys: [{ key: "WebSocketURL", status: "RebootRequired", reboot_required: true }],
          reboot_required: true,
        },
      });

      // the password only through PUT …/credentials; one key per 1.6 request
      const password = await s.change({
        changes: [{ key: "AuthorizationKey", value: "0123456789abcdef0123" }],
        confirm_connection_change: true,
      });
      expect(password.status).toBe(422);
      expect(password.body.error.code).toBe("validation_failed");
      const two = await s.change({
        changes: [
          { key: "HeartbeatInterval", value: "1" },
          { key: "MeterValueSampleInterval", value: "1" },
        ],
      });
      expect(two.status).toBe(422);
      expect(s.received).toHaveLength(3);

      const changed = await s.events("station.configuration_changed");
      expect(changed.map((e) => e.changes)).toEqual([
        [
          {
            component: null,
            key: "HeartbeatInterval",
            status: "Accepted",
            reboot_required: false,
            value: "120",
            secret: false,
          },
        ],
        [
          {
            component: null,
            key: "AuthorizeRemoteTxRequests",
            status: "Accepted",
            reboot_required: false,
            value: "false",
            secret: false,
          },
        ],
        [
          {
            component: null,
            key: "WebSocketURL",
            status: "RebootRequired",
            reboot_required: true,
            value: "wss://example.test/ocpp",
            secret: false,
          },
        ],
      ]);
      const credentials = await s.events("station.credentials_changed");
      expect(credentials.at(-1)).toMatchObject({
        operation_id: confirmed.body.id,
        source: "configuration",
        keys: [{ component: null, key: "WebSocketURL" }],
      });
    } finally {
      await s.charger.close({ force: true });
    }
  });
});

describe("station configuration through the API (OCPP 2.0.1)", () => {
  it("GetVariables and SetVariables with the charger's per-key answers; a secret value never outlives the send", async () => {
    const s = await setup("ocpp2.0.1", {
      GetVariables: (p) => ({
        getVariableResult: p.getVariableData.map((d: any) =>
          d.variable.name === "Missing"
            ? { attributeStatus: "UnknownVariable", component: d.component, variable: d.variable }
            : {
                attributeStatus: "Accepted",
                attributeValue: "60",
                component: d.component,
                variable: d.variable,
              },
        ),
      }),
      SetVariables: (p) => ({
        setVariableResult: p.setVariableData.map((d: any) => ({
          attributeStatus:
            d.variable.name === "SecurityProfile"
              ? "RebootRequired"
              : d.variable.name === "Locked"
                ? "Rejected"
                : "Accepted",
          component: d.component,
          variable: d.variable,
        })),
      }),
    });
    try {
      const named = await s.read({
        keys: [
          { component: "OCPPCommCtrlr", key: "HeartbeatInterval" },
          { component: "OCPPCommCtrlr", key: "Missing" },
        ],
      });
      expect(s.received[0]).toEqual([
        "GetVariables",
        {
          getVariableData: [
            { component: { name: "OCPPCommCtrlr" }, variable: { name: "HeartbeatInterval" } },
            { component: { name: "OCPPCommCtrlr" }, variable: { name: "Missing" } },
          ],
        },
      ]);
      expect(named.body.result).toEqual({
        keys: [
          {
            component: "OCPPCommCtrlr",
            key: "HeartbeatInterval",
            value: "60",
            readonly: null,
            secret: false,
            status: "Accepted",
          },
        ],
        unknown_keys: [{ component: "OCPPCommCtrlr", key: "Missing" }],
      });
      const all = await s.read();
      expect(all.body.status).toBe("succeeded");
      expect(s.received[1]![1].getVariableData.length).toBeGreaterThan(10);
      const noComponent = await s.read({ keys: [{ key: "HeartbeatInterval" }] });
      expect(noComponent.status).toBe(422);

      // network variables and SecurityCtrlr are connection keys
      for (const ref of [
        { component: "OCPPCommCtrlr", key: "NetworkConfigurationPriority" },
        { component: "SecurityCtrlr", key: "OrganizationName" },
      ]) {
        const unconfirmed = await s.change({ changes: [{ ...ref, value: "1" }] });
        expect(unconfirmed.body.error.code).toBe("connection_change_unconfirmed");
      }
      const password = await s.change({
        changes: [
          { component: "SecurityCtrlr", key: "BasicAuthPassword", value: "a-new-password-0001" },
        ],
        confirm_connection_change: true,
      });
      expect(password.status).toBe(422);

      const res = await s.change({
        changes: [
          { component: "SecurityCtrlr", key: "SecurityProfile", value: "2" },
          { component: "OCPPCommCtrlr", key: "HeartbeatInterval", value: "90" },
          { component: "ModemCtrlr", key: "ApnPassword", value: "apn-secret-value" },
        ],
        confirm_connection_change: true,
      });
      expect(s.received.at(-1)).toEqual([
        "SetVariables",
        {
          setVariableData: [
            {
              attributeValue: "2",
              component: { name: "SecurityCtrlr" },
              variable: { name: "SecurityProfile" },
            },
            {
              attributeValue: "90",
              component: { name: "OCPPCommCtrlr" },
              variable: { name: "HeartbeatInterval" },
            },
            {
              attributeValue: "apn-secret-value",
              component: { name: "ModemCtrlr" },
              variable: { name: "ApnPassword" },
            },
          ],
        },
      ]);
      expect(res.body.status).toBe("succeeded");
      expect(res.body.result).toEqual({
        keys: [
          {
            component: "SecurityCtrlr",
            key: "SecurityProfile",
            status: "RebootRequired",
            reboot_required: true,
          },
          {
            component: "OCPPCommCtrlr",
            key: "HeartbeatInterval",
            status: "Accepted",
            reboot_required: false,
          },
          {
            component: "ModemCtrlr",
            key: "ApnPassword",
            status: "Accepted",
            reboot_required: false,
          },
        ],
        reboot_required: true,
      });
      expect(res.body.request.changes[2]).toEqual({
        component: "ModemCtrlr",
        key: "ApnPassword",
        value: null,
        secret: true,
      });
      const op = await db().operation.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(JSON.stringify(op)).not.toContain("apn-secret-value");
      const events = await db().event.findMany({ where: { tenantId: s.tenantId } });
      expect(JSON.stringify(events)).not.toContain("apn-secret-value");
      const [changed] = await s.events("station.configuration_changed");
      expect(changed.changes.map((c: any) => [c.key, c.value])).toEqual([
        ["SecurityProfile", "2"],
        ["HeartbeatInterval", "90"],
        ["ApnPassword", null],
      ]);
      const credentials = (await s.events("station.credentials_changed")).at(-1);
      expect(credentials.keys).toEqual([{ component: "SecurityCtrlr", key: "SecurityProfile" }]);

      // a key the charger refuses: the operation is rejected, with every key's answer
      const partly = await s.change({
        changes: [
          { component: "OCPPCommCtrlr", key: "Locked", value: "1" },
          { component: "OCPPCommCtrlr", key: "HeartbeatInterval", value: "30" },
        ],
      });
      expect(partly.body).toMatchObject({
        status: "rejected",
        result: {
          keys: [
            { key: "Locked", status: "Rejected" },
            { key: "HeartbeatInterval", status: "Accepted" },
          ],
          error: { code: "charger_rejected" },
        },
      });
      expect(
        (await s.events("station.configuration_changed")).at(-1).changes.map((c: any) => c.key),
      ).toEqual(["HeartbeatInterval"]);
    } finally {
      await s.charger.close({ force: true });
    }
  });
});

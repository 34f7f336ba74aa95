import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { RPCClient, RPCServer, createRPCError, createValidator } from "ocpp-rpc";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  PROTOCOLS,
  type Protocol,
  ocpp21Schemas,
  strictModeValidators,
  validatorFor,
  validators,
} from "./validators";

type Schema = { $id?: string };

const now = "2026-11-22T10:00:00.000Z";

/** A valid BootNotification request and response for each protocol version. */
const boot: Record<Protocol, { req: Record<string, unknown>; conf: Record<string, unknown> }> = {
  "ocpp1.6": {
    req: { chargePointVendor: "Acme", chargePointModel: "AC22", chargePointSerialNumber: "S-1" },
    conf: { status: "Accepted", currentTime: now, interval: 300 },
  },
  "ocpp2.0.1": {
    req: { reason: "PowerUp", chargingStation: { vendorName: "Acme", model: "AC22" } },
    conf: { status: "Accepted", currentTime: now, interval: 300 },
  },
  "ocpp2.1": {
    req: {
      reason: "PowerUp",
      chargingStation: {
        vendorName: "Acme",
        model: "DC150",
        serialNumber: "S-2",
        firmwareVersion: "2.1.0",
        modem: { iccid: "8944", imsi: "2620" },
      },
    },
    conf: { status: "Accepted", currentTime: now, interval: 300 },
  },
};

/** The OCPP error a failed validation raises (ocpp-rpc throws it; `rpcErrorCode` names it). */
function errorOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { rpcErrorCode?: string }).rpcErrorCode;
  }
  return undefined;
}

describe("OCPP 2.1 validator", () => {
  const v = validators["ocpp2.1"];

  it("validates a BootNotification request and response", () => {
    expect(v.subprotocol).toBe("ocpp2.1");
    expect(v.validate("urn:BootNotification.req", boot["ocpp2.1"].req)).toBe(true);
    expect(v.validate("urn:BootNotification.conf", boot["ocpp2.1"].conf)).toBe(true);
    // 2.1-only actions are there too
    expect(
      v.validate("urn:NotifyDERAlarm.conf", {}), // response of a 2.1 DER control message
    ).toBe(true);
  });

  it("maps schema failures to OCPP errors the way ocpp-rpc does, with 2.x spelling", () => {
    const req = boot["ocpp2.1"].req;
    const station = req.chargingStation as Record<string, unknown>;
    // required property missing
    expect(errorOf(() => v.validate("urn:BootNotification.req", { reason: "PowerUp" }))).toBe(
      "OccurrenceConstraintViolation",
    );
    // wrong JSON type
    expect(errorOf(() => v.validate("urn:BootNotification.req", { ...req, reason: 5 }))).toBe(
      "TypeConstraintViolation",
    );
    // property the schema does not allow
    expect(errorOf(() => v.validate("urn:BootNotification.req", { ...req, colour: "red" }))).toBe(
      "PropertyConstraintViolation",
    );
    // too long (model is at most 20 characters)
    expect(
      errorOf(() =>
        v.validate("urn:BootNotification.req", {
          ...req,
          chargingStation: { ...station, model: "M".repeat(21) },
        }),
      ),
    ).toBe("FormatViolation");
    // not one of the enumerated values: ocpp-rpc's default, FormatViolation
    expect(errorOf(() => v.validate("urn:BootNotification.req", { ...req, reason: "Bored" }))).toBe(
      "FormatViolation",
    );
    // response: bad date-time, missing interval
    expect(
      errorOf(() =>
        v.validate("urn:BootNotification.conf", { ...boot["ocpp2.1"].conf, currentTime: "soon" }),
      ),
    ).toBe("FormatViolation");
    expect(
      errorOf(() =>
        v.validate("urn:BootNotification.conf", { status: "Accepted", currentTime: now }),
      ),
    ).toBe("OccurrenceConstraintViolation");
  });

  it("answers NotImplemented for actions the protocol does not define, and never resolves fragments", () => {
    expect(errorOf(() => v.validate("urn:NoSuchAction.req", {}))).toBe("NotImplemented");
    expect(
      errorOf(() => v.validate("urn:BootNotification.req#/definitions/ModemType.req", {})),
    ).toBe("NotImplemented");
    expect(errorOf(() => v.validate("urn:NoSuchAction.conf", {}))).toBe("ProtocolError");
  });

  it("renames every official 2.1 schema: each action has a request and a response, and 2.1 covers 2.0.1", () => {
    const ids = ocpp21Schemas().map((s) => s.$id ?? "");
    const requests = ids.filter((id) => id.endsWith(".req")).map((id) => id.slice(4, -4));
    const responses = ids.filter((id) => id.endsWith(".conf")).map((id) => id.slice(4, -5));
    expect(ids.every((id) => /^urn:[A-Za-z0-9]+\.(req|conf)$/.test(id))).toBe(true);
    // NotifyPeriodicEventStream is a SEND message (no response)
    expect(requests.filter((a) => !responses.includes(a))).toEqual(["NotifyPeriodicEventStream"]);
    expect(responses.filter((a) => !requests.includes(a))).toEqual([]);
    const v201 = createRequire(import.meta.url)("ocpp-rpc/lib/schemas/ocpp2_0_1.json") as Schema[];
    const actions201 = v201.map((s) => s.$id ?? "").filter((id) => id.endsWith(".req"));
    expect(actions201.length).toBeGreaterThan(60);
    for (const id of actions201) expect(requests).toContain(id.slice(4, -4));
  });

  it("compiles every 2.1 schema quietly (no ajv warnings, no missing formats)", () => {
    const warn = vi.spyOn(console, "warn");
    const log = vi.spyOn(console, "log");
    const codes = new Set<string | undefined>();
    for (const { $id } of ocpp21Schemas()) codes.add(errorOf(() => v.validate($id!, {})));
    // {} is valid for some messages and misses required fields in others; nothing else happens
    expect([...codes].sort()).toEqual(["OccurrenceConstraintViolation", undefined]);
    expect(warn).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
    warn.mockRestore();
    log.mockRestore();
  });

  it("is needed: ocpp-rpc's own 2.1 validator fails every call", () => {
    const theirs = createValidator(
      "ocpp2.1",
      createRequire(import.meta.url)("ocpp-rpc/lib/schemas/ocpp2_1.json") as object[],
    );
    expect(errorOf(() => theirs.validate("urn:BootNotification.req", boot["ocpp2.1"].req))).toBe(
      "ProtocolError",
    );
  });
});

describe("validators for each protocol", () => {
  it("lists the protocols in the server's order of preference, each with a validator", () => {
    expect(PROTOCOLS).toEqual(["ocpp2.1", "ocpp2.0.1", "ocpp1.6"]);
    expect(strictModeValidators.map((v) => v.subprotocol)).toEqual([...PROTOCOLS]);
    expect(validatorFor("ocpp1.5")).toBeUndefined();
  });

  it.each(PROTOCOLS)("%s: BootNotification validates; a missing field does not", (protocol) => {
    const v = validatorFor(protocol)!;
    expect(v.validate("urn:BootNotification.req", boot[protocol].req)).toBe(true);
    expect(v.validate("urn:BootNotification.conf", boot[protocol].conf)).toBe(true);
    expect(errorOf(() => v.validate("urn:BootNotification.req", {}))).toBe(
      "OccurrenceConstraintViolation",
    );
    expect(errorOf(() => v.validate("urn:NoSuchAction.req", {}))).toBe("NotImplemented");
  });
});

describe("end to end: strict RPCServer and RPCClient over a loopback websocket", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function startServer(protocol: Protocol) {
    const server = new RPCServer({
      protocols: [...PROTOCOLS],
      strictMode: true,
      strictModeValidators,
      respondWithDetailedErrors: false,
    });
    const failures: unknown[] = [];
    server.on("client", (client: RPCClient) => {
      client.on("strictValidationFailure", (f: unknown) => failures.push(f));
      client.handle("BootNotification", () => Promise.resolve(boot[protocol].conf));
      // A reply that breaks the official schema: strict mode must refuse to send it.
      client.handle("Heartbeat", () => Promise.resolve({}));
      // Like the gateway: a wildcard handler, so unknown actions reach the validator.
      client.handle(() => Promise.resolve({}));
    });
    const http = await server.listen(0, "127.0.0.1");
    cleanups.push(() => server.close({ force: true }));
    const { port } = http.address() as AddressInfo;
    return { url: `ws://127.0.0.1:${port}`, failures };
  }

  async function connect(url: string, protocol: Protocol, strict = true) {
    const client = new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
      endpoint: url,
      identity: `CP-${protocol}`,
      protocols: [protocol],
      strictMode: strict,
      strictModeValidators,
      reconnect: false,
      callTimeoutMs: 5_000,
    });
    await client.connect();
    cleanups.push(() => client.close({ force: true }));
    return client;
  }

  async function rejection(promise: Promise<unknown>) {
    try {
      await promise;
    } catch (error) {
      return (error as { rpcErrorCode?: string }).rpcErrorCode;
    }
    throw new Error("expected the call to fail");
  }

  it.each(PROTOCOLS)(
    "%s: a strict charger boots; bad and unknown calls get OCPP errors; everything stays up",
    async (protocol) => {
      const { url, failures } = await startServer(protocol);
      const charger = await connect(url, protocol);
      expect(charger.protocol).toBe(protocol);
      // RPCClient in strict mode validates the server's answer against the official schema.
      expect(await charger.call("BootNotification", boot[protocol].req)).toEqual(
        boot[protocol].conf,
      );

      // A charger that does not validate its own messages (raw frames through ocpp-rpc).
      const sloppy = await connect(url, protocol, false);
      expect(await rejection(sloppy.call("BootNotification", {}))).toBe(
        "OccurrenceConstraintViolation",
      );
      expect(
        await rejection(sloppy.call("BootNotification", { ...boot[protocol].req, extra: 1 })),
      ).toBe("PropertyConstraintViolation");
      // ocpp-rpc sends FormatViolation as 1.6's FormationViolation on 1.6 connections
      const tooLong = "x".repeat(100);
      const badFormat =
        protocol === "ocpp1.6"
          ? { ...boot[protocol].req, chargePointModel: tooLong }
          : { ...boot[protocol].req, chargingStation: { vendorName: "Acme", model: tooLong } };
      expect(await rejection(sloppy.call("BootNotification", badFormat))).toBe(
        protocol === "ocpp1.6" ? "FormationViolation" : "FormatViolation",
      );
      expect(await rejection(sloppy.call("NoSuchAction", {}))).toBe("NotImplemented");
      // Our own reply breaking the schema is not sent; the charger gets InternalError.
      expect(await rejection(sloppy.call("Heartbeat", {}))).toBe("InternalError");
      expect(failures.length).toBeGreaterThanOrEqual(5);

      // Both connections and the server are still up: they answer, and a new charger connects.
      expect(await sloppy.call("BootNotification", boot[protocol].req)).toEqual(
        boot[protocol].conf,
      );
      expect(await charger.call("BootNotification", boot[protocol].req)).toEqual(
        boot[protocol].conf,
      );
      const another = await connect(url, protocol);
      expect(await another.call("BootNotification", boot[protocol].req)).toEqual(
        boot[protocol].conf,
      );
      // The strict client refuses to even send an unknown action.
      expect(await rejection(charger.call("NoSuchAction", {}))).toBe("NotImplemented");
    },
  );

  it("a strict charger rejects a server reply that breaks the 2.1 schema", async () => {
    const server = new RPCServer({ protocols: ["ocpp2.1"], strictMode: false });
    server.on("client", (client: RPCClient) => {
      client.handle("BootNotification", () =>
        Promise.resolve({ status: "Maybe", currentTime: now, interval: 300 }),
      );
      client.handle("Heartbeat", () => {
        throw createRPCError("SecurityError", "no") as Error;
      });
    });
    const http = await server.listen(0, "127.0.0.1");
    cleanups.push(() => server.close({ force: true }));
    const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const charger = await connect(url, "ocpp2.1");
    expect(await rejection(charger.call("BootNotification", boot["ocpp2.1"].req))).toBe(
      "FormatViolation",
    );
    expect(await rejection(charger.call("Heartbeat", {}))).toBe("SecurityError");
  });
});

import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import type { RPCClient } from "ocpp-rpc";
import { db } from "../server/db";
import { handleV1 } from "../server/http/routes";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey, anotherKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();
const PASSWORD = "device-jobs-pass-01";
type Protocol = "ocpp1.6" | "ocpp2.0.1";
type Answer = (params: any) => Record<string, unknown>;

/** A connected strict charger answering the gateway's calls as `answers` says, each call recorded. */
async function aCharger(
  t: { tenantId: number; key: string },
  protocol: Protocol,
  answers: Record<string, Answer>,
) {
  const station = await aStationWithPassword(t, PASSWORD);
  const received: [string, any][] = [];
  const charger: RPCClient = await aConnectedCharger(gw, station, PASSWORD, protocol, (c) => {
    for (const [action, answer] of Object.entries(answers))
      c.handle(action, ({ params }: { params?: any }) => {
        received.push([action, params]);
        return Promise.resolve(answer(params));
      });
  });
  const base = `/v1/tenants/${t.tenantId}/stations/${station.id}`;
  await waitUntil(async () => (await call("GET", base, { key: t.key })).body.online);
  return { station, charger, received, base };
}

async function setup(protocol: Protocol, answers: Record<string, Answer>) {
  const t = await aTenantWithKey();
  const c = await aCharger(t, protocol, answers);
  const jobs = async (kind: "firmware-updates" | "diagnostics") =>
    (await call("GET", `${c.base}/${kind}`, { key: t.key })).body.data as any[];
  const events = async (type: string) =>
    (
      await db().event.findMany({
        where: { tenantId: t.tenantId, type },
        orderBy: { sequence: "asc" },
      })
    ).map((e) => e.data as any);
  return { ...t, ...c, jobs, events };
}

/** Reads the file through the real /v1 router, as bytes (the API test client reads text). */
async function download(path: string, key: string) {
  const res = await handleV1(
    new Request(`http://localhost:3000${path}`, { headers: { authorization: `Bearer ${key}` } }),
  );
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const statuses = (job: any) => job.history.map((h: any) => h.status);

describe("firmware updates (OCPP 1.6)", () => {
  it("sends UpdateFirmware as the schema has it and follows every status to Installed, then a failure", async () => {
    const s = await setup("ocpp1.6", { UpdateFirmware: () => ({}) });
    const control = await anotherKey(s.tenantId, ["stations:read", "stations:control"]);
    const body = {
      location: "https://firmware.example.com/v2.3.bin",
      retrieve_at: "2026-11-26T16:00:00.000Z",
      retries: 3,
      retry_interval_seconds: 60,
    };
    const path = `${s.base}/firmware-updates`;
    // firmware needs stations:admin
    const denied = await call("POST", path, { key: control, body, idempotencyKey: idem() });
    expect(denied.status).toBe(403);
    // not https: 422, nothing sent
    const plain = await call("POST", path, {
      key: s.key,
      body: { ...body, location: "http://firmware.example.com/x.bin" },
      idempotencyKey: idem(),
    });
    expect(plain.status).toBe(422);
    // signed firmware is 2.x only
    const signed = await call("POST", path, {
      key: s.key,
      body: { ...body, signature: "c2ln" },
      idempotencyKey: idem(),
    });
    expect(signed.status).toBe(422);
    expect(s.received).toEqual([]);

    const res = await call("POST", path, { key: s.key, body, idempotencyKey: idem() });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe("succeeded");
    expect(s.received).toEqual([
      [
        "UpdateFirmware",
        {
          location: body.location,
          retrieveDate: body.retrieve_at,
          retries: 3,
          retryInterval: 60,
        },
      ],
    ]);
    const jobId = res.body.request.device_job_id;
    let [job] = await s.jobs("firmware-updates");
    expect(job.id).toBe(jobId);
    expect(job.state).toBe("scheduled");

    const sent: string[] = [];
    for (const status of ["Downloading", "Downloaded", "Installing"]) {
      await s.charger.call("FirmwareStatusNotification", { status });
      sent.push(status);
      [job] = await s.jobs("firmware-updates");
      expect(job.state).toBe("in_progress");
      expect(job.last_status).toBe(status);
    }
    await s.charger.call("FirmwareStatusNotification", { status: "Installed" });
    [job] = await s.jobs("firmware-updates");
    expect(job.state).toBe("installed");
    expect(statuses(job)).toEqual(["Accepted", ...sent, "Installed"]);
    // a later Idle is history, the job stays installed
    await s.charger.call("FirmwareStatusNotification", { status: "Idle" });
    [job] = await s.jobs("firmware-updates");
    expect(job.state).toBe("installed");
    expect(statuses(job).at(-1)).toBe("Idle");

    // the next update fails while downloading
    const again = await call("POST", path, { key: s.key, body, idempotencyKey: idem() });
    expect(again.body.status).toBe("succeeded");
    await s.charger.call("FirmwareStatusNotification", { status: "Downloading" });
    await s.charger.call("FirmwareStatusNotification", { status: "DownloadFailed" });
    const [failed, installed] = await s.jobs("firmware-updates");
    expect(failed.id).toBe(again.body.request.device_job_id);
    expect(failed.state).toBe("failed");
    expect(statuses(failed)).toEqual(["Accepted", "Downloading", "DownloadFailed"]);
    expect(installed.state).toBe("installed");

    const events = await s.events("station.firmware_status_changed");
    expect(events.map((e) => [e.job_id, e.status, e.state])).toEqual([
      [jobId, "Downloading", "in_progress"],
      [jobId, "Downloaded", "in_progress"],
      [jobId, "Installing", "in_progress"],
      [jobId, "Installed", "installed"],
      [jobId, "Idle", "installed"],
      [failed.id, "Downloading", "in_progress"],
      [failed.id, "DownloadFailed", "failed"],
    ]);
  });
});

describe("firmware updates (OCPP 2.0.1)", () => {
  it("passes the signed-firmware fields through and follows statuses by requestId, to Installed and to InvalidSignature", async () => {
    let answer = "Accepted";
    const s = await setup("ocpp2.0.1", { UpdateFirmware: () => ({ status: answer }) });
    const body = {
      location: "https://firmware.example.com/v3.bin",
      retrieve_at: "2026-11-26T16:00:00.000Z",
      install_at: "2026-11-26T17:00:00.000Z",
      retries: 2,
      retry_interval_seconds: 30,
      signing_certificate: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
      signature: "c2lnbmF0dXJl",
    };
    const path = `${s.base}/firmware-updates`;
    const res = await call("POST", path, { key: s.key, body, idempotencyKey: idem() });
    expect(res.body.status).toBe("succeeded");
    const requestId = res.body.request.request_id;
    expect(s.received).toEqual([
      [
        "UpdateFirmware",
        {
          requestId,
          retries: 2,
          retryInterval: 30,
          firmware: {
            location: body.location,
            retrieveDateTime: body.retrieve_at,
            installDateTime: body.install_at,
            signingCertificate: body.signing_certificate,
            signature: body.signature,
          },
        },
      ],
    ]);
    const second = await call("POST", path, { key: s.key, body, idempotencyKey: idem() });
    const secondRequestId = second.body.request.request_id;
    const all = [
      "DownloadScheduled",
      "Downloading",
      "Downloaded",
      "SignatureVerified",
      "InstallScheduled",
      "InstallRebooting",
      "Installing",
      "Installed",
    ];
    // the first job's statuses, named by its requestId, while a newer job exists
    for (const status of all)
      await s.charger.call("FirmwareStatusNotification", { status, requestId });
    await s.charger.call("FirmwareStatusNotification", {
      status: "InvalidSignature",
      requestId: secondRequestId,
    });
    const [newer, older] = await s.jobs("firmware-updates");
    expect(older.state).toBe("installed");
    expect(statuses(older)).toEqual(["Accepted", ...all]);
    expect(newer.state).toBe("failed");
    expect(statuses(newer)).toEqual(["Accepted", "InvalidSignature"]);

    // a charger's refusal makes the job rejected
    answer = "InvalidCertificate";
    const refused = await call("POST", path, { key: s.key, body, idempotencyKey: idem() });
    expect(refused.body.status).toBe("rejected");
    const [rejected] = await s.jobs("firmware-updates");
    expect(rejected.state).toBe("rejected");
    expect(statuses(rejected)).toEqual(["InvalidCertificate"]);
  });
});

describe("diagnostics", () => {
  it("OCPP 1.6: GetDiagnostics to a URL of the service's, the charger PUTs the file, the API gives it back byte for byte", async () => {
    const s = await setup("ocpp1.6", { GetDiagnostics: () => ({ fileName: "diag-1.zip" }) });
    const res = await call("POST", `${s.base}/diagnostics`, {
      key: s.key,
      body: { oldest_at: "2026-11-25T00:00:00.000Z", retries: 1 },
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe("succeeded");
    expect(res.body.result.file_name).toBe("diag-1.zip");
    expect(s.received).toHaveLength(1);
    const [action, payload] = s.received[0]!;
    expect(action).toBe("GetDiagnostics");
    expect(Object.keys(payload).sort()).toEqual(["location", "retries", "startTime"]);
    expect(payload.startTime).toBe("2026-11-25T00:00:00.000Z");
    const location: string = payload.location;
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/uploads\/[A-Za-z0-9]{32}$/);
    // the token is never shown
    expect(JSON.stringify(res.body)).not.toContain(location.split("/").at(-1));
    const jobId = res.body.request.device_job_id;
    const file = `${jobId}/file`;
    expect((await download(`${s.base}/diagnostics/${file}`, s.key)).status).toBe(404);

    await s.charger.call("DiagnosticsStatusNotification", { status: "Uploading" });
    const bytes = crypto.randomBytes(300_000);
    // a wrong token is refused
    const wrong = await fetch(location.replace(/[A-Za-z0-9]{32}$/, "x".repeat(32)), {
      method: "PUT",
      body: bytes,
    });
    expect(wrong.status).toBe(404);
    const put = await fetch(`${location}/diag-1.zip`, { method: "PUT", body: bytes });
    expect(put.status).toBe(201);
    await s.charger.call("DiagnosticsStatusNotification", { status: "Uploaded" });

    const [job] = await s.jobs("diagnostics");
    expect(job.id).toBe(jobId);
    expect(job.state).toBe("uploaded");
    expect(statuses(job)).toEqual(["Accepted", "Uploading", "FileReceived", "Uploaded"]);
    expect(job.file).toMatchObject({
      name: "diag-1.zip",
      size: bytes.length,
      sha256: crypto.createHash("sha256").update(bytes).digest("hex"),
    });
    const got = await download(`${s.base}/diagnostics/${file}`, s.key);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-disposition")).toBe('attachment; filename="diag-1.zip"');
    expect(got.bytes.equals(bytes)).toBe(true);
    // another tenant cannot read it
    const other = await aTenantWithKey();
    expect((await download(`${s.base}/diagnostics/${file}`, other.key)).status).toBe(404);
    expect((await s.events("station.diagnostics_uploaded")).map((e) => e.size)).toEqual([
      bytes.length,
    ]);
  });

  it("OCPP 2.0.1: GetLog with remoteLocation and requestId, a multipart POST upload, LogStatusNotification followed", async () => {
    const s = await setup("ocpp2.0.1", {
      GetLog: () => ({ status: "Accepted", filename: "security.log" }),
    });
    const res = await call("POST", `${s.base}/diagnostics`, {
      key: s.key,
      body: { log_type: "SecurityLog", latest_at: "2026-11-26T00:00:00.000Z" },
      idempotencyKey: idem(),
    });
    expect(res.body.status).toBe("succeeded");
    const requestId = res.body.request.request_id;
    const [action, payload] = s.received[0]!;
    expect(action).toBe("GetLog");
    expect(payload).toEqual({
      logType: "SecurityLog",
      requestId,
      log: { remoteLocation: expect.any(String), latestTimestamp: "2026-11-26T00:00:00.000Z" },
    });
    await s.charger.call("LogStatusNotification", { status: "Uploading", requestId });
    const bytes = crypto.randomBytes(70_000);
    const form = new FormData();
    form.append("note", "not the file");
    form.append("file", new Blob([bytes]), "security.log");
    const post = await fetch(payload.log.remoteLocation, { method: "POST", body: form });
    expect(post.status).toBe(201);
    await s.charger.call("LogStatusNotification", { status: "Uploaded", requestId });
    const [job] = await s.jobs("diagnostics");
    expect(job.state).toBe("uploaded");
    expect(statuses(job)).toEqual(["Accepted", "Uploading", "FileReceived", "Uploaded"]);
    const got = await download(`${s.base}/diagnostics/${job.id}/file`, s.key);
    expect(got.bytes.equals(bytes)).toBe(true);

    // a failed upload
    const again = await call("POST", `${s.base}/diagnostics`, {
      key: s.key,
      body: {},
      idempotencyKey: idem(),
    });
    await s.charger.call("LogStatusNotification", {
      status: "UploadFailure",
      requestId: again.body.request.request_id,
    });
    const [failed] = await s.jobs("diagnostics");
    expect(failed.state).toBe("failed");
    expect(failed.file).toBeNull();
  });
});

describe("batches", () => {
  it("a firmware update for several stations at once, with its progress", async () => {
    const t = await aTenantWithKey();
    const chargers: Awaited<ReturnType<typeof aCharger>>[] = [];
    for (const protocol of ["ocpp1.6", "ocpp2.0.1", "ocpp1.6"] as const)
      chargers.push(
        await aCharger(t, protocol, {
          UpdateFirmware: () => (protocol === "ocpp1.6" ? {} : { status: "Accepted" }),
        }),
      );
    const control = await anotherKey(t.tenantId, ["stations:read", "stations:control"]);
    const body = {
      kind: "firmware",
      stations: { station_ids: chargers.map((c) => c.station.id) },
      firmware: { location: "https://firmware.example.com/fleet.bin", retries: 1 },
    };
    const path = `/v1/tenants/${t.tenantId}/device-batches`;
    expect((await call("POST", path, { key: control, body, idempotencyKey: idem() })).status).toBe(
      403,
    );
    const res = await call("POST", path, { key: t.key, body, idempotencyKey: idem() });
    expect(res.status).toBe(202);
    expect(res.body.total).toBe(3);
    expect(res.body.skipped).toEqual([]);
    const batch = `${path}/${res.body.id}`;
    await waitUntil(() => chargers.every((c) => c.received.length === 1));
    for (const c of chargers) expect(c.received[0]![0]).toBe("UpdateFirmware");
    const requestOf = (c: (typeof chargers)[number]) => c.received[0]![1].requestId as number;
    await chargers[0]!.charger.call("FirmwareStatusNotification", { status: "Installed" });
    await chargers[1]!.charger.call("FirmwareStatusNotification", {
      status: "Downloading",
      requestId: requestOf(chargers[1]!),
    });
    await chargers[2]!.charger.call("FirmwareStatusNotification", {
      status: "InstallationFailed",
    });
    const progress = await call("GET", batch, { key: t.key });
    expect(progress.status).toBe(200);
    expect(progress.body.total).toBe(3);
    expect(progress.body.done).toBe(2);
    expect(progress.body.by_state).toMatchObject({ installed: 1, in_progress: 1, failed: 1 });
    expect(progress.body.jobs.map((j: any) => [j.station_id, j.station_name, j.state])).toEqual([
      [chargers[0]!.station.id, chargers[0]!.station.name, "installed"],
      [chargers[1]!.station.id, chargers[1]!.station.name, "in_progress"],
      [chargers[2]!.station.id, chargers[2]!.station.name, "failed"],
    ]);
    // the list of batches counts it as its progress does, without the jobs
    const listed = await call("GET", path, { key: control });
    expect(listed.status).toBe(200);
    const { jobs: _jobs, ...counted } = progress.body;
    expect(listed.body.data).toEqual([{ ...counted, created_at: expect.any(String) }]);
    // a stranger's station is a 404, nothing created
    const other = await aTenantWithKey();
    const foreign = await call("POST", `/v1/tenants/${other.tenantId}/device-batches`, {
      key: other.key,
      body,
      idempotencyKey: idem(),
    });
    expect(foreign.status).toBe(404);
  });
});

describe("the list of batches", () => {
  it("newest first, a page at a time, of one kind when asked, the tenant's own only", async () => {
    const t = await aTenantWithKey();
    // offline stations: each job is rejected at once, nothing sent
    const stations = [
      await aStationWithPassword(t, PASSWORD),
      await aStationWithPassword(t, PASSWORD),
    ];
    const path = `/v1/tenants/${t.tenantId}/device-batches`;
    const batch = async (kind: "firmware" | "diagnostics", ids: number[]) => {
      const res = await call("POST", path, {
        key: t.key,
        idempotencyKey: idem(),
        body:
          kind === "firmware"
            ? {
                kind,
                stations: { station_ids: ids },
                firmware: { location: "https://firmware.example.com/a.bin" },
              }
            : { kind, stations: { station_ids: ids }, diagnostics: {} },
      });
      expect(res.status).toBe(202);
      return res.body.id as string;
    };
    const ids = stations.map((s) => s.id);
    const first = await batch("firmware", ids);
    await new Promise((r) => setTimeout(r, 5)); // ids start with their millisecond
    const second = await batch("diagnostics", [ids[0]!]);
    await new Promise((r) => setTimeout(r, 5));
    const third = await batch("firmware", [ids[1]!]);

    const all = await call("GET", path, { key: t.key });
    expect(all.status).toBe(200);
    expect(all.body.data.map((b: any) => b.id)).toEqual([third, second, first]);
    expect(all.body.has_more).toBe(false);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.data[2]).toMatchObject({
      id: first,
      kind: "firmware",
      total: 2,
      done: 2,
      by_state: { rejected: 2, scheduled: 0 },
    });
    expect(Date.parse(all.body.data[2].created_at)).toBeGreaterThan(Date.now() - 60_000);

    // a page at a time: the cursor is the last batch's id
    const one = await call("GET", `${path}?limit=1`, { key: t.key });
    expect(one.body).toMatchObject({ next_cursor: third, has_more: true });
    const next = await call("GET", `${path}?limit=1&after=${one.body.next_cursor}`, {
      key: t.key,
    });
    expect(next.body.data.map((b: any) => b.id)).toEqual([second]);
    const last = await call("GET", `${path}?limit=2&after=${second}`, { key: t.key });
    expect(last.body).toMatchObject({ next_cursor: null, has_more: false });
    expect(last.body.data.map((b: any) => b.id)).toEqual([first]);

    const firmware = await call("GET", `${path}?kind=firmware`, { key: t.key });
    expect(firmware.body.data.map((b: any) => b.id)).toEqual([third, first]);

    const bad = await call("GET", `${path}?after=op_123`, { key: t.key });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.fields[0].field).toBe("after");
    const other = await aTenantWithKey();
    const theirs = await call("GET", `/v1/tenants/${other.tenantId}/device-batches`, {
      key: other.key,
    });
    expect(theirs.body.data).toEqual([]);
    expect((await call("GET", path, { key: other.key })).status).toBe(404);
  });
});

describe("edges", () => {
  it("an offline station's job is rejected at once and nothing is sent", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    const base = `/v1/tenants/${t.tenantId}/stations/${station.id}`;
    const res = await call("POST", `${base}/diagnostics`, {
      key: t.key,
      body: {},
      idempotencyKey: idem(),
    });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe("rejected");
    expect(res.body.result.error.code).toBe("station_offline");
    const [job] = (await call("GET", `${base}/diagnostics`, { key: t.key })).body.data;
    expect(job.state).toBe("rejected");
    expect(statuses(job)).toEqual(["Rejected"]);
    // the upload URL was sealed with the operation and dropped when it was final
    const op = await db().operation.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(op.secret).toBeNull();
  });

  it("a 1.6 status goes to the station's open job, not a newer rejected one; an upload over the limit is refused without storing", async () => {
    let refuse = false;
    const s = await setup("ocpp1.6", {
      GetDiagnostics: () => {
        if (refuse) throw new Error("busy");
        return { fileName: "big.bin" };
      },
    });
    const first = await call("POST", `${s.base}/diagnostics`, {
      key: s.key,
      body: {},
      idempotencyKey: idem(),
    });
    expect(first.body.status).toBe("succeeded");
    const location: string = s.received[0]![1].location;
    // a newer request the charger refuses (CALLERROR) does not take the first one's statuses
    refuse = true;
    const second = await call("POST", `${s.base}/diagnostics`, {
      key: s.key,
      body: {},
      idempotencyKey: idem(),
    });
    expect(second.body.status).toBe("rejected");
    await s.charger.call("DiagnosticsStatusNotification", { status: "Uploading" });
    const [newer, older] = await s.jobs("diagnostics");
    expect(newer.id).toBe(second.body.request.device_job_id);
    expect(newer.state).toBe("rejected");
    expect(newer.last_status).toBeNull();
    expect(older.id).toBe(first.body.request.device_job_id);
    expect(older.state).toBe("in_progress");
    expect(older.last_status).toBe("Uploading");

    const tooBig = Buffer.alloc(20 * 1024 * 1024 + 70 * 1024, 1);
    const refused = await fetch(location, { method: "PUT", body: tooBig }).catch(() => null);
    // the gateway answers 413 and stops reading (the client may see the socket closed instead)
    if (refused) expect(refused.status).toBe(413);
    const stored = await db().deviceJob.findUniqueOrThrow({ where: { id: older.id } });
    expect(stored.file).toBeNull();
    expect(stored.fileSize).toBeNull();
  });
});

import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import type { RPCClient } from "ocpp-rpc";
import { aCharger } from "../testing/ocpp";
import { aStation, anOwner } from "./fixtures/owner";
import { anEmail, base, shot, signUp } from "./fixtures/people";
import { loopback } from "./fixtures/product";

/**
 * Issue 24, item 5, in the console: each EVSE's screen (QR preview, delivery state, set, confirmed
 * clear), the Configuration tab (read, change, protected and connection keys guarded) and the
 * EVSE- and station-level commands (confirmed first, disabled while offline), against a real
 * strict ocpp-rpc OCPP 2.0.1 charger with one EVSE. Every check of what was sent is made on the
 * frames the charger itself received.
 */

type Frame = { method: string; params: Record<string, unknown> };

/** The values the charger reports for GetVariables (component.variable → value). */
const VALUES: Record<string, string> = {
  "OCPPCommCtrlr.HeartbeatInterval": "300",
  "OCPPCommCtrlr.OfflineThreshold": "600",
  "SecurityCtrlr.SecurityProfile": "1",
  "SecurityCtrlr.OrganizationName": "Depot Org",
};

/** What every test shares: the owner's page, the station, and the charger with its frames. */
let owner: BrowserContext;
let page: Page;
let tenantId: number;
let stationPath: string;
let stationId: number;
let charger: RPCClient;
const received: Frame[] = [];
const others: BrowserContext[] = [];

/** The frames of one action the charger received, in order, as their payloads. */
const sent = (method: string) => received.filter((f) => f.method === method).map((f) => f.params);

/** A moment for anything a click wrongly sent to reach the charger, before checking it did not. */
const settle = (p: Page) => p.waitForTimeout(1_500);

/** A second person with `role` in the owner's team, signed in on a page of their own. */
async function aMember(browser: Browser, role: "viewer" | "developer"): Promise<Page> {
  await page.goto(`${base()}/console/t/${tenantId}/stations`);
  await page.getByRole("link", { name: "Members and invites" }).click();
  const email = anEmail(role);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption(role);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByTestId("pending-invite-row").filter({ hasText: email })).toBeVisible();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  others.push(context);
  const member = await context.newPage();
  await signUp(member, `E2E ${role}`, email);
  await member.getByRole("button", { name: "Accept" }).click();
  await member.waitForURL(new RegExp(`/console/t/${tenantId}/(overview|stations)`));
  return member;
}

test.describe.serial("a station's screens, configuration and commands in the console", () => {
  test.beforeAll(async ({ browser }, testInfo) => {
    testInfo.setTimeout(120_000);
    owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await owner.newPage();
    const signedUp = await anOwner(page, "Sam Screens", "screens");
    tenantId = signedUp.tenantId;
    const station = await aStation(signedUp.v1, "E2E-I24");
    stationId = station.id;
    stationPath = `/console/t/${tenantId}/stations/${stationId}`;
    const password = "e2e-i24-console-password";
    await signedUp.v1("PUT", `/stations/${stationId}/credentials`, { password });
    const read = (await signedUp.v1("GET", `/stations/${stationId}`)) as unknown as {
      name: string;
      connection_url: string;
    };

    // A real OCPP 2.0.1 charger in strict mode, one EVSE with one connector, that accepts what a
    // CSMS may ask of it and keeps every frame it received.
    charger = aCharger({
      url: loopback(read.connection_url.replace(`/${read.name}`, "")),
      identity: read.name,
      password,
      protocol: "ocpp2.0.1",
    });
    const answer = (method: string, reply: (params: any) => Record<string, unknown>) =>
      charger.handle(method, ({ params = {} }) => {
        received.push({ method, params });
        return Promise.resolve(reply(params));
      });
    answer("SetDisplayMessage", () => ({ status: "Accepted" }));
    answer("ClearDisplayMessage", () => ({ status: "Accepted" }));
    answer("GetVariables", (p: { getVariableData: any[] }) => ({
      getVariableResult: p.getVariableData.map((d) => {
        const value = VALUES[`${d.component.name}.${d.variable.name}`];
        return {
          attributeStatus: value === undefined ? "UnknownVariable" : "Accepted",
          ...(value === undefined ? {} : { attributeValue: value }),
          component: { name: d.component.name },
          variable: { name: d.variable.name },
        };
      }),
    }));
    answer("SetVariables", (p: { setVariableData: any[] }) => ({
      setVariableResult: p.setVariableData.map((d) => ({
        // An ordinary key takes effect after a reboot; a connection key at once.
        attributeStatus: d.component.name === "SecurityCtrlr" ? "Accepted" : "RebootRequired",
        component: { name: d.component.name },
        variable: { name: d.variable.name },
      })),
    }));
    answer("Reset", () => ({ status: "Accepted" }));
    answer("ChangeAvailability", () => ({ status: "Accepted" }));
    // Anything else is recorded too (and refused), so no unexpected frame goes unseen.
    charger.handle(({ method = "?", params = {} }) => {
      received.push({ method, params });
      return Promise.reject(new Error(`unexpected ${method}`));
    });
    await charger.connect();
    await charger.call("BootNotification", {
      reason: "PowerUp",
      chargingStation: { vendorName: "E2E", model: "Screen" },
    });
    await charger.call("StatusNotification", {
      timestamp: new Date().toISOString(),
      connectorStatus: "Available",
      evseId: 1,
      connectorId: 1,
    });
  });

  test.afterAll(async () => {
    await charger?.close({ force: true });
    for (const context of others) await context.close();
    await owner?.close();
  });

  test("Screens: the owner sets an EVSE's QR, the preview loads, the charger's acknowledgement makes it applied, and a clear is sent only once confirmed; a viewer gets no controls", async ({
    browser,
  }) => {
    test.setTimeout(150_000);
    await page.goto(`${base()}${stationPath}`);
    await expect(page.getByTestId("station-connection")).toHaveText("online");
    await expect(page.getByTestId("display-adapter")).toHaveText("Driven by ocpp2.0.1_uri.");

    // Set: the QR's PNG (the route a 2.0.1 screen loads) answers 200 image/png and is drawn.
    const qrUrl = `https://pay.example.com/start/${Date.now().toString(36)}`;
    const png = page.waitForResponse((r) =>
      /\/v1\/display-images\/[0-9a-f]{64}\.png$/.test(r.url()),
    );
    await page.getByLabel("QR link (https)").fill(qrUrl);
    await page.getByRole("button", { name: "Set", exact: true }).click();
    const image = page.getByTestId("display-qr-1");
    await expect(image).toHaveAttribute("alt", `QR code for ${qrUrl}`);
    const pngAnswer = await png;
    expect(pngAnswer.status()).toBe(200);
    expect(pngAnswer.headers()["content-type"]).toBe("image/png");
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    const imageUrl = await image.getAttribute("src");
    expect(pngAnswer.url()).toBe(imageUrl);

    // The charger acknowledged the push: applied and on screen. It received exactly one message,
    // for EVSE 1, pointing its 2.0.1 screen at that PNG.
    await expect(page.getByTestId("display-state-1")).toHaveText("applied", { timeout: 15_000 });
    await expect(page.getByText("on screen", { exact: true })).toBeVisible();
    await shot(page, "station-screens");
    expect(sent("SetDisplayMessage")).toEqual([
      {
        message: { id: 1, priority: "AlwaysFront", message: { format: "URI", content: imageUrl } },
      },
    ]);

    // A viewer sees the screen, its state and why they cannot change it, but no controls.
    const viewer = await aMember(browser, "viewer");
    await viewer.goto(`${base()}${stationPath}`);
    await expect(viewer.getByTestId("display-state-1")).toHaveText("applied");
    await expect(viewer.getByTestId("display-qr-1")).toBeVisible();
    await expect(
      viewer.getByText("Your role (viewer) does not grant stations:write."),
    ).toBeVisible();
    await expect(viewer.getByLabel("QR link (https)")).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: "Set", exact: true })).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: "Clear", exact: true })).toHaveCount(0);
    // (Inviting took the owner's page to the team's members.)
    await page.goto(`${base()}${stationPath}`);

    // Clear asks first; Cancel sends nothing and keeps the screen.
    await page.getByRole("button", { name: "Clear", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Clear EVSE 1's screen?" });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await settle(page);
    expect(sent("ClearDisplayMessage")).toEqual([]);
    await expect(page.getByTestId("display-qr-1")).toBeVisible();

    // Confirmed: the charger is told to clear EVSE 1's message, once.
    await page.getByRole("button", { name: "Clear", exact: true }).click();
    await dialog.getByRole("button", { name: "Clear" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText("No QR set.")).toBeVisible();
    await expect.poll(() => sent("ClearDisplayMessage")).toEqual([{ id: 1 }]);
    await settle(page);
    expect(sent("ClearDisplayMessage")).toEqual([{ id: 1 }]);
    expect(sent("SetDisplayMessage")).toHaveLength(1);
  });

  test("Configuration tab: a read shows the charger's values, a change shows its per-key answer, a connection key needs the ticked confirmation, and a developer cannot change protected keys", async ({
    browser,
  }) => {
    test.setTimeout(150_000);
    await page.goto(`${base()}${stationPath}`);
    await page.getByTestId("station-tab-configuration").click();
    await page.waitForURL(new RegExp(`${stationPath}/configuration$`));
    await expect(page.getByTestId("configuration-read-at")).toHaveText("Never read");

    // Read: GetVariables of the standard variables; the table shows what the charger answered.
    await page.getByRole("button", { name: "Read from the charger" }).click();
    await expect(page.getByTestId("configuration-status")).toHaveText("succeeded");
    const asked = sent("GetVariables");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.getVariableData).toEqual(
      expect.arrayContaining([
        { component: { name: "OCPPCommCtrlr" }, variable: { name: "HeartbeatInterval" } },
        { component: { name: "SecurityCtrlr" }, variable: { name: "SecurityProfile" } },
      ]),
    );
    await expect(page.getByTestId("configuration-read-at")).toContainText("Read ");
    const rows = page.getByTestId("configuration-row");
    await expect(rows).toHaveCount(Object.keys(VALUES).length);
    const row = (key: string) => rows.filter({ hasText: key });
    await expect(row("HeartbeatInterval")).toContainText("OCPPCommCtrlr");
    await expect(row("HeartbeatInterval")).toContainText("300");
    await expect(row("OfflineThreshold")).toContainText("600");
    await expect(row("SecurityProfile")).toContainText("connection");
    await expect(row("OrganizationName")).toContainText("Depot Org");
    await shot(page, "station-configuration");

    // An ordinary key, picked from the table: SetVariables at once, the answer per key shown.
    await row("HeartbeatInterval").getByRole("button", { name: "Edit" }).click();
    await expect(page.getByLabel("Component", { exact: true })).toHaveValue("OCPPCommCtrlr");
    await expect(page.getByLabel("Variable", { exact: true })).toHaveValue("HeartbeatInterval");
    await page.getByLabel("Value", { exact: true }).fill("120");
    await page.getByRole("button", { name: "Change", exact: true }).click();
    await expect(page.getByTestId("configuration-answers")).toHaveText(
      "HeartbeatInterval: RebootRequired (takes effect after a reboot)",
    );
    await expect(page.getByTestId("configuration-status")).toHaveText("succeeded");
    expect(sent("SetVariables")).toEqual([
      {
        setVariableData: [
          {
            attributeValue: "120",
            component: { name: "OCPPCommCtrlr" },
            variable: { name: "HeartbeatInterval" },
          },
        ],
      },
    ]);

    // A connection key: the form asks first, and its confirm waits for the box to be ticked.
    await row("OrganizationName").getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Value", { exact: true }).fill("Depot Org East");
    await page.getByRole("button", { name: "Change connection key…" }).click();
    const dialog = page.getByRole("dialog", { name: "Change how the charger connects?" });
    await expect(dialog).toContainText("OrganizationName");
    await expect(dialog.getByRole("button", { name: "Change it" })).toBeDisabled();
    await shot(page, "station-configuration-connection-key");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await settle(page);
    expect(sent("SetVariables")).toHaveLength(1);

    await page.getByRole("button", { name: "Change connection key…" }).click();
    await expect(dialog.getByTestId("confirm-connection-change")).not.toBeChecked();
    await dialog.getByTestId("confirm-connection-change").check();
    await dialog.getByRole("button", { name: "Change it" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("configuration-answers")).toHaveText(
      "OrganizationName: Accepted",
    );
    expect(sent("SetVariables")).toEqual([
      expect.anything(),
      {
        setVariableData: [
          {
            attributeValue: "Depot Org East",
            component: { name: "SecurityCtrlr" },
            variable: { name: "OrganizationName" },
          },
        ],
      },
    ]);

    // A developer (stations:write and stations:control, not stations:admin) may change an
    // ordinary key but not a protected one: the button says why, and the API refuses too.
    const developer = await aMember(browser, "developer");
    await developer.goto(`${base()}${stationPath}/configuration`);
    await expect(developer.getByTestId("configuration-row")).toHaveCount(
      Object.keys(VALUES).length,
    );
    const change = developer.getByRole("button", { name: /^Change/ });
    for (const [component, variable] of [
      ["AuthCtrlr", "Enabled"],
      ["SecurityCtrlr", "OrganizationName"],
    ] as const) {
      await developer.getByLabel("Component", { exact: true }).fill(component);
      await developer.getByLabel("Variable", { exact: true }).fill(variable);
      await developer.getByLabel("Value", { exact: true }).fill("false");
      await expect(change).toBeDisabled();
      await expect(developer.getByTestId("configuration-guard")).toHaveText(
        "Your role (developer) does not grant stations:admin.",
      );
    }
    await developer.getByLabel("Component", { exact: true }).fill("OCPPCommCtrlr");
    await developer.getByLabel("Variable", { exact: true }).fill("OfflineThreshold");
    await expect(change).toBeEnabled();
    await expect(developer.getByTestId("configuration-guard")).toHaveCount(0);
    // Past the page, with the developer's session: the console's procedure refuses as /v1 does.
    const refused = await developer.evaluate(
      async (input) => {
        const res = await fetch("/api/trpc/v1.changeStationConfiguration", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(input),
        });
        return { status: res.status, body: await res.text() };
      },
      {
        params: { tenant_id: tenantId, station_id: stationId },
        body: { changes: [{ component: "AuthCtrlr", key: "Enabled", value: "false" }] },
        idempotencyKey: `developer-protected-${Date.now()}`,
      },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toContain("stations_admin_required");
    await settle(page);
    expect(sent("SetVariables")).toHaveLength(2);
  });

  test("Commands: EVSE and station reset and availability are confirmed first and sent as OCPP 2.0.1 specifies; offline, the buttons are disabled with the reason", async () => {
    test.setTimeout(120_000);
    await page.goto(`${base()}${stationPath}`);
    await expect(page.getByTestId("station-connection")).toHaveText("online");
    const commands = page.getByTestId("commands");
    const dialog = page.getByRole("dialog", { name: "Confirm command" });
    const target = commands.getByTestId("command-target");
    const status = commands.getByTestId("operation-status");
    const result = commands.getByTestId("operation-result");

    /** Opens the command's confirmation, checks what it says, and cancels: nothing is sent. */
    const cancelled = async (button: string, words: string, method: string) => {
      const before = sent(method).length;
      await commands.getByRole("button", { name: button, exact: true }).click();
      await expect(dialog.getByTestId("command-confirmation")).toContainText(words);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await expect(dialog).toBeHidden();
      await settle(page);
      expect(sent(method), `${button} sent on Cancel`).toHaveLength(before);
    };
    /** Opens it again and confirms: the charger receives exactly `frame`, once. */
    const confirmed = async (button: string, method: string, frame: Record<string, unknown>) => {
      const before = sent(method).length;
      await commands.getByRole("button", { name: button, exact: true }).click();
      await dialog.getByRole("button", { name: "Send" }).click();
      await expect(dialog).toBeHidden();
      await expect(status).toHaveText("succeeded");
      await expect(result).toHaveText("Charger answered Accepted");
      await expect.poll(() => sent(method).length).toBe(before + 1);
      expect(sent(method).at(-1)).toStrictEqual(frame);
    };

    // A reset reaches an EVSE or the station, never a connector.
    await target.selectOption("connector");
    await expect(commands.getByRole("button", { name: "Soft reset" })).toBeDisabled();
    await expect(commands.getByRole("button", { name: "Soft reset" })).toHaveAttribute(
      "title",
      "A reset reaches an EVSE or the whole station.",
    );

    // EVSE 1: Reset with evseId; ChangeAvailability with evse {id} and no connectorId.
    await target.selectOption("evse");
    await cancelled("Soft reset", "Soft reset EVSE 1?", "Reset");
    await confirmed("Soft reset", "Reset", { type: "OnIdle", evseId: 1 });
    await cancelled("Set inoperative", "Take EVSE 1 out of service?", "ChangeAvailability");
    await confirmed("Set inoperative", "ChangeAvailability", {
      operationalStatus: "Inoperative",
      evse: { id: 1 },
    });

    // The whole station: Reset without evseId; ChangeAvailability without evse.
    await target.selectOption("station");
    await cancelled("Hard reset", "Hard reset the whole station?", "Reset");
    await confirmed("Hard reset", "Reset", { type: "Immediate" });
    await cancelled(
      "Set inoperative",
      "Take the whole station out of service?",
      "ChangeAvailability",
    );
    await confirmed("Set inoperative", "ChangeAvailability", { operationalStatus: "Inoperative" });
    expect(sent("Reset")).toHaveLength(2);
    expect(sent("ChangeAvailability")).toHaveLength(2);
    // Nothing but what was asked reached the charger in all three tests.
    expect(new Set(received.map((f) => f.method))).toEqual(
      new Set([
        "SetDisplayMessage",
        "ClearDisplayMessage",
        "GetVariables",
        "SetVariables",
        "Reset",
        "ChangeAvailability",
      ]),
    );

    // Offline: every command is disabled and says why; so is a configuration read.
    await charger.close({ force: true });
    await expect(page.getByTestId("station-connection")).toHaveText("offline");
    const reason = "The station is offline: commands cannot reach it.";
    await expect(commands.getByText(reason)).toBeVisible();
    for (const name of [
      "Start charging",
      "Unlock connector",
      "Trigger message",
      "Set inoperative",
      "Set operative",
      "Soft reset",
      "Hard reset",
    ]) {
      const button = commands.getByRole("button", { name, exact: true });
      await expect(button, name).toBeDisabled();
      await expect(button, name).toHaveAttribute("title", reason);
    }
    await page.getByTestId("station-tab-configuration").click();
    await expect(page.getByRole("button", { name: "Read from the charger" })).toHaveAttribute(
      "title",
      "The station is offline: the charger cannot be asked.",
    );
    await expect(page.getByRole("button", { name: "Read from the charger" })).toBeDisabled();
  });
});

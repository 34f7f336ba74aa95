import { expect } from "vitest";
import { processorEventJob } from "../server/payments/processor-event-job";
import { paymentAttemptJob } from "../server/payments/payment-attempt-job";
import { sandboxSessionJobDefinition } from "../server/sandbox/session-job";
import { call, idem } from "./api";
import { aUser, type TestUser } from "./users";

/** What a gateway test's runner needs besides the operation sweep for sandbox sessions. */
export const SANDBOX_JOBS = [sandboxSessionJobDefinition, paymentAttemptJob, processorEventJob];

/**
 * A person with a workspace (`POST /v1/workspace`) and a workspace key holding `scopes`
 * (default both sandbox scopes), made through /v1.
 */
export async function aWorkspace(scopes: string[] = ["sandbox:read", "sandbox:write"]) {
  const owner: TestUser = await aUser();
  const made = await call("POST", "/v1/workspace", {
    key: owner.token,
    body: { name: `Workspace ${owner.userId}` },
  });
  expect(made.status).toBe(200);
  const key = await call("POST", "/v1/api-keys", { key: owner.token, body: { scopes } });
  expect(key.status).toBe(201);
  const me = await call("GET", "/v1/me", { key: key.body.secret as string });
  expect(me.status).toBe(200);
  return {
    owner,
    teamId: made.body.id as number,
    key: key.body.secret as string,
    keyId: key.body.id as string,
    sandboxTenantId: me.body.workspace.sandbox_tenant_id as number,
  };
}
export type Workspace = Awaited<ReturnType<typeof aWorkspace>>;

/** A sandbox call under the workspace's key. */
export const sandbox = (
  w: { key: string },
  method: string,
  path: string,
  options: { body?: unknown; idempotencyKey?: string } = {},
) => call(method, path, { key: w.key, ...options });

export const startSession = (w: { key: string }, body: Record<string, unknown> = {}) =>
  sandbox(w, "POST", "/v1/sessions", { body, idempotencyKey: idem() });

/** Reads the session until `check` holds (the settlement runs on after an answer's 3 s). */
export async function sessionUntil(
  w: { key: string },
  id: string,
  check: (s: { status: string; [k: string]: unknown }) => boolean,
  ms = 15_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await sandbox(w, "GET", `/v1/sessions/${id}`);
    if (check(res.body)) return res.body as Record<string, any>;
    if (Date.now() > deadline)
      throw new Error(`session ${id} never got there: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

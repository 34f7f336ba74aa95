import type { WorkspacePrincipal } from "../access/caller";
import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { notFound } from "../errors";
import { toPage } from "../lib/pagination";
import { STATUS_CHANNEL, waitOnNotices } from "./notices";
import {
  deriveStatus,
  loadSessionFacts,
  lockSandboxSession,
  presentSandboxSession,
} from "./session-facts";
import type { SandboxSessionResource, SandboxSessionStatus } from "./session-schema";
import { enqueueDrive, OPEN_STATUSES, syncSandboxSession } from "./session-status";
import { driveNow } from "./session-job";

/** How long a new session's answer waits for it to be charging. */
export const START_WAIT_MS = 3_000;

export async function getSandboxSession(db: DbTx, principal: WorkspacePrincipal, id: string) {
  const facts = await loadSessionFacts(db, { id, tenantId: principal.tenantId });
  if (!facts) throw notFound("sandbox session");
  return presentSandboxSession(db, facts);
}

/**
 * The workspace's sandbox sessions, newest first: continue with `after` = the previous page's
 * `next_cursor` (sessions older than it), as the faults list pages; `status` filters.
 */
export async function listSandboxSessions(
  db: DbTx,
  principal: WorkspacePrincipal,
  query: { after: number; limit: number; status?: SandboxSessionStatus },
) {
  const rows = await db.sandboxSession.findMany({
    where: {
      tenantId: principal.tenantId,
      ...(query.after ? { number: { lt: query.after } } : {}),
      ...(query.status ? { status: query.status } : {}),
    },
    orderBy: { number: "desc" },
    take: query.limit + 1,
    select: { id: true, number: true },
  });
  const page = toPage(
    rows,
    query.limit,
    (r) => r.number,
    (r) => r.id,
  );
  const data: SandboxSessionResource[] = [];
  for (const id of page.data)
    data.push(await presentSandboxSession(db, (await loadSessionFacts(db, { id }))!));
  return { ...page, data };
}

/**
 * `POST /v1/sessions/{id}/sync`: reads the session again from its facts and publishes a status
 * they moved that nobody published yet (`sandbox_session.status_changed`, once), then, for a
 * session still on its way (starting, stopping, or a refund in flight), makes sure its settlement
 * job runs (a new phase when an earlier one gave up) and runs it here once.
 */
export async function syncSandboxSessionRoute(
  rootDb: Db,
  principal: WorkspacePrincipal,
  id: string,
) {
  const facts = await loadSessionFacts(rootDb, { id, tenantId: principal.tenantId });
  if (!facts) throw notFound("sandbox session");
  const moved = deriveStatus(facts) !== facts.row.status;
  const refunding = facts.payment?.status === "refunding";
  const onItsWay = OPEN_STATUSES.includes(facts.row.status as SandboxSessionStatus) || refunding;
  if (!moved && !onItsWay) return presentSandboxSession(rootDb, facts);
  const phase = `sync-${Date.now()}` as const;
  const session = await inTransaction(rootDb, async (tx) => {
    await lockSandboxSession(tx, { id });
    const now = await syncSandboxSession(tx, id);
    const stillOpen = OPEN_STATUSES.includes(now.status) || now.payment?.status === "refunding";
    const live = await tx.job.count({
      where: {
        name: "sandbox.session",
        status: { in: ["queued", "running"] },
        id: { startsWith: `sandbox.session:${id}:` },
      },
    });
    if (stillOpen && live === 0) {
      await enqueueDrive(tx, id, phase);
      return { ...now, driven: true };
    }
    return { ...now, driven: false };
  });
  const { driven, ...record } = session;
  if (driven) void driveNow(rootDb, id, phase);
  return record;
}

/**
 * A new session's `afterCommit`: runs its `starting` phase in this process if no runner has it
 * yet, and waits up to 3 s for it to be charging (or to have failed).
 */
export async function awaitSessionStarted(rootDb: Db, body: SandboxSessionResource) {
  void driveNow(rootDb, body.id, "starting");
  return waitOnNotices({
    channel: STATUS_CHANNEL,
    id: body.id,
    timeoutMs: START_WAIT_MS,
    read: async () => {
      const facts = await loadSessionFacts(rootDb, { id: body.id });
      return facts ? presentSandboxSession(rootDb, facts) : body;
    },
    done: (now) => now.status !== "starting",
  });
}

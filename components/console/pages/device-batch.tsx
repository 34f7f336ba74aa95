"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../trpc";
import { Badge, Card, PageHeader, QueryState, Table, td, when } from "../ui";

const LIVE_MS = 2_000;

/**
 * A firmware or diagnostics batch's progress (POST /v1/tenants/{id}/device-batches): how many jobs
 * are in each state, and each station's job with its last status, refreshed every 2 s.
 */
export function DeviceBatchPage({ tenantId, batchId }: { tenantId: number; batchId: string }) {
  const trpc = useTRPC();
  const batch = useQuery(
    trpc.v1.getDeviceBatch.queryOptions(
      { params: { tenant_id: tenantId, batch_id: batchId } },
      { refetchInterval: LIVE_MS },
    ),
  );
  return (
    <QueryState query={batch}>
      {(b) => (
        <>
          <PageHeader
            title={`${b.kind === "firmware" ? "Firmware update" : "Diagnostics"} batch`}
            description={
              <span data-testid="batch-done">
                {b.done} of {b.total} done
              </span>
            }
            actions={
              <Link className="text-sm underline" href={`/console/t/${tenantId}/device-batches`}>
                Start another batch
              </Link>
            }
          />
          <Card title="Progress" testId="batch-progress">
            <div className="flex flex-wrap gap-2 text-sm">
              {Object.entries(b.by_state)
                .filter(([, n]) => n > 0)
                .map(([state, n]) => (
                  <span key={state} data-testid={`batch-${state}`}>
                    <Badge value={state} /> {n}
                  </span>
                ))}
            </div>
          </Card>
          <Card title="Stations">
            <Table head={["Station", "State", "Last status", "Asked"]}>
              {b.jobs.map((job) => (
                <tr key={job.id} data-testid="batch-job">
                  <td className={td}>
                    <Link
                      className="underline"
                      href={`/console/t/${tenantId}/stations/${job.station_id}/device`}
                    >
                      {job.station_name}
                    </Link>
                  </td>
                  <td className={td}>
                    <Badge value={job.state} />
                  </td>
                  <td className={td}>
                    {job.last_status
                      ? `${job.last_status} (${when(job.last_status_at ?? job.created_at)})`
                      : "—"}
                  </td>
                  <td className={td}>{when(job.created_at)}</td>
                </tr>
              ))}
            </Table>
          </Card>
        </>
      )}
    </QueryState>
  );
}

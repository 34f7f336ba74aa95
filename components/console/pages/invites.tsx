"use client";

import { useQuery } from "@tanstack/react-query";
import { useV1Mutation } from "../hooks";
import { useTRPC } from "../trpc";
import { Button, Empty, ErrorBox, PageHeader, QueryState, Table, td, when } from "../ui";

export function InvitesList() {
  const trpc = useTRPC();
  const invites = useQuery(trpc.v1.listMyInvites.queryOptions({}));
  const accept = useV1Mutation(trpc.v1.acceptInvite);
  const decline = useV1Mutation(trpc.v1.declineInvite);
  return (
    <>
      <QueryState
        query={invites}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <Empty title="No invitations waiting">
            An owner or admin of a team can invite your email address.
          </Empty>
        }
      >
        {(d) => (
          <Table head={["Team", "Role", "Expires", ""]}>
            {d.data.map((i) => (
              <tr key={i.id} data-testid="invite-row">
                <td className={td}>{i.team_name}</td>
                <td className={td}>{i.role}</td>
                <td className={td}>{when(i.expires_at)}</td>
                <td className={`${td} flex gap-2`}>
                  <Button
                    variant="primary"
                    onClick={() =>
                      void accept.run({ params: { invite_id: i.id } }).then(
                        () => window.location.assign("/console"),
                        () => undefined,
                      )
                    }
                  >
                    Accept
                  </Button>
                  <Button
                    onClick={() =>
                      void decline.run({ params: { invite_id: i.id } }).catch(() => undefined)
                    }
                  >
                    Decline
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
      {accept.error ? <ErrorBox error={accept.error} /> : null}
      {decline.error ? <ErrorBox error={decline.error} /> : null}
    </>
  );
}

export function InvitesPage() {
  return (
    <>
      <PageHeader title="Invitations" description="Invitations to your email address." />
      <InvitesList />
    </>
  );
}

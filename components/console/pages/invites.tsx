"use client";

import { useV1, useV1Mutation } from "../hooks";
import { Button, Empty, ErrorBox, PageHeader, QueryState, Table, td, when } from "../ui";

type Invite = {
  id: string;
  team_id: number;
  team_name: string;
  email: string;
  role: string;
  status: string;
  expires_at: string;
};

export function InvitesList() {
  const invites = useV1<{ data: Invite[] }>("listMyInvites", {});
  const accept = useV1Mutation<Invite>("acceptInvite");
  const decline = useV1Mutation<Invite>("declineInvite");
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

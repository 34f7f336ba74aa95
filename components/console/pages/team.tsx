"use client";

import Link from "next/link";
import { useState } from "react";
import { useMe, type MeContext } from "../context";
import { useV1, useV1Mutation } from "../hooks";
import {
  Badge,
  Button,
  Card,
  Empty,
  ErrorBox,
  PageHeader,
  QueryState,
  SelectField,
  Table,
  td,
  TextField,
  when,
} from "../ui";

const ROLES = ["owner", "admin", "developer", "operator", "viewer", "billing"];

function useTeam(teamId: number) {
  const me = useMe();
  const data = me.data as MeContext | undefined;
  const team = data?.teams.find((t) => t.id === teamId);
  const manages =
    team?.role === "owner" ||
    team?.role === "admin" ||
    data?.user.platform_role === "platform-admin";
  return {
    me: data,
    team,
    manages,
    reason: manages
      ? null
      : `Only owners and admins can do this (your role: ${team?.role ?? "none"}).`,
  };
}

type Project = { id: number; name: string; created_at: string };

export function ProjectsPage({ teamId }: { teamId: number }) {
  const { team, reason } = useTeam(teamId);
  const projects = useV1<{ data: Project[] }>("listProjects", { params: { team_id: teamId } });
  const create = useV1Mutation<Project>("createProject");
  const [name, setName] = useState("");
  return (
    <>
      <PageHeader
        title="Projects"
        description={
          team ? `Projects of ${team.name}. Each project is a tenant of the API.` : undefined
        }
      />
      <Card title="New project">
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run({ params: { team_id: teamId }, body: { name } }).then(
              () => setName(""),
              () => undefined,
            );
          }}
        >
          <div className="min-w-60 flex-1">
            <TextField
              label="Name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={100}
            />
          </div>
          <Button
            type="submit"
            variant="primary"
            disabledReason={reason}
            disabled={create.isPending}
          >
            Create project
          </Button>
        </form>
        {create.error ? <ErrorBox error={create.error} /> : null}
      </Card>
      <QueryState
        query={projects}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No projects yet" />}
      >
        {(d) => (
          <Table head={["Project", "ID", "Created"]}>
            {d.data.map((p) => (
              <tr key={p.id} data-testid="project-row">
                <td className={td}>
                  <Link
                    className="text-teal-800 underline dark:text-teal-300"
                    href={`/console/t/${p.id}/stations`}
                  >
                    {p.name}
                  </Link>
                </td>
                <td className={td}>{p.id}</td>
                <td className={td}>{when(p.created_at)}</td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
    </>
  );
}

type Member = {
  user_id: number;
  email: string;
  name: string | null;
  role: string;
  joined_at: string;
};
type Invite = { id: string; email: string; role: string; status: string; expires_at: string };

export function MembersPage({ teamId }: { teamId: number }) {
  const { me, team, manages, reason } = useTeam(teamId);
  const members = useV1<{ data: Member[] }>("listMembers", { params: { team_id: teamId } });
  const invites = useV1<{ data: Invite[] }>(
    "listInvites",
    { params: { team_id: teamId }, query: { status: "pending" } },
    { enabled: manages },
  );
  const changeRole = useV1Mutation<Member>("changeMemberRole");
  const remove = useV1Mutation<Member>("removeMember");
  const invite = useV1Mutation<Invite>("createInvite");
  const revoke = useV1Mutation<Invite>("revokeInvite");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("developer");

  return (
    <>
      <PageHeader title="Members and invitations" description={team?.name} />
      <Card title="Members">
        <QueryState query={members}>
          {(d) => (
            <Table head={["Person", "Role", "Joined", ""]}>
              {d.data.map((m) => (
                <tr key={m.user_id} data-testid="member-row">
                  <td className={td}>
                    {m.name ?? m.email}
                    <span className="block text-xs text-slate-500">{m.email}</span>
                  </td>
                  <td className={td}>
                    <label className="sr-only" htmlFor={`role-${m.user_id}`}>
                      Role of {m.email}
                    </label>
                    <select
                      id={`role-${m.user_id}`}
                      value={m.role}
                      disabled={!manages}
                      title={reason ?? undefined}
                      className="rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
                      onChange={(e) =>
                        void changeRole
                          .run({
                            params: { team_id: teamId, user_id: m.user_id },
                            body: { role: e.target.value },
                          })
                          .catch(() => undefined)
                      }
                    >
                      {ROLES.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </select>
                  </td>
                  <td className={td}>{when(m.joined_at)}</td>
                  <td className={td}>
                    {m.user_id === me?.user.id || manages ? (
                      <Button
                        variant="danger"
                        onClick={() =>
                          void remove
                            .run({ params: { team_id: teamId, user_id: m.user_id } })
                            .catch(() => undefined)
                        }
                      >
                        {m.user_id === me?.user.id ? "Leave" : "Remove"}
                      </Button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
        {changeRole.error ? <ErrorBox error={changeRole.error} /> : null}
        {remove.error ? <ErrorBox error={remove.error} /> : null}
      </Card>
      <Card title="Invite someone">
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            void invite.run({ params: { team_id: teamId }, body: { email, role } }).then(
              () => setEmail(""),
              () => undefined,
            );
          }}
        >
          <div className="min-w-60 flex-1">
            <TextField
              label="Email"
              type="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              required
            />
          </div>
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </SelectField>
          <Button
            type="submit"
            variant="primary"
            disabledReason={reason}
            disabled={invite.isPending}
          >
            Send invitation
          </Button>
        </form>
        {invite.error ? <ErrorBox error={invite.error} /> : null}
        {manages ? (
          <div className="mt-4">
            <QueryState
              query={invites}
              isEmpty={(d) => d.data.length === 0}
              empty={<Empty title="No pending invitations" />}
            >
              {(d) => (
                <Table head={["Email", "Role", "Status", "Expires", ""]}>
                  {d.data.map((i) => (
                    <tr key={i.id} data-testid="pending-invite-row">
                      <td className={td}>{i.email}</td>
                      <td className={td}>{i.role}</td>
                      <td className={td}>
                        <Badge value={i.status} />
                      </td>
                      <td className={td}>{when(i.expires_at)}</td>
                      <td className={td}>
                        <Button
                          onClick={() =>
                            void revoke
                              .run({ params: { team_id: teamId, invite_id: i.id } })
                              .catch(() => undefined)
                          }
                        >
                          Revoke
                        </Button>
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </QueryState>
          </div>
        ) : null}
      </Card>
    </>
  );
}

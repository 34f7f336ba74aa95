"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { TEAM_ROLES, type TeamRole } from "@/server/access/roles";
import { ROLE_WORDS } from "../access-words";
import { useMe } from "../context";
import { ConfirmButton } from "../confirm-button";
import { ExportCsv, type CsvColumn } from "../csv";
import { useV1Mutation, type V1 } from "../hooks";
import { useTRPC } from "../trpc";
import {
  Badge,
  Button,
  Card,
  Empty,
  ErrorBox,
  errorMessage,
  PageHeader,
  QueryState,
  SelectField,
  oneOf,
  Table,
  td,
  TextField,
  when,
} from "../ui";

function useTeam(teamId: number) {
  const me = useMe();
  const data = me.data;
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

export function ProjectsPage({ teamId }: { teamId: number }) {
  const trpc = useTRPC();
  const { team, reason } = useTeam(teamId);
  const projects = useQuery(trpc.v1.listProjects.queryOptions({ params: { team_id: teamId } }));
  const create = useV1Mutation(trpc.v1.createProject);
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
        {create.error ? <ErrorBox error={create.error} teamId={teamId} /> : null}
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
                    href={`/console/t/${p.id}/overview`}
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

/** The members table's columns, in its order, for its CSV export. */
const memberColumns: CsvColumn<V1["listMembers"]["data"][number]>[] = [
  { header: "Person", value: (m) => m.name ?? m.email },
  { header: "Email", value: (m) => m.email },
  { header: "Role", value: (m) => m.role },
  { header: "Joined", value: (m) => m.joined_at },
];

export function MembersPage({ teamId }: { teamId: number }) {
  const trpc = useTRPC();
  const { me, team, manages, reason } = useTeam(teamId);
  const client = useQueryClient();
  const members = useQuery(trpc.v1.listMembers.queryOptions({ params: { team_id: teamId } }));
  const invites = useQuery(
    trpc.v1.listInvites.queryOptions(
      { params: { team_id: teamId }, query: { status: "pending" } },
      { enabled: manages },
    ),
  );
  const changeRole = useV1Mutation(trpc.v1.changeMemberRole);
  const remove = useV1Mutation(trpc.v1.removeMember);
  const invite = useV1Mutation(trpc.v1.createInvite);
  const revoke = useV1Mutation(trpc.v1.revokeInvite);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<TeamRole>("developer");
  const [invited, setInvited] = useState<{ email: string; role: string; expires: string } | null>(
    null,
  );

  return (
    <>
      <PageHeader title="Members and invitations" description={team?.name} />
      <Card
        title="Members"
        actions={
          <ExportCsv
            filename={`members-team-${teamId}.csv`}
            columns={memberColumns}
            // one answer holds every member (the route does not page)
            load={async () => ({
              ...(await client.fetchQuery(
                trpc.v1.listMembers.queryOptions({ params: { team_id: teamId } }),
              )),
              next_cursor: null,
              has_more: false,
            })}
          />
        }
      >
        <QueryState query={members}>
          {(d) => {
            const owners = d.data.filter((m) => m.role === "owner").length;
            return (
              <Table head={[...memberColumns.map((c) => c.header), ""]}>
                {d.data.map((m) => {
                  const self = m.user_id === me?.user.id;
                  // The API refuses to leave a team without an owner (409 last_owner): said before.
                  const soleOwner = m.role === "owner" && owners === 1;
                  const removeReason = soleOwner
                    ? self
                      ? "You are the only owner: make another member an owner first."
                      : `${m.name ?? m.email} is the only owner: make another member an owner first.`
                    : null;
                  const removeFailed =
                    remove.error && remove.variables?.params.user_id === m.user_id
                      ? remove.error
                      : null;
                  const roleFailed =
                    changeRole.error && changeRole.variables?.params.user_id === m.user_id
                      ? changeRole.error
                      : null;
                  return (
                    <tr key={m.user_id} data-testid="member-row">
                      <td className={td}>{m.name ?? m.email}</td>
                      <td className={`${td} break-all`}>{m.email}</td>
                      <td className={td}>
                        <label className="sr-only" htmlFor={`role-${m.user_id}`}>
                          Role of {m.email}
                        </label>
                        <select
                          id={`role-${m.user_id}`}
                          value={m.role}
                          disabled={!manages}
                          title={reason ?? undefined}
                          aria-describedby={roleFailed ? `role-error-${m.user_id}` : undefined}
                          className="rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
                          onChange={(e) =>
                            void changeRole
                              .run({
                                params: { team_id: teamId, user_id: m.user_id },
                                body: { role: oneOf(TEAM_ROLES, e.target.value, m.role) },
                              })
                              .catch(() => undefined)
                          }
                        >
                          {TEAM_ROLES.map((r) => (
                            <option key={r}>{r}</option>
                          ))}
                        </select>
                        <span className="mt-1 block max-w-xs text-xs text-slate-600 dark:text-slate-400">
                          {ROLE_WORDS[m.role]}
                        </span>
                        {roleFailed ? (
                          <span
                            id={`role-error-${m.user_id}`}
                            role="alert"
                            data-testid="member-error"
                            className="mt-1 block max-w-xs text-xs text-red-700 dark:text-red-300"
                          >
                            {errorMessage(roleFailed)}
                          </span>
                        ) : null}
                      </td>
                      <td className={td}>{when(m.joined_at)}</td>
                      <td className={td}>
                        {self || manages ? (
                          <>
                            <ConfirmButton
                              label={self ? "Leave" : "Remove"}
                              ariaLabel={self ? "Leave the team" : `Remove ${m.email}`}
                              title={
                                self
                                  ? `Leave ${team?.name ?? "this team"}?`
                                  : `Remove ${m.name ?? m.email}?`
                              }
                              confirmLabel={self ? "Leave team" : "Remove member"}
                              disabledReason={removeReason}
                              describedBy={
                                removeReason || removeFailed
                                  ? `remove-words-${m.user_id}`
                                  : undefined
                              }
                              run={() =>
                                remove.run({ params: { team_id: teamId, user_id: m.user_id } })
                              }
                            >
                              {self
                                ? "You lose access to every project of this team at once; only an invitation brings you back."
                                : `${m.email} loses access to every project of this team at once (in the console and with their access tokens). Only a new invitation brings them back.`}
                            </ConfirmButton>
                            {removeReason || removeFailed ? (
                              <span
                                id={`remove-words-${m.user_id}`}
                                role={removeFailed ? "alert" : undefined}
                                data-testid={removeFailed ? "member-error" : "remove-reason"}
                                className={`mt-1 block max-w-[14rem] text-xs ${
                                  removeFailed
                                    ? "text-red-700 dark:text-red-300"
                                    : "text-slate-600 dark:text-slate-400"
                                }`}
                              >
                                {removeFailed ? errorMessage(removeFailed) : removeReason}
                              </span>
                            ) : null}
                          </>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </Table>
            );
          }}
        </QueryState>
      </Card>
      <Card title="Invite someone">
        <form
          className="flex flex-wrap items-end gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            void invite.run({ params: { team_id: teamId }, body: { email, role } }).then(
              (made) => {
                setInvited({ email: made.email, role: made.role, expires: made.expires_at });
                setEmail("");
              },
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
          <SelectField
            label="Role"
            value={role}
            onChange={(e) => setRole(oneOf(TEAM_ROLES, e.target.value, "developer"))}
          >
            {TEAM_ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </SelectField>
          <p
            className="basis-full text-xs text-slate-600 dark:text-slate-400"
            id="invite-role-words"
          >
            <strong>{role}</strong>: {ROLE_WORDS[role]}
          </p>
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
        {invited ? <InviteLink {...invited} /> : null}
        <details className="mt-3 text-sm">
          <summary className="cursor-pointer font-medium">What each role may do</summary>
          <dl className="mt-2 grid gap-1 sm:grid-cols-[8rem_1fr]">
            {TEAM_ROLES.map((r) => (
              <div key={r} className="contents">
                <dt className="font-medium">{r}</dt>
                <dd className="text-slate-600 dark:text-slate-400">{ROLE_WORDS[r]}</dd>
              </div>
            ))}
          </dl>
        </details>
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

/**
 * After an invitation: the link to send. The API keeps no token in the invitation (it is matched
 * to the invitee's email when they sign in), so the link is the console's invitations page, and
 * the words say what the invitee does there.
 */
function InviteLink({ email, role, expires }: { email: string; role: string; expires: string }) {
  const [copied, setCopied] = useState(false);
  const link = `${window.location.origin}/console/invites`;
  return (
    <div
      role="status"
      data-testid="invite-link"
      className="mt-3 rounded-md border border-teal-300 bg-teal-50 p-3 text-sm dark:border-teal-800 dark:bg-teal-950"
    >
      <p>
        Invited <strong>{email}</strong> as {role}. Send them this link: they sign in (or sign up)
        with that email address and accept the invitation there, before {when(expires)}.
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code
          data-testid="invite-url"
          className="rounded bg-white px-2 py-1 break-all dark:bg-slate-900"
        >
          {link}
        </code>
        <Button
          onClick={() => {
            void navigator.clipboard?.writeText(link).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? "Copied" : "Copy link"}
        </Button>
      </div>
    </div>
  );
}

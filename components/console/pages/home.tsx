"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { useMe, type MeContext } from "../context";
import { useV1Mutation } from "../hooks";
import { useTRPC } from "../trpc";
import { Button, Card, ErrorBox, Loading, PageHeader, TextField } from "../ui";
import { InvitesList } from "./invites";

/** /console: to the first project, or the first steps for someone with none. */
export function ConsoleHome() {
  const me = useMe();
  const router = useRouter();
  const data = me.data;
  // A billing member's team leads to its Billing page: they read no project's data.
  const project = data?.teams.filter((t) => t.role !== "billing").flatMap((t) => t.projects)[0];
  const billingTeam = data?.teams.find((t) => t.role === "billing");
  const first = project
    ? `/console/t/${project.id}/overview`
    : billingTeam
      ? `/console/teams/${billingTeam.id}/billing`
      : undefined;
  useEffect(() => {
    if (first) router.replace(first);
  }, [first, router]);
  if (me.isPending || first) return <Loading />;
  if (me.error || !data) return <ErrorBox error={me.error} retry={() => void me.refetch()} />;
  return <Onboarding me={data} />;
}

function Onboarding({ me }: { me: MeContext }) {
  const trpc = useTRPC();
  const router = useRouter();
  const workspace = useV1Mutation(trpc.v1.ensureWorkspace);
  const project = useV1Mutation(trpc.v1.createProject);
  const [team, setTeam] = useState(me.user.name ? `${me.user.name}'s team` : "My team");
  const [name, setName] = useState("My first project");
  const ownTeam = me.teams.find((t) => t.role === "owner" || t.role === "admin");

  return (
    <>
      <PageHeader
        title={`Welcome${me.user.name ? `, ${me.user.name}` : ""}`}
        description="Signing in grants no access by itself. Create your workspace and a first project, or accept an invitation to someone else's team."
      />
      <Card title="Create a project" testId="onboarding">
        <form
          className="grid max-w-md gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            void (async () => {
              const teamId = ownTeam?.id ?? (await workspace.run({ body: { name: team } })).id;
              const created = await project.run({ params: { team_id: teamId }, body: { name } });
              router.push(`/console/t/${created.id}/overview`);
            })().catch(() => undefined);
          }}
        >
          {!ownTeam ? (
            <TextField
              label="Team name"
              value={team}
              onChange={(e) => setTeam(e.target.value)}
              required
              maxLength={100}
            />
          ) : (
            <p className="text-sm">
              In team <strong>{ownTeam.name}</strong>
            </p>
          )}
          <TextField
            label="Project name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
          />
          <div>
            <Button
              type="submit"
              variant="primary"
              disabled={workspace.isPending || project.isPending}
            >
              Create project
            </Button>
          </div>
          {workspace.error ? <ErrorBox error={workspace.error} /> : null}
          {project.error ? <ErrorBox error={project.error} /> : null}
        </form>
      </Card>
      <Card title="Invitations">
        <InvitesList />
      </Card>
    </>
  );
}

import { notFound } from "next/navigation";
import { ProjectsPage } from "@/components/console/pages/team";

export const metadata = { title: "Projects · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ teamId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <ProjectsPage teamId={Number(p.teamId)} />;
}

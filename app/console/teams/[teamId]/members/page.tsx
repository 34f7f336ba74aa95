import { notFound } from "next/navigation";
import { MembersPage } from "@/components/console/pages/team";

export const metadata = { title: "Members · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ teamId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <MembersPage teamId={Number(p.teamId)} />;
}

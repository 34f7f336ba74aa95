import { notFound, redirect } from "next/navigation";

/** A project's address lands on its overview. */
export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(p.tenantId)) notFound();
  redirect(`/console/t/${p.tenantId}/overview`);
}

import { SandboxPage } from "@/components/console/pages/sandbox";

export const metadata = { title: "Sandbox · Charge Cloud" };

export default async function Page({
  searchParams,
}: {
  searchParams: Promise<{ session?: string | string[] }>;
}) {
  const { session } = await searchParams;
  const id =
    typeof session === "string" && /^sbs_[0-9A-Za-z]{1,40}$/.test(session) ? session : null;
  return <SandboxPage sessionId={id} />;
}

import { InvitesPage } from "@/components/console/pages/invites";

export const metadata = { title: "Invitations · Charge Cloud" };

export default function Page() {
  return <InvitesPage />;
}

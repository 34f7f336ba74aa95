import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/console/shell";
import { ConsoleProviders } from "@/components/console/trpc";
import { currentUser } from "@/server/access/current-user";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  if (!(await currentUser())) redirect("/sign-in");
  return (
    <ConsoleProviders>
      <ConsoleShell>{children}</ConsoleShell>
    </ConsoleProviders>
  );
}

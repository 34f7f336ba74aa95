import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { currentUser } from "@/server/access/current-user";
import { appRouter } from "@/server/trpc/router";

export const dynamic = "force-dynamic";

const handler = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ caller: await currentUser() }),
  });

export { handler as GET, handler as POST };

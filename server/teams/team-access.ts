// Moved to server/access/team-access.ts; kept for server/trpc/router.ts until its imports move too.
export { teamAllows } from "../access/team-access";

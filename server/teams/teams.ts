// Split by noun (projects, members, invites, workspace, my-*); kept for server/trpc/router.ts until
// its import moves to ./my-context.
export { myContext } from "./my-context";

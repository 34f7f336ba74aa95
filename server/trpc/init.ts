import { initTRPC, TRPCError } from "@trpc/server";
import type { UserCaller } from "../access/caller";
import type { DomainError } from "../errors";
import { ERROR_STATUS, errorBody, type ErrorBody } from "../http/errors";

export type Context = { caller: UserCaller | null };

/** The spec's error body travels in `data.apiError`, so the console shows the API's own words. */
export class ConsoleApiError extends TRPCError {
  readonly body: ErrorBody["error"];
  constructor(status: number, body: ErrorBody["error"]) {
    super({ code: trpcCode(status), message: body.message });
    this.body = body;
  }
}

/** A domain error as the console receives it: the API's status and `{ code, message, details }`. */
export const consoleError = (error: DomainError) =>
  new ConsoleApiError(ERROR_STATUS[error.code], errorBody(error).error);

function trpcCode(status: number): TRPCError["code"] {
  if (status === 401) return "UNAUTHORIZED";
  if (status === 403) return "FORBIDDEN";
  if (status === 404) return "NOT_FOUND";
  if (status === 409) return "CONFLICT";
  if (status === 410) return "NOT_FOUND";
  if (status === 429) return "TOO_MANY_REQUESTS";
  if (status >= 500) return "INTERNAL_SERVER_ERROR";
  return "BAD_REQUEST";
}

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const api =
      error instanceof ConsoleApiError
        ? error.body
        : error.cause instanceof ConsoleApiError
          ? error.cause.body
          : null;
    return { ...shape, data: { ...shape.data, stack: undefined, apiError: api } };
  },
});

export const router = t.router;
export const publicProcedure = t.procedure;

/** Procedures for a signed-in person; their access is checked again by each /v1 route. */
export const protectedProcedure = t.procedure.use(({ ctx, next }) => {
  if (!ctx.caller) {
    throw new ConsoleApiError(401, {
      code: "unauthenticated",
      message: "Your session has ended; sign in again.",
      details: {},
    });
  }
  return next({ ctx: { caller: ctx.caller } });
});

export { ERROR_STATUS };

import { z } from "zod";
import { INT4_MAX } from "./int4";

/** Spec section 8: `after` integer >= 0 (default 0), `limit` 1 to 100 (default 50). */
export const MAX_CURSOR = INT4_MAX;

export const paginationQuery = z.object({
  after: z.coerce.number().int().min(0).max(MAX_CURSOR).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type Pagination = z.infer<typeof paginationQuery>;

export type Page<T, C = number> = { data: T[]; next_cursor: C | null; has_more: boolean };

/**
 * Builds a page from `limit + 1` rows fetched in cursor order: `next_cursor` is the last item's
 * cursor when more rows follow, otherwise null.
 */
export function toPage<R, T, C = number>(
  rows: R[],
  limit: number,
  cursorOf: (row: R) => C,
  present: (row: R) => T,
): Page<T, C> {
  const hasMore = rows.length > limit;
  const kept = hasMore ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return {
    data: kept.map(present),
    next_cursor: hasMore && last !== undefined ? cursorOf(last) : null,
    has_more: hasMore,
  };
}

/** A whole list in one answer, for collections small enough never to page. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    next_cursor: z.number().int().nullable(),
    has_more: z.boolean(),
  });

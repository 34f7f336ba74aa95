"use client";

import { Button } from "./ui";

/** Previous and Next over a cursor-paged list; `cursors` is the stack of pages visited. */
export function Pager({
  page,
  cursors,
  setCursors,
}: {
  page: { next_cursor: number | string | null; has_more: boolean };
  cursors: number[];
  setCursors: (c: number[]) => void;
}) {
  return (
    <div className="mt-3 flex gap-2">
      <Button disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
        Previous
      </Button>
      <Button
        disabled={!page.has_more || page.next_cursor === null}
        onClick={() => setCursors([...cursors, Number(page.next_cursor)])}
      >
        Next
      </Button>
    </div>
  );
}

/**
 * Previous and Next over a list paged by opaque string cursors; `cursors` is the stack of cursors
 * followed, empty on the first page.
 */
export function StringPager({
  page,
  cursors,
  setCursors,
}: {
  page: { next_cursor: string | null; has_more: boolean };
  cursors: string[];
  setCursors: (c: string[]) => void;
}) {
  const next = page.has_more ? page.next_cursor : null;
  return (
    <div className="mt-3 flex gap-2">
      <Button disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
        Previous
      </Button>
      <Button disabled={next === null} onClick={() => next && setCursors([...cursors, next])}>
        Next
      </Button>
    </div>
  );
}

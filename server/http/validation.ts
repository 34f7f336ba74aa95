import type { z } from "zod";
import { DomainError } from "../errors";

export type FieldIssue = {
  field: string;
  message: string;
  location: "path" | "query" | "body" | "header";
};

const MAX_ISSUES = 50;
const NUL = "\u0000";

/** Turns zod issues into a 422 naming each failing field. */
export function validationError(location: FieldIssue["location"], error: z.ZodError): DomainError {
  const fields: FieldIssue[] = error.issues
    .slice(0, MAX_ISSUES)
    .map((issue) => {
      const keys =
        issue.code === "unrecognized_keys" ? (issue as { keys: string[] }).keys : [undefined];
      const base = issue.path.map(String).join(".");
      return keys.map((key) => ({
        field: [base, key].filter(Boolean).join(".") || location,
        message: issue.code === "unrecognized_keys" ? "is not a known field" : issue.message,
        location,
      }));
    })
    .flat();
  const first = fields[0];
  return new DomainError(
    "validation_failed",
    first ? `Invalid ${location}: ${first.field} ${first.message}` : `Invalid ${location}.`,
    { fields },
  );
}

/**
 * Every string (and object key) in `value` that holds U+0000, by field path. PostgreSQL's text and
 * jsonb cannot store that character, so no route accepts it anywhere. Walks without recursion.
 */
export function nulCharacterIssues(value: unknown, location: FieldIssue["location"]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const pending: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  const shown = (key: string) => key.replaceAll(NUL, "\\u0000");
  const message = "must not contain the NUL character (U+0000)";
  while (pending.length && issues.length < MAX_ISSUES) {
    const item = pending.pop()!;
    if (typeof item.value === "string") {
      if (item.value.includes(NUL)) {
        issues.push({ field: item.path.join(".") || location, message, location });
      }
    } else if (item.value && typeof item.value === "object") {
      const entries = Object.entries(item.value as Record<string, unknown>).reverse();
      for (const [key, child] of entries) {
        const path = [...item.path, shown(key)];
        if (key.includes(NUL)) issues.push({ field: path.join("."), message, location });
        else pending.push({ value: child, path });
      }
    }
  }
  return issues.slice(0, MAX_ISSUES);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The text with each lone surrogate replaced by U+FFFD, as a URL would carry it. */
export const wellFormed = (text: string) =>
  text.replace(new RegExp(LONE_SURROGATE.source, "g"), "\uFFFD");

/**
 * Path and query values holding a lone surrogate, which no URL can carry. A /v1 request's decoded
 * values never do; values handed over in-process (the console's) can.
 */
export function illFormedTextIssues(
  values: Record<string, string>,
  location: "path" | "query",
): FieldIssue[] {
  return Object.entries(values)
    .filter(([, value]) => LONE_SURROGATE.test(value))
    .map(([field]) => ({
      field,
      message: "is not well-formed text (a lone surrogate)",
      location,
    }));
}

/** Validates path, query or body: first the NUL rule, then the route's zod schema (422 either way). */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: FieldIssue["location"],
): z.infer<S> {
  const nul = nulCharacterIssues(value, location);
  if (nul.length) {
    const first = nul[0]!;
    throw new DomainError(
      "validation_failed",
      `Invalid ${location}: ${first.field} ${first.message}`,
      { fields: nul },
    );
  }
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(location, result.error);
  return result.data;
}

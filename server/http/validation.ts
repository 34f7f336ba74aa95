import type { z } from "zod";
import { ApiError } from "../errors";

export type FieldIssue = {
  field: string;
  message: string;
  location: "path" | "query" | "body" | "header";
};

/** Turns zod issues into a 422 naming each failing field. */
export function validationError(location: FieldIssue["location"], error: z.ZodError): ApiError {
  const fields: FieldIssue[] = error.issues
    .slice(0, 50)
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
  return new ApiError(
    "validation_failed",
    first ? `Invalid ${location}: ${first.field} ${first.message}` : `Invalid ${location}.`,
    { fields },
  );
}

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: FieldIssue["location"],
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(location, result.error);
  return result.data;
}

import type { Prisma } from "../generated/prisma/client";

/** A plain JSON-able value as Prisma's JSON input type (one cast, here, instead of at every write). */
export function asJson(value: unknown): Prisma.InputJsonObject {
  return value as Prisma.InputJsonObject;
}

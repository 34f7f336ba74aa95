import { z } from "zod";
import type { Db } from "../db";
import { hashPassword, verifyPassword } from "../lib/passwords";
import { isUniqueViolation } from "../lib/unique-violation";

export const signUpSchema = z.object({
  name: z.string().trim().min(1, "Enter your name.").max(100, "At most 100 characters."),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254, "At most 254 characters.")
    .pipe(z.email("Enter an email address.")),
  password: z.string().min(10, "Use at least 10 characters.").max(200, "At most 200 characters."),
});

export type SignUpResult =
  | { ok: true; userId: number }
  | { ok: false; field: "name" | "email" | "password" | null; message: string };

/** Creates an account of the built-in provider. The password is stored as an scrypt hash. */
export async function signUp(db: Db, input: Record<string, unknown>): Promise<SignUpResult> {
  const parsed = signUpSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path[0];
    return {
      ok: false,
      field: field === "name" || field === "email" || field === "password" ? field : null,
      message: issue?.message ?? "Check the form.",
    };
  }
  const { name, email, password } = parsed.data;
  try {
    const user = await db.user.create({
      data: { name, email, passwordHash: await hashPassword(password) },
    });
    return { ok: true, userId: user.id };
  } catch (error) {
    if (isUniqueViolation(error)) {
      return { ok: false, field: "email", message: "An account with this email already exists." };
    }
    throw error;
  }
}

// Compared against when the email is unknown, so both answers take the same time.
const DUMMY_HASH = hashPassword("not-a-real-password");

/** The account for an email and password, or null (one answer for every failure). */
export async function checkPassword(
  db: Db,
  email: string,
  password: string,
): Promise<number | null> {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  const ok = await verifyPassword(password.slice(0, 200), user?.passwordHash ?? (await DUMMY_HASH));
  if (!user?.passwordHash || !ok || user.suspendedAt || user.oidcIssuer) return null;
  return user.id;
}

/**
 * The account of someone signed in through an external provider: found by issuer and subject,
 * else linked by verified email to an account that has none, else created.
 */
export async function provisionExternalUser(
  db: Db,
  identity: {
    issuer: string;
    subject: string;
    email: string;
    emailVerified: boolean;
    name?: string;
  },
): Promise<number> {
  const email = identity.email.trim().toLowerCase();
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`oidc:${identity.issuer}:${identity.subject}`}))`;
    const known = await tx.user.findUnique({
      where: {
        oidcIssuer_oidcSubject: { oidcIssuer: identity.issuer, oidcSubject: identity.subject },
      },
    });
    if (known) {
      if (known.email !== email) {
        await tx.user.update({ where: { id: known.id }, data: { email } }).catch(() => undefined);
      }
      return known.id;
    }
    const byEmail = await tx.user.findUnique({ where: { email } });
    if (byEmail && identity.emailVerified && !byEmail.oidcIssuer && !byEmail.passwordHash) {
      await tx.user.update({
        where: { id: byEmail.id },
        data: { oidcIssuer: identity.issuer, oidcSubject: identity.subject },
      });
      return byEmail.id;
    }
    if (byEmail) throw new Error("an account with this email exists and cannot be linked");
    const created = await tx.user.create({
      data: {
        email,
        name: identity.name ?? null,
        oidcIssuer: identity.issuer,
        oidcSubject: identity.subject,
      },
    });
    return created.id;
  });
}

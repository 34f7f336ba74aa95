import { describe, expect, it } from "vitest";
import { db } from "../db";
import { checkPassword, provisionExternalUser, signUp } from "./accounts";

describe("accounts of the built-in provider", () => {
  it("signs up with a memory-hard password hash and signs in with the password only", async () => {
    const email = `Ada-${Date.now()}@Example.com`;
    const result = await signUp(db(), { name: "Ada", email, password: "correct horse battery" });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const user = await db().user.findUniqueOrThrow({ where: { id: result.userId } });
    expect(user.email).toBe(email.toLowerCase());
    expect(user.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(user.passwordHash).not.toContain("correct horse");

    expect(await checkPassword(db(), email.toUpperCase(), "correct horse battery")).toBe(user.id);
    expect(await checkPassword(db(), email, "correct horse batterY")).toBeNull();
    expect(await checkPassword(db(), `nobody-${email}`, "correct horse battery")).toBeNull();

    await db().user.update({ where: { id: user.id }, data: { suspendedAt: new Date() } });
    expect(await checkPassword(db(), email, "correct horse battery")).toBeNull();
  });

  it("refuses a taken email and bad fields with the field named", async () => {
    const email = `taken-${Date.now()}@example.com`;
    expect((await signUp(db(), { name: "A", email, password: "0123456789" })).ok).toBe(true);
    expect(await signUp(db(), { name: "B", email, password: "0123456789" })).toEqual({
      ok: false,
      field: "email",
      message: "An account with this email already exists.",
    });
    expect(await signUp(db(), { name: "B", email: "nope", password: "0123456789" })).toMatchObject({
      ok: false,
      field: "email",
    });
    expect(await signUp(db(), { name: "B", email: `x${email}`, password: "short" })).toEqual({
      ok: false,
      field: "password",
      message: "Use at least 10 characters.",
    });
    expect(
      await signUp(db(), { name: " ", email: `y${email}`, password: "0123456789" }),
    ).toMatchObject({
      ok: false,
      field: "name",
    });
  });

  it("provisions an external provider's user once, by issuer and subject", async () => {
    const identity = {
      issuer: "https://login.example.com",
      subject: `sub-${Date.now()}`,
      email: `ext-${Date.now()}@example.com`,
      emailVerified: true,
      name: "Ext",
    };
    const ids = await Promise.all([1, 2, 3].map(() => provisionExternalUser(db(), identity)));
    expect(new Set(ids).size).toBe(1);
    const again = await provisionExternalUser(db(), {
      ...identity,
      email: `new-${identity.email}`,
    });
    expect(again).toBe(ids[0]);
    const user = await db().user.findUniqueOrThrow({ where: { id: again } });
    expect(user).toMatchObject({ oidcIssuer: identity.issuer, oidcSubject: identity.subject });
    expect(user.email).toBe(`new-${identity.email}`);

    // An account with a password is never taken over by an external identity with its email.
    const email = `owned-${Date.now()}@example.com`;
    await signUp(db(), { name: "Own", email, password: "0123456789" });
    await expect(
      provisionExternalUser(db(), { ...identity, subject: `other-${Date.now()}`, email }),
    ).rejects.toThrow(/cannot be linked/);
  });
});

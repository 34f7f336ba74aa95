import { db } from "../db";
import { userCaller, type UserCaller } from "./caller";
import { auth } from "../auth/next-auth";

/**
 * The console's signed-in user, rechecked against the database on every call: a deleted or
 * suspended account is signed out at once. Null when nobody is signed in.
 */
export async function currentUser(): Promise<UserCaller | null> {
  const session = await auth();
  const userId = session?.userId;
  if (!userId || !Number.isInteger(userId)) return null;
  const user = await db().user.findUnique({ where: { id: userId } });
  if (!user || user.suspendedAt) return null;
  return userCaller(user);
}

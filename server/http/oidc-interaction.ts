import { db } from "../db";
import { env } from "../env";
import { DomainError } from "../errors";
import { clientAddress } from "../lib/client-address";
import { consumeRateLimit } from "../lib/rate-limit";
import { checkPassword, signUp } from "../auth/accounts";
import { oidcProvider } from "../auth/oidc-provider";

/** Password attempts per email per minute, and sign-ups per client address per minute. */
export const LOGIN_ATTEMPTS_PER_MINUTE = 10;
export const SIGNUPS_PER_MINUTE = 20;

/** True when this attempt is within the limit (the shared one-minute window table). */
async function withinLimit(bucket: string, limit: number): Promise<boolean> {
  try {
    await consumeRateLimit(db(), bucket.slice(0, 200), limit);
    return true;
  } catch (error) {
    if (error instanceof DomainError && error.code === "rate_limited") return false;
    throw error;
  }
}

const see = (location: string) =>
  new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

async function form(request: Request): Promise<Record<string, string>> {
  const data = await request.formData().catch(() => null);
  const out: Record<string, string> = {};
  data?.forEach((value, key) => {
    if (typeof value === "string") out[key] = value;
  });
  return out;
}

/** Finishes the provider's login prompt for an account, back to where the provider was. */
async function finishLogin(uid: string, accountId: number): Promise<Response> {
  const provider = await oidcProvider();
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) return see(`/interaction/${encodeURIComponent(uid)}`);
  interaction.result = { login: { accountId: String(accountId) } };
  await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
  return see(interaction.returnTo);
}

function back(uid: string, params: Record<string, string>): Response {
  const query = new URLSearchParams(params).toString();
  return see(`${env().publicBaseUrl}/interaction/${encodeURIComponent(uid)}?${query}`);
}

/** POST /interaction/{uid}/login: email and password. */
export async function handleLogin(request: Request, uid: string): Promise<Response> {
  const { email = "", password = "" } = await form(request);
  if (!(await withinLimit(`login:${email.trim().toLowerCase()}`, LOGIN_ATTEMPTS_PER_MINUTE))) {
    return back(uid, {
      mode: "signin",
      email: email.slice(0, 254),
      error: "Too many attempts for this email; wait a minute and try again.",
    });
  }
  const userId = email && password ? await checkPassword(db(), email, password) : null;
  if (userId === null) {
    return back(uid, {
      mode: "signin",
      email: email.slice(0, 254),
      error: "Wrong email or password.",
    });
  }
  return finishLogin(uid, userId);
}

/**
 * What a refused sign-up gives back to its form, so the person need not type it again: the name
 * and the email (cut to their longest allowed lengths), never the password.
 */
const typed = (fields: Record<string, string>) => ({
  name: (fields.name ?? "").slice(0, 100),
  email: (fields.email ?? "").slice(0, 254),
});

/** POST /interaction/{uid}/signup: name, email and password; signs the new account in. */
export async function handleSignUp(request: Request, uid: string): Promise<Response> {
  const fields = await form(request);
  if (!(await withinLimit(`signup:${clientAddress(request)}`, SIGNUPS_PER_MINUTE))) {
    return back(uid, {
      mode: "signup",
      ...typed(fields),
      error: "Too many sign-ups from here; wait a minute and try again.",
    });
  }
  const result = await signUp(db(), fields);
  if (!result.ok) {
    return back(uid, {
      mode: "signup",
      ...typed(fields),
      error: result.message,
      ...(result.field ? { field: result.field } : {}),
    });
  }
  return finishLogin(uid, result.userId);
}

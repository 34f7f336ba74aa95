import crypto from "node:crypto";

/** Upper-case letters and digits without look-alikes (0/O, 1/I): 1.6 idTags compare case-blind. */
const ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";

/**
 * A bill's charging token: the idToken its start hands the charger, and what a transaction is
 * matched to the bill by. 20 characters (OCPP 1.6 idTag is CiString20): "B" and 19 random ones,
 * 95 bits. It is a bearer secret: it never leaves the service except in the start call.
 */
export function newChargingToken(): string {
  let token = "B";
  while (token.length < 20) token += ALPHABET[crypto.randomInt(ALPHABET.length)];
  return token;
}

const SHAPE = new RegExp(`^B[${ALPHABET}]{19}$`);

/** A token as a charger presents it, in the form bills store (1.6 idTags compare case-blind). */
export function asChargingToken(idToken: string): string | null {
  const token = idToken.toUpperCase();
  return SHAPE.test(token) ? token : null;
}

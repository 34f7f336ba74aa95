import crypto from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A random base62 string (uniform: rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** String resource IDs: `<prefix>_<time-ordered part><random part>`. */
export function newId(
  prefix:
    | "key"
    | "op"
    | "whk"
    | "evt"
    | "dlv"
    | "gw"
    | "inv"
    | "bill"
    | "pay"
    | "job"
    | "run"
    | "cs"
    | "srp"
    | "pat"
    | "paa"
    | "sbs"
    | "dsp"
    | "tbc"
    | "dom"
    | "dor"
    | "cpr"
    | "dj"
    | "djb",
): string {
  const time = Date.now().toString(36).padStart(9, "0");
  return `${prefix}_${time}${randomBase62(14)}`;
}

export function sha256Hex(value: string): string {
  return crypto.createHash("sha256").update(value).digest("hex");
}

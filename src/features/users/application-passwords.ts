import { hmacSha256, toHex } from "../../lib/crypto";
import { randomString } from "../../lib/random";

/** 24 characters of [A-Za-z0-9]: about 143 bits, shown once. */
export function generateApplicationPassword(): string {
  return randomString(24);
}

/** Clients often paste passwords grouped with spaces; the spaces carry no meaning. */
export function normaliseSentPassword(sent: string): string {
  return sent.replace(/ /g, "");
}

/**
 * What is stored: HMAC-SHA256 under the PASSWORD_PEPPER secret. The passwords are long and random, so a slow KDF
 * adds nothing, and the keyed hash is deterministic, so one indexed lookup finds the user.
 */
export async function hashApplicationPassword(pepper: string, password: string): Promise<string> {
  return toHex(await hmacSha256(pepper, normaliseSentPassword(password)));
}

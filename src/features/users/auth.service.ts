import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { insertFrom } from "../../db/client";
import { applicationPasswords, users } from "../../db/schema";
import { secretsEqual } from "../../lib/crypto";
import { hashApplicationPassword, normaliseSentPassword } from "./application-passwords";
import type { AuthUser } from "../../domain/authority";
import type { Deps } from "../../platform/deps";

type UserRow = typeof users.$inferSelect;

interface PasswordMatch {
  user: UserRow;
  passwordId: number;
  lastUsedAt: number | null;
}

/**
 * The user of a password, read from D1 on every call: nothing about passwords is cached in the isolate, so a
 * revoked password (or a deleted user) is refused from the very next call.
 */
function findByPasswordHash({ db }: Deps, passwordHash: string): Promise<PasswordMatch | undefined> {
  return db
    .select({ user: users, passwordId: applicationPasswords.id, lastUsedAt: applicationPasswords.lastUsedAt })
    .from(applicationPasswords)
    .innerJoin(users, eq(users.id, applicationPasswords.userId))
    .where(eq(applicationPasswords.passwordHash, passwordHash))
    .get();
}

/** `last_used_at` is kept to the minute: fresher than this, a sign-in writes nothing. */
const LAST_USED_RESOLUTION_S = 60;

/**
 * Records a use of the password, unless one was recorded within the last minute. The sign-in already read the
 * stamp, so most calls skip this write; the condition in the UPDATE keeps parallel calls from writing twice.
 */
export async function touchApplicationPassword({ db, now }: Deps, passwordId: number): Promise<void> {
  const at = now();
  await db
    .update(applicationPasswords)
    .set({ lastUsedAt: at })
    .where(and(eq(applicationPasswords.id, passwordId), or(isNull(applicationPasswords.lastUsedAt), lt(applicationPasswords.lastUsedAt, at - LAST_USED_RESOLUTION_S))));
}

/** A user signs in with its username or its email, in any letter case. */
function namesUser(user: UserRow, sentUsername: string): boolean {
  const sent = sentUsername.toLowerCase();
  return sent === user.username.toLowerCase() || (user.email !== "" && sent === user.email.toLowerCase());
}

/**
 * The first administrator comes from the ADMIN_USERNAME / ADMIN_PASSWORD secrets, created on the first call that
 * presents exactly those while no such user exists. Two first calls may race: both writes are INSERT OR IGNORE.
 */
async function bootstrapAdministrator(deps: Deps, sentUsername: string, sentPassword: string, passwordHash: string) {
  const admin = deps.config.bootstrapAdmin;
  if (!admin || sentUsername.toLowerCase() !== admin.username.toLowerCase()) return false;
  if (!(await secretsEqual(normaliseSentPassword(sentPassword), normaliseSentPassword(admin.password)))) return false;
  const { db } = deps;
  const existing = await db.select({ id: users.id }).from(users).where(sql`lower(${users.username}) = lower(${admin.username})`).get();
  if (existing) return false;
  const createdAt = deps.now();
  await db.batch([
    db.insert(users).values({ username: admin.username, email: admin.email, role: "administrator", authorisedEvents: [], createdAt }).onConflictDoNothing(),
    insertFrom(
      db,
      applicationPasswords,
      { userId: users.id, name: "bootstrap", passwordHash, uuid: crypto.randomUUID(), createdAt },
      sql`${users}`,
      and(sql`lower(${users.username}) = lower(${admin.username})`, eq(users.role, "administrator")),
    ).onConflictDoNothing(),
  ]);
  return true;
}

export function toAuthUser(user: UserRow): AuthUser {
  return { id: user.id, username: user.username, role: user.role, authorisedEvents: user.authorisedEvents };
}

/** Who signed in, and with which application password (a console session remembers it, decisions.md 15). */
export interface SignedIn {
  user: UserRow;
  passwordId: number;
}

/**
 * The user and password behind a username and an application password, or null: an unknown user and a wrong
 * password are indistinguishable. A successful sign-in stamps the password's `last_used_at` off the response path;
 * that write never fails the call.
 */
export async function signIn(deps: Deps, sentUsername: string, sentPassword: string): Promise<SignedIn | null> {
  const passwordHash = await hashApplicationPassword(deps.config.passwordPepper, sentPassword);
  let match = await findByPasswordHash(deps, passwordHash);
  if (!match && (await bootstrapAdministrator(deps, sentUsername, sentPassword, passwordHash))) {
    match = await findByPasswordHash(deps, passwordHash);
  }
  if (!match || !namesUser(match.user, sentUsername)) return null;
  if (match.lastUsedAt === null || match.lastUsedAt < deps.now() - LAST_USED_RESOLUTION_S) {
    deps.defer(() => touchApplicationPassword(deps, match.passwordId));
  }
  return { user: match.user, passwordId: match.passwordId };
}

/** The user behind Basic credentials, or null (see `signIn`). */
export async function authenticate(deps: Deps, sentUsername: string, sentPassword: string): Promise<AuthUser | null> {
  const signedIn = await signIn(deps, sentUsername, sentPassword);
  return signedIn && toAuthUser(signedIn.user);
}

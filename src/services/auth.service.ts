import { and, eq, sql } from "drizzle-orm";
import { insertFrom } from "../db/client";
import { applicationPasswords, users } from "../db/schema";
import { secretsEqual } from "../lib/crypto";
import { hashApplicationPassword, normaliseSentPassword } from "./application-passwords";
import type { AuthUser } from "./authority";
import type { Deps } from "./deps";

type UserRow = typeof users.$inferSelect;

function findByPasswordHash({ db }: Deps, passwordHash: string): Promise<UserRow | undefined> {
  return db
    .select({ user: users })
    .from(applicationPasswords)
    .innerJoin(users, eq(users.id, applicationPasswords.userId))
    .where(eq(applicationPasswords.passwordHash, passwordHash))
    .get()
    .then((row) => row?.user);
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
  const existing = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.username}) = lower(${admin.username})`)
    .get();
  if (existing) return false;
  const createdAt = deps.now();
  await db.batch([
    db
      .insert(users)
      .values({ username: admin.username, email: admin.email, role: "administrator", authorisedEvents: [], createdAt })
      .onConflictDoNothing(),
    insertFrom(
      db,
      applicationPasswords,
      { userId: users.id, name: "bootstrap", passwordHash, createdAt },
      sql`${users}`,
      and(sql`lower(${users.username}) = lower(${admin.username})`, eq(users.role, "administrator")),
    ).onConflictDoNothing(),
  ]);
  return true;
}

export function toAuthUser(user: UserRow): AuthUser {
  return { id: user.id, username: user.username, role: user.role, authorisedEvents: user.authorisedEvents };
}

/** The user behind Basic credentials, or null: an unknown user and a wrong password are indistinguishable. */
export async function authenticate(deps: Deps, sentUsername: string, sentPassword: string): Promise<AuthUser | null> {
  const passwordHash = await hashApplicationPassword(deps.config.passwordPepper, sentPassword);
  let user = await findByPasswordHash(deps, passwordHash);
  if (!user && (await bootstrapAdministrator(deps, sentUsername, sentPassword, passwordHash))) {
    user = await findByPasswordHash(deps, passwordHash);
  }
  return user && namesUser(user, sentUsername) ? toAuthUser(user) : null;
}


import { and, eq, lt } from "drizzle-orm";
import { applicationPasswords, consoleSessions, users } from "../../db/schema";
import type { UserRow } from "../../db/rows";
import { secretsEqual, sha256Hex } from "../../lib/crypto";
import { randomString } from "../../lib/random";
import type { Deps } from "../../platform/deps";
import type { SignedIn } from "./auth.service";

/**
 * Browser sessions of the organiser console (decisions.md 15 "The organiser console"). The session token (the
 * cookie) and the CSRF token are 43 random characters each (about 256 bits); only their SHA-256 is stored, so a
 * copy of the database signs no one in. A plain hash suffices: the tokens are random and long, not guessable.
 */

/** 12 hours without use end a session (decisions.md 15). */
const SESSION_IDLE_S = 12 * 60 * 60;

/** `last_used_at` is kept to the minute: a session used again within it writes nothing. */
const LAST_USED_RESOLUTION_S = 60;

const TOKEN_LENGTH = 43;

export interface NewSession {
  token: string;
  csrfToken: string;
}

/**
 * Opens a session for a signed-in user: always fresh tokens made here (a value the client chose is never stored,
 * so a planted cookie can never become a session). Sessions idle for 12 hours are swept in the same batch.
 */
export async function openSession(deps: Deps, { user, passwordId }: SignedIn): Promise<NewSession> {
  const { db } = deps;
  const token = randomString(TOKEN_LENGTH);
  const csrfToken = randomString(TOKEN_LENGTH);
  const at = deps.now();
  await db.batch([
    db.delete(consoleSessions).where(lt(consoleSessions.lastUsedAt, at - SESSION_IDLE_S)),
    db.insert(consoleSessions).values({
      tokenHash: await sha256Hex(token),
      csrfHash: await sha256Hex(csrfToken),
      userId: user.id,
      passwordId,
      createdAt: at,
      lastUsedAt: at,
    }),
  ]);
  return { token, csrfToken };
}

export interface LiveSession {
  id: number;
  user: UserRow;
  csrfHash: string;
}

/**
 * The live session a cookie names, or undefined: unknown, idle for 12 hours, or its user or application password
 * gone. The inner joins make the last check at use as well, beside the cascading deletes of the schema.
 */
export async function findSession(deps: Deps, token: string): Promise<LiveSession | undefined> {
  const { db } = deps;
  const at = deps.now();
  const row = await db
    .select({ id: consoleSessions.id, user: users, csrfHash: consoleSessions.csrfHash, lastUsedAt: consoleSessions.lastUsedAt })
    .from(consoleSessions)
    .innerJoin(users, eq(users.id, consoleSessions.userId))
    .innerJoin(applicationPasswords, eq(applicationPasswords.id, consoleSessions.passwordId))
    .where(eq(consoleSessions.tokenHash, await sha256Hex(token)))
    .get();
  if (!row) return undefined;
  if (row.lastUsedAt < at - SESSION_IDLE_S) {
    deps.defer(() => db.delete(consoleSessions).where(eq(consoleSessions.id, row.id)));
    return undefined;
  }
  if (row.lastUsedAt < at - LAST_USED_RESOLUTION_S) {
    // The condition keeps parallel calls from writing twice; off the response path like the password's stamp.
    deps.defer(() =>
      db
        .update(consoleSessions)
        .set({ lastUsedAt: at })
        .where(and(eq(consoleSessions.id, row.id), lt(consoleSessions.lastUsedAt, at - LAST_USED_RESOLUTION_S))),
    );
  }
  return { id: row.id, user: row.user, csrfHash: row.csrfHash };
}

/** The `X-Ticketing-CSRF` header against the session's token, in constant time. */
export async function csrfMatches(session: LiveSession, sent: string | undefined): Promise<boolean> {
  if (sent === undefined || sent === "") return false;
  return secretsEqual(await sha256Hex(sent), session.csrfHash);
}

/** Signing out deletes the row: the cookie is worth nothing from then on, wherever a copy of it is. */
export async function closeSession({ db }: Deps, session: LiveSession): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.id, session.id));
}

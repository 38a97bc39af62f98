import { and, asc, eq, sql } from "drizzle-orm";
import { isUniqueViolation } from "../../db/client";
import { applicationPasswords, users, type Role } from "../../db/schema";
import { conflict, fail, invalidId } from "../../domain/errors";
import { generateApplicationPassword, hashApplicationPassword } from "./application-passwords";
import type { Deps } from "../../platform/deps";
import { assertEventsExist } from "../catalogue/event-references";
import type { ApplicationPasswordRow, UserRow } from "../../db/rows";

export interface NewUser {
  username: string;
  email: string;
  name: string;
  role: Role;
  authorisedEvents: number[];
}

export type UserChanges = Partial<Pick<NewUser, "email" | "name" | "role" | "authorisedEvents">>;

const LOGIN_TAKEN = "A user with that username or email already exists.";
const LAST_ADMINISTRATOR = "The last administrator cannot be removed or demoted.";

export function listUsers({ db }: Deps): Promise<UserRow[]> {
  return db.select().from(users).orderBy(asc(users.id));
}

export async function getUser({ db }: Deps, id: number): Promise<UserRow> {
  const row = await db.select().from(users).where(eq(users.id, id)).get();
  if (!row) throw invalidId("user");
  return row;
}

/** Creates the user and its first application password in one batch; the password is returned once. */
export async function createUser(deps: Deps, input: NewUser): Promise<{ user: UserRow; password: string }> {
  const { db, config } = deps;
  await assertEventsExist(deps, "authorised_events", input.authorisedEvents);
  const password = generateApplicationPassword();
  const passwordHash = await hashApplicationPassword(config.passwordPepper, password);
  const createdAt = deps.now();
  try {
    const [inserted] = await db.batch([
      db
        .insert(users)
        .values({ ...input, createdAt })
        .returning(),
      db.insert(applicationPasswords).values({
        userId: sql`(SELECT id FROM users WHERE lower(username) = lower(${input.username}))`,
        name: "initial",
        passwordHash,
        uuid: crypto.randomUUID(),
        createdAt,
      }),
    ]);
    return { user: inserted[0]!, password };
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(LOGIN_TAKEN);
    throw err;
  }
}

/** Another application password for the user; earlier ones stay valid. */
export async function addApplicationPassword(deps: Deps, userId: number, name: string): Promise<{ password: string; uuid: string }> {
  await getUser(deps, userId);
  const password = generateApplicationPassword();
  const uuid = crypto.randomUUID();
  await deps.db.insert(applicationPasswords).values({
    userId,
    name,
    passwordHash: await hashApplicationPassword(deps.config.passwordPepper, password),
    uuid,
    createdAt: deps.now(),
  });
  return { password, uuid };
}

export async function listApplicationPasswords(deps: Deps, userId: number): Promise<ApplicationPasswordRow[]> {
  const rows = await deps.db.select().from(applicationPasswords).where(eq(applicationPasswords.userId, userId)).orderBy(asc(applicationPasswords.id));
  if (rows.length === 0) await getUser(deps, userId); // none left, or no such user
  return rows;
}

const passwordNotFound = () => fail.rest_application_password_not_found();

/**
 * Revokes one password of the user. Sign-ins read D1 every time, so the next call with it is refused. A uuid of
 * another user's password is not found here, like an unknown one.
 */
export async function revokeApplicationPassword(deps: Deps, userId: number, uuid: string): Promise<ApplicationPasswordRow> {
  const removed = await deps.db
    .delete(applicationPasswords)
    .where(and(eq(applicationPasswords.userId, userId), eq(applicationPasswords.uuid, uuid)))
    .returning()
    .get();
  if (removed) return removed;
  await getUser(deps, userId); // an unknown user is that user's 404
  throw passwordNotFound();
}

/** Demoting the last administrator would leave nobody able to manage users; the check is in the UPDATE itself. */
const anotherAdministratorExists = (id: number) => sql`EXISTS (SELECT 1 FROM users AS others WHERE others.role = 'administrator' AND others.id <> ${id})`;

export async function updateUser(deps: Deps, current: UserRow, changes: UserChanges): Promise<UserRow> {
  const id = current.id;
  if (Object.keys(changes).length === 0) return current;
  if (changes.authorisedEvents) await assertEventsExist(deps, "authorised_events", changes.authorisedEvents);
  const demotes = current.role === "administrator" && changes.role !== undefined && changes.role !== "administrator";
  try {
    const updated = await deps.db
      .update(users)
      .set(changes)
      .where(demotes ? and(eq(users.id, id), anotherAdministratorExists(id)) : eq(users.id, id))
      .returning()
      .get();
    if (updated) return updated;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(LOGIN_TAKEN);
    throw err;
  }
  if (demotes) throw conflict(LAST_ADMINISTRATOR);
  throw invalidId("user"); // deleted meanwhile
}

/** Deletes the user; its application passwords go with it (ON DELETE CASCADE), so all are revoked at once. */
export async function deleteUser(deps: Deps, id: number): Promise<UserRow> {
  const current = await getUser(deps, id);
  const isAdmin = current.role === "administrator";
  const removed = await deps.db
    .delete(users)
    .where(isAdmin ? and(eq(users.id, id), anotherAdministratorExists(id)) : eq(users.id, id))
    .returning({ id: users.id });
  if (removed.length === 0) throw isAdmin ? conflict(LAST_ADMINISTRATOR) : invalidId("user");
  return current;
}

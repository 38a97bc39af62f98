import { z } from "zod";
import { ROLES } from "../../db/schema";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { hasControlCharacter, INVALID_NAME } from "../../lib/control-characters";
import { formatDateTime } from "../../lib/time";
import type { NewUser, UserChanges } from "./users.service";
import { emailAddress, eventIdList } from "../../http/field-types";
import type { ApplicationPasswordRow, UserRow } from "../../db/rows";

const username = z
  .string()
  .trim()
  .min(1, "is required")
  .max(60, "must be at most 60 characters")
  .regex(/^[A-Za-z0-9._@+-]+$/, "may contain only letters, digits and . _ @ + -");

const displayName = z
  .string()
  .trim()
  .max(100, "must be at most 100 characters")
  .refine((s) => !hasControlCharacter(s), INVALID_NAME);

/** Fields a client reads but never sets; `username` is chosen once, at creation. */
export const USER_CREATE_READ_ONLY = ["id", "created"] as const;
export const USER_UPDATE_READ_ONLY = ["id", "username", "created"] as const;

export const createUserBody = z.strictObject({
  username,
  email: emailAddress,
  role: z.enum(ROLES),
  name: displayName.default(""),
  authorised_events: eventIdList.default([]),
});

export const updateUserBody = z
  .strictObject({
    email: emailAddress,
    name: displayName,
    role: z.enum(ROLES),
    authorised_events: eventIdList,
  })
  .partial();

export const applicationPasswordBody = z.strictObject({
  name: z.string().trim().max(100, "must be at most 100 characters").default(""),
});

export function toNewUser(body: z.output<typeof createUserBody>): NewUser {
  return { username: body.username, email: body.email, name: body.name, role: body.role, authorisedEvents: body.authorised_events };
}

export function toUserChanges(body: z.output<typeof updateUserBody>): UserChanges {
  const changes: UserChanges = {};
  if (body.email !== undefined) changes.email = body.email;
  if (body.name !== undefined) changes.name = body.name;
  if (body.role !== undefined) changes.role = body.role;
  if (body.authorised_events !== undefined) changes.authorisedEvents = body.authorised_events;
  return changes;
}

/** A user as the API shows it; never any password. */
export function presentUser(c: LinkBase, user: UserRow, timezone: string) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    name: user.name,
    role: user.role,
    authorised_events: user.authorisedEvents,
    created: formatDateTime(user.createdAt, timezone),
    _links: selfAndCollection(c, `/admin/users/${user.id}`, "/admin/users"),
  };
}

/** An application password as its list shows it (decisions.md 14): never the password or its hash. */
export function presentApplicationPassword(p: ApplicationPasswordRow, timezone: string) {
  return {
    uuid: p.uuid,
    name: p.name,
    created_at: formatDateTime(p.createdAt, timezone),
    last_used_at: p.lastUsedAt === null ? null : formatDateTime(p.lastUsedAt, timezone),
  };
}

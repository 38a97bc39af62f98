import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** D1 schema. Date-times are UTC epoch seconds; money is integer cents; columns are snake_case. */

export const ROLES = ["administrator", "organizer"] as const;
export type Role = (typeof ROLES)[number];

export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    username: text("username").notNull(),
    email: text("email").notNull(),
    name: text("name").notNull().default(""),
    role: text("role", { enum: ROLES }).notNull(),
    authorisedEvents: text("authorised_events", { mode: "json" }).$type<number[]>().notNull().default(sql`'[]'`),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // Usernames and emails are unique case-insensitively; a username may not equal another user's email
    // either, which the users service enforces in the same statement that writes.
    uniqueIndex("users_username_unique").on(sql`lower(${t.username})`),
    uniqueIndex("users_email_unique").on(sql`lower(${t.email})`).where(sql`email <> ''`),
  ],
);

export const applicationPasswords = sqliteTable(
  "application_passwords",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull().default(""),
    // HMAC-SHA256(PASSWORD_PEPPER, password) in hex: one indexed lookup finds the user.
    passwordHash: text("password_hash").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("application_passwords_hash_unique").on(t.passwordHash), index("application_passwords_user").on(t.userId)],
);

export const logs = sqliteTable(
  "logs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().default(0),
    orderId: integer("order_id").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    logType: text("log_type").notNull(),
    description: text("description").notNull(),
  },
  (t) => [index("logs_created").on(t.createdAt), index("logs_order").on(t.orderId), index("logs_event").on(t.eventId)],
);

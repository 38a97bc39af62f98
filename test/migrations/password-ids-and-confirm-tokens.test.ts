import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Migration 0017 on rows written before it: application passwords get uuids; orders still awaiting confirmation get
 * a token, and their queued confirmation emails a link with it (the uid no longer confirms, decisions.md 14).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ORIGIN = "http://ticketing.test/ticketing/v1";
const db = env.MIGRATION_TEST_DB;
const migrations = env.TEST_MIGRATIONS;
const at = migrations.findIndex((m) => m.name.startsWith("0017_"));

const link = (key: string) => `${ORIGIN}/orders/confirm/${key}`;
const body = (uid: string) => `<p><a href="${link(uid)}">Confirm</a> or open ${link(uid)}</p>`;
const rows = <T>(sql: string) =>
  db
    .prepare(sql)
    .all<T>()
    .then((r) => r.results);

beforeAll(async () => {
  expect(at, "migration 0017 exists").toBeGreaterThan(0);
  await applyD1Migrations(db, migrations.slice(0, at));
  await db.batch(
    [
      `INSERT INTO users (id, username, email, role, created_at) VALUES (1, 'ann', 'ann@example.com', 'administrator', 100)`,
      `INSERT INTO application_passwords (id, user_id, name, password_hash, created_at) VALUES
        (1, 1, 'initial', 'hash-1', 100), (2, 1, 'phone', 'hash-2', 200), (3, 1, '', 'hash-3', 300)`,
      `INSERT INTO orders (id, event_id, uid, payment_status, name, email, awaits_confirmation, created_at) VALUES
        (1, 1, 'UidAwaitingOne', 'booked', 'Ann', 'ann@example.com', 1, 100),
        (2, 1, 'UidAwaitingTwo', 'dashboard', 'Bob', 'bob@example.com', 1, 100),
        (3, 1, 'UidConfirmed', 'booked - confirmed', 'Cy', 'cy@example.com', 0, 100),
        (4, 1, 'UidPaid', 'paid', 'Di', 'di@example.com', 0, 100)`,
      `INSERT INTO emails (id, "to", subject, body, status, order_id, created_at, due_at) VALUES
        (1, 'ann@example.com', 'Confirm', '${body("UidAwaitingOne")}', 'queued', 1, 100, 100),
        (2, 'bob@example.com', 'Confirm', '${body("UidAwaitingTwo")}', 'sent', 2, 100, 100),
        (3, 'cy@example.com', 'Confirm', '${body("UidConfirmed")}', 'queued', 3, 100, 100),
        (4, 'di@example.com', 'Order', '<p>${ORIGIN}/tickets/UidPaid</p>', 'queued', 4, 100, 100)`,
    ].map((sql) => db.prepare(sql)),
  );
  await applyD1Migrations(db, migrations.slice(0, at + 1));
});

describe("migration 0017 on existing rows", () => {
  it("gives every application password its own random uuid and no last use, keeping the rest", async () => {
    const passwords = await rows<Record<string, unknown>>(`SELECT * FROM application_passwords ORDER BY id`);
    expect(passwords.map(({ uuid: _, ...rest }) => rest)).toEqual([
      { id: 1, user_id: 1, name: "initial", password_hash: "hash-1", created_at: 100, last_used_at: null },
      { id: 2, user_id: 1, name: "phone", password_hash: "hash-2", created_at: 200, last_used_at: null },
      { id: 3, user_id: 1, name: "", password_hash: "hash-3", created_at: 300, last_used_at: null },
    ]);
    for (const p of passwords) expect(p.uuid).toMatch(UUID);
    expect(new Set(passwords.map((p) => p.uuid)).size).toBe(3);
    // The user's passwords still go with the user.
    await db.prepare(`DELETE FROM users WHERE id = 1`).run();
    expect(await rows(`SELECT id FROM application_passwords`)).toEqual([]);
  });

  it("gives orders awaiting confirmation a token of their own, and no other order one", async () => {
    const orders = await rows<{ id: number; confirm_token: string | null }>(`SELECT id, confirm_token FROM orders ORDER BY id`);
    const [one, two, confirmed, paid] = orders.map((o) => o.confirm_token);
    expect(one).toMatch(/^[0-9A-F]{40}$/);
    expect(two).toMatch(/^[0-9A-F]{40}$/);
    expect(one).not.toBe(two);
    expect([confirmed, paid]).toEqual([null, null]);
  });

  it("rewrites the link of a confirmation email still queued; sent emails and other orders' emails stay as they were", async () => {
    const [order] = await rows<{ confirm_token: string }>(`SELECT confirm_token FROM orders WHERE id = 1`);
    const token = order!.confirm_token;
    const emails = await rows<{ id: number; body: string }>(`SELECT id, body FROM emails ORDER BY id`);
    expect(emails[0]!.body).toBe(`<p><a href="${link(token)}">Confirm</a> or open ${link(token)}</p>`);
    expect(emails[1]!.body).toBe(body("UidAwaitingTwo"));
    expect(emails[2]!.body).toBe(body("UidConfirmed"));
    expect(emails[3]!.body).toBe(`<p>${ORIGIN}/tickets/UidPaid</p>`);
  });
});

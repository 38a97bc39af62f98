import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The migration that gives coupons an owner (decisions.md 15 "Coupon codes are private to their owner"), on rows
 * written before it. The creating user was never recorded, so each coupon goes to the organizer who could see it
 * before (one authorised for all of its events; the lowest id when several were), else to the administrators
 * (owner 0): a coupon without events, or one no single organizer covered.
 */

const d1 = env.COUPONS_MIGRATION_TEST_DB;
const migrations = env.TEST_MIGRATIONS;
// Found by name: the lead numbers migrations on merge.
const at = migrations.findIndex((m) => m.name.includes("_coupon_owners"));

const rows = <T>(sql: string) =>
  d1
    .prepare(sql)
    .all<T>()
    .then((r) => r.results);

const coupon = (id: number, code: string, events: number[]) => `(${id}, '${code}', '${code.toLowerCase()}', 'fixed', '${JSON.stringify(events)}', 100, 100)`;

beforeAll(async () => {
  expect(at, "the coupon_owners migration exists").toBeGreaterThan(0);
  await applyD1Migrations(d1, migrations.slice(0, at));
  await d1.batch(
    [
      `INSERT INTO users (id, username, email, role, authorised_events, created_at) VALUES
        (1, 'root', 'root@example.com', 'administrator', '[]', 100),
        (2, 'ann', 'ann@example.com', 'organizer', '[1,2]', 100),
        (3, 'bob', 'bob@example.com', 'organizer', '[2,3]', 100),
        (4, 'cy', 'cy@example.com', 'administrator', '[1,2,3]', 100)`,
      `INSERT INTO coupons (id, code, code_key, type, events, created_at, modified_at) VALUES
        ${[
          coupon(1, "Everywhere", []),
          coupon(2, "AnnOnly", [1]),
          coupon(3, "Shared", [2]),
          coupon(4, "BobOnly", [3]),
          coupon(5, "Across", [1, 3]),
          coupon(6, "Nobody", [9]),
          coupon(7, "AnnBoth", [1, 2]),
        ].join(",\n        ")}`,
    ].map((sql) => d1.prepare(sql)),
  );
  await applyD1Migrations(d1, migrations.slice(0, at + 1));
});

describe("the coupon_owners migration on existing coupons", () => {
  it("gives each coupon the organizer who could see it (the lowest id of several), else the administrators (0)", async () => {
    expect(await rows(`SELECT id, owner_id FROM coupons ORDER BY id`)).toEqual([
      { id: 1, owner_id: 0 },
      { id: 2, owner_id: 2 },
      { id: 3, owner_id: 2 },
      { id: 4, owner_id: 3 },
      { id: 5, owner_id: 0 },
      { id: 6, owner_id: 0 },
      { id: 7, owner_id: 2 },
    ]);
  });

  it("keeps codes unique per owner only", async () => {
    await d1.prepare(`INSERT INTO coupons (code, code_key, type, owner_id, created_at, modified_at) VALUES ('ANNONLY', 'annonly', 'fixed', 3, 200, 200)`).run();
    await expect(
      d1.prepare(`INSERT INTO coupons (code, code_key, type, owner_id, created_at, modified_at) VALUES ('annonly', 'annonly', 'fixed', 2, 200, 200)`).run(),
    ).rejects.toThrow(/UNIQUE/);
    expect(await rows(`SELECT owner_id FROM coupons WHERE code_key = 'annonly' ORDER BY owner_id`)).toEqual([{ owner_id: 2 }, { owner_id: 3 }]);
  });
});

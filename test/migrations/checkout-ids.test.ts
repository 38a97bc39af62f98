import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The migration that keeps each order's checkout (`orders.checkout_id`, decisions.md 15 "Payments are matched, not
 * trusted") on rows written before it: an order still waiting (open, expired) has the checkout as its payment id, so
 * a late or repeated notice for it is matched as for new orders; a paid Stripe order's payment id is the payment
 * intent, which is no checkout.
 */

const db = env.CHECKOUT_MIGRATION_TEST_DB;
const migrations = env.TEST_MIGRATIONS;
const at = migrations.findIndex((m) => m.name.includes("_payment_matching_and_open_orders"));

beforeAll(async () => {
  expect(at, "the migration exists").toBeGreaterThan(0);
  await applyD1Migrations(db, migrations.slice(0, at));
  await db
    .prepare(
      `INSERT INTO orders (id, event_id, uid, payment_id, payment_status, name, email, created_at) VALUES
        (1, 1, 'UidOpenStripe', 'cs_test_open', 'open', 'Ann', 'ann@example.com', 100),
        (2, 1, 'UidExpiredStripe', 'cs_test_expired', 'expired', 'Bob', 'bob@example.com', 100),
        (3, 1, 'UidPaidStripe', 'pi_paid', 'paid', 'Cy', 'cy@example.com', 100),
        (4, 1, 'UidOpenTest', 'test_UidOpenTest', 'open', 'Di', 'di@example.com', 100),
        (5, 1, 'UidBooked', '', 'booked', 'Ed', 'ed@example.com', 100),
        (6, 1, 'UidDashboard', 'tr_123', 'dashboard', 'Fay', 'fay@example.com', 100)`,
    )
    .run();
  await applyD1Migrations(db, migrations.slice(0, at + 1));
});

describe("the checkout-id migration on existing orders", () => {
  it("keeps the checkout of orders whose payment id is one (Stripe cs_, test_), and none for the rest", async () => {
    const rows = await db.prepare(`SELECT id, payment_id, checkout_id FROM orders ORDER BY id`).all();
    expect(rows.results).toEqual([
      { id: 1, payment_id: "cs_test_open", checkout_id: "cs_test_open" },
      { id: 2, payment_id: "cs_test_expired", checkout_id: "cs_test_expired" },
      { id: 3, payment_id: "pi_paid", checkout_id: "" },
      { id: 4, payment_id: "test_UidOpenTest", checkout_id: "test_UidOpenTest" },
      { id: 5, payment_id: "", checkout_id: "" },
      { id: 6, payment_id: "tr_123", checkout_id: "" },
    ]);
  });
});

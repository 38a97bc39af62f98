import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/client";
import { salesTotals, scanTotals } from "../../src/features/catalogue/event-totals";
import { salesReport, scansReport } from "../../src/features/reports/reports.service";
import type { Deps } from "../../src/platform/deps";
import { recountSales, recountSalesTotals, recountScans, recountScanTotals } from "../helpers/report-recount";

/**
 * Migration 0023 on rows written before it: the report counters start from the orders, tickets and scans already
 * there (every status, awaiting confirmation, lines of count 0, a passe-partout's child tickets, tickets whose order
 * is gone or not final, scans of deleted tickets and at another event), and its triggers keep them from then on.
 */

const d1 = env.COUNTERS_MIGRATION_TEST_DB;
const db = openDb(d1);
const deps = { db } as unknown as Deps;
const migrations = env.TEST_MIGRATIONS;
const at = migrations.findIndex((m) => m.name.startsWith("0023_"));
const EVENTS = [1, 2, 3];

const line = (typeId: string, name: string, unitCents: number, count: number) => ({ typeId, name, unitCents, vatHundredths: 0, isCounted: true, count });

async function expectCountersEqualRecount(): Promise<void> {
  for (const ids of [[1], [2], [3], EVENTS]) {
    expect(await salesReport(deps, ids), `sales of ${ids}`).toStrictEqual(await recountSales(db, ids));
    expect(await scansReport(deps, ids), `scans of ${ids}`).toStrictEqual(await recountScans(db, ids));
  }
  for (const id of EVENTS) {
    expect(await salesTotals(deps, id), `sales totals of ${id}`).toStrictEqual(await recountSalesTotals(db, id));
    expect(await scanTotals(deps, id), `scan totals of ${id}`).toStrictEqual(await recountScanTotals(db, id));
  }
}

beforeAll(async () => {
  expect(at, "migration 0023 exists").toBeGreaterThan(0);
  await applyD1Migrations(d1, migrations.slice(0, at));
  const orders: [number, number, string, number, unknown[], number][] = [
    // id, event, status, awaits confirmation, lines, total cents
    [1, 1, "paid", 0, [line("va0001", "Adult", 2500, 2), line("va0002", "Child", 1250, 0)], 5000],
    [2, 1, "dashboard", 0, [line("va0001", "Adult", 2500, 1), line("va0002", "Child", 1250, 2)], 4000],
    [3, 1, "open", 0, [line("va0001", "Adult", 2500, 3)], 7500],
    [4, 1, "refunded", 0, [line("va0002", "Child", 1250, 1)], 1250],
    [5, 2, "booked", 1, [line("vb0001", "Guest", 0, 2)], 0],
    [6, 2, "booked - confirmed", 0, [line("vb0001", "Guest", 0, 1)], 0],
    // A passe-partout order at event 3 whose child tickets are at events 1 and 2.
    [7, 3, "paid", 0, [line("vc0001", "Pass", 5000, 1)], 5000],
    [8, 3, "expired", 0, [line("vc0001", "Pass", 5000, 2)], 10000],
  ];
  const tickets: [string, number, number, string][] = [
    // id, order, event, type name as shown
    ["TktPaidAdult0001", 1, 1, "Adult"],
    ["TktPaidAdult0002", 1, 1, "Adult"],
    ["TktDashAdult0001", 2, 1, "Adult"],
    ["TktDashChild0001", 2, 1, "Child"],
    ["TktDashChild0002", 2, 1, "Child"],
    ["TktRefunded00001", 4, 1, "Child"],
    ["TktConfirmed0001", 6, 2, "Guest"],
    ["TktPassOwn000001", 7, 3, "Pass"],
    ["TktPassAtOne0001", 7, 1, "Pass"],
    ["TktPassAtTwo0001", 7, 2, "Pass"],
    ["TktOrderGone0001", 99, 1, "Adult"],
  ];
  const scans: [number, number, string, number, string][] = [
    // event, seq, ticket, level, location
    [1, 1, "TktPaidAdult0001", 0, "North"],
    [1, 2, "TktPaidAdult0001", 1, "VIP"],
    [1, 3, "TktDashChild0001", 0, "North"],
    [1, 4, "TktPassAtOne0001", 0, "South"],
    [1, 5, "TktRefunded00001", 0, "North"],
    [1, 6, "TktOrderGone0001", 0, "North"],
    [1, 7, "TktDeleted000001", 0, "North"],
    [1, 8, "TktPaidAdult0002", 6, "North"],
    [2, 1, "TktConfirmed0001", 0, "Door"],
    [2, 2, "TktPaidAdult0001", 0, "Door"],
    [3, 1, "TktPassOwn000001", 0, "Desk"],
    [3, 2, "TktPassOwn000001", 9, "Desk"],
  ];
  await d1.batch([
    ...orders.map(([id, eventId, status, waits, lines, cents]) =>
      d1
        .prepare(
          `INSERT INTO orders (id, event_id, uid, payment_status, name, email, email_key, lines, num_tickets, total_cents, awaits_confirmation, created_at)
           VALUES (?, ?, ?, ?, 'Buyer', 'buyer@example.com', 'buyer@example.com', ?, ?, ?, ?, 100)`,
        )
        .bind(
          id,
          eventId,
          `Uid${id}`.padEnd(40, "0"),
          status,
          JSON.stringify(lines),
          (lines as { count: number }[]).reduce((n, l) => n + l.count, 0),
          cents,
          waits,
        ),
    ),
    ...tickets.map(([id, orderId, eventId, type]) =>
      d1.prepare(`INSERT INTO tickets (id, order_id, event_id, ticket_type_id, ticket_type_name) VALUES (?, ?, ?, 'v00000', ?)`).bind(id, orderId, eventId, type),
    ),
    ...scans.map(([eventId, seq, ticket, level, location]) =>
      d1
        .prepare(
          `INSERT INTO scans (event_id, seq, ticket_id, order_id, ticket_type_id, ticket_type, level, location, scanned_at) VALUES (?, ?, ?, 0, 'v00000', 'x', ?, ?, 100)`,
        )
        .bind(eventId, seq, ticket, level, location),
    ),
  ]);
  await applyD1Migrations(d1, migrations.slice(0, at + 1));
});

describe("migration 0023 on existing rows", () => {
  it("counts what was there: every report and embedded total equals a recount", async () => {
    await expectCountersEqualRecount();
    // A few numbers by hand, so that the recount itself is not the only witness.
    expect(await salesTotals(deps, 1)).toStrictEqual({
      total_orders: 4,
      total_amount: 177.5,
      total_tickets: 9,
      final: { total_orders: 2, total_amount: 90, total_tickets: 5 },
    });
    expect(await scanTotals(deps, 1)).toStrictEqual({ tickets: 6, scanned_tickets: 4, unscanned_tickets: 2, total_scans: 5, scans_by_level: { "0": 3, "1": 1, "6": 1 } });
    expect(await scanTotals(deps, 2)).toStrictEqual({ tickets: 2, scanned_tickets: 1, unscanned_tickets: 1, total_scans: 1, scans_by_level: { "0": 1 } });
  });

  it("keeps counting afterwards: a payment, a scan, a refund, a deletion", async () => {
    await d1.batch([
      d1.prepare(`UPDATE orders SET payment_status = 'paid' WHERE id = 3`),
      d1.prepare(`INSERT INTO tickets (id, order_id, event_id, ticket_type_id, ticket_type_name) VALUES ('TktLatePaid00001', 3, 1, 'v00000', 'Adult')`),
    ]);
    await d1
      .prepare(
        `INSERT INTO scans (event_id, seq, ticket_id, order_id, ticket_type_id, ticket_type, level, location, scanned_at) VALUES (1, 9, 'TktLatePaid00001', 3, 'v', 'x', 0, 'South', 100)`,
      )
      .run();
    await d1.batch([d1.prepare(`DELETE FROM tickets WHERE order_id = 1`), d1.prepare(`UPDATE orders SET payment_status = 'refunded' WHERE id = 1`)]);
    await d1.prepare(`DELETE FROM orders WHERE id = 7`).run();
    await expectCountersEqualRecount();
    expect(await scanTotals(deps, 1)).toStrictEqual({ tickets: 4, scanned_tickets: 2, unscanned_tickets: 2, total_scans: 2, scans_by_level: { "0": 2 } });
  });
});

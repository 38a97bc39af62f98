import { and, asc, eq, gt, sql } from "drizzle-orm";
import { coupons, inputFields, orders, scans, tickets } from "../../db/schema";
import { csvMoney, csvRow, type CsvCell } from "../../lib/csv";
import { log } from "../../lib/log";
import { formatDateTime } from "../../lib/time";
import type { Deps } from "../../platform/deps";

/**
 * The CSV exports of an event (decisions.md 15 "The organiser console", docs/exports.md): a UTF-8 BOM, a header
 * row, then one row per order, ticket or scan, read from D1 in keyset pages of PAGE rows and written as each page
 * arrives, so an export holds one page in memory whatever the event's size. Date-times are in the service's
 * `TIMEZONE` as every date-time of the interface (decisions.md 3). The order's uid is left out: it opens the
 * customer's pages (a capability, not data).
 */

export type ExportKind = "orders" | "tickets" | "scans";

const PAGE = 1000;

interface Exporter {
  header: string[];
  /** The rows after keyset position `after` (null: from the start), and the position of the last. */
  page(after: number | null): Promise<{ rows: CsvCell[][]; last: number | null }>;
}

/** The event's input fields, order-level or personalised, in their order. */
async function fieldsOf({ db }: Deps, eventId: number, personalised: boolean) {
  return db
    .select({ id: inputFields.id, name: inputFields.name })
    .from(inputFields)
    .where(and(eq(inputFields.eventId, eventId), eq(inputFields.isPersonalised, personalised)))
    .orderBy(asc(inputFields.position), asc(inputFields.id));
}

async function ordersExporter(deps: Deps, eventId: number): Promise<Exporter> {
  const fields = await fieldsOf(deps, eventId, false);
  const timezone = deps.config.timezone;
  return {
    header: [
      "order_id",
      "created_at",
      "payment_status",
      "custom_status",
      "name",
      "email",
      "num_tickets",
      "total",
      "discount",
      "currency",
      "coupon",
      ...fields.map((f) => f.name),
    ],
    async page(after) {
      const rows = await deps.db
        .select({
          id: orders.id,
          createdAt: orders.createdAt,
          paymentStatus: orders.paymentStatus,
          customStatus: orders.customStatus,
          name: orders.name,
          email: orders.email,
          numTickets: orders.numTickets,
          totalCents: orders.totalCents,
          discountCents: orders.discountCents,
          currency: orders.currency,
          coupon: coupons.code,
          fields: orders.fields,
        })
        .from(orders)
        .leftJoin(coupons, eq(coupons.id, orders.couponId))
        .where(and(eq(orders.eventId, eventId), after === null ? undefined : gt(orders.id, after)))
        .orderBy(asc(orders.id))
        .limit(PAGE);
      return {
        last: rows.at(-1)?.id ?? null,
        rows: rows.map((o) => {
          const values = new Map(o.fields.map((f) => [f.id, f.value]));
          return [
            o.id,
            formatDateTime(o.createdAt, timezone),
            o.paymentStatus,
            o.customStatus,
            o.name,
            o.email,
            o.numTickets,
            csvMoney(o.totalCents),
            csvMoney(o.discountCents),
            o.currency,
            o.coupon ?? "",
            ...fields.map((f) => values.get(f.id) ?? ""),
          ];
        }),
      };
    },
  };
}

// Tickets are paged by rowid: `tickets_event` holds (event_id, rowid), so each page is a seek, in the order the
// tickets were issued.
const ticketRowid = sql<number>`"tickets"."rowid"`.mapWith(Number);

async function ticketsExporter(deps: Deps, eventId: number): Promise<Exporter> {
  const fields = await fieldsOf(deps, eventId, true);
  return {
    header: ["ticket_id", "order_id", "payment_status", "ticket_type", "seat", "price", "currency", "name", "email", ...fields.map((f) => f.name)],
    async page(after) {
      const rows = await deps.db
        .select({
          rowid: ticketRowid,
          id: tickets.id,
          orderId: tickets.orderId,
          typeId: tickets.ticketTypeId,
          typeName: tickets.ticketTypeName,
          seat: tickets.seat,
          personalisation: tickets.personalisation,
          paymentStatus: orders.paymentStatus,
          lines: orders.lines,
          currency: orders.currency,
          name: orders.name,
          email: orders.email,
        })
        .from(tickets)
        .leftJoin(orders, eq(orders.id, tickets.orderId))
        .where(and(eq(tickets.eventId, eventId), after === null ? undefined : sql`"tickets"."rowid" > ${after}`))
        .orderBy(ticketRowid)
        .limit(PAGE);
      return {
        last: rows.at(-1)?.rowid ?? null,
        rows: rows.map((t) => {
          // The list price of the ticket's type in its order (a passe-partout's child ticket has none of its own).
          const line = t.lines?.find((l) => l.typeId === t.typeId);
          return [
            t.id,
            t.orderId,
            t.paymentStatus ?? "",
            t.typeName,
            t.seat,
            line ? csvMoney(line.unitCents) : "",
            t.currency ?? "",
            t.name ?? "",
            t.email ?? "",
            ...fields.map((f) => t.personalisation[f.id] ?? ""),
          ];
        }),
      };
    },
  };
}

async function scansExporter(deps: Deps, eventId: number): Promise<Exporter> {
  const timezone = deps.config.timezone;
  return {
    header: ["scanned_at", "ticket_id", "order_id", "ticket_type", "location", "level"],
    async page(after) {
      const rows = await deps.db
        .select()
        .from(scans)
        .where(and(eq(scans.eventId, eventId), after === null ? undefined : gt(scans.seq, after)))
        .orderBy(asc(scans.seq))
        .limit(PAGE);
      return {
        last: rows.at(-1)?.seq ?? null,
        rows: rows.map((s) => [formatDateTime(Math.floor(s.scannedAt / 1000), timezone), s.ticketId, s.orderId, s.ticketType, s.location, s.level]),
      };
    },
  };
}

const exporters: Record<ExportKind, (deps: Deps, eventId: number) => Promise<Exporter>> = {
  orders: ordersExporter,
  tickets: ticketsExporter,
  scans: scansExporter,
};

const BOM = "\uFEFF";

/** The export as a stream of UTF-8 bytes: the BOM and header first, then a page of rows per pull. */
export async function exportStream(deps: Deps, eventId: number, kind: ExportKind): Promise<ReadableStream<Uint8Array>> {
  const exporter = await exporters[kind](deps, eventId);
  const encoder = new TextEncoder();
  let after: number | null = null;
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(BOM + csvRow(exporter.header)));
    },
    async pull(controller) {
      if (done) return;
      try {
        const { rows, last } = await exporter.page(after);
        if (rows.length > 0) controller.enqueue(encoder.encode(rows.map(csvRow).join("")));
        if (rows.length < PAGE || last === null) {
          done = true;
          controller.close();
        } else {
          after = last;
        }
      } catch (err) {
        // The status line is sent: a failure can only cut the body short, which the client sees as a broken download.
        log("error", "export failed while streaming", { event_id: eventId, export: kind, error: String(err) });
        done = true;
        controller.error(err);
      }
    },
  });
}

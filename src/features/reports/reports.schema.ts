import { z } from "zod";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { amountView, linksView } from "../../http/view-types";

const int = z.number().int();

const salesLines = z
  .array(
    z.object({
      payment_status: z.string(),
      total_orders: int,
      total_amount: amountView,
      total_tickets: int,
      tickets: z.array(z.object({ ticket_type: z.string(), sold: int, orders: int, amount: amountView })),
    }),
  )
  .describe("One line per payment status, with the tickets per type.");

const scanLines = z
  .array(
    z.object({
      ticket_type: z.string(),
      scans: z.array(z.object({ scan_location: z.string().describe('"": tickets of live orders not scanned yet.'), scan_level: int, scan_total: int })),
    }),
  )
  .describe("One line per ticket type, with the scans per location and level.");

const salesReportView = named("SalesReport", z.object({ id: int, orders: salesLines, _links: linksView }));
const groupSalesReportView = named("GroupSalesReport", z.object({ event_group: z.string(), orders: salesLines, _links: linksView }));
const scansReportView = named("ScansReport", z.object({ id: int, tickets: scanLines, _links: linksView }));
const groupScansReportView = named("GroupScansReport", z.object({ event_group: z.string(), tickets: scanLines, _links: linksView }));

const liveView = named(
  "LiveNumbers",
  z.object({
    id: int,
    currency: z.string().describe("The service's currency, of every amount here."),
    sales: z
      .object({
        ticket_types: z.array(z.object({ ticket_type: z.string(), sold: int, amount: amountView.describe("At list price.") })),
        total_orders: int,
        total_tickets: int,
        total_amount: amountView.describe("What was charged."),
        awaiting_confirmation: int.describe("Of the orders, those still awaiting their customer's confirmation."),
      })
      .describe("Orders in a final status (paid, dashboard, booked, and their confirmed forms), per ticket type and in total."),
    check_ins: z.object({
      locations: z.array(z.object({ location: z.string(), admitted: int })).describe("Entrance scans (level 0) per location, of the tickets valid at the event."),
      admitted: int,
      inside: int.nullable().describe("Admitted minus those away (7, back with 8) or gone (9); null while no leave or exit was scanned."),
    }),
    admissions: z
      .array(z.object({ start: z.string().describe("The five minutes' start, in the service's time zone."), admitted: int }))
      .describe("Entrance scans per five minutes of the last three hours, oldest first, the current five minutes last."),
    _links: linksView,
  }),
);

const GROUP = "Of every event of the event's group the user may see (the event alone when it is in no group).";

const EXPORT =
  "`text/csv; charset=utf-8` with a UTF-8 BOM and a header row, streamed whatever the size. A text cell starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`; numbers and money are plain numbers with a dot. Date-times in the service's time zone. ";

/** The reports (spec "Reports", "Sales and scan reports"). `_fields` narrows them. */
export const reportsApi = {
  sales: {
    operationId: "getSalesReport",
    summary: "Get an event's sales report",
    description: "Orders, amounts and tickets per payment status and ticket type.",
    success: answers.ok(salesReportView),
  },
  groupSales: { operationId: "getGroupSalesReport", summary: "Get the sales report of an event's group", description: GROUP, success: answers.ok(groupSalesReportView) },
  scans: {
    operationId: "getScanReport",
    summary: "Get an event's scan report",
    description: "Scans per ticket type, location and level.",
    success: answers.ok(scansReportView),
  },
  groupScans: { operationId: "getGroupScanReport", summary: "Get the scan report of an event's group", description: GROUP, success: answers.ok(groupScansReportView) },
  live: {
    operationId: "getLiveNumbers",
    summary: "Get an event's live sales and check-ins",
    description:
      "What the console's live section polls (decisions.md 15): read from the report counters only, so it costs the same at any size; scans count about two seconds after their answer.",
    success: answers.ok(liveView),
  },
  exportOrders: {
    operationId: "exportOrders",
    summary: "Export an event's orders as CSV",
    description: `${EXPORT}One row per order: \`order_id\`, \`created_at\`, \`payment_status\`, \`custom_status\`, \`name\`, \`email\`, \`num_tickets\`, \`total\`, \`discount\`, \`currency\`, \`coupon\` (its code), then one column per order-level input field, named after it. The order's uid is not exported.`,
    success: answers.csv("`event-<id>-orders.csv`, streamed."),
  },
  exportTickets: {
    operationId: "exportTickets",
    summary: "Export an event's tickets as CSV",
    description: `${EXPORT}One row per ticket valid at the event: \`ticket_id\`, \`order_id\`, \`payment_status\` (its order's), \`ticket_type\`, \`seat\`, \`price\` (the type's price in the order), \`currency\`, \`name\` and \`email\` (its order's), then one column per personalised input field.`,
    success: answers.csv("`event-<id>-tickets.csv`, streamed."),
  },
  exportScans: {
    operationId: "exportScans",
    summary: "Export an event's scans as CSV",
    description: `${EXPORT}One row per scan, oldest first: \`scanned_at\`, \`ticket_id\`, \`order_id\`, \`ticket_type\` (as the scan showed it), \`location\` (the scan key's), \`level\`.`,
    success: answers.csv("`event-<id>-scans.csv`, streamed."),
  },
} satisfies Record<string, RouteDoc>;

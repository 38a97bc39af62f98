import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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
    // A random UUID naming the password in its list and its revoking DELETE (the id would tell how many exist).
    uuid: text("uuid").notNull(),
    createdAt: integer("created_at").notNull(),
    // Epoch seconds of the last successful sign-in with it, written at most once a minute; null: never used.
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [
    uniqueIndex("application_passwords_hash_unique").on(t.passwordHash),
    index("application_passwords_user").on(t.userId),
    uniqueIndex("application_passwords_uuid_unique").on(t.uuid),
  ],
);

/**
 * Browser sessions of the organiser console (decisions.md 15 "The organiser console"). Only SHA-256 hashes of the
 * session token (the cookie) and of its CSRF token are stored. A session ends with the application password it was
 * made with and with its user: both foreign keys cascade, so revoking the password or deleting the user deletes the
 * rows in the same statement (and the session's lookup joins both, so a row left behind could not be used either).
 */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenHash: text("token_hash").notNull(),
    csrfHash: text("csrf_hash").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    passwordId: integer("password_id")
      .notNull()
      .references(() => applicationPasswords.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    // Epoch seconds of the last use, written at most once a minute; 12 hours older than now, the session is over.
    lastUsedAt: integer("last_used_at").notNull(),
  },
  (t) => [
    uniqueIndex("console_sessions_token_unique").on(t.tokenHash),
    index("console_sessions_user").on(t.userId),
    index("console_sessions_password").on(t.passwordId),
    index("console_sessions_last_used").on(t.lastUsedAt),
  ],
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

/** Nested event settings, stored as JSON: each belongs to one feature flag and is read with the event. */
export interface EmailSettings {
  sender_name: string;
  sender_email: string;
  bcc: string;
  subject: string;
  body: string;
}
export interface ConfirmationEmailSettings {
  bcc: string;
  subject: string;
  body: string;
  redirect: string;
}
export interface UserGroupSettings {
  group_type: number;
  rest_url: string;
  rest_header: string;
}
export interface SeatSettings {
  number_of_seats: number;
  seats_format: string;
  seats_config: string;
  linked_event: number;
}
export interface TicketPdfSettings {
  attachment_id: number;
  x_position: number;
  y_position: number;
  rotation: number;
  scale: number;
  no_border: boolean;
}

const flag = (name: string) => integer(name, { mode: "boolean" }).notNull().default(false);

export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventName: text("event_name").notNull(),
    // event_name lowercased by JavaScript (SQLite's lower() folds only A-Z), for case-insensitive search.
    searchName: text("search_name").notNull().default(""),
    timezone: text("timezone").notNull(),
    // The Durable Object location hint its object was created with (domain/regions.ts); "" for none.
    region: text("region").notNull().default(""),
    eventDate: integer("event_date"),
    eventDateFormat: text("event_date_format").notNull(),
    startDate: integer("start_date"),
    endDate: integer("end_date"),
    stock: integer("stock").notNull().default(0),
    sold: integer("sold").notNull().default(0),
    stockLink: integer("stock_link").notNull().default(0),
    groupType: integer("group_type").notNull().default(0),
    eventGroup: text("event_group").notNull().default(""),
    redirect: text("redirect").notNull().default(""),
    orderSubmitText: text("order_submit_text").notNull().default(""),
    terms: text("terms").notNull().default(""),
    email: text("email", { mode: "json" }).$type<EmailSettings>().notNull(),
    emailConfirmation: text("email_confirmation", { mode: "json" }).$type<ConfirmationEmailSettings>().notNull(),
    confirmationTimeout: integer("confirmation_timeout").notNull().default(0),
    uniqueEventIds: text("unique_event_ids", { mode: "json" }).$type<number[]>().notNull(),
    userGroups: text("user_groups", { mode: "json" }).$type<UserGroupSettings>().notNull(),
    seats: text("seats", { mode: "json" }).$type<SeatSettings>().notNull(),
    ticketPdf: text("ticket_pdf", { mode: "json" }).$type<TicketPdfSettings>().notNull(),
    emailsNeeded: flag("emails_needed"),
    ticketsNeeded: flag("tickets_needed"),
    invoiceNeeded: flag("invoice_needed"),
    uniqueUsersNeeded: flag("unique_users_needed"),
    userGroupsNeeded: flag("user_groups_needed"),
    recaptchaNeeded: flag("recaptcha_needed"),
    confirmationEmailsNeeded: flag("confirmation_emails_needed"),
    addDashboardOrdersNeeded: flag("add_dashboard_orders_needed"),
    testPaymentsNeeded: flag("test_payments_needed"),
    seatsNeeded: flag("seats_needed"),
    webhooksNeeded: flag("webhooks_needed"),
    reloadOnExitNeeded: flag("reload_on_exit_needed"),
    couponsNeeded: flag("coupons_needed"),
    waitingListNeeded: flag("waiting_list_needed"),
    // Bumped in the same batch as every change the event's object copies; the object ignores older versions.
    configVersion: integer("config_version").notNull().default(1),
    // The newest version the object is known to have accepted; the sweep re-pushes events behind.
    pushedVersion: integer("pushed_version").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    modifiedAt: integer("modified_at").notNull(),
  },
  (t) => [index("events_name").on(t.eventName), index("events_date").on(t.eventDate), index("events_pending_push").on(t.pushedVersion, t.configVersion)],
);

export const VOLUME_PRICE_MIN_COUNT = 2;

export interface VolumePrice {
  count: number;
  cents: number;
}

export const ticketTypes = sqliteTable(
  "ticket_types",
  {
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    position: integer("position").notNull(),
    name: text("name").notNull(),
    priceCents: integer("price_cents").notNull(),
    volumePrice: text("volume_price", { mode: "json" }).$type<VolumePrice[]>().notNull(),
    // Percent in hundredths (21 % is 2100), so VAT like 5.5 % stays exact.
    vatHundredths: integer("vat_hundredths").notNull().default(0),
    stockControl: integer("stock_control", { mode: "boolean" }).notNull().default(false),
    stock: integer("stock").notNull().default(0),
    sold: integer("sold").notNull().default(0),
    minimumToOrder: integer("minimum_to_order").notNull().default(0),
    maximumToOrder: integer("maximum_to_order").notNull().default(10),
    isCounted: integer("is_counted", { mode: "boolean" }).notNull().default(true),
    showRemaining: integer("show_remaining", { mode: "boolean" }).notNull().default(false),
    attachmentId: integer("attachment_id").notNull().default(0),
    personalise: text("personalise", { mode: "json" }).$type<string[]>().notNull(),
    layout: text("layout", { mode: "json" }).$type<string[]>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.id] }), uniqueIndex("ticket_types_name_unique").on(t.eventId, t.name)],
);

export const INPUT_FIELD_TYPES = ["text", "select", "password", "date", "time"] as const;
export type InputFieldType = (typeof INPUT_FIELD_TYPES)[number];

export const inputFields = sqliteTable(
  "input_fields",
  {
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    position: integer("position").notNull(),
    name: text("name").notNull(),
    type: text("type", { enum: INPUT_FIELD_TYPES }).notNull().default("text"),
    value: text("value").notNull().default(""),
    min: text("min").notNull().default(""),
    max: text("max").notNull().default(""),
    isRequired: integer("is_required", { mode: "boolean" }).notNull().default(false),
    isPersonalised: integer("is_personalised", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.id] }), uniqueIndex("input_fields_name_unique").on(t.eventId, t.name)],
);

export const SCAN_LEVELS = [0, 1, 6, 7, 8, 9] as const;

export const scanKeys = sqliteTable(
  "scan_keys",
  {
    key: text("key").primaryKey(),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    level: integer("level").notNull(),
    tickets: text("tickets", { mode: "json" }).$type<string[]>().notNull(),
    dateFormat: text("date_format").notNull(),
    location: text("location").notNull(),
  },
  (t) => [uniqueIndex("scan_keys_location_unique").on(t.eventId, t.location)],
);

export const TEMPLATE_TYPES = ["ticket", "invoice"] as const;

export const pdfTemplates = sqliteTable(
  "pdf_templates",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    title: text("title").notNull(),
    type: text("type", { enum: TEMPLATE_TYPES }).notNull().default("ticket"),
    authorId: integer("author_id").notNull(),
    fileKey: text("file_key").notNull(),
    createdAt: integer("created_at").notNull(),
    modifiedAt: integer("modified_at").notNull(),
  },
  (t) => [index("pdf_templates_author").on(t.authorId)],
);

/** A line of an order: what was bought of one ticket type, at which unit price. */
export interface OrderLine {
  typeId: string;
  name: string;
  unitCents: number;
  vatHundredths: number;
  isCounted: boolean;
  count: number;
}

/** The seats of an order: indexes in the plan of `planEventId` (the event itself or its seats' linked event). */
export interface OrderSeats {
  planEventId: number;
  indexes: number[];
  labels: string[];
}

/** Units an order takes from one event's stock (typeId set: that type's stock too), so they can be given back. */
export interface StockDeduction {
  eventId: number;
  typeId: string | null;
  units: number;
  /** Counted units: what the event's own stock and `sold` count. */
  eventUnits: number;
}

export interface OrderFieldValue {
  id: string;
  name: string;
  value: string;
}

/** Where an order was placed: the shop's pages or the API (decisions.md 15 "The box office"). */
export type OrderChannel = "api" | "shop";

export const orders = sqliteTable(
  "orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull(),
    uid: text("uid").notNull(),
    paymentId: text("payment_id").notNull().default(""),
    // The provider's checkout this order is paid through (Stripe: the Checkout Session id; test: `test_...`), set at
    // checkout and never changed: `payment_id` becomes the payment intent once paid, yet a repeated or late notice
    // must still name this checkout to be matched (decisions.md 15 "Payments are matched, not trusted").
    checkoutId: text("checkout_id").notNull().default(""),
    paymentStatus: text("payment_status").notNull(),
    customStatus: text("custom_status").notNull().default(""),
    name: text("name").notNull(),
    email: text("email").notNull(),
    // email lowercased by JavaScript: search, unique users and email-list caps compare on it.
    emailKey: text("email_key").notNull().default(""),
    ipAddress: text("ip_address").notNull().default(""),
    fields: text("fields", { mode: "json" }).$type<OrderFieldValue[]>().notNull().default(sql`'[]'`),
    lines: text("lines", { mode: "json" }).$type<OrderLine[]>().notNull().default(sql`'[]'`),
    numTickets: integer("num_tickets").notNull().default(0),
    totalCents: integer("total_cents").notNull().default(0),
    discountCents: integer("discount_cents").notNull().default(0),
    currency: text("currency").notNull().default("EUR"),
    deductions: text("deductions", { mode: "json" }).$type<StockDeduction[]>().notNull().default(sql`'[]'`),
    // Seats held for the order's tickets at its event (seated events only), in ticket order.
    seats: text("seats", { mode: "json" }).$type<OrderSeats>(),
    expiresAt: integer("expires_at"),
    // Epoch seconds a refund of this paid order was claimed by a queue consumer (null: none running); a claim older
    // than REFUND_CLAIM_S is taken over, the provider's idempotency key keeping the money from moving twice.
    refundStartedAt: integer("refund_started_at"),
    // The coupon the order used (the first order of a group carries the one use); its limits are checked by the
    // triggers of migration 0015 when the order is written.
    couponId: integer("coupon_id"),
    // Orders placed together (a group's dates) share one payment: the uid of the first of them.
    paymentGroup: text("payment_group").notNull().default(""),
    // With confirmation emails the order waits for its customer (no tickets, no `sold`) until confirmed.
    awaitsConfirmation: integer("awaits_confirmation", { mode: "boolean" }).notNull().default(false),
    // Set by the batch that makes the order final; that batch's other statements run only under its own token, so
    // two completions at once finalise (tickets, sold, email) once.
    finalizeToken: text("finalize_token").notNull().default(""),
    // Orders that wait for their customer: the key of the emailed confirmation link, 40 random characters like the
    // uid but shown in no API answer, so only a reader of that email can confirm (decisions.md 14). Kept after
    // confirming so that a second click finds the order; null for orders that never needed confirming.
    confirmToken: text("confirm_token"),
    // Orders placed under an `Idempotency-Key`: a hash of its scope and key, so that a retry after a crash that lost
    // the first answer gets the committed order instead of a second one (docs/reliability.md "Guarantees").
    idempotencyRef: text("idempotency_ref"),
    // The provider's checkout address of an open order, kept to answer such a retry.
    checkoutUrl: text("checkout_url").notNull().default(""),
    // Where the order was placed: `shop` (the box office's form) or `api`; it says where the customer returns to
    // from the payment provider (decisions.md 15 "The box office"; payments/return-address.ts).
    placedVia: text("placed_via").$type<OrderChannel>().notNull().default("api"),
    createdAt: integer("created_at").notNull(),
    modifiedAt: integer("modified_at").notNull().default(0),
  },
  (t) => [
    uniqueIndex("orders_uid_unique").on(t.uid),
    index("orders_idempotency_ref").on(t.idempotencyRef).where(sql`idempotency_ref IS NOT NULL`),
    uniqueIndex("orders_confirm_token_unique").on(t.confirmToken).where(sql`confirm_token IS NOT NULL`),
    // The ids alone, in order: a deep page of the order list (ORDER BY id ... OFFSET n) steps through this narrow index
    // rather than through the rows, as SQLite would through the table itself. With an event filter `orders_event`
    // does the same (its entries are (event_id, id)), with `orderby=email` `orders_email_key`.
    index("orders_id").on(t.id),
    index("orders_event").on(t.eventId),
    index("orders_email_key").on(t.emailKey),
    index("orders_status").on(t.paymentStatus),
    index("orders_payment_group").on(t.paymentGroup),
    index("orders_coupon").on(t.couponId),
  ],
);

export const tickets = sqliteTable(
  "tickets",
  {
    id: text("id").primaryKey(),
    orderId: integer("order_id").notNull(),
    eventId: integer("event_id").notNull(),
    ticketTypeId: text("ticket_type_id").notNull(),
    // The type's name as shown on the ticket (a passe-partout's child tickets show the passe-partout type).
    ticketTypeName: text("ticket_type_name").notNull().default(""),
    // The seat text (seats_format applied) for tickets of seated events; shown after the type name.
    seat: text("seat").notNull().default(""),
    // Values of the personalised input fields, by field id; saved once (personalised_at set).
    personalisation: text("personalisation", { mode: "json" }).$type<Record<string, string>>().notNull().default(sql`'{}'`),
    personalisedAt: integer("personalised_at"),
    createdAt: integer("created_at").notNull().default(0),
  },
  (t) => [index("tickets_order").on(t.orderId), index("tickets_event").on(t.eventId)],
);

export type CouponType = "percent" | "fixed";

/**
 * Discount codes (spec "Coupon", decisions.md 5.4, 5.5, 12). `amount` is in hundredths: percent hundredths for
 * `percent`, cents for `fixed`. Uses: `used` counts final orders (cleared by reset-counters); open orders hold a use
 * while they are open, counted from the orders themselves.
 */
export const coupons = sqliteTable(
  "coupons",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    code: text("code").notNull(),
    // The code lowercased by JavaScript: codes are unique case-insensitively (per owner).
    codeKey: text("code_key").notNull(),
    description: text("description").notNull().default(""),
    type: text("type").$type<CouponType>().notNull(),
    individualUse: integer("individual_use", { mode: "boolean" }).notNull().default(false),
    amountHundredths: integer("amount_hundredths").notNull().default(0),
    usageLimit: integer("usage_limit").notNull().default(0),
    usageLimitPerUser: integer("usage_limit_per_user").notNull().default(0),
    used: integer("used").notNull().default(0),
    lastUsed: integer("last_used"),
    startDate: integer("start_date"),
    endDate: integer("end_date"),
    events: text("events", { mode: "json" }).$type<number[]>().notNull().default(sql`'[]'`),
    tickets: text("tickets", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    minimumTickets: integer("minimum_tickets").notNull().default(0),
    maximumTickets: integer("maximum_tickets").notNull().default(0),
    minimumAmountCents: integer("minimum_amount_cents").notNull().default(0),
    maximumAmountCents: integer("maximum_amount_cents").notNull().default(0),
    email: text("email").notNull().default(""),
    emailKey: text("email_key").notNull().default(""),
    // Who owns the coupon and its code (decisions.md 15): the creating organizer's user id, or 0 for the
    // administrators, who are one owner. A code is unique per owner only.
    ownerId: integer("owner_id").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    modifiedAt: integer("modified_at").notNull(),
  },
  (t) => [uniqueIndex("coupons_code_owner").on(t.codeKey, t.ownerId), index("coupons_email_key").on(t.emailKey)],
);

/** Tickets that stopped being valid (deleted, or their order deleted), for scanners syncing offline. */
export const revokedTickets = sqliteTable(
  "revoked_tickets",
  {
    ticketId: text("ticket_id").notNull(),
    eventId: integer("event_id").notNull(),
    revokedAt: integer("revoked_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketId] }), index("revoked_tickets_event").on(t.eventId, t.revokedAt)],
);

/**
 * Scans, written from the event objects (which decide them) through the queue, for reports and lists. `seq` is the
 * object's own sequence: a message delivered twice writes once. A reset (level 6) removes the ticket's earlier rows.
 */
export const scans = sqliteTable(
  "scans",
  {
    eventId: integer("event_id").notNull(),
    seq: integer("seq").notNull(),
    ticketId: text("ticket_id").notNull(),
    orderId: integer("order_id").notNull(),
    ticketTypeId: text("ticket_type_id").notNull(),
    // As the scan showed it (type name and seat).
    ticketType: text("ticket_type").notNull(),
    level: integer("level").notNull(),
    location: text("location").notNull(),
    // Epoch milliseconds.
    scannedAt: integer("scanned_at").notNull(),
    // An exit that gave a unit of stock back (reload_on_exit_needed).
    reloaded: integer("reloaded", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.seq] }),
    index("scans_ticket").on(t.ticketId, t.seq),
    index("scans_event_type").on(t.eventId, t.ticketTypeId),
    index("scans_order").on(t.orderId),
  ],
);

/**
 * The reloading exits whose unit D1 has given back (`sold`, the order's counted units), by event and seq. A reset
 * deletes the exit's scan row, so only this tells a late copy of the exit, which must not give the unit back again.
 */
export const scanReloads = sqliteTable(
  "scan_reloads",
  {
    eventId: integer("event_id").notNull(),
    seq: integer("seq").notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.seq] })],
);

/*
 * Report counters (docs/scanning.md "Reports"): the sales and scan reports and an event's embedded totals read these
 * instead of aggregating every order, ticket and scan. They are kept by the triggers of migration 0023, in the
 * statement that changes the rows they count, so they are right whatever code path writes and however writes
 * interleave. A row whose counts went back to 0 stays (reads skip it).
 */

/** Orders placed for an event, per payment status and whether they still await their customer's confirmation. */
export const salesCounts = sqliteTable(
  "sales_counts",
  {
    eventId: integer("event_id").notNull(),
    paymentStatus: text("payment_status").notNull(),
    awaitsConfirmation: integer("awaits_confirmation", { mode: "boolean" }).notNull(),
    orders: integer("orders").notNull().default(0),
    // Charged (the orders' total_cents) and their tickets (num_tickets).
    cents: integer("cents").notNull().default(0),
    tickets: integer("tickets").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.paymentStatus, t.awaitsConfirmation] })],
);

/** The lines of an event's orders per payment status and type name (as the line names it): units, orders, list price. */
export const salesTypeCounts = sqliteTable(
  "sales_type_counts",
  {
    eventId: integer("event_id").notNull(),
    paymentStatus: text("payment_status").notNull(),
    ticketType: text("ticket_type").notNull(),
    sold: integer("sold").notNull().default(0),
    orders: integer("orders").notNull().default(0),
    cents: integer("cents").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.paymentStatus, t.ticketType] })],
);

/**
 * Tickets valid at an event (theirs, of an order in a final status: db/order-status.ts) per type name as the ticket
 * shows it, and how many of them have at least one scan there.
 */
export const ticketCounts = sqliteTable(
  "ticket_counts",
  {
    eventId: integer("event_id").notNull(),
    ticketType: text("ticket_type").notNull(),
    valid: integer("valid").notNull().default(0),
    scanned: integer("scanned").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.ticketType] })],
);

/** The scans of the tickets valid at an event, per type name as the ticket shows it, location and level. */
export const scanCounts = sqliteTable(
  "scan_counts",
  {
    eventId: integer("event_id").notNull(),
    ticketType: text("ticket_type").notNull(),
    location: text("location").notNull(),
    level: integer("level").notNull(),
    scans: integer("scans").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.ticketType, t.location, t.level] })],
);

/**
 * Entrance scans (level 0) per event and five minutes of their scan time, for the console's live chart
 * (decisions.md 15 "The organiser console"): kept by triggers on `scans` (migration 0031), so a reset, which
 * deletes the ticket's earlier rows, takes its entrance out of its five minutes again.
 */
export const scanAdmissions = sqliteTable(
  "scan_admissions",
  {
    eventId: integer("event_id").notNull(),
    // Epoch milliseconds, a multiple of five minutes (like scans.scanned_at).
    bucketStart: integer("bucket_start").notNull(),
    admitted: integer("admitted").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.bucketStart] })],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    bodyHash: text("body_hash").notNull(),
    // null while the first request is still being answered
    status: integer("status"),
    response: text("response"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("idempotency_keys_created").on(t.createdAt)],
);

/**
 * Actions a user may take only so many times a calendar day (the service's time zone), counted per action, user
 * and day (platform/daily-quota.ts): one conditional upsert counts and refuses at once, so concurrent requests and
 * other isolates share the count. Rows of past days are purged by the sweep.
 */
export const dailyQuotas = sqliteTable(
  "daily_quotas",
  {
    action: text("action").notNull(),
    userId: integer("user_id").notNull(),
    // YYYY-MM-DD in the service's time zone
    day: text("day").notNull(),
    used: integer("used").notNull(),
  },
  (t) => [primaryKey({ columns: [t.action, t.userId, t.day] }), index("daily_quotas_day").on(t.day)],
);

/**
 * What an event object must still learn about an order (its take, tickets, deadline or release), written in the
 * same batch as the order change. The call after the answer deletes it; the reconciler re-drives what is left.
 */
export const objectSyncs = sqliteTable(
  "object_syncs",
  {
    uid: text("uid").notNull(),
    eventId: integer("event_id").notNull(),
    // Which change recorded it (the order's finalize token, or "wait"): a call clears only its own change's intent,
    // never a newer one that replaced it.
    token: text("token").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.uid, t.eventId] }), index("object_syncs_created").on(t.createdAt)],
);

export const emailListEntries = sqliteTable(
  "email_list_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    // Lowercased by JavaScript: orders are matched on it.
    emailKey: text("email_key").notNull(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    // 0 means no cap.
    maxTickets: integer("max_tickets").notNull().default(0),
  },
  (t) => [uniqueIndex("email_list_entries_event_email").on(t.eventId, t.emailKey)],
);

export const webhooks = sqliteTable("webhooks", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  url: text("url").notNull(),
  secret: text("secret").notNull(),
  topic: text("topic").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
  // Minutes to wait before each retry; its length is the number of retries.
  retryScheme: text("retry_scheme", { mode: "json" }).$type<number[]>().notNull(),
  failureThreshold: integer("failure_threshold").notNull().default(60),
  pending: integer("pending").notNull().default(0),
  delivered: integer("delivered").notNull().default(0),
  retries: integer("retries").notNull().default(0),
  failed: integer("failed").notNull().default(0),
  lastSuccess: integer("last_success"),
  lastRetry: integer("last_retry"),
  lastFailure: integer("last_failure"),
  createdAt: integer("created_at").notNull(),
});

export interface RecordedExchange {
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response: { code: number; message: string; headers: Record<string, string>; body: string } | null;
  durationMs: number;
  error: string | null;
}

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    // 32 lowercase hex; kept across retries.
    id: text("id").primaryKey(),
    webhookId: integer("webhook_id").notNull(),
    topic: text("topic").notNull(),
    eventId: integer("event_id").notNull().default(0),
    // The exact bytes sent (and signed).
    body: text("body").notNull(),
    source: text("source").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastExchange: text("last_exchange", { mode: "json" }).$type<RecordedExchange>(),
    createdAt: integer("created_at").notNull(),
    // When the next attempt's queue message is due; a pending delivery long past it lost its message.
    dueAt: integer("due_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (t) => [index("webhook_deliveries_webhook").on(t.webhookId, t.createdAt), index("webhook_deliveries_pending").on(t.status, t.dueAt)],
);

export const emails = sqliteTable(
  "emails",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    to: text("to").notNull(),
    bcc: text("bcc").notNull().default(""),
    fromName: text("from_name").notNull().default(""),
    fromEmail: text("from_email").notNull().default(""),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: ["queued", "sent", "failed"] })
      .notNull()
      .default("queued"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error").notNull().default(""),
    eventId: integer("event_id").notNull().default(0),
    orderId: integer("order_id").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    // When the next attempt's queue message is due; a queued email long past it lost its message.
    dueAt: integer("due_at").notNull(),
    sentAt: integer("sent_at"),
  },
  (t) => [index("emails_event").on(t.eventId), index("emails_order").on(t.orderId), index("emails_queued").on(t.status, t.dueAt)],
);

/**
 * What an order claims against per-person rules, written in the order's batch and deleted with it when the order
 * dies: `unique` (one order per email per event, unique index) and `cap` (tickets against an email list's cap, checked
 * by a trigger). Only live orders have claims, so only they count. `open` and `open_address` count open orders of
 * ordering-key callers; they are deleted when the order is paid, and the trigger counts only those whose order is
 * still open.
 */
export const orderClaims = sqliteTable(
  "order_claims",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // `open` and `open_address`: an ordering-key order waiting for payment, keyed by its email or by a keyed hash of
    // the client's address (in `email_key`); `units` is the most open orders allowed, which the trigger
    // `order_claims_open_insert` enforces (decisions.md 15 "Open orders per buyer").
    kind: text("kind", { enum: ["unique", "cap", "open", "open_address"] }).notNull(),
    eventId: integer("event_id").notNull(),
    emailKey: text("email_key").notNull(),
    orderUid: text("order_uid").notNull(),
    units: integer("units").notNull().default(0),
  },
  (t) => [
    uniqueIndex("order_claims_unique").on(t.eventId, t.emailKey).where(sql`kind = 'unique'`),
    index("order_claims_order").on(t.orderUid),
    index("order_claims_cap").on(t.eventId, t.emailKey, t.kind),
  ],
);

/**
 * The waiting lists (decisions.md 15 "Selling like the peers"; docs/ordering.md "Waiting list"): who joined for how
 * many units of which type, and what became of it. The line and the offers are decided by the event's object
 * (event-object/waiting-list.ts); `state` here follows it: `waiting`, `offered` (with the offer's end and the hash of
 * its personal link's token), `ordered`, `expired`, or `deleted` (by the organiser, until the object has let go).
 * `synced` 0: the object has not yet learnt the row as it is (joined, or deleted); the sweep tells it.
 */
export const waitingList = sqliteTable(
  "waiting_list",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull(),
    ticketTypeId: text("ticket_type_id").notNull(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    // The email lowercased, as orders compare emails (`orders.email_key`): one entry per email and type.
    emailKey: text("email_key").notNull(),
    count: integer("count").notNull(),
    // The language the buyer joined in (the shop page's), for the offer's email.
    lang: text("lang").notNull().default("en"),
    state: text("state", { enum: ["waiting", "offered", "ordered", "expired", "deleted"] })
      .notNull()
      .default("waiting"),
    offeredAt: integer("offered_at"),
    offerExpiresAt: integer("offer_expires_at"),
    tokenHash: text("token_hash"),
    orderUid: text("order_uid"),
    synced: integer("synced", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    modifiedAt: integer("modified_at").notNull(),
  },
  (t) => [
    uniqueIndex("waiting_list_one_per_email").on(t.eventId, t.ticketTypeId, t.emailKey).where(sql`state <> 'deleted'`),
    index("waiting_list_event").on(t.eventId, t.id),
    uniqueIndex("waiting_list_token").on(t.tokenHash).where(sql`token_hash IS NOT NULL`),
    index("waiting_list_unsynced").on(t.modifiedAt).where(sql`synced = 0`),
  ],
);

// `npm run bench:growth`: how the service's calls slow down as one event and the whole service grow (docs/scale.md, docs/benchmarks.md "Growth").
//
// It starts `wrangler dev` (scripts/local-service.mjs) on a state dir of its own (rate limits off, ticket codes signed
// with a key made for the run) and grows it in STEPS: the measured event to 1k, 10k and 50k tickets, the service to
// 4k, 40k and 200k orders across events. At each step it times, one request at a time, after a warm-up that is not
// counted, REPS rounds of every call in CALLS (a round runs each call once, so noise spreads over all of them), and
// keeps the p50 of each. Every answer is checked (status, and what it must hold), so a figure never times an error.
//
// How the data gets there, per step:
//   - The measured event's tickets go through the API: dashboard orders of ORDER_SIZE tickets (its
//     `add_dashboard_orders_needed` on), so its event object learns every ticket as in production, and the offline
//     list and the door see them. SCAN_SHARE of them are then scanned through `POST /scans` (signed codes), and the
//     step waits until the scan report counts them (the scans reach D1 through the queue).
//   - The other orders (most of them) are seeded straight into the local D1 while the service is stopped: the D1 of
//     `wrangler dev` is a SQLite file under the state dir, written here with node:sqlite in one transaction. Each
//     seeded order and ticket is a copy of the rows the app itself wrote for a template dashboard order placed through
//     the API at the start (so every column, including ones added later, has what the app writes), with its own uid,
//     ticket ids, email, event, type, lines, counts and deductions, and each event's and type's `sold` raised by its
//     tickets; triggers of the schema fire as they would. Their events' objects do not learn them: the door catches
//     up from D1 at a ticket's first scan (catchUpTicket), which the run checks once. Rows the app writes in other
//     places (an index or counters table filled by the order's batch rather than by a trigger) are not written: the
//     run checks a background event's sales report and an order search against what it seeded, and says so when they
//     disagree.
//   Then the service restarts on the same state (its object storage kept) and the step is measured.
//
// Calls (CALLS): a first scan of a valid ticket; the offline list
// (`GET /scans/tickets`) page by page, asking `per_page=1000` and following `next` (a `Link` header or `_links.next`)
// when the answer has one, else the single answer is the one page; the event's sales and scan reports; a deep page of
// `GET /admin/orders` (per_page 100, at 90 % of all orders); an order search by an email (a different seeded order
// each round); a one-ticket dashboard order on the measured event. `GET /health` is timed too, as the floor: every request pays it.
//
// Target (docs/benchmarks.md "Growth"): from the first step to the last, no call's p50 more than 2x slower (the offline list: its full
// pages' p50), and no single answer over 1 MB (1,000,000 bytes). The machine is shared, so a step measured while other
// processes run reads slow for every call alike: the growth judged is the call's p50 over /health's p50 of the same
// step (the raw growth is printed beside it). Reported met or missed per call, never failed: the run fails only when
// an answer is wrong. Prints a table, writes bench/growth.json.
//
// GROWTH_SCALE=0.1 npm run bench:growth scales every step down (a quick look; bench/growth.json is left alone);
// GROWTH_KEEP=1 keeps the state dir (its D1 file for a look with sqlite) and prints where it is.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT, startService } from "../scripts/local-service.mjs";
import { cpuSnapshot, inParallel, median, nextLink, offlineTickets, otherCpuShare, parse, runSigner, settle, sourceVersion, textTable } from "./lib.mjs";

const SCALE = Number(process.env.GROWTH_SCALE ?? "1");
if (!(SCALE > 0 && SCALE <= 1)) throw new Error("GROWTH_SCALE must be above 0 and at most 1");
/** The measured event's tickets and the service's orders (all events, the measured one included) at each step. */
const STEPS = [
  { tickets: 1_000, orders: 4_000 },
  { tickets: 10_000, orders: 40_000 },
  { tickets: 50_000, orders: 200_000 },
].map((s) => ({ tickets: Math.round(s.tickets * SCALE), orders: Math.round(s.orders * SCALE) }));
/** Tickets per dashboard order that grows the measured event. */
const ORDER_SIZE = 100;
/** Share of the measured event's tickets scanned (through the API) before each step is measured. */
const SCAN_SHARE = 0.1;
/** Events the seeded orders are spread over (besides the measured one); seeded orders have 1 to 4 tickets. */
const BACKGROUND_EVENTS = 20;
const WARMUP_ROUNDS = 3;
const WARMUP_REQUESTS = 400;
const REPS = 9;
const SLOW_MS = 1_000;
const SLOW_REPS = 3;
const LIST_PER_PAGE = 1000;
const DEEP_PAGE_PER_PAGE = 100;
/** The targets above. */
const MAX_GROWTH = 2;
const MAX_ANSWER_BYTES = 1_000_000;
const RUN_LIMIT_MS = 300_000;
const DEADLINE = Date.now() + RUN_LIMIT_MS;

const EVENT_DATE = `${new Date().getUTCFullYear() + 1}-03-14 20:00:00`;
const JSON_TYPE = { "Content-Type": "application/json" };
const NAMES = ["Ann Smith", "José María Ibáñez", "Łukasz Wróbel", "Ελένη Παπαδοπούλου", "Анна Петрова", "王小明", "Søren Ødegård", "Fatima Zahra"];

function checkTime(what) {
  if (Date.now() > DEADLINE) throw new Error(`the growth bench ran out of its ${RUN_LIMIT_MS / 1000} s during ${what}`);
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** A random string of the app's alphabet (uids, ticket ids, tokens are such strings). */
function randomString(length) {
  const bytes = randomBytes(length);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

const seededEmail = (n) => `guest${String(n).padStart(7, "0")}@example.org`;

// ---------------------------------------------------------------------------------------------------------------
// One timed request: the whole answer read.

/** A request to the service, timed from sending to the last byte of the answer. */
async function timed(service, { method = "GET", path, url, headers = {}, body }) {
  const started = performance.now();
  const res = await fetch(url ?? `${service.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return { ms: performance.now() - started, status: res.status, bytes: Buffer.byteLength(text), text, headers: res.headers };
}

const adminHeaders = (service) => ({ "X-EVT-API-KEY": service.apiKey, Authorization: service.auth });

function expect(r, status, what) {
  if (r.status !== status) throw new Error(`${what} answered ${r.status} (expected ${status}): ${r.text.slice(0, 300)}`);
  return parse(r.text);
}

// ---------------------------------------------------------------------------------------------------------------
// Set-up through the API.

async function createEvent(service, name, extra = {}) {
  return service.admin("POST", "/admin/events", { event_name: name, event_date: EVENT_DATE, add_dashboard_orders_needed: true, ...extra }, 201);
}

async function createType(service, eventId, fields) {
  return service.admin("POST", `/admin/events/${eventId}/ticket-types`, { price: 25, maximum_to_order: 0, ...fields }, 201);
}

async function setUp(ctx) {
  const { service } = ctx;
  const event = await createEvent(service, "Growth (measured event)");
  const type = await createType(service, event.id, { name: "Regular" });
  const key = await service.admin("POST", `/admin/events/${event.id}/scan-keys`, { level: 0, location: "Main entrance" }, 201);
  ctx.measured = { event, type, key: key.key };
  ctx.background = await inParallel(BACKGROUND_EVENTS, 2, async (i) => {
    const e = await createEvent(service, `Growth background ${i + 1}`);
    const t = await createType(service, e.id, { name: "Standard", price: 30 });
    return { id: e.id, typeId: t.id, typeName: t.name };
  });
  // The template every seeded order copies: a dashboard order placed by the app on a background event.
  const bg = ctx.background[0];
  ctx.template = await service.admin(
    "POST",
    "/admin/orders",
    { event_id: bg.id, name: "Template Order", email: "template@example.org", tickets: [{ [bg.typeId]: 2 }] },
    201,
  );
  // An event with `emails_needed`: its dashboard orders write their new-order email to the outbox, whose row size
  // the capacity figures report (the seeded orders write none).
  const mailed = await createEvent(service, "Growth emails", { emails_needed: true, email: { subject: "Your tickets", body: "" } });
  const mailedType = await createType(service, mailed.id, { name: "Standard", price: 30 });
  for (let i = 0; i < 5; i++) {
    await service.admin("POST", "/admin/orders", { event_id: mailed.id, name: NAMES[i], email: `mailed${i}@example.org`, tickets: [{ [mailedType.id]: 2 }] }, 201);
  }
  const bgKey = await service.admin("POST", `/admin/events/${bg.id}/scan-keys`, { level: 0, location: "Side door" }, 201);
  ctx.backgroundKey = bgKey.key;
  ctx.seeded = 0;
  ctx.scanned = new Set();
  ctx.measuredTickets = 0;
  ctx.orderTimes = [];
}

/** Dashboard orders of ORDER_SIZE tickets until the measured event holds `target` tickets. */
async function growMeasuredEvent(ctx, target) {
  const { service, measured } = ctx;
  const event = await service.admin("GET", `/admin/events/${measured.event.id}`, undefined, 200);
  const orders = Math.max(0, Math.ceil((target - event.sold) / ORDER_SIZE));
  await inParallel(orders, 4, async (i) => {
    checkTime("growing the measured event");
    await service.admin(
      "POST",
      "/admin/orders",
      { event_id: measured.event.id, name: NAMES[i % NAMES.length], email: `box${Date.now()}-${i}@example.com`, tickets: [{ [measured.type.id]: ORDER_SIZE }] },
      201,
    );
  });
  return orders;
}

/**
 * The measured event's offline list once it holds every ticket sold: the event object takes a dashboard order from
 * D1 on its own a quarter second or so after the answer (docs/stock.md), so the last orders grown may still be on
 * their way.
 */
async function listedTickets(ctx) {
  const { service, measured } = ctx;
  const { sold } = await service.admin("GET", `/admin/events/${measured.event.id}`, undefined, 200);
  for (const until = Date.now() + 10_000; ; ) {
    const tickets = await offlineTickets(service.url, measured.key, LIST_PER_PAGE);
    if (tickets.length >= sold) return tickets;
    if (Date.now() > until) throw new Error(`the offline list holds ${tickets.length} of the ${sold} tickets sold`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Scans SCAN_SHARE of the measured event's tickets through the API, and waits until the scan report counts them. */
async function scanShare(ctx) {
  const { service, measured, scanned } = ctx;
  const tickets = await listedTickets(ctx);
  ctx.unscanned = tickets.map((t) => t.ticket_id).filter((id) => !scanned.has(id));
  const want = Math.round(tickets.length * SCAN_SHARE) - scanned.size;
  const batch = ctx.unscanned.splice(0, Math.max(0, want));
  await inParallel(batch.length, 8, async (i) => {
    const r = await timed(service, {
      method: "POST",
      path: "/scans",
      headers: { ...JSON_TYPE, "X-EVT-API-KEY": measured.key },
      body: { id: ctx.code(measured.event.id, batch[i]) },
    });
    const answer = expect(r, 200, "POST /scans");
    if (answer?.status !== true) throw new Error(`scanning a valid ticket answered ${r.text.slice(0, 300)}`);
    scanned.add(batch[i]);
  });
  await waitForScansInD1(ctx);
  return { listed: tickets.length, scannedNow: batch.length };
}

/** Scans counted by the event's scan report (every location but the "not scanned" row). */
async function scansInReport(ctx) {
  const report = await ctx.service.admin("GET", `/admin/events/${ctx.measured.event.id}/scans`, undefined, 200);
  return report.tickets.flatMap((t) => t.scans).reduce((n, s) => n + (s.scan_location === "" ? 0 : s.scan_total), 0);
}

async function waitForScansInD1(ctx, maxMs = 60_000) {
  const until = Date.now() + maxMs;
  for (;;) {
    const inD1 = await scansInReport(ctx);
    if (inD1 >= ctx.scanned.size) return;
    if (Date.now() > until) throw new Error(`the scan report counts ${inD1} scans, the door made ${ctx.scanned.size}`);
    checkTime("waiting for the scans to reach D1");
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding D1 directly (the service stopped).

/** The local D1 database file of a state dir. */
function d1File(stateDir) {
  const dir = join(stateDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (files.length !== 1) throw new Error(`expected one D1 database in ${dir}, found ${files.join(", ") || "none"}`);
  return join(dir, files[0]);
}

/**
 * Raises the service to `target` orders with copies of the template order spread over the background events, in one
 * transaction. Answers how many orders and tickets it wrote.
 */
function seedOrders(ctx, target) {
  const db = new DatabaseSync(d1File(ctx.service.persistTo));
  try {
    const have = db.prepare("SELECT count(*) AS n FROM orders").get().n;
    const add = target - have;
    if (add <= 0) return { orders: 0, tickets: 0 };
    const template = db.prepare("SELECT * FROM orders WHERE id = ?").get(ctx.template.id);
    const ticketTemplate = db.prepare("SELECT * FROM tickets WHERE order_id = ? LIMIT 1").get(ctx.template.id);
    if (!template || !ticketTemplate) throw new Error("the template order is not in D1");
    const line = JSON.parse(template.lines)[0];
    const orderColumns = Object.keys(template).filter((c) => c !== "id");
    const ticketColumns = Object.keys(ticketTemplate);
    const insert = (table, columns) => db.prepare(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
    const insertOrder = insert("orders", orderColumns);
    const insertTicket = insert("tickets", ticketColumns);
    const sold = new Map();
    const now = Math.floor(Date.now() / 1000);
    let tickets = 0;
    db.exec("BEGIN");
    try {
      for (let i = 0; i < add; i++) {
        const n = ctx.seeded + i;
        const event = ctx.background[n % ctx.background.length];
        const count = 1 + (n % 4);
        const uid = randomString(40);
        const email = seededEmail(n);
        const createdAt = now - 86_400 * 365 + Math.floor((n * 86_400 * 365) / Math.max(1, STEPS.at(-1).orders));
        const order = {
          ...template,
          uid,
          name: NAMES[n % NAMES.length],
          email,
          email_key: email.toLowerCase(),
          ip_address: "198.51.100.7",
          lines: JSON.stringify([{ ...line, typeId: event.typeId, name: event.typeName, count }]),
          num_tickets: count,
          total_cents: count * line.unitCents,
          deductions: JSON.stringify([{ eventId: event.id, typeId: event.typeId, units: count, eventUnits: count }]),
          payment_group: uid,
          finalize_token: randomString(16),
          event_id: event.id,
          created_at: createdAt,
          modified_at: createdAt,
        };
        const orderId = Number(insertOrder.run(...orderColumns.map((c) => order[c])).lastInsertRowid);
        for (let t = 0; t < count; t++) {
          const ticket = {
            ...ticketTemplate,
            id: randomString(16),
            order_id: orderId,
            event_id: event.id,
            ticket_type_id: event.typeId,
            ticket_type_name: event.typeName,
            created_at: createdAt,
          };
          insertTicket.run(...ticketColumns.map((c) => ticket[c]));
        }
        tickets += count;
        sold.set(event, (sold.get(event) ?? 0) + count);
      }
      for (const [event, units] of sold) {
        db.prepare("UPDATE events SET sold = sold + ? WHERE id = ?").run(units, event.id);
        db.prepare("UPDATE ticket_types SET sold = sold + ? WHERE event_id = ? AND id = ?").run(units, event.id, event.typeId);
      }
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
    ctx.seeded += add;
    return { orders: add, tickets };
  } finally {
    db.close();
  }
}

/**
 * Bytes per row of the D1 tables that grow with sales: dbstat (the table's and its indexes' pages over its rows), and
 * the row's own content (the lengths of its values as text), which is what counts for a table of a few rows (a page
 * is 4 kB). Also the event objects' storage (their SQLite files): the largest, the measured event's, per ticket.
 */
function capacity(stateDir, measured) {
  const file = d1File(stateDir);
  const db = new DatabaseSync(file, { readOnly: true });
  const out = { file_bytes: statSync(file).size, tables: {} };
  try {
    const pages = new Map(
      db
        .prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name")
        .all()
        .map((r) => [r.name, r.bytes]),
    );
    const indexes = db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'").all();
    for (const table of ["orders", "tickets", "scans", "emails", "webhook_deliveries", "idempotency_keys"]) {
      const columns = db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all();
      const content = columns.map((c) => `coalesce(length("${c.name}"), 0)`).join(" + ");
      const { n: rows, content_bytes } = db.prepare(`SELECT count(*) AS n, avg(${content}) AS content_bytes FROM ${table}`).get();
      const own = pages.get(table) ?? 0;
      // An FTS5 index is tables of its own (orders_search_data, _idx, ...), not an index of sqlite_master's: counted
      // with the table it indexes.
      const search = [...pages].filter(([name]) => name.startsWith(`${table}_search`)).reduce((n, [, bytes]) => n + bytes, 0);
      const idx = indexes.filter((i) => i.tbl_name === table).reduce((n, i) => n + (pages.get(i.name) ?? 0), 0) + search;
      out.tables[table] = {
        rows,
        table_bytes: own,
        index_bytes: idx,
        search_index_bytes: search,
        bytes_per_row: rows > 0 ? Math.round((own + idx) / rows) : null,
        content_bytes_per_row: rows > 0 ? Math.round(content_bytes) : null,
      };
    }
  } finally {
    db.close();
  }
  // The objects' SQLite files (with their write-ahead logs, read through SQLite): pages in use, not the file sizes.
  const doDir = join(stateDir, "v3", "do", "ticketing-EventObject");
  let largest = 0;
  for (const f of readdirSync(doDir).filter((name) => /^[0-9a-f]+\.sqlite$/.test(name))) {
    const objectDb = new DatabaseSync(join(doDir, f));
    try {
      const pragma = (name) => Object.values(objectDb.prepare(`PRAGMA ${name}`).get())[0];
      largest = Math.max(largest, (pragma("page_count") - pragma("freelist_count")) * pragma("page_size"));
    } finally {
      objectDb.close();
    }
  }
  out.event_object = { bytes: largest, tickets: measured.tickets, scans: measured.scans, bytes_per_ticket: Math.round(largest / measured.tickets) };
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The calls measured. Each answers samples { ms, bytes } (the offline list one per page) and checks its answers.

const CALLS = [
  {
    id: "health",
    label: "GET /health (the floor)",
    // Three a round: the floor every other figure is divided by needs more samples than the calls themselves.
    run: async (ctx) => {
      const rs = [];
      for (let i = 0; i < 3; i++) {
        const r = await timed(ctx.service, { path: "/health" });
        expect(r, 200, "GET /health");
        rs.push(r);
      }
      return rs;
    },
  },
  {
    id: "scan",
    label: "POST /scans (first scan)",
    run: async (ctx) => {
      const { measured } = ctx;
      const id = ctx.unscanned.shift();
      if (!id) throw new Error("no unscanned ticket left to present");
      const r = await timed(ctx.service, {
        method: "POST",
        path: "/scans",
        headers: { ...JSON_TYPE, "X-EVT-API-KEY": measured.key },
        body: { id: ctx.code(measured.event.id, id) },
      });
      const answer = expect(r, 200, "POST /scans");
      if (answer?.status !== true) throw new Error(`a first scan answered ${r.text.slice(0, 300)}`);
      ctx.scanned.add(id);
      return [r];
    },
  },
  {
    id: "offline_list",
    label: "GET /scans/tickets, a page",
    run: async (ctx) => {
      const started = Date.now();
      const pages = [];
      let tickets = 0;
      let url = `${ctx.service.url}/scans/tickets?per_page=${LIST_PER_PAGE}`;
      while (url) {
        if (pages.length > 10_000) throw new Error("the offline list has more than 10,000 pages");
        const r = await timed(ctx.service, { url, headers: { "X-EVT-API-KEY": ctx.measured.key } });
        const body = expect(r, 200, "GET /scans/tickets");
        tickets += body.tickets.length;
        pages.push({ ...r, tickets: body.tickets.length });
        url = nextLink(r.headers, body, url);
      }
      // A last page of fewer tickets than asked is cheaper for its size, not for the event's: the full pages are timed.
      if (pages.length > 1 && pages.at(-1).tickets < LIST_PER_PAGE) pages.at(-1).partial = true;
      // Every valid ticket listed once: the event's `sold` (its dashboard orders' tickets). The object takes a dashboard
      // order from D1 on its own a quarter second or so after its answer (docs/stock.md), so the one-ticket orders of
      // the last two seconds may still be on their way.
      const onTheirWay = ctx.orderTimes.filter((t) => t > started - 2_000).length;
      if (tickets > ctx.expectedTickets || tickets < ctx.expectedTickets - onTheirWay)
        throw new Error(`the offline list's pages hold ${tickets} tickets, the event ${ctx.expectedTickets}`);
      return pages;
    },
  },
  {
    id: "sales_report",
    label: "GET /admin/events/:id/sales",
    run: async (ctx) => {
      const r = await timed(ctx.service, { path: `/admin/events/${ctx.measured.event.id}/sales`, headers: adminHeaders(ctx.service) });
      const body = expect(r, 200, "the sales report");
      const tickets = body.orders.reduce((n, o) => n + o.total_tickets, 0);
      if (tickets !== ctx.expectedTickets) throw new Error(`the sales report counts ${tickets} tickets, the event ${ctx.expectedTickets}`);
      return [r];
    },
  },
  {
    id: "scans_report",
    label: "GET /admin/events/:id/scans",
    run: async (ctx) => {
      const r = await timed(ctx.service, { path: `/admin/events/${ctx.measured.event.id}/scans`, headers: adminHeaders(ctx.service) });
      const body = expect(r, 200, "the scan report");
      // Level-0 scans only, each of another ticket: the tickets not scanned plus the scans are every ticket (a scan on its
      // way to D1 still counts as not scanned).
      const tickets = body.tickets.flatMap((t) => t.scans).reduce((n, s) => n + s.scan_total, 0);
      if (tickets !== ctx.expectedTickets) throw new Error(`the scan report adds up to ${tickets} tickets, the event has ${ctx.expectedTickets}`);
      return [r];
    },
  },
  {
    id: "orders_deep_page",
    label: "GET /admin/orders, deep page",
    run: async (ctx) => {
      const page = Math.max(1, Math.floor((ctx.totalOrders * 0.9) / DEEP_PAGE_PER_PAGE));
      const r = await timed(ctx.service, { path: `/admin/orders?per_page=${DEEP_PAGE_PER_PAGE}&page=${page}`, headers: adminHeaders(ctx.service) });
      const body = expect(r, 200, "GET /admin/orders (deep page)");
      if (!Array.isArray(body) || body.length !== DEEP_PAGE_PER_PAGE) throw new Error(`page ${page} of /admin/orders holds ${body?.length} orders`);
      ctx.deepPage = page;
      return [r];
    },
  },
  {
    id: "order_search",
    label: "GET /admin/orders?search=<email>",
    run: async (ctx) => {
      // Another seeded order each time, spread over all of them.
      const n = Math.floor(((ctx.searches++ * 7919) % 1000) * (ctx.seeded / 1000));
      const email = seededEmail(Math.min(n, ctx.seeded - 1));
      const r = await timed(ctx.service, { path: `/admin/orders?search=${encodeURIComponent(email)}&per_page=10`, headers: adminHeaders(ctx.service) });
      const body = expect(r, 200, "GET /admin/orders?search=");
      // A wrong answer fails the run, but the other calls are still measured (this call's figure then means little:
      // seeded orders missing from a search index fill nothing it reads).
      if (!Array.isArray(body) || body.length !== 1 || body[0].email !== email) {
        const found = Array.isArray(body) ? body.map((o) => o.email).join(", ") || "nothing" : r.text.slice(0, 200);
        ctx.failures.add(`GET /admin/orders?search=: searching ${email} found ${found} (seeded orders missing from a search index?)`);
      }
      return [r];
    },
  },
  {
    id: "dashboard_order",
    label: "POST /admin/orders (1 ticket)",
    run: async (ctx) => {
      const { measured } = ctx;
      const body = { event_id: measured.event.id, name: "Box Office", email: `desk${++ctx.deskOrders}@example.com`, tickets: [{ [measured.type.id]: 1 }] };
      const r = await timed(ctx.service, { method: "POST", path: "/admin/orders", headers: { ...JSON_TYPE, ...adminHeaders(ctx.service) }, body });
      expect(r, 201, "POST /admin/orders");
      return [r];
    },
  },
];

/**
 * Warm-up rounds, then REPS rounds of every call; answers per call its samples. A call whose first run took over
 * SLOW_MS is warmed up once and measured SLOW_REPS times, so that one slow call cannot spend the run's time.
 * Warming lasts WARMUP_ROUNDS rounds and at least WARMUP_REQUESTS requests: the service restarts before each step, and
 * three rounds of the first step are about 30 requests against 180 at the last (50 list pages a round). It evens the
 * steps' warm-up, not their floor: /health still read 5-6 ms at the first step and 3-3.6 at the last with it.
 */
async function measureStep(ctx) {
  const samples = Object.fromEntries(CALLS.map((c) => [c.id, []]));
  const runs = Object.fromEntries(CALLS.map((c) => [c.id, 0]));
  const slow = new Set();
  const lists = [];
  let warmupRounds = 0;
  let warmupRequests = 0;
  const warming = () => warmupRounds < WARMUP_ROUNDS || warmupRequests < WARMUP_REQUESTS;
  for (let round = 0; warming() || round < warmupRounds + REPS; round++) {
    checkTime("measuring");
    const warm = warming();
    for (const call of CALLS) {
      if (slow.has(call.id) && (warm || runs[call.id] >= SLOW_REPS)) continue;
      const rs = await call.run(ctx);
      if (call.id === "dashboard_order") {
        ctx.expectedTickets += 1;
        ctx.orderTimes.push(Date.now());
      }
      if (round === 0 && rs.reduce((n, r) => n + r.ms, 0) > SLOW_MS) slow.add(call.id);
      if (warm) {
        warmupRequests += rs.length;
        continue;
      }
      runs[call.id] += 1;
      samples[call.id].push(...rs.filter((r) => !r.partial).map((r) => ({ ms: r.ms, bytes: r.bytes })));
      if (call.id === "offline_list") lists.push({ ms: rs.reduce((n, r) => n + r.ms, 0), pages: rs.length, bytes: rs.reduce((n, r) => n + r.bytes, 0) });
    }
    if (warm) warmupRounds += 1;
  }
  return { samples, lists, runs, warmupRounds };
}

// ---------------------------------------------------------------------------------------------------------------

/** The background events' sales and a seeded ticket at the door agree with what was seeded. */
async function checkSeeded(ctx) {
  const { service } = ctx;
  const problems = [];
  const bg = ctx.background[1];
  const types = await service.admin("GET", `/admin/events/${bg.id}/ticket-types`, undefined, 200);
  const sold = types.find((t) => t.id === bg.typeId)?.sold;
  const sales = await service.admin("GET", `/admin/events/${bg.id}/sales`, undefined, 200);
  const reported = sales.orders.reduce((n, o) => n + o.total_tickets, 0);
  if (reported !== sold) problems.push(`background event ${bg.id}: its sales report counts ${reported} tickets, its type's sold is ${sold}`);
  // A seeded ticket at the door: its object learns the order from D1 at the first scan (catchUpTicket).
  const db = new DatabaseSync(d1File(service.persistTo), { readOnly: true });
  let ticket;
  try {
    ticket = db
      .prepare("SELECT t.id FROM tickets AS t WHERE t.event_id = ? AND t.order_id <> ? ORDER BY t.rowid DESC LIMIT 1")
      .get(ctx.background[0].id, ctx.template.id);
  } finally {
    db.close();
  }
  if (ticket) {
    const r = await timed(service, {
      method: "POST",
      path: "/scans",
      headers: { ...JSON_TYPE, "X-EVT-API-KEY": ctx.backgroundKey },
      body: { id: ctx.code(ctx.background[0].id, ticket.id) },
    });
    if (r.status !== 200 || parse(r.text)?.status !== true) problems.push(`a seeded ticket at the door answered ${r.status} ${r.text.slice(0, 200)}`);
  }
  return problems;
}

function fmtMs(n) {
  return Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(1)) : "-";
}

function fmtBytes(n) {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)} MB`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(1)} kB`;
  return `${n} B`;
}

/**
 * Per call: its p50 at each step, its growth from the first step to the last (raw), and the same over /health's p50
 * of each step (the floor every request pays, measured in the same rounds): a busier machine slows /health as much as
 * the call, so this growth is the call's own, and the target is judged on it.
 */
function summarise(steps) {
  const health = steps.map((s) => s.calls.health.p50_ms);
  const grow = (p50s) => ({
    growth_raw: Number((p50s.at(-1) / p50s[0]).toFixed(2)),
    growth: Number((p50s.at(-1) / health.at(-1) / (p50s[0] / health[0])).toFixed(2)),
  });
  const rows = CALLS.map((call) => {
    const p50s = steps.map((s) => s.calls[call.id].p50_ms);
    const g = grow(p50s);
    return {
      id: call.id,
      label: call.label,
      p50_ms: p50s,
      ...g,
      max_bytes: Math.max(...steps.map((s) => s.calls[call.id].max_bytes)),
      ...(call.id === "health" ? {} : { met: g.growth <= MAX_GROWTH }),
      note: [
        call.id === "offline_list" ? `pages: ${steps.map((s) => s.list.pages).join(" / ")}` : "",
        steps.some((s) => s.calls[call.id].rounds < REPS) ? `rounds: ${steps.map((s) => s.calls[call.id].rounds).join(" / ")} (slow)` : "",
      ]
        .filter(Boolean)
        .join("; "),
    };
  });
  const wholeP50s = steps.map((s) => s.list.p50_ms);
  const whole = {
    id: "offline_list_whole",
    label: "GET /scans/tickets, every page",
    p50_ms: wholeP50s,
    ...grow(wholeP50s),
    max_bytes: Math.max(...steps.map((s) => s.list.bytes)),
    note: "no target: the list grows with the event",
  };
  const largest = steps.flatMap((s) => s.largest_answer.bytes).reduce((a, b) => Math.max(a, b), 0);
  return { rows, whole, largest, largestMet: largest <= MAX_ANSWER_BYTES };
}

function growthTable(steps, summary) {
  const header = steps.map((s) => `${s.tickets / 1000}k/${s.orders / 1000}k`);
  const columns = [
    ["p50 ms at tickets/orders", 33, (r) => r.label],
    ...header.map((h, i) => [h, -9, (r) => fmtMs(r.p50_ms[i])]),
    ["raw", -6, (r) => `${r.growth_raw.toFixed(1)}x`],
    ["growth", -7, (r) => (r.id === "health" ? "" : `${r.growth.toFixed(1)}x`)],
    [" target", 14, (r) => (r.met === undefined ? "" : ` <=${MAX_GROWTH}x ${r.met ? "met" : "MISSED"}`)],
    ["largest", -9, (r) => fmtBytes(r.max_bytes)],
    [" note", 0, (r) => (r.note ? ` ${r.note}` : "")],
  ];
  const table = textTable(columns, [...summary.rows, summary.whole]);
  const others = steps.map((s) => (s.others_cpu === null ? "?" : `${Math.round(s.others_cpu * 100)}%`)).join(" / ");
  const largestLine = `largest single answer: ${fmtBytes(summary.largest)} (${steps.at(-1).largest_answer.call}) <=1 MB ${summary.largestMet ? "met" : "MISSED"}`;
  return `${table}
${largestLine}
other processes' share of the CPU while measuring each step: ${others}`;
}

async function main() {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), "ticketing-growth-"));
  const stateDir = join(root, "state");
  const signer = runSigner();
  const vars = { RATE_LIMITS: "off", ...signer.vars };
  const ctx = { code: signer.code, deskOrders: 0, searches: 0, failures: new Set() };
  const start = (prepare) => startService({ persistTo: stateDir, vars, logLevel: "warn", startTimeoutMs: 60_000, prepare });
  const steps = [];
  const warnings = [];
  const cpuBefore = cpuSnapshot();
  try {
    console.log("Starting the service (migrations, fonts, wrangler dev)...");
    ctx.service = await start(true);
    await setUp(ctx);
    for (const [index, step] of STEPS.entries()) {
      const t0 = Date.now();
      checkTime(`step ${index + 1}`);
      const placed = await growMeasuredEvent(ctx, step.tickets);
      const t1 = Date.now();
      const { listed, scannedNow } = await scanShare(ctx);
      const t2 = Date.now();
      await ctx.service.stop();
      const seeded = seedOrders(ctx, step.orders);
      const t3 = Date.now();
      ctx.service = await start(false);
      const t4 = Date.now();
      const problems = await checkSeeded(ctx);
      for (const p of problems) warnings.push(`step ${index + 1}: ${p}`);
      const event = await ctx.service.admin("GET", `/admin/events/${ctx.measured.event.id}`, undefined, 200);
      ctx.expectedTickets = event.sold;
      const listedOrders = await timed(ctx.service, { path: "/admin/orders?per_page=1", headers: adminHeaders(ctx.service) });
      ctx.totalOrders = Number(listedOrders.headers.get("x-wp-total"));
      await settle();
      const cpuStep = cpuSnapshot();
      const { samples, lists, runs, warmupRounds } = await measureStep(ctx);
      const others = otherCpuShare(cpuStep, cpuSnapshot());
      const t5 = Date.now();
      const calls = Object.fromEntries(
        CALLS.map((c) => {
          const s = samples[c.id];
          return [c.id, { p50_ms: Number(median(s.map((x) => x.ms)).toFixed(2)), rounds: runs[c.id], samples: s.length, max_bytes: Math.max(...s.map((x) => x.bytes)) }];
        }),
      );
      const largestCall = CALLS.reduce((a, c) => (calls[c.id].max_bytes > calls[a.id].max_bytes ? c : a), CALLS[0]);
      const result = {
        tickets: step.tickets,
        orders: step.orders,
        measured_event_tickets: ctx.expectedTickets,
        warmup_rounds: warmupRounds,
        orders_in_d1: ctx.totalOrders,
        scans_of_measured_event: ctx.scanned.size,
        deep_page: ctx.deepPage,
        calls,
        list: {
          pages: lists[0].pages,
          p50_ms: Number(median(lists.map((l) => l.ms)).toFixed(2)),
          bytes: lists[0].bytes,
        },
        largest_answer: { bytes: calls[largestCall.id].max_bytes, call: largestCall.label },
        seconds: {
          dashboard_orders: Number(((t1 - t0) / 1000).toFixed(1)),
          scans: Number(((t2 - t1) / 1000).toFixed(1)),
          seed_d1: Number(((t3 - t2) / 1000).toFixed(1)),
          restart: Number(((t4 - t3) / 1000).toFixed(1)),
          measure: Number(((t5 - t4) / 1000).toFixed(1)),
        },
        others_cpu: others === null ? null : Number(others.toFixed(3)),
      };
      steps.push(result);
      console.log(
        `Step ${index + 1}: measured event ${ctx.expectedTickets} tickets (${placed} orders of ${ORDER_SIZE} now; ${listed} listed, ${scannedNow} scanned now), ` +
          `${ctx.totalOrders} orders in all (${seeded.orders} orders with ${seeded.tickets} tickets seeded in D1). Seconds: orders ${result.seconds.dashboard_orders}, ` +
          `scans ${result.seconds.scans}, seeding ${result.seconds.seed_d1}, restart ${result.seconds.restart}, measuring ${result.seconds.measure} (${warmupRounds} rounds warming up)` +
          (others === null ? "" : `; other processes ${Math.round(others * 100)} % of the CPU`),
      );
    }
    await ctx.service.stop();
    const cap = capacity(stateDir, { tickets: ctx.expectedTickets, scans: ctx.scanned.size });
    const summary = summarise(steps);
    const printed = growthTable(steps, summary);
    console.log(`\n${printed}\n`);
    const missed = summary.rows.filter((r) => r.met === false).map((r) => r.id);
    console.log(
      `raw: the last step's p50 over the first's; growth: the same over /health's p50 in each step (the floor), judged against the target ` +
        `(<= ${MAX_GROWTH}x): ${missed.length === 0 ? "met by every call" : `missed by ${missed.join(", ")}`}.`,
    );
    console.log(
      `D1 after the last step: ${fmtBytes(cap.file_bytes)}; bytes per row with indexes: ` +
        Object.entries(cap.tables)
          .filter(([, t]) => t.rows > 0)
          .map(
            ([name, t]) =>
              `${name} ${t.bytes_per_row} (${t.rows} rows; content ${t.content_bytes_per_row}${t.search_index_bytes > 0 ? `; search index ${Math.round(t.search_index_bytes / t.rows)}` : ""})`,
          )
          .join(", ") +
        `; the measured event's object ${fmtBytes(cap.event_object.bytes)}, ${cap.event_object.bytes_per_ticket} bytes per ticket.`,
    );
    const others = otherCpuShare(cpuBefore, cpuSnapshot());
    if (others !== null && others > 0.1)
      warnings.push(`other processes used ${Math.round(others * 100)} % of the machine's CPU during the run: the figures read high and noisy`);
    for (const w of warnings) console.warn(`Warning: ${w}`);
    const failures = [...ctx.failures].slice(0, 10);
    const report = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model ?? "",
        node: process.version,
        loadavg_1m: Number(loadavg()[0].toFixed(2)),
        other_processes_cpu_share: others === null ? null : Number(others.toFixed(3)),
      },
      setup: {
        scale: SCALE,
        steps: STEPS,
        order_size: ORDER_SIZE,
        scan_share: SCAN_SHARE,
        background_events: BACKGROUND_EVENTS,
        warmup_rounds: WARMUP_ROUNDS,
        warmup_requests: WARMUP_REQUESTS,
        reps: REPS,
        list_per_page: LIST_PER_PAGE,
        deep_page: `per_page ${DEEP_PAGE_PER_PAGE}, the page at 90 % of all orders`,
        targets: { max_growth: MAX_GROWTH, max_answer_bytes: MAX_ANSWER_BYTES },
        timing: "one request at a time, from sending to the last byte; p50 of the rounds",
      },
      source: sourceVersion(),
      steps,
      summary: { rows: summary.rows, offline_list_whole: summary.whole, largest_answer_bytes: summary.largest, largest_answer_met: summary.largestMet, missed },
      d1_capacity: cap,
      table: printed.split("\n"),
      warnings,
      failures,
      duration_s: Number(((Date.now() - started) / 1000).toFixed(1)),
    };
    if (SCALE === 1) {
      writeFileSync(join(ROOT, "bench", "growth.json"), `${JSON.stringify(report, null, 2)}\n`);
      console.log(`Wrote bench/growth.json (${report.duration_s} s in all).`);
    } else console.log(`GROWTH_SCALE=${SCALE}: bench/growth.json left as it was (${report.duration_s} s in all).`);
    if (failures.length > 0) {
      console.error(`\nFailed (wrong answers; the figures above were measured all the same):\n- ${failures.join("\n- ")}`);
      process.exitCode = 1;
    }
  } catch (err) {
    if (ctx.service) console.error(`wrangler dev's last output:\n${ctx.service.output(40)}`);
    throw err;
  } finally {
    await ctx.service?.stop();
    if (process.env.GROWTH_KEEP === "1") console.log(`GROWTH_KEEP=1: the state dir stays at ${stateDir}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

const watchdog = setTimeout(() => {
  console.error(`bench:growth: still running after ${(RUN_LIMIT_MS + 15_000) / 1000} s; giving up`);
  process.exit(1);
}, RUN_LIMIT_MS + 15_000);
watchdog.unref();

main().then(
  () => clearTimeout(watchdog),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exitCode = 1;
  },
);

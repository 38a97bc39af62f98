// `npm run bench`: the service under load, against `wrangler dev` (scripts/local-service.mjs) on a state dir of its
// own, driven by autocannon over loopback. Every row runs with the same number of connections, after a short
// warm-up of the same requests that is not counted (a longer one before the first row, right after the restart).
// Before each row the bench waits for the service to go idle, so background work (queue consumers, alarms, work
// deferred past the answer) that a row causes is measured while that row runs, and none of it slows the next one.
//
// Rows (one function each, run in ROWS order):
//   health            GET /health, the ceiling: no key, no D1, no object. Measured first and again last; the mean
//                     of the two is the reference every ratio divides by (the drift between them is printed).
//   scan_first        POST /scans, each request a different valid ticket (entrance key, level 0): status true. The
//                     service signs ticket codes (a key made for the run), and the scans present signed codes,
//                     as scanners read them from the PDFs' QR codes.
//   scan_repeat       POST /scans of tickets the previous row scanned: refused, "This scan has already been done".
//   dashboard_orders  POST /admin/orders (API key + Basic), one ticket each, on an event without stock limits.
//   customer_orders   POST /events/<id>/orders (API key), one free ticket each, against a type with stock_control
//                     and CONTENDED_STOCK units while CONTENDED_REQUESTS orders are sent: 201 until sold out, 409
//                     after. Afterwards the 201s, the type's `sold`, the order form's `remaining` and the event's
//                     order count must all say exactly CONTENDED_STOCK sold, or the bench fails.
//   shop_page         GET /shop/<event_id>, the box office's page (HTML, no key) of an event with three ticket types
//                     (one stock-controlled with show_remaining, so the page asks the event object for what is
//                     left; one with volume prices) and an input field, in the languages round robin.
//   cached_download   GET /tickets/<uid> of orders already downloaded once (the PDF kept in R2), round robin.
//   uncached_download GET /tickets/<uid>, the first download of fresh orders: each renders its 10-ticket PDF.
// "ratio" is the row's requests/s over /health's; targets (TARGETS below; docs/benchmarks.md "Benchmark") are printed beside it. "others" is the share of
// the machine's CPU that processes other than the bench, wrangler and workerd used during the row (Linux /proc):
// above a few percent the row was measured on a shared machine and reads low.
// Before the table, one sequential timing: the first render after a restart (cold isolate: fonts, template and the
// renderer's code not yet loaded).
//
// Every e-ticket carries a personalised attendee name; each order's ten names span Latin with accents, Polish,
// Greek, Cyrillic, Chinese and Japanese, so every render embeds glyphs from both font families. The template is a
// one-page A4 PDF made here with pdf-lib and uploaded through the admin API.
//
// `BENCH_ONLY=scan_first,cached_download npm run bench` runs only those rows (and the two /health rows), for
// looking into one of them; the table then says so, and bench/results.json is left alone.
//
// Prints a table and writes bench/results.json. Bounded: fixed durations and counts, and a deadline for the run.
// The run fails (exit code 1) when an answer is not what its row expects or the contended stock is oversold or
// undersold; a missed target is reported, not failed. To add a row: write `async function myRow(ctx)` that calls
// `drive()` and answers its result (plus `note`), and list it in ALL_ROWS.
import autocannon from "autocannon";
import { generateKeyPairSync, sign as ed25519Sign } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDict, PDFDocument, PDFName, rgb, StandardFonts } from "pdf-lib";
import { ROOT, startService } from "../scripts/local-service.mjs";
import { cpuSnapshot, inParallel, otherCpuShare, parse, percentile, settle, sourceVersion } from "./lib.mjs";

const CONNECTIONS = 10;
const DURATION_S = 5;
const WARMUP_S = 1;
/** The first row after the restart warms up longer: wrangler's proxy and the runtime are cold then. */
const FIRST_WARMUP_S = 4;
/** Tickets seeded for the first-scan row (in dashboard orders of SCAN_ORDER_SIZE); more than it can use. */
const SCAN_ORDER_SIZE = 500;
const SCAN_ORDERS = 14;
const CONTENDED_STOCK = 200;
const CONTENDED_REQUESTS = 600;
const TICKETS_PER_PDF = 10;
const CACHED_ORDERS = 20;
/** Fresh orders for the uncached row: warm-up first, then the measured ones (each request renders one). */
const UNCACHED_WARMUP = 10;
const UNCACHED_MEASURED = 30;
const RUN_LIMIT_MS = 240_000;
/** Between rows: the longest wait for the service to go idle. */
const SETTLE_MAX_MS = 10_000;
const DEADLINE = Date.now() + RUN_LIMIT_MS;

/** The targets: requests/s as a share of /health's, measured in the same run. */
const TARGETS = { scan_first: 0.55, scan_repeat: 0.55, shop_page: 0.5, cached_download: 0.5, dashboard_orders: 0.2 };

const ATTENDEES = [
  "Zoë Nuñez-Grâce", // Latin with accents
  "Łukasz Wróbel", // Polish
  "Ελένη Παπαδοπούλου", // Greek
  "Дмитрий Иванов", // Cyrillic
  "李小龍", // Chinese
  "山田 さくら", // Japanese (kanji and kana)
  "Søren Ødegård",
  "Zofia Żółkiewska",
  "Γιώργος Νικολάου",
  "Ольга Смирнова",
];
const BUYERS = ["José María Ibáñez", "Małgorzata Kowalczyk", "Νίκος Κωνσταντίνου", "Анна Петрова", "王小明", "佐藤 はなこ"];

function checkTime(what) {
  if (Date.now() > DEADLINE) throw new Error(`the bench ran out of its ${RUN_LIMIT_MS / 1000} s during ${what}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The load generator.

/**
 * Runs autocannon against the service: `CONNECTIONS` connections for `duration` seconds, or until `amount` requests
 * are answered. `request` is autocannon's request object (method, path under /ticketing/v1, headers, body);
 * `next()`, when given, is called for every request and answers what changes (`{ path }`, `{ body }`). `check(status,
 * body)` answers an error text for an unexpected answer (bodies are only read when it is given). Answers requests/s
 * (answered requests over wall-clock seconds), latency percentiles of every answer, counts per status and the
 * first unexpected answers.
 */
async function drive(ctx, { request, next, check, duration = DURATION_S, amount }) {
  const base = new URL(ctx.service.url);
  const latencies = [];
  const statuses = {};
  const problems = [];
  let unexpected = 0;
  const req = {
    method: request.method ?? "GET",
    path: `${base.pathname}${request.path}`,
    headers: request.headers ?? {},
    body: request.body,
  };
  if (next) req.setupRequest = (r) => ({ ...r, ...mapPath(next(), base.pathname) });
  if (check) {
    req.onResponse = (status, body) => {
      const problem = check(status, body);
      if (problem) {
        unexpected += 1;
        if (problems.length < 3) problems.push(problem);
      }
    };
  }
  const options = {
    url: base.origin,
    connections: CONNECTIONS,
    timeout: 30,
    requests: [req],
    ...(amount ? { amount } : { duration }),
  };
  const started = performance.now();
  const cpuBefore = cpuSnapshot();
  const instance = autocannon(options);
  instance.on("response", (_client, status, _bytes, ms) => {
    latencies.push(ms);
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const others = otherCpuShare(cpuBefore, cpuSnapshot());
  latencies.sort((a, b) => a - b);
  if (result.errors > 0) problems.push(`${result.errors} connection errors (${result.timeouts} timeouts)`);
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses,
    unexpected: unexpected + result.errors,
    problems,
    others,
  };
}

function mapPath(change, prefix) {
  return change.path === undefined ? change : { ...change, path: `${prefix}${change.path}` };
}

/** A warm-up of the same requests, not counted (longer before the first row). */
function warmUp(ctx, spec) {
  const duration = ctx.warmedUp ? WARMUP_S : FIRST_WARMUP_S;
  ctx.warmedUp = true;
  return drive(ctx, { ...spec, duration });
}

const json = (body) => JSON.stringify(body);
const JSON_TYPE = { "Content-Type": "application/json" };

// ---------------------------------------------------------------------------------------------------------------
// Seeding, through the admin API and the public personalisation route.

async function templatePdf() {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595.28, 841.89]);
  page.drawRectangle({ x: 0, y: 700, width: 595.28, height: 141.89, color: rgb(0.2, 0.4, 0.8) });
  page.drawText("SPRING CONCERT", { x: 40, y: 760, size: 32, font: await doc.embedFont(StandardFonts.HelveticaBold), color: rgb(1, 1, 1) });
  page.drawText("Bench template", { x: 40, y: 60, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  return doc.save();
}

// A date ahead, or the events would not take orders any more.
const EVENT_DATE = `${new Date().getUTCFullYear() + 1}-03-14 20:00:00`;

async function createEvent(service, name, extra = {}) {
  return service.admin("POST", "/admin/events", { event_name: name, event_date: EVENT_DATE, ...extra }, 201);
}

async function createType(service, eventId, fields) {
  return service.admin("POST", `/admin/events/${eventId}/ticket-types`, { name: "Regular", price: 25, maximum_to_order: 0, ...fields }, 201);
}

/** The e-ticket event: a template, a personalised attendee field and one type using both. */
async function seedPdfEvent(ctx) {
  const { service } = ctx;
  const form = new FormData();
  form.append("title", "Bench template");
  form.append("file", new Blob([await templatePdf()], { type: "application/pdf" }), "bench-template.pdf");
  const template = await service.admin("POST", "/admin/pdf-templates", form, 201);
  const event = await createEvent(service, "Spring Concert (bench)", { add_dashboard_orders_needed: true });
  const field = { name: "Attendee", type: "text", is_personalised: true, is_required: true };
  const attendee = await service.admin("POST", `/admin/events/${event.id}/input-fields`, field, 201);
  const type = await createType(service, event.id, { attachment_id: template.id, personalise: "Attendee", layout: "Attendee,Name,Order-id,Email" });
  ctx.pdf = { event, attendee, type, template };
}

/** A dashboard order of ten tickets, every ticket personalised with a name of another script. */
async function placePdfOrder(ctx, index) {
  const { service, pdf } = ctx;
  const order = await service.admin(
    "POST",
    "/admin/orders",
    { event_id: pdf.event.id, name: BUYERS[index % BUYERS.length], email: `buyer${index}@example.com`, tickets: [{ [pdf.type.id]: TICKETS_PER_PDF }] },
    201,
  );
  const needs = await (await fetch(`${service.url}/tickets/${order.uid}/personalisation`)).json();
  const tickets = needs.tickets.map((t, i) => ({ ticket_id: t.ticket_id, fields: { [pdf.attendee.id]: ATTENDEES[(index + i) % ATTENDEES.length] } }));
  const put = await fetch(`${service.url}/tickets/${order.uid}/personalisation`, { method: "PUT", headers: JSON_TYPE, body: json({ tickets }) });
  if (put.status !== 200) throw new Error(`personalising order ${order.id} answered ${put.status}: ${await put.text()}`);
  return order.uid;
}

/** lib.mjs's inParallel, each piece of work first checking the run's deadline. */
const seedInParallel = (count, parallel, work) =>
  inParallel(count, parallel, (i) => {
    checkTime("seeding");
    return work(i);
  });

async function seedPdfOrders(ctx) {
  const total = CACHED_ORDERS + UNCACHED_WARMUP + UNCACHED_MEASURED + 1;
  const uids = await seedInParallel(total, 4, (i) => placePdfOrder(ctx, i));
  ctx.cachedUids = uids.slice(0, CACHED_ORDERS);
  ctx.coldUid = uids[CACHED_ORDERS];
  ctx.freshUids = uids.slice(CACHED_ORDERS + 1);
  // The first download renders and keeps each cached order's PDF; its page count is checked once.
  await seedInParallel(CACHED_ORDERS, 2, async (i) => {
    const res = await fetch(`${ctx.service.url}/tickets/${ctx.cachedUids[i]}`);
    const body = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200 || res.headers.get("content-type") !== "application/pdf") {
      throw new Error(`the first download of a cached order answered ${res.status}`);
    }
    if (i === 0) {
      const pages = (await PDFDocument.load(body)).getPageCount();
      if (pages !== TICKETS_PER_PDF) throw new Error(`the PDF has ${pages} pages, not ${TICKETS_PER_PDF}`);
    }
  });
}

/** The door: an event whose tickets the scan rows present, as their QR codes carry them (signed codes). */
async function seedScanTickets(ctx) {
  const { service } = ctx;
  const event = await createEvent(service, "Door test (bench)", { add_dashboard_orders_needed: true });
  const type = await createType(service, event.id, {});
  const scanKey = await service.admin("POST", `/admin/events/${event.id}/scan-keys`, { level: 0, location: "Main entrance" }, 201);
  const ids = await seedInParallel(SCAN_ORDERS, 2, async (i) => {
    const order = await service.admin(
      "POST",
      "/admin/orders",
      { event_id: event.id, name: "Door Test", email: `door${i}@example.com`, tickets: [{ [type.id]: SCAN_ORDER_SIZE }] },
      201,
    );
    const listed = await service.admin("GET", `/admin/tickets/${order.id}`, undefined, 200);
    return listed.tickets.map((t) => t.ticket_id);
  });
  ctx.scan = { event, key: scanKey.key, codes: ids.flat().map((id) => ctx.ticketCode(event.id, id)), scanned: [] };
  if (ctx.scan.codes.length !== SCAN_ORDERS * SCAN_ORDER_SIZE) {
    throw new Error(`seeded ${ctx.scan.codes.length} scan tickets, not ${SCAN_ORDERS * SCAN_ORDER_SIZE}`);
  }
}

/** Dashboard orders: an event without stock limits. Customer orders: a contended free type, and an open one to warm up. */
async function seedOrderEvents(ctx) {
  const { service } = ctx;
  const dashboard = await createEvent(service, "Dashboard orders (bench)", { add_dashboard_orders_needed: true });
  const dashboardType = await createType(service, dashboard.id, {});
  const contended = await createEvent(service, "Contended stock (bench)");
  const contendedType = await createType(service, contended.id, { price: 0, stock_control: true, stock: CONTENDED_STOCK, show_remaining: true });
  const open = await createEvent(service, "Open stock (bench)");
  const openType = await createType(service, open.id, { price: 0 });
  ctx.orders = { dashboard, dashboardType, contended, contendedType, open, openType };
}

/** The shop page's event: the types and field a small box office has (decisions.md 15 "The box office"). */
async function seedShopEvent(ctx) {
  const { service } = ctx;
  const event = await createEvent(service, "Shop page (bench)");
  const types = [
    await createType(service, event.id, { name: "Early bird", price: 19.5, vat: 9, stock_control: true, stock: 1000, show_remaining: true }),
    await createType(service, event.id, { name: "Regular", price: 25, vat: 9, volume_price: [{ 4: 22.5 }] }),
    await createType(service, event.id, { name: "Student", price: 15, vat: 9 }),
  ];
  await service.admin("POST", `/admin/events/${event.id}/input-fields`, { name: "Phone", type: "text", is_required: false }, 201);
  ctx.shop = { event, types };
}

// ---------------------------------------------------------------------------------------------------------------
// Rows. Each answers drive()'s result, optionally with a `note`, and pushes failures into ctx.failures.

function failIf(ctx, label, r) {
  if (r.unexpected > 0) ctx.failures.push(`${label}: ${r.unexpected} unexpected answers, e.g. ${r.problems.join(" | ")}`);
  return r;
}

async function health(ctx) {
  const spec = { request: { path: "/health" }, check: (s) => (s === 200 ? null : `status ${s}`) };
  await warmUp(ctx, spec);
  return failIf(ctx, "health", await drive(ctx, spec));
}

/** Entrance scans, each of another valid ticket: decided (and recorded) by the event object. */
async function scanFirst(ctx) {
  const { scan } = ctx;
  let cursor = 0;
  const spec = {
    request: { method: "POST", path: "/scans", headers: { ...JSON_TYPE, "X-EVT-API-KEY": scan.key } },
    // Past the seeded tickets the last one is presented again: its refusal is an unexpected answer (seed more).
    next: () => ({ body: json({ id: scan.codes[Math.min(cursor++, scan.codes.length - 1)] }) }),
    check: (status, body) => {
      const answer = parse(body);
      if (status !== 200 || answer?.status !== true) return `${status} ${body.slice(0, 200)}`;
      scan.scanned.push(ctx.ticketCode(scan.event.id, answer.qrcode));
      return null;
    },
  };
  await warmUp(ctx, spec);
  const r = failIf(ctx, "scan_first", await drive(ctx, spec));
  return { ...r, note: `${scan.scanned.length} tickets entered` };
}

/** Tickets scanned by the previous row, again (round robin): refused as already done. */
async function scanRepeat(ctx) {
  const { scan } = ctx;
  let cursor = 0;
  const spec = {
    request: { method: "POST", path: "/scans", headers: { ...JSON_TYPE, "X-EVT-API-KEY": scan.key } },
    next: () => ({ body: json({ id: scan.scanned[cursor++ % scan.scanned.length] }) }),
    check: (status, body) => {
      const answer = parse(body);
      return status === 200 && answer?.status === false && answer.error === "This scan has already been done" ? null : `${status} ${body.slice(0, 200)}`;
    },
  };
  await warmUp(ctx, spec);
  return failIf(ctx, "scan_repeat", await drive(ctx, spec));
}

async function dashboardOrders(ctx) {
  const { service, orders } = ctx;
  let n = 0;
  const spec = {
    request: { method: "POST", path: "/admin/orders", headers: { ...JSON_TYPE, "X-EVT-API-KEY": service.apiKey, Authorization: service.auth } },
    next: () => {
      n += 1;
      return { body: json({ event_id: orders.dashboard.id, name: "Box Office", email: `box${n}@example.com`, tickets: [{ [orders.dashboardType.id]: 1 }] }) };
    },
    check: (status, body) => (status === 201 ? null : `${status} ${body.slice(0, 200)}`),
  };
  await warmUp(ctx, spec);
  return failIf(ctx, "dashboard_orders", await drive(ctx, spec));
}

/** Free one-ticket orders against CONTENDED_STOCK units: exactly that many may succeed. */
async function customerOrders(ctx) {
  const { service, orders } = ctx;
  let n = 0;
  const spec = (event, type) => ({
    request: { method: "POST", path: `/events/${event.id}/orders`, headers: { ...JSON_TYPE, "X-EVT-API-KEY": service.apiKey } },
    next: () => {
      n += 1;
      return { body: json({ name: "Shop Customer", email: `shop${n}@example.com`, tickets: [{ [type.id]: 1 }] }) };
    },
  });
  await warmUp(ctx, { ...spec(orders.open, orders.openType), check: (s, b) => (s === 201 ? null : `${s} ${b.slice(0, 200)}`) });
  const refusals = {};
  const r = await drive(ctx, {
    ...spec(orders.contended, orders.contendedType),
    amount: CONTENDED_REQUESTS,
    check: (status, body) => {
      if (status === 201) return null;
      const code = parse(body)?.code;
      refusals[code] = (refusals[code] ?? 0) + 1;
      return status === 409 && code === "order_stock_unavailable" ? null : `${status} ${body.slice(0, 200)}`;
    },
  });
  failIf(ctx, "customer_orders", r);

  // Exactly the stock sold: the answers, the type's `sold`, the object's remaining and the orders in D1 agree.
  const created = r.statuses[201] ?? 0;
  const types = await service.admin("GET", `/admin/events/${orders.contended.id}/ticket-types`, undefined, 200);
  const sold = types.find((t) => t.id === orders.contendedType.id)?.sold;
  const form = await (await fetch(`${service.url}/events/${orders.contended.id}/order-form`, { headers: { "X-EVT-API-KEY": service.apiKey } })).json();
  const remaining = form.ticket_types?.find((t) => t.id === orders.contendedType.id)?.remaining;
  const listed = await fetch(`${service.url}/admin/orders?event_id=${orders.contended.id}&per_page=1`, {
    headers: { "X-EVT-API-KEY": service.apiKey, Authorization: service.auth },
  });
  await listed.arrayBuffer();
  const inD1 = Number(listed.headers.get("X-WP-Total"));
  const stock = { stock: CONTENDED_STOCK, requests: CONTENDED_REQUESTS, created, sold, remaining, orders_in_d1: inD1, refusals };
  ctx.stockCheck = stock;
  const exact = created === CONTENDED_STOCK && sold === CONTENDED_STOCK && remaining === 0 && inD1 === CONTENDED_STOCK;
  console.log(
    `Contended stock: ${CONTENDED_STOCK} units, ${r.requests} orders sent: ${created} created (201), type sold ${sold}, remaining ${remaining}, ` +
      `${inD1} orders in D1: ${exact ? "exact" : "WRONG"}`,
  );
  if (!exact) ctx.failures.push(`customer_orders: stock ${CONTENDED_STOCK} but ${JSON.stringify(stock)}`);
  return { ...r, note: `stock ${CONTENDED_STOCK}: ${created}x201, ${r.statuses[409] ?? 0}x409, sold ${sold} ${exact ? "(exact)" : "(WRONG)"}` };
}

/** The shop page, in each language in turn: rendered by the Worker, remaining asked of the event object. */
async function shopPage(ctx) {
  const { event } = ctx.shop;
  const languages = ["en", "nl", "de", "fr", "es"];
  let cursor = 0;
  const spec = {
    request: { path: `/shop/${event.id}` },
    next: () => ({ path: `/shop/${event.id}?lang=${languages[cursor++ % languages.length]}` }),
    check: (status, body) => (status === 200 && body.includes(event.event_name) ? null : `${status} ${body.slice(0, 200)}`),
  };
  await warmUp(ctx, spec);
  return { ...failIf(ctx, "shop_page", await drive(ctx, spec)), note: "3 types, 1 field; 5 languages" };
}

async function cachedDownload(ctx) {
  let cursor = 0;
  const spec = {
    request: { path: "/tickets/x" },
    next: () => ({ path: `/tickets/${ctx.cachedUids[cursor++ % ctx.cachedUids.length]}` }),
    check: (status, body) => (status === 200 && body.startsWith("%PDF-") ? null : `${status} ${body.slice(0, 200)}`),
  };
  await warmUp(ctx, spec);
  return { ...failIf(ctx, "cached_download", await drive(ctx, spec)), note: `${ctx.cachedUids.length} orders of ${TICKETS_PER_PDF} tickets` };
}

/** First downloads, each of another fresh order: every request renders (and keeps) a 10-ticket PDF. */
async function uncachedDownload(ctx) {
  let cursor = 0;
  const spec = (uids) => ({
    request: { path: "/tickets/x" },
    next: () => ({ path: `/tickets/${uids[Math.min(cursor++, uids.length - 1)]}` }),
    check: (status, body) => (status === 200 && body.startsWith("%PDF-") ? null : `${status} ${body.slice(0, 200)}`),
  });
  // With `amount`, autocannon builds exactly that many requests: one fresh order each.
  failIf(ctx, "uncached_download (warm-up)", await drive(ctx, { ...spec(ctx.freshUids.slice(0, UNCACHED_WARMUP)), amount: UNCACHED_WARMUP }));
  cursor = 0;
  const r = failIf(ctx, "uncached_download", await drive(ctx, { ...spec(ctx.freshUids.slice(UNCACHED_WARMUP)), amount: UNCACHED_MEASURED }));
  return { ...r, note: `renders of ${TICKETS_PER_PDF} tickets` };
}

const ALL_ROWS = [
  { id: "health", label: "GET /health", run: health },
  { id: "scan_first", label: "POST /scans, valid tickets", run: scanFirst },
  { id: "scan_repeat", label: "POST /scans, already scanned", run: scanRepeat },
  { id: "dashboard_orders", label: "POST /admin/orders", run: dashboardOrders },
  { id: "customer_orders", label: "POST /events/:id/orders", run: customerOrders },
  { id: "shop_page", label: "GET /shop/:id", run: shopPage },
  { id: "cached_download", label: "GET /tickets/:uid, cached", run: cachedDownload },
  { id: "uncached_download", label: "GET /tickets/:uid, uncached", run: uncachedDownload },
  { id: "health_end", label: "GET /health, again", run: health },
];
const ONLY = (process.env.BENCH_ONLY ?? "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const unknownRows = ONLY.filter((id) => !ALL_ROWS.some((r) => r.id === id));
if (unknownRows.length > 0) throw new Error(`BENCH_ONLY names unknown rows: ${unknownRows.join(", ")} (rows: ${ALL_ROWS.map((r) => r.id).join(", ")})`);
// The repeat scans present what the first scans entered.
if (ONLY.includes("scan_repeat") && !ONLY.includes("scan_first")) ONLY.push("scan_first");
const ROWS = ONLY.length === 0 ? ALL_ROWS : ALL_ROWS.filter((r) => r.id.startsWith("health") || ONLY.includes(r.id));

// ---------------------------------------------------------------------------------------------------------------

/** The embedded fonts of a PDF, by base name (subset prefixes removed). */
async function fontNames(bytes) {
  const doc = await PDFDocument.load(bytes);
  const names = new Set();
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || String(object.get(PDFName.of("Type"))) !== "/Font") continue;
    const base = String(object.get(PDFName.of("BaseFont")) ?? "");
    names.add(base.replace(/^\/([A-Z]{6}\+)?/, ""));
  }
  return [...names].sort();
}

/** The first render after a restart, sequential, timed with the whole body read. */
async function renderCold(ctx) {
  const start = performance.now();
  const res = await fetch(`${ctx.service.url}/tickets/${ctx.coldUid}`);
  const body = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - start;
  if (res.status !== 200 || res.headers.get("content-type") !== "application/pdf") throw new Error(`the cold render answered ${res.status}`);
  const pages = (await PDFDocument.load(body)).getPageCount();
  if (pages !== TICKETS_PER_PDF) throw new Error(`the cold render has ${pages} pages, not ${TICKETS_PER_PDF}`);
  return { ms, kib: body.length / 1024, fonts: await fontNames(body) };
}

function table(rows) {
  const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : "-");
  const columns = [
    ["row", 30, (r) => r.label],
    ["req", -6, (r) => String(r.requests)],
    ["req/s", -8, (r) => f1(r.rps)],
    ["p50 ms", -8, (r) => f1(r.p50_ms)],
    ["p99 ms", -8, (r) => f1(r.p99_ms)],
    ["ratio", -6, (r) => r.ratio.toFixed(2)],
    [" target", 14, (r) => (r.target === undefined ? "" : ` >=${r.target.toFixed(2)} ${r.met ? "met" : "MISSED"}`)],
    ["others", -6, (r) => (r.others_cpu === null ? "?" : `${Math.round(r.others_cpu * 100)}%`)],
    [" note", 0, (r) => ` ${r.note ?? ""}`],
  ];
  // Positive widths pad on the right (text), negative ones on the left (figures).
  const line = (cells) =>
    cells
      .map((c, i) => (columns[i][1] < 0 ? c.padStart(-columns[i][1]) : c.padEnd(columns[i][1])))
      .join(" ")
      .trimEnd();
  return [line(columns.map(([name]) => name)), ...rows.map((r) => line(columns.map(([, , cell]) => cell(r))))].join("\n");
}

/** Files under src/ changed since `since` (wrangler dev reloads on them, which would spoil the figures). */
function srcChangedSince(since) {
  const changed = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (statSync(path).mtimeMs > since) changed.push(path.slice(ROOT.length + 1));
    }
  };
  walk(join(ROOT, "src"));
  return changed;
}

async function main() {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), "ticketing-bench-"));
  const stateDir = join(root, "state");
  const ctx = { failures: [] };
  // The benchmark runs without the rate limits (RATE_LIMITS=off): it measures the work, not the limiter's refusals.
  // It signs ticket codes as production does (TICKET_SIGNING_KEYS, a key made for the run): the PDFs' QR codes carry
  // signed codes, and the scan rows present them, so every scan is verified in the Worker.
  const { privateKey } = generateKeyPairSync("ed25519");
  const { x, d } = privateKey.export({ format: "jwk" });
  const vars = { RATE_LIMITS: "off", TICKET_SIGNING_KEYS: JSON.stringify([{ kid: "bench", kty: "OKP", crv: "Ed25519", x, d }]) };
  ctx.ticketCode = (eventId, ticketId) => {
    const message = `bench.${eventId}.${ticketId}`;
    return `${message}.${ed25519Sign(null, Buffer.from(message), privateKey).toString("base64url")}`;
  };
  let service;
  try {
    console.log("Starting the service (migrations, fonts, wrangler dev)...");
    service = await startService({ persistTo: stateDir, vars, logLevel: "warn", startTimeoutMs: 60_000 });
    ctx.service = service;
    const setupStart = Date.now();
    await seedPdfEvent(ctx);
    await seedScanTickets(ctx);
    await seedOrderEvents(ctx);
    await seedShopEvent(ctx);
    await seedPdfOrders(ctx);
    console.log(
      `Seeded in ${((Date.now() - setupStart) / 1000).toFixed(1)} s: ${ctx.scan.codes.length} tickets to scan, ` +
        `${ctx.cachedUids.length + 1 + ctx.freshUids.length} orders of ${TICKETS_PER_PDF} personalised tickets ` +
        `(${ctx.cachedUids.length} downloaded once), 3 order events, 1 shop event.`,
    );

    // A fresh isolate for the cold render: restart on the same state.
    await service.stop();
    service = await startService({ persistTo: stateDir, vars, logLevel: "warn", startTimeoutMs: 60_000, prepare: false });
    ctx.service = service;
    const measureStart = Date.now();
    const load = [loadavg()[0]];
    const cpuBefore = cpuSnapshot();
    console.log(`Restarted; measuring (${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per row).`);

    const cold = await renderCold(ctx);
    console.log(`Cold render (first download after the restart, sequential): ${cold.ms.toFixed(0)} ms, ${cold.kib.toFixed(0)} KiB`);

    const measured = [];
    for (const row of ROWS) {
      checkTime(row.label);
      // Background work a row started (queue consumers, alarms, deferred work) counts against that row, not the next.
      const settled = await settle(SETTLE_MAX_MS);
      const r = await row.run(ctx);
      measured.push({ ...row, ...r, settled_ms: settled });
      console.log(`  ${row.label}: ${r.rps.toFixed(1)} req/s (after ${settled} ms waiting for the service to go idle)`);
    }
    load.push(loadavg()[0]);
    const others = otherCpuShare(cpuBefore, cpuSnapshot());
    const healthRuns = measured.filter((r) => r.id === "health" || r.id === "health_end").map((r) => r.rps);
    const reference = healthRuns.reduce((a, b) => a + b, 0) / healthRuns.length;
    const drift = Math.abs(healthRuns[0] - healthRuns[1]) / reference;

    const rows = measured.map((r) => {
      const ratio = r.rps / reference;
      const target = TARGETS[r.id];
      return {
        id: r.id,
        label: r.label,
        connections: CONNECTIONS,
        requests: r.requests,
        seconds: Number(r.seconds.toFixed(2)),
        rps: Number(r.rps.toFixed(1)),
        p50_ms: Number(r.p50.toFixed(2)),
        p99_ms: Number(r.p99.toFixed(2)),
        ratio: Number(ratio.toFixed(3)),
        ...(target === undefined ? {} : { target, met: ratio >= target }),
        statuses: r.statuses,
        others_cpu: r.others === null ? null : Number(r.others.toFixed(3)),
        settled_ms: r.settled_ms,
        ...(r.note ? { note: r.note } : {}),
      };
    });
    const printed = ONLY.length > 0 ? `${table(rows)}\n(BENCH_ONLY: ${ONLY.join(", ")})` : table(rows);
    console.log(`\n${printed}\n`);
    console.log(`ratio: req/s over the mean of the two /health rows (${reference.toFixed(1)} req/s; they differ by ${(drift * 100).toFixed(0)} %).`);
    if (drift > 0.15) {
      console.warn("Warning: /health moved by more than 15 % between the first and last row: the machine was busy; treat the ratios with care.");
    }
    if (others !== null) {
      console.log(`Other processes used ${(others * 100).toFixed(0)} % of the machine's CPU while measuring.`);
      if (others > 0.1) {
        console.warn("Warning: the machine was shared while measuring (tests or builds running?): the figures read low and noisy.");
      }
    }
    const targeted = rows.filter((r) => r.target !== undefined);
    const missed = targeted.filter((r) => !r.met).map((r) => r.id);
    console.log(`Targets met: ${targeted.length - missed.length} of ${targeted.length}${missed.length > 0 ? ` (missed: ${missed.join(", ")})` : ""}.`);
    console.log(`Fonts in the cold PDF: ${cold.fonts.join(", ") || "(none)"}`);
    if (!cold.fonts.some((f) => /Noto/i.test(f))) console.warn("Warning: no Noto font embedded: the names fell back to Helvetica (fonts not in R2?)");
    const changed = srcChangedSince(measureStart);
    if (changed.length > 0) {
      console.warn(`Warning: src/ changed while measuring (${changed.slice(0, 5).join(", ")}): wrangler dev reloaded the Worker; the figures are suspect.`);
    }

    const report = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model ?? "",
        node: process.version,
        loadavg_1m: load.map((l) => Number(l.toFixed(2))),
        other_processes_cpu_share: others === null ? null : Number(others.toFixed(3)),
      },
      setup: {
        load_generator: "autocannon 9",
        connections: CONNECTIONS,
        warmup_s: WARMUP_S,
        duration_s: DURATION_S,
        tickets_per_pdf: TICKETS_PER_PDF,
        template: "one A4 page (pdf-lib), through the ticket type",
        attendee_names: ATTENDEES,
        rate_limits: "off",
        ticket_codes: "signed (Ed25519, a key made for the run)",
        ratio: "requests/s over the mean requests/s of the two /health rows",
      },
      source: sourceVersion(),
      health_reference_rps: Number(reference.toFixed(1)),
      health_drift: Number(drift.toFixed(3)),
      render_cold: { ms: Number(cold.ms.toFixed(1)), kib: Number(cold.kib.toFixed(1)), fonts: cold.fonts },
      contended_stock: ctx.stockCheck,
      rows,
      table: printed.split("\n"),
      failures: ctx.failures,
      src_changed_while_measuring: changed,
      duration_s: Number(((Date.now() - started) / 1000).toFixed(1)),
    };
    if (ONLY.length === 0) {
      writeFileSync(join(ROOT, "bench", "results.json"), `${JSON.stringify(report, null, 2)}\n`);
      console.log(`Wrote bench/results.json (${report.duration_s} s in all).`);
    } else console.log(`BENCH_ONLY: bench/results.json left as it was (${report.duration_s} s in all).`);
    if (ctx.failures.length > 0) {
      console.error(`\nFailed:\n- ${ctx.failures.join("\n- ")}`);
      process.exitCode = 1;
    }
  } catch (err) {
    if (service) console.error(`wrangler dev's last output:\n${service.output(40)}`);
    throw err;
  } finally {
    await service?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${(RUN_LIMIT_MS + 15_000) / 1000} s; giving up`);
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

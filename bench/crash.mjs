// `npm run test:crash`: kills the service in the middle of a busy sale and checks what survived.
//
// For each kill point (`--kill-at 1,2,2.5,3`, seconds after the load starts; `--quick`: the first one only):
//   1. starts `wrangler dev` (scripts/local-service.mjs) on a fresh state dir under .wrangler/crash/, with open orders
//      expiring after a minute (ORDER_HOLD_MINUTES=1) and rate limits off (every client here shares one address);
//      seeds four events with stock-controlled ticket types, a level-0 scan key each, `emails_needed` (the outbox:
//      emails are D1 rows) and `webhooks_needed`, and enabled `order.created` and `waiting_list.offered` webhooks
//      pointed at a receiver this script runs on 127.0.0.1, which records every delivery with its
//      `X-EVT-Webhook-Delivery-ID`. The fourth event has a waiting list (decisions.md 15 "Selling like the peers"):
//      its one type is sold out before the load (dashboard orders, and open customer orders left unpaid), and
//      buyers join its line for 1 or 2 units each, and one group for more than can ever come back;
//   2. loads it: customer orders (each with its own Idempotency-Key; paid ones pay through the test checkout, a few are
//      left unpaid on purpose so that they must expire), dashboard orders, and a door scanning the tickets of final
//      orders; meanwhile units of the waiting-list event come back, spread up to the kill point: the organiser
//      deletes some of its dashboard orders and some of its open orders are cancelled at the test checkout (the rest
//      expire after the restart); every answer is recorded (the status and ids, or the connection error);
//   3. SIGKILLs the whole process group (wrangler and workerd) at the kill point, restarts on the same state
//      (`prepare: false`), runs the cron sweep through `--test-scheduled`, sends each order request that died with
//      the connection once more with its Idempotency-Key, as a client would, and then polls (at most POLL_LIMIT_MS)
//      until every check passes:
//        orders           every 201 has its order in D1, every paid checkout (303) its order final; one order per
//                         client request (a retry must not make a second);
//        tickets at door  every ticket of every final order in D1 is admitted by a level-0 key: `status: true`, or
//                         "already done" when it was scanned before ("Ticket not found" is a lost ticket; a second
//                         `status: true` for one ticket a duplicate);
//        emails           every final order has its new-order email in the outbox, and it reaches `sent`;
//        webhooks         every final order's `order.created` reached the receiver (repeats of one delivery id are
//                         allowed; two delivery ids for one order are a duplicate);
//        scans in D1      every scan the door got `status: true` for (before or after the crash) is in D1;
//        holds/sold       each event's and type's `sold` is the sum of its final orders' tickets, and the order form's
//                         `remaining` is the stock less the tickets of live orders and the units offered to the
//                         waiting list (no units held for nothing);
//        expiry           no unpaid order stays open: each expires at its deadline;
//        waiting list     every unit of the waiting-list type is sold, held by a live open order, offered (entries
//                         `offered` in D1) or on sale, never two of these: the sum is the stock (below: a unit lost;
//                         above: counted twice); no entry has two offer emails in the outbox or two
//                         `waiting_list.offered` delivery ids, and every offered entry has its email and webhook; no
//                         more units offered than came back; and while units are on sale, no entry they fit is still
//                         `waiting` (the line comes first).
// It prints one table per kill point: per check what it looked at, what was lost and duplicated at the end, and the
// seconds after the restart until it first passed; and how many committed orders reached their client only as a
// connection error. The exit code is 1 when anything is lost, a check did not pass within HEAL_LIMIT_S of the
// restart, or a duplicate is seen. Details (every answer, the ids behind each count) go to .wrangler/crash/results.json.
//
// Bounded: fixed numbers of requests, a deadline per phase and for the run; traffic only to 127.0.0.1. The state dir
// of a kill point that failed stays under .wrangler/crash/ for a look afterwards; the next run starts by removing it.
// Runs on Node 22 (wrangler refuses older): `npm run test:crash`, or `./node_modules/.bin/node bench/crash.mjs`.
import { readFileSync, rmSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ROOT, startService } from "../scripts/local-service.mjs";

const { values: flags } = parseArgs({
  options: {
    "kill-at": { type: "string" },
    quick: { type: "boolean", default: false },
    orders: { type: "string", default: "250" },
    concurrency: { type: "string", default: "25" },
  },
});
/** Seconds after the load starts. `--quick` takes the first of `--kill-at`, or 2 s (mid-load on this machine). */
const KILL_POINTS = (flags["kill-at"] ?? (flags.quick ? "2" : "1,2,2.5,3")).split(",").map(Number);
if (KILL_POINTS.some((s) => !(s > 0 && s < 60))) throw new Error(`--kill-at takes seconds between 0 and 60, comma-separated: ${flags["kill-at"]}`);
const RUN_KILL_POINTS = flags.quick ? KILL_POINTS.slice(0, 1) : KILL_POINTS;

const CUSTOMER_ORDERS = Number(flags.orders);
const CUSTOMER_CONCURRENCY = Number(flags.concurrency);
const DASHBOARD_ORDERS = 40;
const DASHBOARD_CONCURRENCY = 2;
const DOOR_SCANNERS = 3;
/** Dashboard orders placed before the load, so the door has tickets to scan from the first second. */
const DOOR_POOL_ORDERS = 10;
/** Every UNPAID_EVERY-th order that needs payment is left unpaid: those must expire. */
const UNPAID_EVERY = 7;
const HOLD_MINUTES = 1;
/**
 * The waiting-list event's type: sold out before the load by WAIT_OPEN_ORDERS open customer orders (left unpaid) and
 * dashboard orders, of 2 units each; WAIT_ENTRIES buyers join its line (1 or 2 units, the last a big group). During
 * the load the organiser deletes WAIT_DELETES of the dashboard orders and WAIT_CANCELS open orders are cancelled at
 * the test checkout; the other open orders expire after the restart: 8 to 16 units come back for a line of 11 units
 * (counts 2 and 1) and one group of WAIT_BIG_GROUP, so that units are often on sale while an entry still waits.
 */
const WAIT_STOCK = 24;
const WAIT_OPEN_ORDERS = 4;
const WAIT_ENTRIES = 8;
/** The last entry is a group larger than can ever come back: passed over, never in the way of those behind it. */
const WAIT_BIG_GROUP = 20;
const WAIT_DELETES = 4;
const WAIT_CANCELS = 2;
const POLL_LIMIT_MS = 180_000;
const POLL_EVERY_MS = 3_000;
/** After every check passed, polling goes on this long, so a late duplicate (a re-sent email or webhook) is seen. */
const QUIET_MS = 15_000;
/** A ticket the door did not find is presented again at most this often (a lost ticket is tried all along). */
const RESCAN_MS = 15_000;
const DOOR_CHECK_PARALLEL = 6;
const HEAL_LIMIT_S = 120;
const REQUEST_TIMEOUT_MS = 30_000;
const RUN_LIMIT_MS = RUN_KILL_POINTS.length * 6 * 60_000;
const OUT_DIR = join(ROOT, ".wrangler", "crash");
const EVENT_DATE = `${new Date().getUTCFullYear() + 1}-06-20 20:00:00`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------------------------------------------------------
// HTTP: one helper that never throws, so that a connection error is an answer like any other.

/**
 * One request. Answers `{status, body, headers}`, or `{status: 0, error}` when no answer came (refused, reset,
 * timed out). `retry`: a call that may safely run twice (reads, orders with an Idempotency-Key, payments) is sent once
 * more when a kept-alive socket was closed under it before the kill (ENGINEERING.md: Node's fetch and a quiet spell).
 */
async function call(url, { method = "GET", headers = {}, json, form, retry = null } = {}) {
  const init = { method, headers: { ...headers }, redirect: "manual", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  }
  if (form !== undefined) {
    init.body = new URLSearchParams(form).toString();
    init.headers["Content-Type"] = "application/x-www-form-urlencoded";
  }
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text.slice(0, 200);
    }
    return { status: res.status, body, headers: res.headers };
  } catch (err) {
    const error = err?.cause?.code ?? err?.name ?? String(err);
    if (retry?.() && (error === "UND_ERR_SOCKET" || error === "ECONNRESET")) return call(url, { method, headers, json, form });
    return { status: 0, error };
  }
}

const adminHeaders = (service) => ({ "X-EVT-API-KEY": service.apiKey, Authorization: service.auth });

/** An admin call that must succeed (seeding, snapshots): throws with the answer otherwise. */
async function admin(service, method, path, json) {
  const r = await call(`${service.url}${path}`, { method, headers: adminHeaders(service), json, retry: () => true });
  if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path} answered ${r.status || r.error}: ${JSON.stringify(r.body)?.slice(0, 300)}`);
  return r;
}

/** Every page of an admin collection (per_page 100). */
async function allPages(service, path) {
  const rows = [];
  for (let page = 1; ; page++) {
    const r = await admin(service, "GET", `${path}${path.includes("?") ? "&" : "?"}per_page=100&page=${page}`);
    rows.push(...r.body);
    if (page >= Number(r.headers.get("X-WP-TotalPages") ?? 1)) return rows;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The webhook receiver: the integrator's endpoint, on loopback.

function startReceiver() {
  const deliveries = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      let id = null;
      try {
        id = JSON.parse(body).id ?? null;
      } catch {
        // not JSON: recorded without an id
      }
      // `id` is the payload's: the order's for `order.*`, the entry's for `waiting_list.*`.
      deliveries.push({ deliveryId: req.headers["x-evt-webhook-delivery-id"] ?? "", topic: req.headers["x-evt-webhook-topic"] ?? "", orderId: id, id, at: Date.now() });
      res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}/hook`, deliveries, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding, through the admin API.

/** The catalogue: a paid event, a free one, and one mixing both; every type stock-controlled with its remaining shown. */
const CATALOGUE = [
  {
    key: "concert",
    name: "Concert (crash)",
    dashboard: true,
    types: [
      { name: "Regular", price: 25, stock: 400 },
      { name: "VIP", price: 60, stock: 80 },
    ],
  },
  { key: "talk", name: "Talk (crash)", dashboard: true, types: [{ name: "Free", price: 0, stock: 500 }] },
  // Sold out before the load, with a waiting list (seedWaitingList); the load's customers and box office leave it be.
  { key: "gig", name: "Gig (crash)", dashboard: true, waitingList: true, types: [{ name: "Standing", price: 20, stock: WAIT_STOCK }] },
  {
    key: "festival",
    name: "Festival (crash)",
    dashboard: false,
    types: [
      { name: "Kids", price: 0, stock: 300 },
      { name: "Adult", price: 30, stock: 200 },
    ],
  },
];

async function seedEvent(service, spec) {
  const event = (
    await admin(service, "POST", "/admin/events", {
      event_name: spec.name,
      event_date: EVENT_DATE,
      emails_needed: true,
      webhooks_needed: true,
      add_dashboard_orders_needed: spec.dashboard,
      waiting_list_needed: spec.waitingList ?? false,
      email: { subject: "Your tickets", body: "" },
    })
  ).body;
  const types = [];
  for (const t of spec.types) {
    const body = { name: t.name, price: t.price, maximum_to_order: 0, stock_control: true, stock: t.stock, show_remaining: true };
    types.push({ ...t, id: (await admin(service, "POST", `/admin/events/${event.id}/ticket-types`, body)).body.id });
  }
  const scanKey = (await admin(service, "POST", `/admin/events/${event.id}/scan-keys`, { level: 0, location: "Main entrance" })).body.key;
  return { ...spec, id: event.id, types, scanKey };
}

/** The `tickets` of an order body: every type of the event, with the counts asked for (by type name). */
function ticketsBody(event, counts) {
  return event.types.map((t) => ({ [t.id]: counts[t.name] ?? 0 }));
}

async function seed(service, receiver) {
  for (const topic of ["order.created", "waiting_list.offered"]) {
    const hook = (await admin(service, "POST", "/admin/webhooks", { name: `crash receiver ${topic}`, url: receiver.url, secret: "crash-test-secret", topic })).body;
    await admin(service, "PUT", `/admin/webhooks/${hook.id}`, { enabled: true });
  }
  const events = {};
  for (const spec of CATALOGUE) events[spec.key] = await seedEvent(service, spec);
  const waiting = await seedWaitingList(service, events.gig);
  const concert = events.concert;
  const pool = [];
  for (let i = 0; i < DOOR_POOL_ORDERS; i++) {
    const body = { event_id: concert.id, name: "Door Pool", email: `crash-pool-${i}@example.com`, tickets: ticketsBody(concert, { Regular: 3 }) };
    const orderId = (await admin(service, "POST", "/admin/orders", body)).body.id;
    const tickets = (await admin(service, "GET", `/admin/tickets/${orderId}`)).body.tickets.map((t) => t.ticket_id);
    pool.push({ orderId, eventId: concert.id, tickets });
  }
  // The seeded orders' emails and webhooks settle before the load, so that whatever is lost was lost to the crash.
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(250)) {
    const emails = await allPages(service, "/admin/emails");
    const orderEmails = DOOR_POOL_ORDERS + waiting.dashboard.length;
    if (emails.length >= orderEmails && emails.every((e) => e.status === "sent") && receiver.deliveries.length >= orderEmails) break;
  }
  return { events, byId: new Map(Object.values(events).map((e) => [e.id, e])), pool, waiting };
}

/**
 * The waiting-list event: its type sold out by open customer orders (unpaid: they expire, or are cancelled in the
 * load) and dashboard orders (some deleted in the load), then WAIT_ENTRIES buyers in line (1 or 2 units, the last
 * a big group), joined with the API key as a shop front would. Answers the orders whose units may come back, and the entries.
 */
async function seedWaitingList(service, event) {
  const type = event.types[0];
  const open = [];
  for (let i = 0; i < WAIT_OPEN_ORDERS; i++) {
    const email = `crash-wait-open-${i}@example.com`;
    const r = await call(`${service.url}/events/${event.id}/orders`, {
      method: "POST",
      headers: { "X-EVT-API-KEY": service.apiKey, "Idempotency-Key": `crash-wait-open-${i}-${Date.now()}` },
      json: { name: `Open ${i}`, email, tickets: ticketsBody(event, { [type.name]: 2 }) },
      retry: () => true,
    });
    if (r.status !== 201 || !r.body.payment)
      throw new Error(`an open order of the waiting-list event answered ${r.status || r.error}: ${JSON.stringify(r.body)?.slice(0, 300)}`);
    open.push({ orderId: r.body.id, uid: r.body.uid, units: 2 });
  }
  const dashboard = [];
  for (let i = 0; i < (WAIT_STOCK - 2 * WAIT_OPEN_ORDERS) / 2; i++) {
    const body = { event_id: event.id, name: `Box wait ${i}`, email: `crash-wait-box-${i}@example.com`, tickets: ticketsBody(event, { [type.name]: 2 }) };
    dashboard.push({ orderId: (await admin(service, "POST", "/admin/orders", body)).body.id, units: 2 });
  }
  const langs = ["en", "de", "fr", "nl", "es"];
  const entries = [];
  for (let i = 0; i < WAIT_ENTRIES; i++) {
    const body = {
      name: `Waiting ${i}`,
      email: `crash-wait-${i}@example.com`,
      ticket_type_id: type.id,
      count: i === WAIT_ENTRIES - 1 ? WAIT_BIG_GROUP : 2 - (i % 2),
      lang: langs[i % langs.length],
    };
    const r = await call(`${service.url}/events/${event.id}/waiting-list`, { method: "POST", headers: { "X-EVT-API-KEY": service.apiKey }, json: body });
    if (r.status !== 201) throw new Error(`joining the waiting list answered ${r.status || r.error}: ${JSON.stringify(r.body)?.slice(0, 300)}`);
    entries.push(r.body);
  }
  return { eventId: event.id, typeId: type.id, open, dashboard, entries, ops: [] };
}

// ---------------------------------------------------------------------------------------------------------------
// The load: customers, the box office and the door, until the kill.

/** What customer `i` orders: 4 in 10 the paid concert, 3 the free talk, 3 the festival (free kids, sometimes adults). */
function customerOrder(i, events) {
  const slot = i % 10;
  if (slot < 4) return { event: events.concert, counts: { Regular: 1 + (i % 2), VIP: i % 3 === 0 ? 1 : 0 } };
  if (slot < 7) return { event: events.talk, counts: { Free: 1 + (i % 3) } };
  return { event: events.festival, counts: { Kids: 1 + (i % 2), Adult: i % 2 } };
}

/** Runs `work(i)` for i < count, `parallel` at a time, until `stopped()`. */
async function inParallel(count, parallel, stopped, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count && !stopped()) await work(next++);
    }),
  );
}

async function customer(run, i) {
  const { service, seeded } = run;
  const { event, counts } = customerOrder(i, seeded.events);
  const request = {
    kind: "customer",
    i,
    eventId: event.id,
    email: `crash-${i}@example.com`,
    key: `crash-${run.id}-customer-${i}`,
    path: `/events/${event.id}/orders`,
    body: { name: `Customer ${i}`, email: `crash-${i}@example.com`, tickets: ticketsBody(event, counts) },
    headers: { "X-EVT-API-KEY": service.apiKey },
    answer: { status: 0, error: "unanswered" },
  };
  run.requests.push(request);
  request.answer = answerOf(await sendOrder(run, request));
  if (request.answer.status !== 201) return;
  if (request.answer.payment === null) return run.doorQueue.push({ orderId: request.answer.orderId, eventId: event.id });
  if (i % UNPAID_EVERY === 0 || run.killed) {
    request.unpaidOnPurpose = !run.killed;
    return;
  }
  const paid = await call(`${service.url}/pay/test/${request.answer.uid}`, { method: "POST", form: { action: "pay" }, retry: () => !run.killed });
  request.pay = { status: paid.status, error: paid.error };
  if (paid.status === 303) run.doorQueue.push({ orderId: request.answer.orderId, eventId: event.id });
}

async function boxOffice(run, i) {
  const { service, seeded } = run;
  const event = i % 2 === 0 ? seeded.events.concert : seeded.events.talk;
  const counts = event.key === "concert" ? { Regular: 1 + (i % 2) } : { Free: 2 };
  const email = `crash-box-${i}@example.com`;
  const request = {
    kind: "dashboard",
    i,
    eventId: event.id,
    email,
    key: `crash-${run.id}-box-${i}`,
    path: "/admin/orders",
    body: { event_id: event.id, name: `Box ${i}`, email, tickets: ticketsBody(event, counts) },
    headers: adminHeaders(service),
    answer: { status: 0, error: "unanswered" },
  };
  run.requests.push(request);
  request.answer = answerOf(await sendOrder(run, request));
  if (request.answer.status === 201) run.doorQueue.push({ orderId: request.answer.orderId, eventId: event.id });
}

function sendOrder(run, request) {
  return call(`${run.service.url}${request.path}`, {
    method: "POST",
    headers: { ...request.headers, "Idempotency-Key": request.key },
    json: request.body,
    retry: () => !run.killed,
  });
}

function answerOf(r) {
  return {
    status: r.status,
    error: r.error ?? r.body?.code ?? null,
    orderId: r.status === 201 ? r.body.id : null,
    uid: r.status === 201 ? r.body.uid : null,
    payment: r.status === 201 ? (r.body.payment ?? null) : null,
    replayed: r.headers?.get("Idempotent-Replayed") === "true",
  };
}

/** A door scanner: takes the next final order, reads its tickets, scans each with the event's level-0 key. */
async function doorScanner(run) {
  const { service, seeded } = run;
  while (!run.killed) {
    const next = run.doorQueue.shift();
    if (!next) {
      await sleep(25);
      continue;
    }
    let tickets = next.tickets;
    if (!tickets) {
      // What the QR codes of the order's PDF would carry.
      const listed = await call(`${service.url}/admin/tickets/${next.orderId}`, { headers: adminHeaders(service), retry: () => !run.killed });
      if (listed.status !== 200) continue;
      tickets = listed.body.tickets.map((t) => t.ticket_id);
    }
    for (const ticketId of tickets) {
      if (run.killed) return;
      const r = await call(`${service.url}/scans`, { method: "POST", headers: { "X-EVT-API-KEY": seeded.byId.get(next.eventId).scanKey }, json: { id: ticketId } });
      run.doorScans.push({ ticketId, orderId: next.orderId, status: r.status, admitted: r.body?.status === true, error: r.error ?? r.body?.error ?? null });
      if (r.body?.status === true) run.admittedOnce.set(ticketId, "load");
    }
  }
}

/**
 * Units of the waiting-list event come back during the load, spread evenly up to the kill point (the last one races
 * it): dashboard orders deleted by the organiser, open orders cancelled at the test checkout. Each answer is kept; a
 * call that died with the runtime is not sent again (what it did or did not commit is what the check looks at).
 */
async function unitsBack(run) {
  const { service, seeded } = run;
  const w = seeded.waiting;
  const ops = [];
  for (let i = 0; i < Math.max(WAIT_DELETES, WAIT_CANCELS); i++) {
    if (i < WAIT_DELETES) ops.push({ kind: "delete", orderId: w.dashboard[i].orderId });
    if (i < WAIT_CANCELS) ops.push({ kind: "cancel", orderId: w.open[i].orderId, uid: w.open[i].uid });
  }
  // The last one goes just before the kill, so it is in flight when the runtime dies.
  const every = (run.killAtS * 950) / (ops.length - 1);
  const start = Date.now();
  // Each at its own time, not after the one before: under load an answer takes seconds, and all must be sent by then.
  await Promise.all(
    ops.map(async (op, i) => {
      await sleep(i * every);
      if (run.killed) return;
      const r =
        op.kind === "delete"
          ? await call(`${service.url}/admin/orders/${op.orderId}`, { method: "DELETE", headers: adminHeaders(service) })
          : await call(`${service.url}/pay/test/${op.uid}`, { method: "POST", form: { action: "cancel" } });
      w.ops.push({ ...op, sentMs: Math.round(i * every), answeredMs: Date.now() - start, status: r.status, error: r.error ?? r.body?.code ?? null });
    }),
  );
}

function startLoad(run) {
  const stopped = () => run.killed;
  return Promise.all([
    unitsBack(run),
    inParallel(CUSTOMER_ORDERS, CUSTOMER_CONCURRENCY, stopped, (i) => customer(run, i)),
    inParallel(DASHBOARD_ORDERS, DASHBOARD_CONCURRENCY, stopped, (i) => boxOffice(run, i)),
    ...Array.from({ length: DOOR_SCANNERS }, () => doorScanner(run)),
  ]);
}

// ---------------------------------------------------------------------------------------------------------------
// After the restart: the cron, the clients' retries, and what D1, the objects, the outbox and the receiver say.

/** The crons of wrangler.toml (`[triggers] crons`); wrangler dev runs none by itself. */
function configuredCrons() {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  const list = /^\s*crons\s*=\s*\[([^\]]*)\]/m.exec(toml);
  const crons = list ? [...list[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]) : [];
  return crons.length > 0 ? crons : ["* * * * *"];
}
/** A cron whose minute field is `*` runs every minute: while polling it is run again each minute, as in production. */
const everyMinute = (cron) => /^(\*|\*\/1)\s/.test(cron);

async function runCron(run, cron) {
  const r = await call(`${run.service.origin}/__scheduled?cron=${encodeURIComponent(cron).replace(/%20/g, "+")}`);
  run.crons.push({ cron, at: Date.now() - run.restartedAt, status: r.status || r.error });
}

/** The clients (emails) whose orders D1 holds now: read before the retries, which may place orders of their own. */
async function committedClients(run) {
  const emails = new Set();
  for (const event of run.seeded.byId.values()) for (const o of await allPages(run.service, `/admin/orders?event_id=${event.id}`)) emails.add(o.email);
  return emails;
}

/** An order request that died with the connection is sent once more with its Idempotency-Key, as its client would. */
async function retryLostAnswers(run) {
  const lost = run.requests.filter((r) => r.answer?.status === 0);
  await inParallel(
    lost.length,
    4,
    () => false,
    async (i) => {
      lost[i].retry = answerOf(await sendOrder(run, lost[i]));
    },
  );
}

/** One read of everything the checks compare: orders (with tickets and scans), the outbox, sold and remaining. */
async function snapshot(run) {
  const { service, seeded } = run;
  const orders = new Map();
  const emails = new Map();
  const events = new Map();
  for (const event of seeded.byId.values()) {
    for (const o of await allPages(service, `/admin/orders?event_id=${event.id}&_embed=tickets`)) {
      const tickets = o._embedded?.tickets?.[0]?.tickets ?? (await admin(service, "GET", `/admin/tickets/${o.id}`)).body.tickets;
      orders.set(o.id, { id: o.id, eventId: o.event_id, email: o.email, status: o.payment_status, lines: o.input_fields.tickets, tickets, createdAt: o.created_at });
    }
    for (const e of await allPages(service, `/admin/emails?event_id=${event.id}`)) {
      if (!emails.has(e.order_id)) emails.set(e.order_id, []);
      emails.get(e.order_id).push(e);
    }
    const sold = (await admin(service, "GET", `/admin/events/${event.id}`)).body.sold;
    const types = (await admin(service, "GET", `/admin/events/${event.id}/ticket-types`)).body;
    const form = await call(`${service.url}/events/${event.id}/order-form`, { headers: { "X-EVT-API-KEY": service.apiKey }, retry: () => true });
    if (form.status !== 200) throw new Error(`the order form of event ${event.id} answered ${form.status || form.error}`);
    const remaining = new Map(form.body.ticket_types.map((t) => [t.id, t.remaining]));
    events.set(event.id, { sold, types, remaining });
  }
  const w = seeded.waiting;
  const entries = await allPages(service, `/admin/events/${w.eventId}/waiting-list`);
  // Offer emails are about no order (`order_id` 0): the outbox rows of the waiting-list event that carry an offer link.
  const offerEmails = (emails.get(0) ?? []).filter((e) => e.event_id === w.eventId && e.body.includes(`/shop/${w.eventId}?offer=`));
  /** Units the waiting list holds now, per type: entries `offered` in D1. */
  const offeredUnits = new Map();
  for (const e of entries) if (e.state === "offered") offeredUnits.set(e.ticket_type_id, (offeredUnits.get(e.ticket_type_id) ?? 0) + e.count);
  return { orders, emails, events, waiting: { entries, offerEmails, offeredUnits } };
}

const FINAL = new Set(["paid", "dashboard", "booked", "booked - confirmed", "dashboard - confirmed"]);
const LIVE = new Set(["open", ...FINAL]);
const finalOrders = (snap) => [...snap.orders.values()].filter((o) => FINAL.has(o.status));

/** A check's outcome: what it looked at, what is lost and duplicated now (with the ids behind them). */
const outcome = (checked, lost, duplicated, extra = {}) => ({
  checked,
  lost: lost.length,
  duplicated: duplicated.length,
  lostIds: lost,
  duplicatedIds: duplicated,
  ...extra,
  pass: lost.length === 0,
});

/** Orders: the clients' 201s and 303s stand in D1, and no client request made two orders. */
function checkOrders(run, snap) {
  const lost = [];
  for (const r of run.requests) {
    for (const answer of [r.answer, r.retry]) {
      if (answer?.status === 201 && !snap.orders.has(answer.orderId)) lost.push(`order ${answer.orderId} (answered 201)`);
    }
    if (r.pay?.status === 303 && !FINAL.has(snap.orders.get(r.answer.orderId)?.status)) lost.push(`order ${r.answer.orderId} (paid, 303)`);
  }
  const perEmail = new Map();
  for (const o of snap.orders.values()) perEmail.set(o.email, [...(perEmail.get(o.email) ?? []), o.id]);
  const duplicated = run.requests.flatMap((r) => (perEmail.get(r.email) ?? []).slice(1));
  return outcome(run.requests.length, [...new Set(lost)], duplicated);
}

/**
 * The door: every ticket of every final order is presented with a level-0 key until it is admitted. A ticket the door
 * answered `status: true` before and admits again is a duplicate (the object forgot that scan).
 */
async function checkDoor(run, snap) {
  const { service, seeded } = run;
  const tickets = finalOrders(snap).flatMap((o) => o.tickets.map((t) => ({ ...t, orderId: o.id })));
  const due = tickets.filter((t) => !run.door.admitted.has(t.ticket_id) && (run.door.notFoundAt.get(t.ticket_id) ?? -Infinity) < Date.now() - RESCAN_MS);
  await inParallel(
    due.length,
    DOOR_CHECK_PARALLEL,
    () => false,
    async (i) => {
      const t = due[i];
      const r = await call(`${service.url}/scans`, { method: "POST", headers: { "X-EVT-API-KEY": seeded.byId.get(t.event_id).scanKey }, json: { id: t.ticket_id } });
      if (r.body?.status === true) {
        if (run.admittedOnce.has(t.ticket_id)) run.door.twice.add(t.ticket_id);
        run.admittedOnce.set(t.ticket_id, "check");
        run.door.admitted.add(t.ticket_id);
      } else if (r.body?.error === "This scan has already been done") run.door.admitted.add(t.ticket_id);
      else if (r.body?.error === "Ticket not found") run.door.notFoundAt.set(t.ticket_id, Date.now());
      else run.door.other.push({ ticketId: t.ticket_id, status: r.status || r.error, error: r.body?.error ?? r.body?.code ?? null });
      if (run.door.admitted.has(t.ticket_id)) run.door.notFoundAt.delete(t.ticket_id);
    },
  );
  const lost = tickets.filter((t) => !run.door.admitted.has(t.ticket_id)).map((t) => `ticket ${t.ticket_id} of order ${t.orderId}`);
  const notFound = tickets.filter((t) => run.door.notFoundAt.has(t.ticket_id)).length;
  return outcome(
    tickets.length,
    lost,
    [...run.door.twice].map((id) => `ticket ${id}`),
    { note: lost.length > 0 ? `${notFound} "Ticket not found"` : "" },
  );
}

/** The outbox: one new-order email per final order, sent. */
function checkEmails(_run, snap) {
  const finals = finalOrders(snap);
  const lost = [];
  const duplicated = [];
  let noRow = 0;
  for (const o of finals) {
    const rows = snap.emails.get(o.id) ?? [];
    if (rows.length === 0) {
      lost.push(`order ${o.id}: no email row`);
      noRow += 1;
    } else if (!rows.some((e) => e.status === "sent")) lost.push(`order ${o.id}: email ${rows[0].id} ${rows[0].status}`);
    if (rows.length > 1) duplicated.push(`order ${o.id}: emails ${rows.map((e) => e.id).join(",")}`);
  }
  return outcome(finals.length, lost, duplicated, { note: lost.length > 0 ? `${noRow} without a row, ${lost.length - noRow} never sent` : "" });
}

/** The receiver: each final order's `order.created` arrived; one delivery id per order (repeats of it are fine). */
function checkWebhooks(run, snap) {
  const ids = new Map();
  let repeats = 0;
  for (const d of run.receiver.deliveries) {
    if (d.topic !== "order.created") continue;
    const seen = ids.get(d.orderId) ?? new Set();
    if (seen.has(d.deliveryId)) repeats += 1;
    ids.set(d.orderId, seen.add(d.deliveryId));
  }
  const finals = finalOrders(snap);
  const lost = finals.filter((o) => !ids.has(o.id)).map((o) => `order ${o.id}`);
  const duplicated = [...ids].filter(([, s]) => s.size > 1).map(([id, s]) => `order ${id}: deliveries ${[...s].join(",")}`);
  return outcome(finals.length, lost, duplicated, { note: repeats > 0 ? `${repeats} repeated delivery ids (allowed)` : "" });
}

/** D1's scans: every `status: true` the door got (during the load and while checking) is a level-0 scan in D1, once. */
function checkScans(run, snap) {
  const entrances = new Map();
  for (const o of snap.orders.values()) for (const t of o.tickets) entrances.set(t.ticket_id, t.scans.filter((s) => s.level === 0).length);
  const admitted = [...run.admittedOnce.keys()];
  const lost = admitted.filter((id) => !entrances.get(id)).map((id) => `ticket ${id} (${run.admittedOnce.get(id)})`);
  const duplicated = admitted.filter((id) => entrances.get(id) > 1).map((id) => `ticket ${id}: ${entrances.get(id)} entrance rows`);
  const lostInLoad = admitted.filter((id) => !entrances.get(id) && run.admittedOnce.get(id) === "load").length;
  return outcome(admitted.length, lost, duplicated, { note: lost.length > 0 ? `${lostInLoad} scanned before the kill, ${lost.length - lostInLoad} after` : "" });
}

/**
 * Stock: per type, `sold` is the final orders' tickets and the order form's `remaining` the stock less the live
 * (final and open) orders' tickets; per event, `sold` is the final orders' counted tickets. Units missing (held for
 * nothing, or sold not counted) are lost; units counted twice (or free twice) are duplicated.
 */
function checkHolds(_run, snap) {
  const lost = [];
  const duplicated = [];
  let lostUnits = 0;
  let duplicatedUnits = 0;
  const compare = (what, expected, actual) => {
    if (actual < expected) {
      lost.push(`${what} ${actual}, expected ${expected}`);
      lostUnits += expected - actual;
    }
    if (actual > expected) {
      duplicated.push(`${what} ${actual}, expected ${expected}`);
      duplicatedUnits += actual - expected;
    }
  };
  let checked = 0;
  for (const [eventId, state] of snap.events) {
    const orders = [...snap.orders.values()].filter((o) => o.eventId === eventId);
    const units = (statuses, name) =>
      orders.filter((o) => statuses.has(o.status)).reduce((n, o) => n + o.lines.filter((l) => l.name === name).reduce((m, l) => m + l.number, 0), 0);
    const counted = orders.filter((o) => FINAL.has(o.status)).reduce((n, o) => n + o.lines.filter((l) => l.is_counted).reduce((m, l) => m + l.number, 0), 0);
    compare(`event ${eventId} sold`, counted, state.sold);
    checked += 1;
    for (const t of state.types) {
      compare(`${t.name} sold`, units(FINAL, t.name), t.sold);
      // Fewer remaining than expected: units held for orders that do not exist (or are no longer live). Units offered
      // to the waiting list are held too, until the offer is used or ends (decisions.md 15 "Selling like the peers").
      const offered = snap.waiting.offeredUnits.get(t.id) ?? 0;
      compare(`${t.name} remaining`, Math.max(0, t.stock - units(LIVE, t.name) - offered), state.remaining.get(t.id));
      checked += 1;
    }
  }
  // Counted in units: a type's count is off by so many tickets.
  const note = [...lost, ...duplicated].slice(0, 2).join("; ");
  return { ...outcome(checked, lost, duplicated, { note: note ? `units; ${note}` : "" }), lost: lostUnits, duplicated: duplicatedUnits, pass: lost.length === 0 };
}

/** Expiry: no order stays open; an unpaid order is expired by its deadline (ORDER_HOLD_MINUTES after it was made). */
function checkExpiry(run, snap) {
  for (const o of snap.orders.values()) if (o.status === "open") run.everOpen.add(o.id);
  const open = [...snap.orders.values()].filter((o) => o.status === "open").map((o) => `order ${o.id} (made ${o.createdAt})`);
  return { ...outcome(run.everOpen.size, open, []), duplicated: null };
}

/**
 * The waiting list (decisions.md 15 "Selling like the peers"): every unit of its type is sold, held by a live open
 * order, offered or on sale, once. Lost: the sum is below the stock; or an entry offered in D1 without its offer
 * email or `waiting_list.offered` delivery; or an entry that fits what is on sale still waiting (the line comes
 * first). Duplicated: the sum above the stock; two offer emails or two delivery ids for one entry; more units offered
 * than came back (the seeded orders no longer live). Passes only with neither: a sum above the stock can be a moment
 * between the object freeing units and D1 ending their order, so it must settle like a loss.
 */
function checkWaitingList(run, snap) {
  const w = run.seeded.waiting;
  const event = snap.events.get(w.eventId);
  const type = event.types.find((t) => t.id === w.typeId);
  const orders = [...snap.orders.values()].filter((o) => o.eventId === w.eventId);
  const units = (statuses) =>
    orders.filter((o) => statuses.has(o.status)).reduce((n, o) => n + o.lines.filter((l) => l.name === type.name).reduce((m, l) => m + l.number, 0), 0);
  const sold = units(FINAL);
  const held = units(new Set(["open"]));
  const offered = snap.waiting.offeredUnits.get(w.typeId) ?? 0;
  const onSale = event.remaining.get(w.typeId);
  const lost = [];
  const duplicated = [];
  const sum = sold + held + offered + onSale;
  const parts = `sold ${sold} + held ${held} + offered ${offered} + on sale ${onSale} = ${sum} of ${type.stock}`;
  if (sum < type.stock) lost.push(`${type.stock - sum} units: ${parts}`);
  if (sum > type.stock) duplicated.push(`${sum - type.stock} units: ${parts}`);

  const emailsOf = new Map();
  for (const e of snap.waiting.offerEmails) emailsOf.set(e.to.toLowerCase(), [...(emailsOf.get(e.to.toLowerCase()) ?? []), e.id]);
  const hooksOf = new Map();
  for (const d of run.receiver.deliveries) if (d.topic === "waiting_list.offered") hooksOf.set(d.id, (hooksOf.get(d.id) ?? new Set()).add(d.deliveryId));
  const everOffered = snap.waiting.entries.filter((e) => e.state !== "waiting");
  for (const e of everOffered) {
    const mails = emailsOf.get(e.email.toLowerCase()) ?? [];
    if (mails.length === 0) lost.push(`entry ${e.id} ${e.state} without its offer email`);
    if (mails.length > 1) duplicated.push(`entry ${e.id}: offer emails ${mails.join(",")}`);
    const hooks = hooksOf.get(e.id) ?? new Set();
    if (hooks.size === 0) lost.push(`entry ${e.id} ${e.state} without its waiting_list.offered delivery`);
    if (hooks.size > 1) duplicated.push(`entry ${e.id}: deliveries ${[...hooks].join(",")}`);
  }

  const live = new Set(orders.filter((o) => LIVE.has(o.status)).map((o) => o.id));
  const cameBack = [...w.open, ...w.dashboard].filter((o) => !live.has(o.orderId)).reduce((n, o) => n + o.units, 0);
  const offeredEver = everOffered.reduce((n, e) => n + e.count, 0);
  if (offeredEver > cameBack) duplicated.push(`${offeredEver} units offered, ${cameBack} came back`);

  const passedOver = onSale > 0 ? snap.waiting.entries.filter((e) => e.state === "waiting" && e.count <= onSale) : [];
  for (const e of passedOver) lost.push(`entry ${e.id} (${e.count}) waiting while ${onSale} on sale`);

  const states = countBy(snap.waiting.entries, (e) => e.state);
  const note = `${parts}; ${cameBack} came back; entries ${states}`;
  return { ...outcome(snap.waiting.entries.length, lost, duplicated, { note }), pass: lost.length === 0 && duplicated.length === 0 };
}

const CHECKS = [
  { id: "orders", label: "orders (answers)", run: checkOrders },
  { id: "door", label: "tickets at door", run: checkDoor },
  { id: "emails", label: "emails", run: checkEmails },
  { id: "webhooks", label: "webhooks", run: checkWebhooks },
  { id: "scans", label: "scans in D1", run: checkScans },
  { id: "holds", label: "holds/sold", run: checkHolds },
  { id: "expiry", label: "expiry", run: checkExpiry },
  { id: "waiting", label: "waiting list", run: checkWaitingList },
];

/** Polls every check until all pass (and stay so for QUIET_MS) or POLL_LIMIT_MS after the restart. */
async function pollChecks(run) {
  const state = Object.fromEntries(CHECKS.map((c) => [c.id, { healedMs: null, last: null }]));
  const crons = configuredCrons();
  for (const cron of crons) await runCron(run, cron);
  let nextMinute = Date.now() + 60_000;
  let allPassedAt = null;
  let lastReport = 0;
  for (;;) {
    if (Date.now() >= nextMinute) {
      for (const cron of crons.filter(everyMinute)) await runCron(run, cron);
      nextMinute += 60_000;
    }
    let snap;
    try {
      snap = await snapshot(run);
    } catch (err) {
      run.pollErrors.push({ at: Date.now() - run.restartedAt, error: String(err.message ?? err).slice(0, 300) });
    }
    if (snap) {
      run.lastSnapshot = snap;
      for (const c of CHECKS) state[c.id].last = await c.run(run, snap);
      const at = Date.now() - run.restartedAt;
      for (const c of CHECKS) if (state[c.id].last.pass && state[c.id].healedMs === null) state[c.id].healedMs = at;
      const all = CHECKS.every((c) => state[c.id].last.pass);
      allPassedAt = all ? (allPassedAt ?? Date.now()) : null;
      if (Date.now() - lastReport > 20_000) {
        lastReport = Date.now();
        console.log(`    +${seconds(at)}: ${CHECKS.map((c) => `${c.id} ${state[c.id].last.pass ? "ok" : `${state[c.id].last.lost} lost`}`).join(", ")}`);
      }
      if (allPassedAt !== null && Date.now() - allPassedAt >= QUIET_MS) break;
    }
    if (Date.now() - run.restartedAt >= POLL_LIMIT_MS) break;
    await sleep(POLL_EVERY_MS);
  }
  run.pollEndedMs = Date.now() - run.restartedAt;
  return state;
}

// ---------------------------------------------------------------------------------------------------------------
// One kill point, start to end.

const VARS = { RATE_LIMITS: "off", ORDER_HOLD_MINUTES: String(HOLD_MINUTES) };

async function crashAt(killAtS) {
  const stateDir = join(OUT_DIR, `kill-${killAtS}s`);
  rmSync(stateDir, { recursive: true, force: true });
  const receiver = await startReceiver();
  const run = {
    id: `${Date.now().toString(36)}-${killAtS}`,
    killAtS,
    stateDir,
    receiver,
    requests: [],
    doorQueue: [],
    doorScans: [],
    /** Tickets the door got `status: true` for, and when ("load" or "check"). */
    admittedOnce: new Map(),
    door: { admitted: new Set(), notFoundAt: new Map(), twice: new Set(), other: [] },
    everOpen: new Set(),
    crons: [],
    pollErrors: [],
    killed: false,
  };
  const started = Date.now();
  try {
    run.service = await startService({ persistTo: stateDir, vars: VARS, logLevel: "warn", testScheduled: true, startTimeoutMs: 90_000 });
    run.seeded = await seed(run.service, receiver);
    for (const o of run.seeded.pool) run.doorQueue.push(o);
    console.log(`  seeded in ${seconds(Date.now() - started)} (wrangler dev on ${run.service.origin}, state ${stateDir.slice(ROOT.length + 1)})`);

    const loadStart = Date.now();
    const load = startLoad(run);
    await sleep(killAtS * 1000);
    // No new requests from here: those in flight die with the runtime, as they would in a real crash.
    run.killed = true;
    run.killedMs = Date.now() - loadStart;
    await run.service.kill();
    run.goneMs = Date.now() - loadStart - run.killedMs;
    await Promise.race([load, sleep(15_000)]);

    const restartStart = Date.now();
    run.service = await startService({ persistTo: stateDir, vars: VARS, logLevel: "warn", testScheduled: true, prepare: false, startTimeoutMs: 90_000 });
    run.restartedAt = Date.now();
    run.restartMs = run.restartedAt - restartStart;
    console.log(
      `  SIGKILL ${seconds(run.killedMs)} into the load (the group was gone ${seconds(run.goneMs)} later); restarted on the same state in ${seconds(run.restartMs)}; checking...`,
    );
    run.committedAtRestart = await committedClients(run);
    await retryLostAnswers(run);
    run.checks = await pollChecks(run);
    return run;
  } catch (err) {
    if (run.service) console.error(`wrangler dev's last output:\n${run.service.output(40)}`);
    throw err;
  } finally {
    await run.service?.stop();
    await receiver.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reporting.

function countBy(items, key) {
  const counts = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return Object.entries(counts)
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ");
}

/** What the clients were told before the kill, in a few lines. */
function loadSummary(run) {
  const customers = run.requests.filter((r) => r.kind === "customer");
  const box = run.requests.filter((r) => r.kind === "dashboard");
  const pays = customers.filter((r) => r.pay);
  const answerKey = (a) => (a.status === 0 ? `error ${a.error}` : String(a.status));
  return [
    `customer orders sent ${customers.length} of ${CUSTOMER_ORDERS} (${countBy(customers, (r) => answerKey(r.answer))}), ${customers.filter((r) => r.unpaidOnPurpose).length} left unpaid on purpose`,
    `payments ${pays.length} (${countBy(pays, (r) => answerKey(r.pay))}); dashboard orders ${box.length} (${countBy(box, (r) => answerKey(r.answer))})`,
    `door scans ${run.doorScans.length} (${countBy(run.doorScans, (s) => (s.admitted ? "admitted" : s.status === 0 ? `error ${s.error}` : (s.error ?? s.status)))})`,
    `waiting list: ${run.seeded.waiting.entries.length} entries in line; units back in the load: ${countBy(run.seeded.waiting.ops, (o) => `${o.kind} ${answerKey(o)}`) || "none"}`,
  ];
}

/** Committed orders (in D1) whose client was told only a connection error, and what its retry got. */
function connectionErrors(run, snap) {
  const errored = run.requests.filter((r) => r.answer.status === 0);
  const committed = errored.filter((r) => run.committedAtRestart.has(r.email));
  const retries = countBy(errored, (r) =>
    r.retry.status === 201
      ? r.retry.replayed
        ? "201 replayed"
        : "201 new"
      : r.retry.status === 0
        ? `error ${r.retry.error}`
        : `${r.retry.status} ${r.retry.error ?? ""}`.trim(),
  );
  const paysErrored = run.requests.filter((r) => r.pay?.status === 0);
  const paidAnyway = paysErrored.filter((r) => FINAL.has(snap.orders.get(r.answer.orderId)?.status));
  return [
    `committed orders whose client got a connection error: ${committed.length} of ${errored.length} order requests that got one` +
      (errored.length > 0 ? ` (sent again with the same Idempotency-Key after the restart: ${retries})` : ""),
    `payments that got a connection error: ${paysErrored.length}, of which ${paidAnyway.length} went through`,
  ];
}

function verdict(check) {
  const healed = check.healedMs;
  const failed = check.last.lost > 0 || (check.last.duplicated ?? 0) > 0 || healed === null || healed > HEAL_LIMIT_S * 1000;
  return { healed, failed };
}

function table(run) {
  const line = (cells, widths) =>
    cells
      .map((c, i) => (widths[i] < 0 ? String(c).padStart(-widths[i]) : String(c).padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  const widths = [18, -7, -6, -10, -16, 0];
  const rows = [line(["kind", "checked", "lost", "duplicated", "time to heal", ""], widths)];
  for (const c of CHECKS) {
    const { last, healedMs } = run.checks[c.id];
    const { failed } = verdict(run.checks[c.id]);
    const heal = healedMs === null ? "not healed" : last.pass ? seconds(healedMs) : `${seconds(healedMs)}, then not`;
    const note = last.note ? `(${last.note})` : "";
    rows.push(line([c.label, last.checked, last.lost, last.duplicated ?? "-", heal, `${failed ? "FAIL" : "ok"} ${note}`.trim()], widths));
  }
  return rows.join("\n");
}

function details(run) {
  return {
    kill_at_s: run.killAtS,
    killed_ms_into_load: run.killedMs,
    restart_ms: run.restartMs,
    poll_ended_ms: run.pollEndedMs,
    crons: run.crons,
    poll_errors: run.pollErrors,
    checks: Object.fromEntries(
      CHECKS.map((c) => {
        const { last, healedMs } = run.checks[c.id];
        return [
          c.id,
          {
            checked: last.checked,
            lost: last.lost,
            duplicated: last.duplicated,
            healed_ms: healedMs,
            lost_ids: last.lostIds.slice(0, 100),
            duplicated_ids: last.duplicatedIds.slice(0, 100),
          },
        ];
      }),
    ),
    door_other_answers: run.door.other.slice(0, 50),
    requests: run.requests.map((r) => ({ kind: r.kind, i: r.i, event_id: r.eventId, email: r.email, answer: r.answer, pay: r.pay ?? null, retry: r.retry ?? null })),
    door_scans: run.doorScans,
    webhook_deliveries: run.receiver.deliveries.length,
    waiting_list: {
      event_id: run.seeded.waiting.eventId,
      units_back_in_load: run.seeded.waiting.ops,
      entries: (run.lastSnapshot?.waiting.entries ?? []).map((e) => ({ id: e.id, count: e.count, state: e.state, offered_at: e.offered_at })),
    },
  };
}

async function main() {
  const started = Date.now();
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  console.log(
    `Crash test: kill points ${RUN_KILL_POINTS.map((s) => `${s} s`).join(", ")}; ${CUSTOMER_ORDERS} customer orders (${CUSTOMER_CONCURRENCY} at once), ` +
      `${DASHBOARD_ORDERS} dashboard orders, ${DOOR_SCANNERS} door scanners; open orders expire after ${HOLD_MINUTES} min; crons ${configuredCrons().join(", ")}.`,
  );
  const report = [];
  const printed = [];
  let failed = false;
  for (const killAtS of RUN_KILL_POINTS) {
    console.log(`\nKill at ${killAtS} s:`);
    const run = await crashAt(killAtS);
    const snap = run.lastSnapshot ?? { orders: new Map() };
    const text = [
      `Kill at ${killAtS} s (SIGKILL ${seconds(run.killedMs)} into the load; the restart took ${seconds(run.restartMs)}):`,
      ...loadSummary(run).map((l) => `  ${l}`),
      table(run),
      ...connectionErrors(run, snap),
    ].join("\n");
    console.log(`\n${text}`);
    printed.push(text);
    const thisFailed = CHECKS.some((c) => verdict(run.checks[c.id]).failed);
    failed ||= thisFailed;
    // A failed kill point keeps its state dir for a look (wrangler d1 execute --persist-to ...); a passing one goes.
    if (!thisFailed) rmSync(run.stateDir, { recursive: true, force: true });
    report.push(details(run));
  }
  const duration = Date.now() - started;
  writeFileSync(join(OUT_DIR, "results.json"), `${JSON.stringify({ date: new Date().toISOString(), duration_ms: duration, tables: printed, runs: report }, null, 2)}\n`);
  if (printed.length > 1) console.log(`\nAll kill points:\n\n${printed.join("\n\n")}\n`);
  console.log(`Crash test ${failed ? "FAILED" : "passed"} in ${seconds(duration)}; details in ${join(OUT_DIR, "results.json").slice(ROOT.length + 1)}.`);
  if (failed) process.exitCode = 1;
}

const watchdog = setTimeout(() => {
  console.error(`crash test: still running after ${RUN_LIMIT_MS / 1000} s; giving up`);
  process.exit(1);
}, RUN_LIMIT_MS);
watchdog.unref();

main().then(
  () => clearTimeout(watchdog),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exitCode = 1;
  },
);

// `npm run bench:surge`: the on-sale surge and the door rush, each on one event object (docs/scale.md "The ceiling of one event object").
//
// It starts `wrangler dev` (scripts/local-service.mjs) on a state dir of its own (rate limits off, ticket codes signed
// with a key made for the run) and sends, each burst all at once (every request opened before the first answer, one
// connection each, as a crowd arrives):
//   health   GET /health: the ceiling of this machine for a burst of BURST requests; measured first and last, the
//            mean of the two is the reference every ratio divides by.
//   surge    SURGE_ORDERS customer orders (`POST /events/<id>/orders`, API key, one free ticket each, each with its own
//            `Idempotency-Key` as a shop front sends) for SURGE_STOCK units of one stock-controlled type. Exactly
//            SURGE_STOCK must be sold: SURGE_STOCK answers 201 and every other one 409 `order_stock_unavailable`
//            (none lost, none 5xx), the type's `sold`, the order form's `remaining` and the orders in D1 agree.
//   shop     the same surge through the shop page's form (decisions.md 15 "The box office"): SURGE_ORDERS posts of
//            `POST /shop/<id>` (form-encoded, each with a fresh `form_token`, the order's Idempotency-Key, and
//            `Accept: application/json`, as the page's own script posts) for SURGE_STOCK units of another event.
//            Exactly SURGE_STOCK must be sold: SURGE_STOCK answers `200 {"location"}` to the order's page and every
//            other one `422`, the page again with the sold-out refusal (the same error summary as a post made once
//            the stock is gone), nothing else; the type's `sold`, `remaining` and the orders in D1 agree.
//   door     DOOR_SCANS entrance scans (`POST /scans`, signed codes) of distinct valid tickets of one event: every one
//            `status: true`, and the scan report counts them all once they reached D1 through the queue.
// Before each burst the service goes idle; a warm-up burst (WARMUP requests of the same kind, on another event for the
// orders) is not counted. Every request's latency runs from the burst's start to its last byte, so p50 and p99 include
// the time it waited in line: what a customer at the on-sale sees. Requests/s is the burst over its wall-clock time:
// how many decisions one event object made per second (each order one hold at the object, each scan one decision),
// with the Worker, wrangler's proxy and this load generator on the same two cores. Prints a table, writes
// bench/surge.json; fails when an answer or a count is wrong.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startService } from "../scripts/local-service.mjs";
import { cpuSnapshot, inParallel, offlineTickets, otherCpuShare, parse, percentile, runSigner, settle, sleep, sourceVersion, textTable } from "./lib.mjs";

const SURGE_ORDERS = 2000;
const SURGE_STOCK = 500;
const DOOR_SCANS = 2000;
const BURST = 2000;
const WARMUP = 200;
const DOOR_ORDER_SIZE = 100;
const RUN_LIMIT_MS = 420_000;
const EVENT_DATE = `${new Date().getUTCFullYear() + 1}-03-14 20:00:00`;
const JSON_TYPE = { "Content-Type": "application/json" };

/**
 * Sends `count` requests at once (`request(i)` answers { path, method, headers, body }) and answers their wall time,
 * latencies (from the burst's start to each answer's last byte), statuses, and the answers `check(i, status, text)`
 * refused (an error text, or null when the answer is what it must be).
 */
async function burst(service, count, request, check) {
  const statuses = {};
  const problems = [];
  const latencies = [];
  const answers = new Array(count);
  const cpuBefore = cpuSnapshot();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const { path, method = "GET", headers = {}, body } = request(i);
      let status;
      let text = "";
      try {
        const res = await fetch(`${service.url}${path}`, {
          method,
          headers,
          body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
          signal: AbortSignal.timeout(120_000),
        });
        text = await res.text();
        status = res.status;
      } catch (err) {
        status = `error ${err?.cause?.code ?? err?.name ?? err}`;
      }
      latencies.push(performance.now() - started);
      statuses[status] = (statuses[status] ?? 0) + 1;
      answers[i] = { status, text };
      const problem = typeof status === "number" ? check(i, status, text) : `${status}`;
      if (problem) problems.push(problem);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const others = otherCpuShare(cpuBefore, cpuSnapshot());
  latencies.sort((a, b) => a - b);
  return {
    requests: count,
    seconds,
    rps: count / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses,
    problems,
    answers,
    others,
  };
}

async function setUp(service, signer) {
  const event = (name, extra = {}) => service.admin("POST", "/admin/events", { event_name: name, event_date: EVENT_DATE, ...extra }, 201);
  const type = (eventId, fields) => service.admin("POST", `/admin/events/${eventId}/ticket-types`, { name: "Regular", price: 0, maximum_to_order: 0, ...fields }, 201);
  const surge = await event("On-sale surge (bench)");
  const surgeType = await type(surge.id, { stock_control: true, stock: SURGE_STOCK, show_remaining: true });
  const shop = await event("On-sale surge through the shop page (bench)");
  const shopType = await type(shop.id, { stock_control: true, stock: SURGE_STOCK, show_remaining: true });
  const shopWarm = await event("Warm-up shop orders (bench)");
  const shopWarmType = await type(shopWarm.id, {});
  const warm = await event("Warm-up orders (bench)");
  const warmType = await type(warm.id, {});
  const door = await event("Door rush (bench)", { add_dashboard_orders_needed: true });
  const doorType = await type(door.id, { price: 25 });
  const key = await service.admin("POST", `/admin/events/${door.id}/scan-keys`, { level: 0, location: "Main entrance" }, 201);
  const orders = Math.ceil((DOOR_SCANS + WARMUP) / DOOR_ORDER_SIZE);
  await inParallel(orders, 4, (i) =>
    service.admin("POST", "/admin/orders", { event_id: door.id, name: "Door Rush", email: `door${i}@example.com`, tickets: [{ [doorType.id]: DOOR_ORDER_SIZE }] }, 201),
  );
  // The event object learns an order's tickets after answering it (work deferred past the answer): on a busy machine
  // the last orders' tickets reach its list a moment later, so wait for them (bounded) before taking the codes.
  let tickets = await offlineTickets(service.url, key.key);
  for (const until = Date.now() + 30_000; tickets.length < orders * DOOR_ORDER_SIZE && Date.now() < until; ) {
    await sleep(500);
    tickets = await offlineTickets(service.url, key.key);
  }
  if (tickets.length !== orders * DOOR_ORDER_SIZE) throw new Error(`the door event lists ${tickets.length} tickets, not ${orders * DOOR_ORDER_SIZE}`);
  const codes = tickets.map((t) => signer.code(door.id, t.ticket_id));
  return { surge, surgeType, shop, shopType, shopWarm, shopWarmType, warm, warmType, door, key: key.key, codes };
}

const customerOrder = (service, event, type, tag) => (i) => ({
  path: `/events/${event.id}/orders`,
  method: "POST",
  headers: { ...JSON_TYPE, "X-EVT-API-KEY": service.apiKey, "Idempotency-Key": `${tag}-${i}` },
  body: { name: "Shop Customer", email: `${tag}${i}@example.com`, tickets: [{ [type.id]: 1 }] },
});

/** A post of the shop page's form, as the page makes it (decisions.md 15 "The box office"): one ticket, a fresh form_token each. */
const shopOrder = (event, type, tag) => (i) => ({
  path: `/shop/${event.id}?lang=en`,
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
  body: new URLSearchParams({
    form_token: `${tag}${i}x${randomBytes(12).toString("hex")}`,
    name: "Shop Customer",
    email: `${tag}${i}@example.com`,
    [`ticket_${type.id}`]: "1",
  }).toString(),
});

/** A 200 from the form's post names where the buyer goes next: the order's page, for a free order without redirect. */
const shopPlaced = (status, text) => status === 200 && /\/ticketing\/v1\/shop\/orders\/[A-Za-z0-9]+/.test(parse(text)?.location ?? "");

/** The error summary of a refused form (`<div id="form-errors" role="alert">`), tags dropped. */
function errorSummary(html) {
  const at = html.indexOf('id="form-errors"');
  if (at < 0) return null;
  const end = html.indexOf("</div>", at);
  return html
    .slice(at, end < 0 ? undefined : end)
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Orders of an event as D1 holds them, the type's `sold` and the order form's `remaining`: what a surge must leave. */
async function soldCounts(service, eventId, typeId) {
  const types = await service.admin("GET", `/admin/events/${eventId}/ticket-types`, undefined, 200);
  const sold = types.find((t) => t.id === typeId)?.sold;
  const form = await (await fetch(`${service.url}/events/${eventId}/order-form`, { headers: { "X-EVT-API-KEY": service.apiKey } })).json();
  const remaining = form.ticket_types?.find((t) => t.id === typeId)?.remaining;
  const listed = await fetch(`${service.url}/admin/orders?event_id=${eventId}&per_page=1`, {
    headers: { "X-EVT-API-KEY": service.apiKey, Authorization: service.auth },
  });
  await listed.arrayBuffer();
  return { sold, remaining, inD1: Number(listed.headers.get("X-WP-Total")) };
}

const scanRequest = (key, codes) => (i) => ({ path: "/scans", method: "POST", headers: { ...JSON_TYPE, "X-EVT-API-KEY": key }, body: { id: codes[i] } });

const admitted = (_i, status, text) => (status === 200 && parse(text)?.status === true ? null : `${status} ${text.slice(0, 200)}`);

/** Scans of the door event counted by its scan report (every location but the row of tickets not scanned). */
async function scansInReport(service, eventId) {
  const report = await service.admin("GET", `/admin/events/${eventId}/scans`, undefined, 200);
  return report.tickets.flatMap((t) => t.scans).reduce((n, s) => n + (s.scan_location === "" ? 0 : s.scan_total), 0);
}

async function main() {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), "ticketing-surge-"));
  const signer = runSigner();
  const failures = [];
  let service;
  try {
    console.log("Starting the service (migrations, fonts, wrangler dev)...");
    service = await startService({ persistTo: join(root, "state"), vars: { RATE_LIMITS: "off", ...signer.vars }, logLevel: "warn", startTimeoutMs: 60_000 });
    const s = await setUp(service, signer);
    console.log(`Seeded: ${SURGE_STOCK} units on sale, ${s.codes.length} tickets for the door.`);
    const health = () =>
      burst(
        service,
        BURST,
        () => ({ path: "/health" }),
        (_i, status) => (status === 200 ? null : `status ${status}`),
      );
    const rows = [];
    const row = (id, label, r, note = "") => {
      rows.push({ id, label, ...r, note });
      console.log(`  ${label}: ${r.rps.toFixed(0)} req/s over ${r.seconds.toFixed(2)} s`);
      if (r.problems.length > 0) failures.push(`${id}: ${r.problems.length} unexpected answers, e.g. ${r.problems.slice(0, 3).join(" | ")}`);
    };

    await settle();
    await health(); // warm-up
    await settle();
    row("health", `GET /health x${BURST}`, await health());

    // The on-sale: warm up the order path on another event, then the surge.
    await settle();
    const warm = await burst(service, WARMUP, customerOrder(service, s.warm, s.warmType, "warm"), (_i, status, text) =>
      status === 201 ? null : `${status} ${text.slice(0, 200)}`,
    );
    if (warm.problems.length > 0) failures.push(`order warm-up: ${warm.problems.slice(0, 3).join(" | ")}`);
    await settle();
    const refusals = {};
    const surge = await burst(service, SURGE_ORDERS, customerOrder(service, s.surge, s.surgeType, "surge"), (_i, status, text) => {
      if (status === 201) return null;
      const code = parse(text)?.code;
      refusals[code] = (refusals[code] ?? 0) + 1;
      return status === 409 && code === "order_stock_unavailable" ? null : `${status} ${text.slice(0, 200)}`;
    });
    const created = surge.statuses[201] ?? 0;
    const refused = refusals.order_stock_unavailable ?? 0;
    const { sold, remaining, inD1 } = await soldCounts(service, s.surge.id, s.surgeType.id);
    const exact = created === SURGE_STOCK && refused === SURGE_ORDERS - SURGE_STOCK && sold === SURGE_STOCK && remaining === 0 && inD1 === SURGE_STOCK;
    const stock = { stock: SURGE_STOCK, orders: SURGE_ORDERS, created, refused_stock: refused, sold, remaining, orders_in_d1: inD1, exact };
    if (!exact) failures.push(`surge: ${JSON.stringify(stock)}`);
    row(
      "surge",
      `POST /events/:id/orders x${SURGE_ORDERS}`,
      surge,
      `${created}x201, ${refused}x409 stock, sold ${sold}, remaining ${remaining}, ${inD1} in D1: ${exact ? "exact" : "WRONG"}`,
    );

    // The same on-sale through the shop page's form: warm up on another event, then the surge.
    await settle();
    const shopWarm = await burst(service, WARMUP, shopOrder(s.shopWarm, s.shopWarmType, "shopwarm"), (_i, status, text) =>
      shopPlaced(status, text) ? null : `${status} ${text.slice(0, 200)}`,
    );
    if (shopWarm.problems.length > 0) failures.push(`shop warm-up: ${shopWarm.problems.slice(0, 3).join(" | ")}`);
    await settle();
    const shopSurge = await burst(service, SURGE_ORDERS, shopOrder(s.shop, s.shopType, "shop"), (_i, status, text) =>
      shopPlaced(status, text) || status === 422 ? null : `${status} ${text.slice(0, 200)}`,
    );
    // Every 422 must be the sold-out refusal: the same error summary as a post made now, once the stock is gone.
    const { path: afterPath, ...afterInit } = shopOrder(s.shop, s.shopType, "after")(0);
    const after = await fetch(`${service.url}${afterPath}`, afterInit);
    const soldOutSummary = after.status === 422 ? errorSummary(await after.text()) : null;
    if (!soldOutSummary) failures.push(`shop: a post after the surge answered ${after.status}, not 422 with an error summary`);
    const shopRefusals = {};
    for (const a of shopSurge.answers.filter((answer) => answer.status === 422)) {
      const summary = errorSummary(a.text);
      const kind = summary !== null && summary === soldOutSummary ? "sold out" : (summary ?? "no error summary");
      shopRefusals[kind] = (shopRefusals[kind] ?? 0) + 1;
    }
    const shopCreated = shopSurge.answers.filter((a) => shopPlaced(a.status, a.text)).length;
    const shopRefused = shopRefusals["sold out"] ?? 0;
    const shopCounts = await soldCounts(service, s.shop.id, s.shopType.id);
    const shopExact =
      shopCreated === SURGE_STOCK &&
      shopRefused === SURGE_ORDERS - SURGE_STOCK &&
      shopCounts.sold === SURGE_STOCK &&
      shopCounts.remaining === 0 &&
      shopCounts.inD1 === SURGE_STOCK;
    const shopStock = { stock: SURGE_STOCK, orders: SURGE_ORDERS, created: shopCreated, refusals: shopRefusals, ...shopCounts, exact: shopExact };
    if (!shopExact) failures.push(`shop: ${JSON.stringify(shopStock)}`);
    row(
      "shop",
      `POST /shop/:id x${SURGE_ORDERS}`,
      shopSurge,
      `${shopCreated}x200, ${shopRefused}x422 sold out, sold ${shopCounts.sold}, remaining ${shopCounts.remaining}, ${shopCounts.inD1} in D1: ${shopExact ? "exact" : "WRONG"}`,
    );

    // The door: warm up on its first tickets, then the rush on the others.
    await settle();
    const warmScans = await burst(service, WARMUP, scanRequest(s.key, s.codes), admitted);
    if (warmScans.problems.length > 0) failures.push(`scan warm-up: ${warmScans.problems.slice(0, 3).join(" | ")}`);
    await settle();
    const door = await burst(service, DOOR_SCANS, scanRequest(s.key, s.codes.slice(WARMUP)), admitted);
    const entered = door.answers.filter((a) => a.status === 200 && parse(a.text)?.status === true).length;
    // The scans reach D1 through the object's alarm and the queue: wait (bounded) until the report counts them.
    const wantInD1 = WARMUP + entered;
    let scansD1 = 0;
    const waitStart = Date.now();
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(500)) {
      scansD1 = await scansInReport(service, s.door.id);
      if (scansD1 >= wantInD1) break;
    }
    const toD1 = (Date.now() - waitStart) / 1000;
    if (entered !== DOOR_SCANS || scansD1 !== wantInD1) failures.push(`door: ${entered} of ${DOOR_SCANS} admitted, ${scansD1} of ${wantInD1} scans in D1`);
    row("door", `POST /scans x${DOOR_SCANS}`, door, `${entered} admitted; all ${scansD1} scans in D1 ${toD1.toFixed(1)} s after the rush`);

    await settle();
    row("health_end", `GET /health x${BURST}, again`, await health());

    const healthRps = rows.filter((r) => r.id.startsWith("health")).map((r) => r.rps);
    const reference = healthRps.reduce((a, b) => a + b, 0) / healthRps.length;
    const drift = Math.abs(healthRps[0] - healthRps[1]) / reference;
    const out = rows.map((r) => ({
      id: r.id,
      label: r.label,
      requests: r.requests,
      seconds: Number(r.seconds.toFixed(2)),
      rps: Number(r.rps.toFixed(1)),
      p50_ms: Number(r.p50.toFixed(1)),
      p99_ms: Number(r.p99.toFixed(1)),
      ratio: Number((r.rps / reference).toFixed(2)),
      statuses: r.statuses,
      others_cpu: r.others === null ? null : Number(r.others.toFixed(3)),
      note: r.note,
    }));
    const printed = textTable(
      [
        ["burst (all at once)", 30, (r) => r.label],
        ["s", -6, (r) => r.seconds.toFixed(2)],
        ["req/s", -7, (r) => r.rps.toFixed(0)],
        ["p50 ms", -7, (r) => r.p50_ms.toFixed(0)],
        ["p99 ms", -7, (r) => r.p99_ms.toFixed(0)],
        ["ratio", -6, (r) => r.ratio.toFixed(2)],
        ["others", -6, (r) => (r.others_cpu === null ? "?" : `${Math.round(r.others_cpu * 100)}%`)],
        [" note", 0, (r) => ` ${r.note}`],
      ],
      out,
    );
    console.log(`\n${printed}\n`);
    console.log(`ratio: req/s over the mean of the two /health bursts (${reference.toFixed(0)} req/s; they differ by ${(drift * 100).toFixed(0)} %).`);
    const report = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "", node: process.version, loadavg_1m: Number(loadavg()[0].toFixed(2)) },
      setup: {
        burst: "every request sent at once, one connection each; latency from the burst's start to the answer's last byte",
        surge_orders: SURGE_ORDERS,
        surge_stock: SURGE_STOCK,
        door_scans: DOOR_SCANS,
        warmup: WARMUP,
        rate_limits: "off",
        ticket_codes: "signed (Ed25519, a key made for the run)",
      },
      source: sourceVersion(),
      health_reference_rps: Number(reference.toFixed(1)),
      health_drift: Number(drift.toFixed(3)),
      stock,
      shop_stock: shopStock,
      rows: out,
      table: printed.split("\n"),
      failures,
      duration_s: Number(((Date.now() - started) / 1000).toFixed(1)),
    };
    writeFileSync(join(ROOT, "bench", "surge.json"), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`Wrote bench/surge.json (${report.duration_s} s in all).`);
    if (failures.length > 0) {
      console.error(`\nFailed:\n- ${failures.join("\n- ")}`);
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
  console.error(`bench:surge: still running after ${RUN_LIMIT_MS / 1000} s; giving up`);
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

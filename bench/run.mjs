// `npm run bench`: what an e-ticket download costs, seen from an HTTP client, against the service run locally by
// `wrangler dev` (scripts/local-service.mjs) with a state dir of its own.
//
// Rows (sequential requests, wall-clock time of each request including reading the whole body):
//   health        GET /health: the reference for the machine and the local proxy in front of the Worker
//   render cold   the first download of a 10-ticket order right after the service started: fonts, template and the
//                 renderer's code paths not yet loaded in the isolate
//   render warm   first downloads of further 10-ticket orders: rendered, isolate warm
//   cached        second downloads: the PDF kept in R2
// "ratio" is health p50 / row p50: the share of /health's sequential request rate the row reaches.
//
// Every ticket carries a personalised attendee name; each order's ten names span Latin with accents, Polish, Greek,
// Cyrillic, Chinese and Japanese, so every render embeds glyphs from both font families. The template is a one-page
// A4 PDF made here with pdf-lib and uploaded through the admin API.
//
// Prints a table and writes bench/results.json. Bounded: every loop has a count and the run a deadline (2 minutes).
// To add a row: write `async function myRow(ctx)` answering `{ samples: [ms...], note? }` (or `{ rps }` later, for a
// load generator) and list it in ROWS in the order it must run.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDict, PDFDocument, PDFName, rgb, StandardFonts } from "pdf-lib";
import { ROOT, startService } from "../scripts/local-service.mjs";

const DEADLINE = Date.now() + 115_000;
const HEALTH_REQUESTS = 500;
const WARM_ORDERS = 10;
const CACHED_REQUESTS = 300;
const TICKETS_PER_ORDER = 10;
const SCAN_TICKETS = 300;

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

function remainingMs() {
  return DEADLINE - Date.now();
}

function checkTime(what) {
  if (remainingMs() <= 0) throw new Error(`the bench ran out of its 2 minutes during ${what}`);
}

/** Nearest-rank percentile of already sorted samples. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** One timed GET: status, type and bytes are checked by the caller. */
async function timedGet(url) {
  const start = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(Math.max(1_000, Math.min(60_000, remainingMs()))) });
  const body = new Uint8Array(await res.arrayBuffer());
  return { ms: performance.now() - start, status: res.status, type: res.headers.get("content-type"), body };
}

/** One timed POST of JSON with a scan key; the answer's JSON is returned with the time. */
async function timedScan(ctx, id) {
  const start = performance.now();
  const res = await fetch(`${ctx.service.url}/scans`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-EVT-API-KEY": ctx.scanKey.key },
    body: JSON.stringify({ id }),
    signal: AbortSignal.timeout(Math.max(1_000, Math.min(60_000, remainingMs()))),
  });
  const body = await res.json();
  const ms = performance.now() - start;
  if (res.status !== 200) throw new Error(`POST /scans answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

/** A download that must be a PDF of `pages` pages (checked outside the timing when `pages` is given). */
async function download(ctx, uid, pages) {
  const r = await timedGet(`${ctx.service.url}/tickets/${uid}`);
  if (r.status !== 200 || r.type !== "application/pdf") {
    throw new Error(`GET /tickets/${uid} answered ${r.status} ${r.type}: ${new TextDecoder().decode(r.body.slice(0, 300))}`);
  }
  if (pages !== undefined) {
    const doc = await PDFDocument.load(r.body);
    if (doc.getPageCount() !== pages) throw new Error(`the PDF of ${uid} has ${doc.getPageCount()} pages, not ${pages}`);
  }
  return r;
}

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

async function seedCatalogue(ctx) {
  const { service } = ctx;
  const form = new FormData();
  form.append("title", "Bench template");
  form.append("file", new Blob([await templatePdf()], { type: "application/pdf" }), "bench-template.pdf");
  const template = await service.admin("POST", "/admin/pdf-templates", form, 201);
  const event = await service.admin(
    "POST",
    "/admin/events",
    // A date ahead, or the event would not take orders any more.
    { event_name: "Spring Concert (bench)", event_date: `${new Date().getUTCFullYear() + 1}-03-14 20:00:00`, add_dashboard_orders_needed: true },
    201,
  );
  const attendee = await service.admin(
    "POST",
    `/admin/events/${event.id}/input-fields`,
    { name: "Attendee", type: "text", is_personalised: true, is_required: true },
    201,
  );
  const type = await service.admin(
    "POST",
    `/admin/events/${event.id}/ticket-types`,
    { name: "Regular", price: 25, maximum_to_order: 0, attachment_id: template.id, personalise: "Attendee", layout: "Attendee,Name,Order-id,Email" },
    201,
  );
  const scanKey = await service.admin("POST", `/admin/events/${event.id}/scan-keys`, { level: 0, location: "Main entrance" }, 201);
  Object.assign(ctx, { event, attendee, type, template, scanKey });
}

/** One order of SCAN_TICKETS tickets whose ids the scan rows present (plain ids: the service runs without signing keys). */
async function seedScanTickets(ctx) {
  const order = await ctx.service.admin(
    "POST",
    "/admin/orders",
    { event_id: ctx.event.id, name: "Door Test", email: "door@example.com", tickets: [{ [ctx.type.id]: SCAN_TICKETS }] },
    201,
  );
  const listed = await ctx.service.admin("GET", `/admin/tickets/${order.id}`, undefined, 200);
  ctx.scanTicketIds = listed.tickets.map((t) => t.ticket_id);
}

/** A dashboard order of ten tickets, every ticket personalised with a name of another script. */
async function placeOrder(ctx, index) {
  const { service } = ctx;
  const order = await service.admin(
    "POST",
    "/admin/orders",
    {
      event_id: ctx.event.id,
      name: BUYERS[index % BUYERS.length],
      email: `buyer${index}@example.com`,
      tickets: [{ [ctx.type.id]: TICKETS_PER_ORDER }],
    },
    201,
  );
  const needs = await (await fetch(`${service.url}/tickets/${order.uid}/personalisation`)).json();
  const tickets = needs.tickets.map((t, i) => ({ ticket_id: t.ticket_id, fields: { [ctx.attendee.id]: ATTENDEES[(index + i) % ATTENDEES.length] } }));
  const put = await fetch(`${service.url}/tickets/${order.uid}/personalisation`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ tickets }),
  });
  if (put.status !== 200) throw new Error(`personalising order ${order.id} answered ${put.status}: ${await put.text()}`);
  return order.uid;
}

// ---------------------------------------------------------------------------------------------------------------
// Rows. Each answers { samples } (milliseconds per request) and optionally a note; they run in ROWS order.

async function renderCold(ctx) {
  const uid = ctx.uids[0];
  const r = await download(ctx, uid);
  ctx.coldPdf = r.body;
  await download(ctx, uid, TICKETS_PER_ORDER).catch((err) => {
    throw new Error(`the cached copy of the cold render: ${err.message}`);
  });
  return { samples: [r.ms], note: `${(r.body.length / 1024).toFixed(0)} KiB` };
}

async function health(ctx) {
  const url = `${ctx.service.url}/health`;
  for (let i = 0; i < 20; i++) await timedGet(url); // warm-up
  const samples = [];
  for (let i = 0; i < HEALTH_REQUESTS && remainingMs() > 60_000; i++) {
    const r = await timedGet(url);
    if (r.status !== 200) throw new Error(`/health answered ${r.status}`);
    samples.push(r.ms);
  }
  return { samples };
}

async function renderWarm(ctx) {
  const samples = [];
  let bytes = 0;
  for (const uid of ctx.uids.slice(1, 1 + WARM_ORDERS)) {
    checkTime("the warm renders");
    const r = await download(ctx, uid);
    samples.push(r.ms);
    bytes += r.body.length;
  }
  return { samples, note: `${(bytes / samples.length / 1024).toFixed(0)} KiB each` };
}

async function cached(ctx) {
  const samples = [];
  const uids = ctx.uids.slice(0, 1 + WARM_ORDERS);
  for (let i = 0; i < CACHED_REQUESTS && remainingMs() > 10_000; i++) {
    samples.push((await download(ctx, uids[i % uids.length])).ms);
  }
  return { samples };
}

/** Entrance scans of distinct valid tickets: each is decided (and recorded) by the event object. */
async function scanFirst(ctx) {
  const samples = [];
  for (const id of ctx.scanTicketIds) {
    if (remainingMs() < 10_000) break;
    const r = await timedScan(ctx, id);
    if (r.body.status !== true) throw new Error(`the first scan of ${id} was refused: ${JSON.stringify(r.body)}`);
    samples.push(r.ms);
  }
  return { samples };
}

/** The same tickets again: refused as already done, with the earlier scan's date and location. */
async function scanRepeat(ctx) {
  const samples = [];
  for (const id of ctx.scanTicketIds) {
    if (remainingMs() < 8_000) break;
    const r = await timedScan(ctx, id);
    if (r.body.status !== false || r.body.error !== "This scan has already been done") throw new Error(`a repeated scan of ${id}: ${JSON.stringify(r.body)}`);
    samples.push(r.ms);
  }
  return { samples };
}

const ROWS = [
  { id: "render_cold", label: "render cold, 10 tickets", run: renderCold },
  { id: "health", label: "GET /health", run: health, reference: true },
  { id: "render_warm", label: "render warm, 10 tickets", run: renderWarm },
  { id: "cached", label: "cached download, 10 tickets", run: cached },
  { id: "scan_first", label: "POST /scans, valid tickets", run: scanFirst },
  { id: "scan_repeat", label: "POST /scans, already scanned", run: scanRepeat },
];
const TABLE_ORDER = ["health", "render_cold", "render_warm", "cached", "scan_first", "scan_repeat"];

// ---------------------------------------------------------------------------------------------------------------

function table(results) {
  const reference = results.find((r) => r.reference);
  const rows = TABLE_ORDER.map((id) => results.find((r) => r.id === id)).filter(Boolean);
  for (const r of results) if (!rows.includes(r)) rows.push(r);
  const out = rows.map((r) => ({
    row: r.label,
    count: r.count,
    p50: r.p50_ms,
    p99: r.p99_ms,
    ratio: reference ? reference.p50_ms / r.p50_ms : NaN,
    note: r.note ?? "",
  }));
  for (const [i, r] of rows.entries()) r.ratio_to_health = Number(out[i].ratio.toFixed(4));
  const lines = [
    `${"row".padEnd(30)} ${"count".padStart(6)} ${"p50 ms".padStart(9)} ${"p99 ms".padStart(9)} ${"ratio".padStart(8)}  note`,
    ...out.map(
      (r) =>
        `${r.row.padEnd(30)} ${String(r.count).padStart(6)} ${r.p50.toFixed(1).padStart(9)} ${r.p99.toFixed(1).padStart(9)} ${r.ratio.toFixed(3).padStart(8)}  ${r.note}`,
    ),
  ];
  return lines.join("\n");
}

async function main() {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), "ticketing-bench-"));
  const stateDir = join(root, "state");
  const ctx = { uids: [] };
  let service;
  try {
    console.log("Starting the service (migrations, fonts, wrangler dev)...");
    service = await startService({ persistTo: stateDir, logLevel: "warn", startTimeoutMs: 60_000 });
    ctx.service = service;
    const setupStart = Date.now();
    await seedCatalogue(ctx);
    for (let i = 0; i < 1 + WARM_ORDERS; i++) {
      checkTime("seeding");
      ctx.uids.push(await placeOrder(ctx, i));
    }
    await seedScanTickets(ctx);
    console.log(
      `Seeded 1 template, 1 event, ${ctx.uids.length} orders of ${TICKETS_PER_ORDER} personalised tickets and ${SCAN_TICKETS} tickets to scan in ${Date.now() - setupStart} ms.`,
    );

    // A fresh isolate for the cold render: restart on the same state.
    await service.stop();
    service = await startService({ persistTo: stateDir, logLevel: "warn", startTimeoutMs: 60_000, prepare: false });
    ctx.service = service;
    console.log("Restarted; measuring.");

    const results = [];
    for (const row of ROWS) {
      checkTime(row.label);
      const { samples, note } = await row.run(ctx);
      if (samples.length === 0) throw new Error(`${row.label}: no samples (out of time?)`);
      const sorted = [...samples].sort((a, b) => a - b);
      results.push({
        id: row.id,
        label: row.label,
        reference: row.reference ?? false,
        count: samples.length,
        p50_ms: Number(percentile(sorted, 50).toFixed(3)),
        p99_ms: Number(percentile(sorted, 99).toFixed(3)),
        ...(note ? { note } : {}),
      });
    }
    const fonts = await fontNames(ctx.coldPdf);
    const printed = table(results);
    console.log(`\n${printed}\n`);
    console.log(`Fonts in the cold PDF: ${fonts.join(", ") || "(none)"}`);
    if (!fonts.some((f) => /Noto/i.test(f))) console.warn("Warning: no Noto font embedded: the names fell back to Helvetica (fonts not in R2?)");

    const report = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "", node: process.version },
      setup: {
        tickets_per_order: TICKETS_PER_ORDER,
        template: "one A4 page (pdf-lib), through the ticket type",
        attendee_names: ATTENDEES,
        fonts_embedded_cold: fonts,
        sequential: true,
      },
      rows: results.map(({ reference, ...r }) => r),
      table: printed.split("\n"),
      duration_s: Number(((Date.now() - started) / 1000).toFixed(1)),
    };
    writeFileSync(join(ROOT, "bench", "results.json"), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`Wrote bench/results.json (${report.duration_s} s in all).`);
  } catch (err) {
    if (service) console.error(`wrangler dev's last output:\n${service.output(40)}`);
    throw err;
  } finally {
    await service?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

const watchdog = setTimeout(() => {
  console.error("bench: still running after 150 s; giving up");
  process.exit(1);
}, 150_000);
watchdog.unref();

main().then(
  () => clearTimeout(watchdog),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exitCode = 1;
  },
);

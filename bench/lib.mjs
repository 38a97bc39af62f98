// Helpers shared by bench/growth.mjs and bench/surge.mjs (bench/run.mjs and bench/crash.mjs keep their own).
import { spawnSync } from "node:child_process";
import { generateKeyPairSync, sign as ed25519Sign } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { ROOT } from "../scripts/local-service.mjs";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile of already sorted samples. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The median of unsorted samples (nearest rank). */
export function median(samples) {
  return percentile(
    [...samples].sort((a, b) => a - b),
    50,
  );
}

export function parse(body) {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

/** Runs `work(i)` for i < count with at most `parallel` at once; answers the results in index order. */
export async function inParallel(count, parallel, work) {
  const out = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}

/**
 * Ticket codes signed as production signs them (TICKET_SIGNING_KEYS with a key made for the run): `vars` for
 * startService and `code(eventId, ticketId)`, the signed code a PDF's QR code would carry.
 */
export function runSigner(kid = "bench") {
  const { privateKey } = generateKeyPairSync("ed25519");
  const { x, d } = privateKey.export({ format: "jwk" });
  const vars = { TICKET_SIGNING_KEYS: JSON.stringify([{ kid, kty: "OKP", crv: "Ed25519", x, d }]) };
  const code = (eventId, ticketId) => {
    const message = `${kid}.${eventId}.${ticketId}`;
    return `${message}.${ed25519Sign(null, Buffer.from(message), privateKey).toString("base64url")}`;
  };
  return { vars, code };
}

/**
 * CPU time (clock ticks) of the whole machine and of this process with its descendants (wrangler, workerd), from
 * /proc (Linux; null elsewhere): what other processes used while measuring tells whether the figures are fair.
 */
export function cpuSnapshot() {
  if (!existsSync("/proc/stat")) return null;
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + (fields[4] ?? 0);
    const total = fields.reduce((a, b) => a + b, 0);
    const procs = new Map();
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        procs.set(Number(name), { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) });
      } catch {
        // gone meanwhile
      }
    }
    const ours = new Set([process.pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, p] of procs)
        if (!ours.has(pid) && ours.has(p.ppid)) {
          ours.add(pid);
          grew = true;
        }
    }
    let oursTicks = 0;
    for (const pid of ours) oursTicks += procs.get(pid)?.ticks ?? 0;
    return { total, busy: total - idle, ours: oursTicks };
  } catch {
    return null;
  }
}

/** The share of the machine's CPU that processes other than the bench's used between two snapshots. */
export function otherCpuShare(a, b) {
  if (!a || !b || b.total <= a.total) return null;
  return Math.max(0, (b.busy - a.busy - (b.ours - a.ours)) / (b.total - a.total));
}

/**
 * Waits (at most `maxMs`) until the service is idle: our processes (this one, wrangler, workerd) used less than 15 %
 * of one core over the last quarter second. Answers the milliseconds waited. Without /proc it waits a fixed second.
 */
export async function settle(maxMs = 10_000) {
  const started = Date.now();
  let before = cpuSnapshot();
  if (!before) return sleep(1_000).then(() => 1_000);
  while (Date.now() - started < maxMs) {
    await sleep(250);
    const now = cpuSnapshot();
    const oursShare = ((now.ours - before.ours) / (now.total - before.total)) * cpus().length;
    before = now;
    if (oursShare < 0.15) break;
  }
  return Date.now() - started;
}

/** The commit measured, and whether src/ differs from it (uncommitted changes), when this is a git checkout. */
export function sourceVersion() {
  const git = (...args) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8", timeout: 10_000 });
  const head = git("rev-parse", "--short", "HEAD");
  if (head.status !== 0) return null;
  return { commit: head.stdout.trim(), src_changed: git("status", "--porcelain", "--", "src").stdout.trim() !== "" };
}

/**
 * The `next` page of a list answer: a `Link` header's rel="next", or `_links.next` ({href} or [{href}]), resolved
 * against `base` (the URL that answered) when relative; else null.
 */
export function nextLink(headers, body, base) {
  const header = headers.get("link");
  if (header) {
    for (const part of header.split(",")) {
      const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
      if (m) return new URL(m[1], base).toString();
    }
  }
  const next = body?._links?.next;
  const href = Array.isArray(next) ? next[0]?.href : next?.href;
  return typeof href === "string" && href !== "" ? new URL(href, base).toString() : null;
}

/**
 * Every ticket of an event's offline list (`GET /scans/tickets` with a scan key of the event), asking `per_page` and
 * following `next` links when the answers have them (one answer is one page otherwise).
 */
export async function offlineTickets(serviceUrl, scanKey, perPage = 1000) {
  const tickets = [];
  let url = `${serviceUrl}/scans/tickets?per_page=${perPage}`;
  for (let pages = 0; url; pages++) {
    if (pages > 10_000) throw new Error("the offline list has more than 10,000 pages: a next link that never ends?");
    const res = await fetch(url, { headers: { "X-EVT-API-KEY": scanKey }, signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET /scans/tickets answered ${res.status}: ${text.slice(0, 300)}`);
    const body = JSON.parse(text);
    tickets.push(...body.tickets);
    url = nextLink(res.headers, body, url);
  }
  return tickets;
}

/** Pads cells into a plain-text table: positive widths pad on the right (text), negative ones on the left (figures). */
export function textTable(columns, rows) {
  const line = (cells) =>
    cells
      .map((c, i) => (columns[i][1] < 0 ? c.padStart(-columns[i][1]) : c.padEnd(columns[i][1])))
      .join(" ")
      .trimEnd();
  return [line(columns.map(([name]) => name)), ...rows.map((r) => line(columns.map(([, , cell]) => cell(r))))].join("\n");
}

import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config";
import { eventObject } from "../../../src/platform/event-object.client";
import type { EventObject } from "../../../src/event-object/event.do";
import worker from "../../../src/index";
import { signerFor, TicketSigner, type SigningKeyJwk } from "../../../src/lib/ticket-codes";
import { qrMatrix, QR_QUIET_ZONE_MODULES } from "../../../src/lib/qr";
import { POINTS_PER_MM, QR_LEFT_MM, QR_SIDE_MM } from "../../../src/pdf/render-tickets";
import { API_KEY, call, expectError, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createScanKey, createTicketType } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";
import { wallClockAt } from "../../helpers/wall-clock";
import { readPage, type PageDrawing } from "../../pdf/pdf-inspect";
import { waitKnown } from "../../helpers/offline-list";

/**
 * What an offline scanner needs (decisions.md 6, 13 "Tickets, scans, messages"): signed ticket codes in the PDF's QR
 * code, accepted by `POST /scans` beside plain ids and refused at the edge when forged; the public keys that verify
 * them (`GET /scan-keys/public-keys`); the event's valid tickets (`GET /scans/tickets`) and the tickets revoked since
 * a moment (`GET /scans/revoked`). Storage is shared with other files: every test makes its own events and orders.
 */

type Json = Record<string, any>;

const KEYS = loadConfig(env).ticketSigningKeys;
const signer = signerFor(KEYS);
/** The code's square (quiet zone included) in the ticket's block, and its left edge there. */
const QR_SIDE = QR_SIDE_MM * POINTS_PER_MM;
const QR_LEFT = QR_LEFT_MM * POINTS_PER_MM;
const RESULT_FIELDS = ["order_id", "qrcode", "event", "name", "email", "level", "type", "status", "date", "location"];
const REFUSAL_FIELDS = [...RESULT_FIELDS, "error"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------------------
// Set-up

interface Ticket {
  id: string;
  eventId: number;
  type: string;
}

interface Placed {
  order: Json;
  tickets: Ticket[];
}

async function ticketsOf(orderId: number): Promise<Ticket[]> {
  const view = await expectJson(call("GET", `/admin/tickets/${orderId}`), 200);
  return view.tickets.map((t: Json) => ({ id: t.ticket_id as string, eventId: t.event_id as number, type: t.ticket_type as string }));
}

/** A dashboard order on `eventId` (`counts` by type id; every type named); answers it and its tickets. */
async function order(eventId: number, typeIds: string[], counts: Record<string, number>, buyer: Json = {}): Promise<Placed> {
  const placed = await placeOrder(orderBody(eventId, typeIds, counts, { name: "Zoë Offline", email: `${unique("sync")}@example.com`, ...buyer }));
  return { order: placed, tickets: await ticketsOf(placed.id) };
}

/** An event taking dashboard orders with types (default "Regular"), and a level-0 key at "Gate". */
async function setup(types: string[] = ["Regular"], event: Json = {}) {
  const created = await createOrderEvent(event);
  const typeRows = [];
  for (const name of types) typeRows.push(await createOrderType(created.id, name));
  const gate = (await createScanKey(created.id, { level: 0, location: "Gate" })).key as string;
  return { event: created, types: typeRows, typeIds: typeRows.map((t) => t.id), gate };
}

const postScan = (key: string | null, id: string) => call("POST", "/scans", { key, auth: null, body: { id } });
const scan = (key: string, id: string) => expectJson(postScan(key, id), 200);
const syncTickets = (key: string) => expectJson(call("GET", "/scans/tickets", { key, auth: null }), 200);
/** The list's event and tickets, without its sync token and links (offline-list.routes.test.ts covers those). */
const listOf = (body: Json) => ({ event_id: body.event_id, tickets: body.tickets });
const revoked = (key: string, since?: string) =>
  call("GET", since === undefined ? "/scans/revoked" : `/scans/revoked?since=${encodeURIComponent(since)}`, { key, auth: null });

/** Polls the sync list until `done` holds (bounded) and answers it. */
async function syncWhen(key: string, done: (body: Json) => boolean): Promise<Json> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const body = await syncTickets(key);
    if (done(body) || Date.now() > deadline) return body;
    await sleep(25);
  }
}

/** The answer for a code refused at the edge (decisions.md 13): every field, empty, the key's event and level. */
const notFound = (eventName: string, level: number) => ({
  order_id: 0,
  qrcode: "",
  event: eventName,
  name: "",
  email: "",
  level,
  type: "",
  status: false,
  date: "",
  location: "",
  error: "Ticket not found",
});

/** The scans the event object holds, and its ledger snapshot. */
async function objectState(eventId: number) {
  const rows = await runInDurableObject(eventObject(env, eventId), (_i: EventObject, state) =>
    state.storage.sql.exec<{ ticket_id: string; level: number; location: string }>(`SELECT ticket_id, level, location FROM scans ORDER BY seq`).toArray(),
  );
  return { scans: rows, snapshot: await eventObject(env, eventId).snapshot() };
}

/** Calls the worker with settings changed, as another deployment (or the same after a key rotation) would be. */
async function callWith(overrides: Record<string, unknown>, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, { ...env, ...overrides } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A fresh Ed25519 key pair as a configured JWK (with `d`). */
async function freshKey(kid: string): Promise<SigningKeyJwk> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  return { kid, kty: "OKP", crv: "Ed25519", x: jwk.x!, d: jwk.d! };
}

const publicOnly = (k: SigningKeyJwk): SigningKeyJwk => ({ kid: k.kid, kty: k.kty, crv: k.crv, x: k.x });

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

// ---------------------------------------------------------------------------------------------------------------
// Reading QR codes back from a downloaded PDF

type Matrix = boolean[][];

async function downloadPdf(uid: string, via?: (req: Request) => Promise<Response>): Promise<PDFDocument> {
  const req = request("GET", `/tickets/${uid}`, { key: null, auth: null });
  const res = via ? await via(req) : await exports.default.fetch(req);
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(res.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/pdf");
  return PDFDocument.load(bytes);
}

/** The module matrix a page's QR path draws (the fill with the most rectangles), read from its rectangles. */
function drawnMatrix(page: PageDrawing): Matrix {
  const fill = page.fills.reduce((best, f) => (f.rects.length > best.rects.length ? f : best));
  const moduleSide = Math.min(...fill.rects.map((r) => r[3]));
  const size = Math.round(QR_SIDE / moduleSide) - 2 * QR_QUIET_ZONE_MODULES;
  const m = QR_SIDE / (size + 2 * QR_QUIET_ZONE_MODULES);
  const dark: Matrix = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  for (const [x, y, w, h] of fill.rects) {
    const col = Math.round((x - QR_LEFT) / m) - QR_QUIET_ZONE_MODULES;
    const row = Math.round(-(y + h) / m) - QR_QUIET_ZONE_MODULES;
    for (let r = row; r < row + Math.round(h / m); r++) for (let c = col; c < col + Math.round(w / m); c++) dark[r]![c] = true;
  }
  return dark;
}

const matrixOf = (payload: string): Matrix => qrMatrix(payload).dark.map((row) => [...row]);

/*
 * A small QR reader for what the service draws (byte mode, error correction M, versions 1-10, no damage): what an
 * offline scanner does with the printed code, so the tests can take the code from the PDF itself.
 */
const RS_BLOCKS_M: Record<number, number[]> = {
  1: [1, 26, 16],
  2: [1, 44, 28],
  3: [1, 70, 44],
  4: [2, 50, 32],
  5: [2, 67, 43],
  6: [4, 43, 27],
  7: [4, 49, 31],
  8: [2, 60, 38, 2, 61, 39],
  9: [3, 58, 36, 2, 59, 37],
  10: [4, 69, 43, 1, 70, 44],
};
const ALIGNMENT: Record<number, number[]> = {
  1: [],
  2: [6, 18],
  3: [6, 22],
  4: [6, 26],
  5: [6, 30],
  6: [6, 34],
  7: [6, 22, 38],
  8: [6, 24, 42],
  9: [6, 26, 46],
  10: [6, 28, 50],
};
const MASKS: ((r: number, c: number) => boolean)[] = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (_r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r * c) % 3) + ((r + c) % 2)) % 2 === 0,
];

function readQr(dark: Matrix): string {
  const n = dark.length;
  const version = (n - 17) / 4;
  const blocksSpec = RS_BLOCKS_M[version];
  if (!Number.isInteger(version) || !blocksSpec) throw new Error(`unsupported QR size ${n}`);
  // Format information (vertical copy beside the top-left finder), unmasked.
  let format = 0;
  for (let i = 0; i < 15; i++) {
    const row = i < 6 ? i : i < 8 ? i + 1 : n - 15 + i;
    if (dark[row]![8]) format |= 1 << i;
  }
  const info = (format ^ 0x5412) >> 10;
  if (info >> 3 !== 0) throw new Error("not error correction level M");
  const mask = MASKS[info & 7]!;
  const inFinder = (r: number, c: number) => (r < 9 && c < 9) || (r < 9 && c >= n - 8) || (r >= n - 8 && c < 9);
  const centres = ALIGNMENT[version]!.flatMap((r) => ALIGNMENT[version]!.map((c) => [r, c] as const)).filter(([r, c]) => !inFinder(r, c));
  const isFunction = (r: number, c: number) =>
    inFinder(r, c) ||
    r === 6 ||
    c === 6 ||
    centres.some(([ar, ac]) => Math.abs(r - ar) <= 2 && Math.abs(c - ac) <= 2) ||
    (version >= 7 && ((r < 6 && c >= n - 11 && c < n - 8) || (c < 6 && r >= n - 11 && r < n - 8)));
  // Data bits in the zigzag order, unmasked.
  const bits: number[] = [];
  let upward = true;
  for (let col = n - 1; col > 0; col -= 2) {
    if (col === 6) col -= 1;
    for (let k = 0; k < n; k++) {
      const row = upward ? n - 1 - k : k;
      for (const c of [col, col - 1]) if (!isFunction(row, c)) bits.push(dark[row]![c] !== mask(row, c) ? 1 : 0);
    }
    upward = !upward;
  }
  const codewords: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) codewords.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  // De-interleave the data codewords of the blocks (error correction codewords follow; a clean print needs none).
  const blocks: number[][] = [];
  const sizes: number[] = [];
  for (let g = 0; g < blocksSpec.length; g += 3)
    for (let b = 0; b < blocksSpec[g]!; b++) {
      sizes.push(blocksSpec[g + 2]!);
      blocks.push([]);
    }
  let p = 0;
  for (let i = 0; i < Math.max(...sizes); i++) for (let b = 0; b < blocks.length; b++) if (i < sizes[b]!) blocks[b]!.push(codewords[p++]!);
  const stream = blocks.flat();
  let bit = 0;
  const take = (count: number) => {
    let v = 0;
    for (let i = 0; i < count; i++, bit++) v = (v << 1) | ((stream[bit >> 3]! >> (7 - (bit & 7))) & 1);
    return v;
  };
  if (take(4) !== 0b0100) throw new Error("not byte mode");
  const length = take(version < 10 ? 8 : 16);
  const bytes = Uint8Array.from({ length }, () => take(8));
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
}

/** The payload of every page's QR code, in page order. */
function pdfPayloads(doc: PDFDocument): string[] {
  return doc.getPages().map((page) => readQr(drawnMatrix(readPage(page))));
}

// ---------------------------------------------------------------------------------------------------------------

describe("the QR reader used by these tests", () => {
  it("reads back what qrMatrix draws, for plain ids, signed codes and longer text", async () => {
    const samples = [
      "K7Q2M9X4D1F8H3J6",
      await signer.sign(12, "K7Q2M9X4D1F8H3J6"),
      await signer.sign(1_234_567, "abcdefghijklmnop"),
      "x".repeat(60),
      "y".repeat(150),
      "z".repeat(200),
      "Łódź",
    ];
    for (const s of samples) expect(readQr(matrixOf(s)), s).toBe(s);
  });
});

describe("signed codes in the ticket PDF", () => {
  it("every page's QR code is the signed code of its ticket (test1), reproducible with the signer", async () => {
    const f = await setup(["Regular", "VIP"]);
    const { order: placed, tickets } = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2, [f.typeIds[1]!]: 1 });
    expect(tickets).toHaveLength(3);
    const doc = await downloadPdf(placed.uid);
    expect(doc.getPageCount()).toBe(3);

    const codes = new Map<string, string>();
    for (const t of tickets) codes.set(t.id, await signer.sign(f.event.id, t.id));
    const pages = doc.getPages().map((p) => drawnMatrix(readPage(p)));
    // Each page draws exactly one ticket's signed code; together they are all the tickets.
    const shown = pages.map((m) => [...codes.entries()].filter(([, code]) => JSON.stringify(matrixOf(code)) === JSON.stringify(m)).map(([id]) => id));
    for (const ids of shown) expect(ids).toHaveLength(1);
    expect(shown.flat().sort()).toEqual(tickets.map((t) => t.id).sort());
    // Never the plain id.
    for (const [i, m] of pages.entries()) expect(JSON.stringify(m)).not.toBe(JSON.stringify(matrixOf(shown[i]![0]!)));

    // Read back, the codes have the documented shape.
    for (const [i, payload] of pdfPayloads(doc).entries()) {
      const id = shown[i]![0]!;
      expect(payload).toBe(codes.get(id));
      expect(payload).toMatch(new RegExp(`^test1\\.${f.event.id}\\.${id}\\.[A-Za-z0-9_-]{86}$`));
    }
  });

  it("the code read from the PDF verifies offline with nothing but what GET /scan-keys/public-keys answers", async () => {
    const f = await setup();
    const { order: placed, tickets } = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2 });
    const [payload] = pdfPayloads(await downloadPdf(placed.uid));
    const published = await expectJson(call("GET", "/scan-keys/public-keys", { key: f.gate, auth: null }), 200);

    // What a scanner does: split, pick the key by kid, verify, then check the event.
    const [kid, eventId, ticketId, signature] = payload!.split(".") as [string, string, string, string];
    const entry = published.keys.find((k: Json) => k.kid === kid);
    expect(entry).toBeDefined();
    const key = await crypto.subtle.importKey("jwk", entry.jwk, { name: "Ed25519" }, false, ["verify"]);
    const raw = await crypto.subtle.importKey("raw", fromBase64url(entry.public_key), { name: "Ed25519" }, false, ["verify"]);
    const message = new TextEncoder().encode(`${kid}.${eventId}.${ticketId}`);
    for (const k of [key, raw]) expect(await crypto.subtle.verify({ name: "Ed25519" }, k, fromBase64url(signature), message)).toBe(true);
    expect(Number(eventId)).toBe(f.event.id);
    expect(tickets.map((t) => t.id)).toContain(ticketId);
    // The same key refuses the code with another ticket id or event id.
    const other = tickets.find((t) => t.id !== ticketId)!.id;
    expect(await crypto.subtle.verify({ name: "Ed25519" }, key, fromBase64url(signature), new TextEncoder().encode(`${kid}.${eventId}.${other}`))).toBe(false);
    expect(await crypto.subtle.verify({ name: "Ed25519" }, key, fromBase64url(signature), new TextEncoder().encode(`${kid}.${f.event.id + 1}.${ticketId}`))).toBe(false);
    // And the scanner's offline verdict agrees with the service's.
    expect(await scan(f.gate, payload!)).toMatchObject({ status: true, qrcode: ticketId });
  });

  it("a passe-partout's PDF carries each child ticket's code under its child event; it scans there and nowhere else", async () => {
    const group = unique("SP");
    const c1 = await createOrderEvent({ group_type: 1, event_group: group });
    const c2 = await createOrderEvent({ group_type: 1, event_group: group });
    await createOrderType(c1.id, "Day");
    await createOrderType(c2.id, "Day");
    const pass = await createOrderEvent({ group_type: 3, event_group: group });
    const passType = await createOrderType(pass.id, "Pass");
    const { order: placed, tickets } = await order(pass.id, [passType.id], { [passType.id]: 1 });
    // The children get the tickets, the pass itself none (decisions.md 15).
    expect(tickets.map((t) => t.eventId).sort((a, b) => a - b)).toEqual([c1.id, c2.id]);

    const payloads = pdfPayloads(await downloadPdf(placed.uid));
    const expected = await Promise.all(tickets.map((t) => signer.sign(t.eventId, t.id)));
    expect([...payloads].sort()).toEqual([...expected].sort());

    const k1 = (await createScanKey(c1.id, { level: 0, location: "C1 gate" })).key as string;
    const k2 = (await createScanKey(c2.id, { level: 0, location: "C2 gate" })).key as string;
    const atC1 = tickets.find((t) => t.eventId === c1.id)!;
    const code1 = await signer.sign(c1.id, atC1.id);
    await waitKnown(k1, [atC1.id]);
    // At the other child (and at the pass itself) the code is another event's: refused at the edge.
    expect(await scan(k2, code1)).toStrictEqual(notFound(c2.name, 0));
    const kp = (await createScanKey(pass.id, { level: 0, location: "Pass gate" })).key as string;
    expect(await scan(kp, code1)).toStrictEqual(notFound(pass.name, 0));
    const ok = await scan(k1, code1);
    expect(ok).toMatchObject({ status: true, qrcode: atC1.id, order_id: placed.id, event: c1.name, type: "Pass", location: "C1 gate" });
  });
});

describe("POST /scans with a signed code", () => {
  it("scans exactly as the plain id: the same answer, and the code and the id are one ticket", async () => {
    const f = await setup(["Regular"]);
    const { order: placed, tickets } = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2 }, { name: "Ann Code", email: "ann.code@example.com" });
    const [a, b] = tickets as [Ticket, Ticket];
    await waitKnown(f.gate, [a.id, b.id]);

    const byCode = await scan(f.gate, await signer.sign(f.event.id, a.id));
    const byId = await scan(f.gate, b.id);
    expect(Object.keys(byCode)).toEqual(RESULT_FIELDS);
    const common = {
      order_id: placed.id,
      event: f.event.name,
      name: "Ann Code",
      email: "ann.code@example.com",
      level: 0,
      type: "Regular",
      status: true,
      location: "Gate",
    };
    expect(byCode).toEqual({ ...common, qrcode: a.id, date: expect.any(String) });
    expect(byId).toEqual({ ...common, qrcode: b.id, date: expect.any(String) });

    // The plain id of a ticket entered by its code, and the code of a ticket entered by its id: already done.
    const againById = await scan(f.gate, a.id);
    expect(againById).toEqual({ ...common, qrcode: a.id, status: false, date: byCode.date, error: "This scan has already been done" });
    const againByCode = await scan(f.gate, await signer.sign(f.event.id, b.id));
    expect(againByCode).toEqual({ ...common, qrcode: b.id, status: false, date: byId.date, error: "This scan has already been done" });

    // GET /scans/<ticket_id> shows one scan each.
    for (const t of [a, b]) {
      const view = await expectJson(call("GET", `/scans/${t.id}`, { key: f.gate, auth: null }), 200);
      expect(view.scans).toHaveLength(1);
    }
  });

  it("tampered, forged, malformed and foreign codes: 'Ticket not found' at the edge; the event object never sees them", async () => {
    const f = await setup(["Regular"]);
    const other = await setup(["Regular"]);
    const { tickets } = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2 });
    const [a, b] = tickets as [Ticket, Ticket];
    const { tickets: foreignTickets } = await order(other.event.id, other.typeIds, { [other.typeIds[0]!]: 1 });
    const foreign = foreignTickets[0]!;
    const exit = (await createScanKey(f.event.id, { level: 9, location: "Exit" })).key as string;
    await waitKnown(f.gate, [a.id, b.id]);
    await waitKnown(other.gate, [foreign.id]);
    const before = await objectState(f.event.id);
    expect(before.scans).toEqual([]);

    const code = await signer.sign(f.event.id, a.id);
    const head = code.slice(0, code.lastIndexOf(".") + 1);
    const signature = code.slice(head.length);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    const bad: Record<string, string> = {
      "altered signature (start)": head + flip(signature, 0),
      "altered signature (middle)": head + flip(signature, 43),
      "another ticket's signature": head + (await signer.sign(f.event.id, b.id)).split(".")[3],
      "ticket id swapped for another valid ticket of the event": code.replace(`.${a.id}.`, `.${b.id}.`),
      "event id altered": (await signer.sign(other.event.id, a.id)).replace(`.${other.event.id}.`, `.${f.event.id}.`),
      "unknown kid": code.replace(/^test1\./, "test9."),
      "the verify-only kid": code.replace(/^test1\./, "test0."),
      "forged under test1 by an unconfigured key": await new TicketSigner([await freshKey("test1")]).sign(f.event.id, a.id),
      "forged under test0 by an unconfigured key": await new TicketSigner([await freshKey("test0")]).sign(f.event.id, a.id),
      "forged under a new kid": await new TicketSigner([await freshKey("rogue")]).sign(f.event.id, a.id),
      "a valid code of another event's ticket": await signer.sign(other.event.id, foreign.id),
      "this ticket signed for another event": await signer.sign(other.event.id, a.id),
      "missing signature": `test1.${f.event.id}.${a.id}`,
      "empty signature": `test1.${f.event.id}.${a.id}.`,
      "extra part": `${code}.x`,
      "padded signature": `${code}==`,
      "short signature": code.slice(0, -2),
      "leading zero in the event id": code.replace(`.${f.event.id}.`, `.0${f.event.id}.`),
      "dots only": "...",
      "id with a dot": `${a.id}.`,
    };
    for (const [what, text] of Object.entries(bad)) {
      expect(text, what).not.toBe(code);
      expect(await scan(f.gate, text), what).toStrictEqual(notFound(f.event.name, 0));
      expect(Object.keys(await scan(exit, text)), what).toEqual(REFUSAL_FIELDS);
      expect(await scan(exit, text), what).toStrictEqual(notFound(f.event.name, 9));
    }

    // Nothing reached the object: no scan recorded, the same ledger, and both tickets still enter for the first time.
    expect(await objectState(f.event.id)).toEqual(before);
    for (const t of [a, b]) {
      expect((await expectJson(call("GET", `/scans/${t.id}`, { key: f.gate, auth: null }), 200)).scans).toEqual([]);
    }
    expect(await scan(f.gate, a.id)).toMatchObject({ status: true, qrcode: a.id });
    expect(await scan(f.gate, await signer.sign(f.event.id, b.id))).toMatchObject({ status: true, qrcode: b.id });
    // The other event's ticket was not touched either.
    expect((await expectJson(call("GET", `/scans/${foreign.id}`, { key: other.gate, auth: null }), 200)).scans).toEqual([]);
  });

  it("after a key rotation (a new first key, test1 kept to verify): old codes still scan, new PDFs carry the new key's codes", async () => {
    const next = await freshKey("test2");
    const rotated = { TICKET_SIGNING_KEYS: JSON.stringify([next, publicOnly(KEYS[0]!)]) };
    const f = await setup(["Regular"]);
    const { order: placed, tickets } = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2 });
    const [a, b] = tickets as [Ticket, Ticket];
    await waitKnown(f.gate, [a.id, b.id]);

    // A ticket printed before the rotation (test1) enters under the rotated configuration.
    const old = await signer.sign(f.event.id, a.id);
    const viaRotated = (req: Request) => callWith(rotated, req);
    expect(await expectJson(viaRotated(request("POST", "/scans", { key: f.gate, auth: null, body: { id: old } })), 200)).toMatchObject({ status: true, qrcode: a.id });

    // Tickets rendered after it carry test2 codes; the rotated service accepts them, the old configuration does not.
    const payloads = pdfPayloads(await downloadPdf(placed.uid, viaRotated));
    const fresh = new TicketSigner([next]);
    expect([...payloads].sort()).toEqual((await Promise.all(tickets.map((t) => fresh.sign(f.event.id, t.id)))).sort());
    const newCode = payloads.find((p) => p.includes(`.${b.id}.`))!;
    expect(newCode.startsWith(`test2.${f.event.id}.${b.id}.`)).toBe(true);
    expect(await scan(f.gate, newCode)).toStrictEqual(notFound(f.event.name, 0));
    expect(await expectJson(viaRotated(request("POST", "/scans", { key: f.gate, auth: null, body: { id: newCode } })), 200)).toMatchObject({
      status: true,
      qrcode: b.id,
    });

    // The rotated service publishes both keys, the new one first, still without private parts.
    const published = await expectJson(viaRotated(request("GET", "/scan-keys/public-keys", { key: f.gate, auth: null })), 200);
    expect(published.keys.map((k: Json) => k.kid)).toEqual(["test2", "test1"]);
    expect(published.keys[0].public_key).toBe(next.x);
    expect(JSON.stringify(published)).not.toContain(next.d!);
  });

  it("without signing keys: the PDF carries the plain id, no code verifies, and no key is published", async () => {
    const off = (req: Request) => callWith({ TICKET_SIGNING_KEYS: "" }, req);
    const f = await setup(["Regular"]);
    const { order: placed, tickets } = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 1 });
    const t = tickets[0]!;
    await waitKnown(f.gate, [t.id]);
    expect(pdfPayloads(await downloadPdf(placed.uid, off))).toEqual([t.id]);
    const code = await signer.sign(f.event.id, t.id);
    expect(await expectJson(off(request("POST", "/scans", { key: f.gate, auth: null, body: { id: code } })), 200)).toStrictEqual(notFound(f.event.name, 0));
    expect(await expectJson(off(request("GET", "/scan-keys/public-keys", { key: f.gate, auth: null })), 200)).toStrictEqual({ keys: [] });
    // The plain id still scans.
    expect(await expectJson(off(request("POST", "/scans", { key: f.gate, auth: null, body: { id: t.id } })), 200)).toMatchObject({ status: true, qrcode: t.id });
  });
});

describe("GET /scan-keys/public-keys", () => {
  const expectedKeys = KEYS.map((k) => ({ kid: k.kid, alg: "Ed25519", public_key: k.x, jwk: { kty: "OKP", crv: "Ed25519", x: k.x, kid: k.kid } }));

  it("answers the configured keys, public parts only, to any scan key of any event and level", async () => {
    const f = await setup();
    const g = await setup();
    const exit = (await createScanKey(g.event.id, { level: 9, location: "Exit" })).key as string;
    for (const key of [f.gate, g.gate, exit]) {
      const res = await call("GET", "/scan-keys/public-keys", { key, auth: null });
      expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
      const body = await expectJson(res, 200);
      expect(body).toStrictEqual({ keys: expectedKeys });
      const text = JSON.stringify(body);
      expect(text).not.toContain('"d"');
      for (const k of KEYS) if (k.d) expect(text).not.toContain(k.d);
    }
    // _fields applies as on every GET.
    expect(await expectJson(call("GET", "/scan-keys/public-keys?_fields=keys", { key: f.gate, auth: null }), 200)).toStrictEqual({ keys: expectedKeys });
  });

  it("401 rest_forbidden_api_key without a key, with an unknown or malformed key, the service API key, or a deleted scan key", async () => {
    const f = await setup();
    const doomed = await createScanKey(f.event.id, { level: 0, location: "Doomed" });
    await expectJson(call("GET", "/scan-keys/public-keys", { key: doomed.key, auth: null }), 200);
    await expectJson(call("DELETE", `/admin/events/${f.event.id}/scan-keys/${doomed.key}`), 200);
    for (const [key, auth] of [
      [null, null],
      ["", null],
      ["NoSuchScanKey000", null],
      ["short", null],
      [API_KEY, null],
      [API_KEY, undefined],
    ] as const) {
      const err = await expectError(call("GET", "/scan-keys/public-keys", { key, auth }), 401, "rest_forbidden_api_key");
      expect(err.message).toBe("Invalid scan key");
    }
    // A deleted key: refused once it is gone (this isolate dropped it from its cache).
    const res = await call("GET", "/scan-keys/public-keys", { key: doomed.key, auth: null });
    await expectError(res, 401, "rest_forbidden_api_key");
  });
});

describe("GET /scans/tickets", () => {
  it("the event's valid tickets, by id: ticket, order, type, name and type id, never an email; never another event's", async () => {
    const f = await setup(["Regular", "VIP"]);
    const other = await setup(["Regular"]);
    const first = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2, [f.typeIds[1]!]: 1 }, { name: "First Buyer", email: "first@example.com" });
    const second = await order(f.event.id, f.typeIds, { [f.typeIds[1]!]: 1 }, { name: "Second Buyer", email: "second@example.com" });
    const foreign = await order(other.event.id, other.typeIds, { [other.typeIds[0]!]: 2 });
    const mine = [...first.tickets, ...second.tickets];
    const body = await waitKnown(
      f.gate,
      mine.map((t) => t.id),
    );

    const typeId = (name: string) => f.types.find((x) => x.name === name)!.id;
    const row = (t: Ticket, o: Placed, name: string) => ({ ticket_id: t.id, order_id: o.order.id, ticket_type: t.type, name, ticket_type_id: typeId(t.type) });
    const expected = [...first.tickets.map((t) => row(t, first, "First Buyer")), ...second.tickets.map((t) => row(t, second, "Second Buyer"))].sort((x, y) =>
      x.ticket_id < y.ticket_id ? -1 : x.ticket_id > y.ticket_id ? 1 : 0,
    );
    expect(listOf(body)).toStrictEqual({ event_id: f.event.id, tickets: expected });
    // Personal data on every door phone is kept to what a door checks against an identity document (decisions.md 14).
    for (const t of body.tickets) expect(Object.keys(t)).toEqual(["ticket_id", "order_id", "ticket_type", "name", "ticket_type_id"]);
    expect(JSON.stringify(body)).not.toMatch(/@example\.com/);
    // The fields of the list as it always was, then the sync token and links of the paged list (docs/scanning.md
    // "Offline list").
    expect(Object.keys(body)).toEqual(["event_id", "tickets", "sync_token", "_links"]);

    // The other event's key lists only its own.
    const theirs = await waitKnown(
      other.gate,
      foreign.tickets.map((t) => t.id),
    );
    expect(theirs.event_id).toBe(other.event.id);
    expect(theirs.tickets.map((t: Json) => t.ticket_id).sort()).toEqual(foreign.tickets.map((t) => t.id).sort());
    // Any key of the event, whatever its level, gets the same list; scanning changes nothing in it.
    const exit = (await createScanKey(f.event.id, { level: 9, location: "Exit" })).key as string;
    await scan(f.gate, first.tickets[0]!.id);
    await scan(exit, first.tickets[0]!.id);
    expect(await syncTickets(exit)).toStrictEqual(body);
  });

  it("an event without orders has an empty list", async () => {
    const f = await setup();
    expect(listOf(await syncTickets(f.gate))).toStrictEqual({ event_id: f.event.id, tickets: [] });
  });

  it("deleted tickets leave the list and re-issued ones join it; a deleted order's tickets leave it", async () => {
    const f = await setup(["Regular"]);
    const kept = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 1 });
    const reissued = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2 });
    const dropped = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 1 });
    await waitKnown(
      f.gate,
      [...kept.tickets, ...reissued.tickets, ...dropped.tickets].map((t) => t.id),
    );

    await expectJson(call("DELETE", `/admin/tickets/${reissued.order.id}`), 200);
    const withoutIds = (ids: string[]) => (b: Json) => !b.tickets.some((t: Json) => ids.includes(t.ticket_id));
    let body = await syncWhen(f.gate, withoutIds(reissued.tickets.map((t) => t.id)));
    expect(body.tickets.map((t: Json) => t.ticket_id).sort()).toEqual([...kept.tickets, ...dropped.tickets].map((t) => t.id).sort());

    const again = await expectJson(call("POST", `/admin/tickets/${reissued.order.id}`), 201);
    const newIds: string[] = again.tickets.map((t: Json) => t.ticket_id);
    expect(newIds).toHaveLength(2);
    body = await waitKnown(f.gate, newIds);
    expect(body.tickets.map((t: Json) => t.ticket_id).sort()).toEqual([...kept.tickets.map((t) => t.id), ...dropped.tickets.map((t) => t.id), ...newIds].sort());

    await expectJson(call("DELETE", `/admin/orders/${dropped.order.id}`), 200);
    body = await syncWhen(f.gate, withoutIds(dropped.tickets.map((t) => t.id)));
    expect(body.tickets.map((t: Json) => t.ticket_id).sort()).toEqual([...kept.tickets.map((t) => t.id), ...newIds].sort());
    expect(body.tickets.every((t: Json) => t.order_id !== dropped.order.id)).toBe(true);
  });

  it("a passe-partout's child tickets are listed at each child under the pass's type (text and id) and order; the pass lists none (decisions.md 15)", async () => {
    const group = unique("SP");
    const c1 = await createOrderEvent({ group_type: 1, event_group: group });
    const c2 = await createOrderEvent({ group_type: 1, event_group: group });
    const day = await createOrderType(c1.id, "Day");
    await createOrderType(c2.id, "Day");
    const pass = await createOrderEvent({ group_type: 3, event_group: group });
    const passType = await createOrderType(pass.id, "Pass");
    const bought = await order(pass.id, [passType.id], { [passType.id]: 2 }, { name: "Pat Pass", email: "pat@example.com" });
    const direct = await order(c1.id, [day.id], { [day.id]: 1 }, { name: "Dee Day", email: "dee@example.com" });
    expect(bought.tickets).toHaveLength(4);

    for (const ev of [c1, c2, pass]) {
      const key = (await createScanKey(ev.id, { level: 0, location: "Gate" })).key as string;
      const mine = bought.tickets.filter((t) => t.eventId === ev.id);
      expect(mine).toHaveLength(ev.id === pass.id ? 0 : 2);
      const extra = ev.id === c1.id ? direct.tickets : [];
      const body = await waitKnown(
        key,
        [...mine, ...extra].map((t) => t.id),
      );
      const expected = [
        ...mine.map((t) => ({ ticket_id: t.id, order_id: bought.order.id, ticket_type: "Pass", name: "Pat Pass", ticket_type_id: passType.id })),
        ...extra.map((t) => ({ ticket_id: t.id, order_id: direct.order.id, ticket_type: "Day", name: "Dee Day", ticket_type_id: day.id })),
      ].sort((x, y) => (x.ticket_id < y.ticket_id ? -1 : 1));
      expect(listOf(body)).toStrictEqual({ event_id: ev.id, tickets: expected });
    }
  });

  it("a changed order name (PUT /admin/orders) shows in the list, at a passe-partout's children too", async () => {
    const group = unique("SN");
    const child = await createOrderEvent({ group_type: 1, event_group: group });
    await createOrderType(child.id, "Day");
    const pass = await createOrderEvent({ group_type: 3, event_group: group });
    const passType = await createOrderType(pass.id, "Pass");
    const bought = await order(pass.id, [passType.id], { [passType.id]: 1 }, { name: "Old Name", email: "old@example.com" });
    const childKey = (await createScanKey(child.id, { level: 0, location: "Gate" })).key as string;
    const passKey = (await createScanKey(pass.id, { level: 0, location: "Gate" })).key as string;
    await waitKnown(
      childKey,
      bought.tickets.filter((t) => t.eventId === child.id).map((t) => t.id),
    );
    await waitKnown(
      passKey,
      bought.tickets.filter((t) => t.eventId === pass.id).map((t) => t.id),
    );

    await expectJson(call("PUT", `/admin/orders/${bought.order.id}`, { body: { name: "New Name", email: "new@example.com" } }), 200);
    for (const [ev, key] of [
      [child, childKey],
      [pass, passKey],
    ] as const) {
      const body = await syncWhen(key, (b) => b.tickets.every((t: Json) => t.name === "New Name"));
      expect(body.tickets).toStrictEqual(
        bought.tickets
          .filter((t) => t.eventId === ev.id)
          .map((t) => ({ ticket_id: t.id, order_id: bought.order.id, ticket_type: "Pass", name: "New Name", ticket_type_id: passType.id })),
      );
    }
  });

  it("customer orders: nothing while open or after cancelling; the tickets once paid", async () => {
    const event = await createEvent({ event_name: unique("Shop ") });
    const type = await createTicketType(event.id, { name: "Regular", price: 10 });
    const gate = (await createScanKey(event.id, { level: 0, location: "Gate" })).key as string;
    const post = () =>
      expectJson(call("POST", `/events/${event.id}/orders`, { auth: null, body: { name: "Shop Buyer", email: "shop@example.com", tickets: [{ [type.id]: 2 }] } }), 201);
    const decide = (url: string, action: string) =>
      exports.default.fetch(
        new Request(url, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` }),
      );
    const paid = await post();
    const cancelled = await post();
    expect(paid.payment_status).toBe("open");
    await sleep(200);
    expect(listOf(await syncTickets(gate))).toStrictEqual({ event_id: event.id, tickets: [] });

    expect((await decide(cancelled.payment.checkout_url, "cancel")).status).toBe(303);
    expect((await decide(paid.payment.checkout_url, "pay")).status).toBe(303);
    const tickets = await ticketsOf(paid.id);
    expect(tickets).toHaveLength(2);
    const body = await waitKnown(
      gate,
      tickets.map((t) => t.id),
    );
    expect(body.tickets).toStrictEqual(
      tickets
        .map((t) => ({ ticket_id: t.id, order_id: paid.id, ticket_type: "Regular", name: "Shop Buyer", ticket_type_id: type.id }))
        .sort((x, y) => (x.ticket_id < y.ticket_id ? -1 : 1)),
    );
  });

  it("needs a scan key: none, unknown, or the service API key is 401 rest_forbidden_api_key", async () => {
    for (const [key, auth] of [
      [null, null],
      ["NoSuchScanKey000", null],
      [API_KEY, null],
      [API_KEY, undefined],
    ] as const) {
      await expectError(call("GET", "/scans/tickets", { key, auth }), 401, "rest_forbidden_api_key");
      await expectError(call("GET", "/scans/revoked", { key, auth }), 401, "rest_forbidden_api_key");
    }
  });
});

describe("GET /scans/revoked", () => {
  /** Every rendering in `tz` of the seconds between two instants (inclusive). */
  function wallClocksBetween(beforeMs: number, afterMs: number, tz: string): string[] {
    const out: string[] = [];
    for (let s = Math.floor(beforeMs / 1000); s <= Math.floor(afterMs / 1000); s++) out.push(wallClockAt(s * 1000, tz));
    return out;
  }

  it("lists the tickets of deleted tickets and deleted orders, revoked_at in the event's zone; only this event's", async () => {
    const tz = "Asia/Tokyo";
    const f = await setup(["Regular"], { timezone: tz });
    const other = await setup(["Regular"]);
    const keptOrder = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 1 });
    const reissued = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2 });
    const deletedOrder = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 1 });
    const foreign = await order(other.event.id, other.typeIds, { [other.typeIds[0]!]: 1 });
    await waitKnown(
      f.gate,
      [...keptOrder.tickets, ...reissued.tickets, ...deletedOrder.tickets].map((t) => t.id),
    );
    expect(await expectJson(revoked(f.gate), 200)).toStrictEqual({ event_id: f.event.id, revoked: [] });

    const before = Date.now();
    await expectJson(call("DELETE", `/admin/tickets/${reissued.order.id}`), 200);
    const fresh = await expectJson(call("POST", `/admin/tickets/${reissued.order.id}`), 201);
    await expectJson(call("DELETE", `/admin/orders/${deletedOrder.order.id}`), 200);
    await expectJson(call("DELETE", `/admin/orders/${foreign.order.id}`), 200);
    const after = Date.now();

    const body = await expectJson(revoked(f.gate), 200);
    expect(Object.keys(body)).toEqual(["event_id", "revoked"]);
    expect(body.event_id).toBe(f.event.id);
    const ids = [...reissued.tickets, ...deletedOrder.tickets].map((t) => t.id);
    expect(body.revoked.map((r: Json) => r.ticket_id).sort()).toEqual([...ids].sort());
    const allowed = wallClocksBetween(before, after, tz);
    for (const r of body.revoked) {
      expect(Object.keys(r)).toEqual(["ticket_id", "revoked_at"]);
      expect(allowed).toContain(r.revoked_at);
    }
    // Oldest first.
    const times = body.revoked.map((r: Json) => r.revoked_at as string);
    expect([...times].sort()).toEqual(times);
    // The re-issued tickets, the kept order's and the other event's are not there.
    const listed = new Set(body.revoked.map((r: Json) => r.ticket_id));
    for (const t of [...keptOrder.tickets, ...fresh.tickets.map((x: Json) => ({ id: x.ticket_id }))]) expect(listed.has(t.id)).toBe(false);
    expect(listed.has(foreign.tickets[0]!.id)).toBe(false);
    // The other event lists its own.
    const theirs = await expectJson(revoked(other.gate), 200);
    expect(theirs.revoked.map((r: Json) => r.ticket_id)).toEqual([foreign.tickets[0]!.id]);
    expect(wallClocksBetween(before, after, "Europe/Amsterdam")).toContain(theirs.revoked[0].revoked_at);
  });

  it("since: only what was revoked at or after that moment, read in the event's zone", async () => {
    const tz = "Asia/Tokyo";
    const f = await setup(["Regular"], { timezone: tz });
    const early = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 2 });
    const late = await order(f.event.id, f.typeIds, { [f.typeIds[0]!]: 1 });
    await expectJson(call("DELETE", `/admin/tickets/${early.order.id}`), 200);
    await expectJson(call("DELETE", `/admin/orders/${late.order.id}`), 200);
    // Place the two revocations an hour apart (seconds since the epoch), as if they happened then.
    const t1 = Math.floor(Date.now() / 1000) - 7200;
    const t2 = t1 + 3600;
    const set = (ids: string[], at: number) =>
      env.DB.prepare(`UPDATE revoked_tickets SET revoked_at = ? WHERE ticket_id IN (SELECT value FROM json_each(?))`).bind(at, JSON.stringify(ids)).run();
    await set(
      early.tickets.map((t) => t.id),
      t1,
    );
    await set(
      late.tickets.map((t) => t.id),
      t2,
    );
    const earlyRows = early.tickets.map((t) => ({ ticket_id: t.id, revoked_at: wallClockAt(t1 * 1000, tz) })).sort((x, y) => (x.ticket_id < y.ticket_id ? -1 : 1));
    const lateRows = late.tickets.map((t) => ({ ticket_id: t.id, revoked_at: wallClockAt(t2 * 1000, tz) }));
    const at = (s: number, zone = tz) => wallClockAt(s * 1000, zone);
    const list = async (since?: string) => (await expectJson(revoked(f.gate, since), 200)).revoked;

    expect(await list()).toStrictEqual([...earlyRows, ...lateRows]);
    expect(await list(at(t1 - 1))).toStrictEqual([...earlyRows, ...lateRows]);
    expect(await list(at(t1))).toStrictEqual([...earlyRows, ...lateRows]);
    expect(await list(at(t1 + 1))).toStrictEqual(lateRows);
    expect(await list(at(t2))).toStrictEqual(lateRows);
    expect(await list(at(t2 + 1))).toStrictEqual([]);
    // The same wall-clock text in another zone is another moment: UTC text read in Tokyo is 9 hours earlier.
    expect(await list(at(t2 + 1, "UTC"))).toStrictEqual([...earlyRows, ...lateRows]);
    expect(await list(at(t2 + 1, "Europe/Amsterdam"))).toStrictEqual([...earlyRows, ...lateRows]);
  });

  it("a deleted passe-partout order revokes its child tickets at each child event", async () => {
    const group = unique("SR");
    const c1 = await createOrderEvent({ group_type: 1, event_group: group });
    const c2 = await createOrderEvent({ group_type: 1, event_group: group });
    await createOrderType(c1.id, "Day");
    await createOrderType(c2.id, "Day");
    const pass = await createOrderEvent({ group_type: 3, event_group: group });
    const passType = await createOrderType(pass.id, "Pass");
    const bought = await order(pass.id, [passType.id], { [passType.id]: 1 });
    await expectJson(call("DELETE", `/admin/orders/${bought.order.id}`), 200);
    for (const ev of [c1, c2, pass]) {
      const key = (await createScanKey(ev.id, { level: 0, location: "Gate" })).key as string;
      const body = await expectJson(revoked(key), 200);
      expect(body.revoked.map((r: Json) => r.ticket_id)).toEqual(bought.tickets.filter((t) => t.eventId === ev.id).map((t) => t.id));
    }
  });

  it("a malformed since is 400 rest_invalid_param naming since", async () => {
    const f = await setup();
    for (const since of [
      "2024-01-01",
      "2024-01-01T10:00:00",
      "2024-01-01 10:00",
      "yesterday",
      "2024-02-30 10:00:00",
      "2024-01-01 25:00:00",
      "1700000000",
      "2024-1-1 10:00:00",
    ]) {
      const err = await expectError(revoked(f.gate, since), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params ?? {}), since).toEqual(["since"]);
    }
    // A well-formed one is fine.
    await expectJson(revoked(f.gate, "2024-01-01 10:00:00"), 200);
  });
});

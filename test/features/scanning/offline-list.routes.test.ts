import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { encodeCursor, LIST_PAGE_BYTES } from "../../../src/domain/offline-list";
import type { EventObject } from "../../../src/event-object/event.do";
import { migrateStorage } from "../../../src/event-object/storage";
import { rebuildEventObject } from "../../../src/features/ordering/stock.service";
import { depsFromEnv } from "../../../src/platform/deps";
import { eventObject } from "../../../src/platform/event-object.client";
import { API_KEY, BASE, call, expectError, expectJson, unique } from "../../helpers/api";
import { createScanKey } from "../../helpers/catalogue";
import { createOrderEvent, createOrderType, orderBody, placeOrder } from "../../helpers/orders";

/**
 * The offline list that scales (docs/scanning.md "Offline list"): `GET /scans/tickets` in pages
 * by cursor (`per_page`, `cursor`, `next` in `_links` and `Link`), by change (`since=<sync_token>`: what became
 * valid or changed, and what stopped being valid), with an `ETag` that answers `304` while the event object's list
 * is unchanged. Storage is shared with other files: every test makes its own events and orders.
 */

type Json = Record<string, any>;

interface Listed {
  ticket_id: string;
  order_id: number;
  ticket_type: string;
  name: string;
  ticket_type_id: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const byId = (a: { ticket_id: string }, b: { ticket_id: string }) => (a.ticket_id < b.ticket_id ? -1 : a.ticket_id > b.ticket_id ? 1 : 0);

const get = (key: string | null, query = "", headers: Record<string, string> = {}) => call("GET", `/scans/tickets${query}`, { key, auth: null, headers });
const getJson = async (key: string, query = "") => expectJson(get(key, query), 200);

/** An event taking dashboard orders with one type "Regular" and a level-0 key at "Gate". */
async function setup() {
  const event = await createOrderEvent();
  const type = await createOrderType(event.id, "Regular");
  const gate = (await createScanKey(event.id, { level: 0, location: "Gate" })).key as string;
  return { event, type, gate };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** A dashboard order of `count` tickets by `name`; answers it and its ticket ids. */
async function order(f: Setup, count: number, name = "Olga Offline") {
  const placed = await placeOrder(orderBody(f.event.id, [f.type.id], { [f.type.id]: count }, { name, email: `${unique("list")}@example.com` }));
  const view = await expectJson(call("GET", `/admin/tickets/${placed.id}`), 200);
  return { id: placed.id as number, ids: view.tickets.map((t: Json) => t.ticket_id as string) as string[] };
}

/** Polls the whole list (no parameters) until `done` holds; the object learns orders just after their 201. */
async function listWhen(key: string, done: (tickets: Listed[]) => boolean): Promise<Listed[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const body = await getJson(key);
    if (done(body.tickets)) return body.tickets;
    if (Date.now() > deadline) throw new Error("the event object's list did not reach the expected state");
    await sleep(25);
  }
}

const knows = (ids: string[]) => (tickets: Listed[]) => ids.every((id) => tickets.some((t) => t.ticket_id === id));
const lacks = (ids: string[]) => (tickets: Listed[]) => !tickets.some((t) => ids.includes(t.ticket_id));

/** The path of an absolute `next` link, for `call`. */
function pathOf(href: string): string {
  expect(href.startsWith(`${BASE}/scans/tickets?`), href).toBe(true);
  return href.slice(BASE.length);
}

interface Page {
  body: Json;
  etag: string | null;
  link: string | null;
  bytes: number;
}

async function fetchPage(key: string, path: string): Promise<Page> {
  const res = await call("GET", path, { key, auth: null });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const body = JSON.parse(text);
  const next = body._links?.next?.[0]?.href ?? null;
  // The Link header and `_links.next` name the same next page; the last page has neither.
  expect(res.headers.get("Link")).toBe(next === null ? null : `<${next}>; rel="next"`);
  expect(body._links.self).toEqual([{ href: `${BASE}${path}` }]);
  return { body, etag: res.headers.get("ETag"), link: res.headers.get("Link"), bytes: new TextEncoder().encode(text).length };
}

/** Every page of a walk from `query`, following `next` to the end. */
async function walk(key: string, query: string): Promise<Page[]> {
  const pages: Page[] = [];
  let path: string | null = `/scans/tickets${query}`;
  while (path !== null) {
    const page = await fetchPage(key, path);
    pages.push(page);
    const next = page.body._links.next?.[0]?.href as string | undefined;
    path = next === undefined ? null : pathOf(next);
    if (pages.length > 500) throw new Error("the walk does not end");
  }
  return pages;
}

/** What a door phone keeps: the tickets of a full walk, then each delta applied (changed ones replaced, revoked removed). */
function applyDelta(kept: Map<string, Listed>, pages: Page[]): void {
  for (const p of pages) {
    for (const t of p.body.tickets) kept.set(t.ticket_id, t);
    for (const r of p.body.revoked) kept.delete(r.ticket_id);
  }
}

/** Tickets valid at the event written straight into its object (as confirmed orders would), for lists of any size. */
async function seed(eventId: number, count: number, make: (i: number) => { name: string; type: string }, orderId = 900_000_000): Promise<string[]> {
  const ids: string[] = [];
  const stub = eventObject(env, eventId);
  for (let start = 0; start < count; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - start) }, (_, j) => {
      const i = start + j;
      const id = `S${String(i).padStart(7, "0")}${unique("").slice(-8)}`.slice(0, 16);
      ids.push(id);
      return { id, typeId: "seeded", typeName: make(i).type };
    });
    // One "order" per batch; every ticket of it shows the name of its first ticket.
    await stub.confirmWithTickets(`seed-${unique("u")}`, batch, { orderId: orderId + start, name: make(start).name, email: "seed@example.com" });
  }
  return ids;
}

describe("GET /scans/tickets in pages (per_page, cursor)", () => {
  it("walks the whole list exactly once, by ticket id, with one sync token on every page", async () => {
    const f = await setup();
    const orders = [await order(f, 20, "Ann A"), await order(f, 15, "Bob B"), await order(f, 12, "Cem C")];
    const all = orders.flatMap((o) => o.ids);
    const whole = await listWhen(f.gate, knows(all));
    expect(whole).toHaveLength(47);

    const pages = await walk(f.gate, "?per_page=10");
    expect(pages.map((p) => p.body.tickets.length)).toEqual([10, 10, 10, 10, 7]);
    const walked = pages.flatMap((p) => p.body.tickets as Listed[]);
    expect(walked).toStrictEqual([...whole].sort(byId));
    expect(new Set(walked.map((t) => t.ticket_id)).size).toBe(47);
    const tokens = new Set(pages.map((p) => p.body.sync_token));
    expect(tokens.size).toBe(1);
    for (const p of pages) {
      expect(Object.keys(p.body)).toEqual(["event_id", "tickets", "sync_token", "_links"]);
      expect(p.body.event_id).toBe(f.event.id);
      for (const t of p.body.tickets) expect(Object.keys(t)).toEqual(["ticket_id", "order_id", "ticket_type", "name", "ticket_type_id"]);
      for (const t of p.body.tickets) expect(t.ticket_type_id).toBe(f.type.id);
      expect(JSON.stringify(p.body)).not.toMatch(/@example\.com/);
    }
    expect(pages.at(-1)!.link).toBeNull();

    // One page when it holds everything; the default page size is the largest (1,000).
    const one = await walk(f.gate, "?per_page=47");
    expect(one).toHaveLength(1);
    expect(one[0]!.body.tickets).toStrictEqual(walked);
    const byDefault = await walk(f.gate, `?cursor=${encodeCursor({ kind: "full", snapshot: Number(pages[0]!.body.sync_token), after: "" })}`);
    expect(byDefault).toHaveLength(1);
    expect(byDefault[0]!.body.tickets).toStrictEqual(walked);
    // Other query parameters are kept in the next link.
    const kept = await fetchPage(f.gate, "/scans/tickets?per_page=20&_fields=event_id,tickets,sync_token,_links&other=1");
    expect(new URL(kept.body._links.next[0].href).searchParams.get("other")).toBe("1");
    expect(new URL(kept.body._links.next[0].href).searchParams.get("per_page")).toBe("20");
  });

  it("an empty list is one page without next", async () => {
    const f = await setup();
    const pages = await walk(f.gate, "?per_page=5");
    expect(pages).toHaveLength(1);
    expect(pages[0]!.body.tickets).toEqual([]);
    expect(pages[0]!.body.sync_token).toMatch(/^\d+$/);
  });

  it("changes made during a paged walk: the walk neither skips nor repeats a ticket, and the next delta brings every change", async () => {
    const f = await setup();
    const stays = await order(f, 12, "Stay Same");
    const renamed = await order(f, 12, "Old Name");
    const dropped = await order(f, 12, "Drop Me");
    await listWhen(f.gate, knows([...stays.ids, ...renamed.ids, ...dropped.ids]));

    const first = await fetchPage(f.gate, "/scans/tickets?per_page=7");
    const token = first.body.sync_token as string;
    // Meanwhile: a new order, a changed name, a deleted order (some of its tickets walked already, some not).
    const added = await order(f, 9, "New Comer");
    await expectJson(call("PUT", `/admin/orders/${renamed.id}`, { body: { name: "New Name", email: "new@example.com" } }), 200);
    await expectJson(call("DELETE", `/admin/orders/${dropped.id}`), 200);
    const now = await listWhen(f.gate, (ts) => knows(added.ids)(ts) && lacks(dropped.ids)(ts) && ts.filter((t) => t.name === "New Name").length === 12);

    const rest = await walk(f.gate, pathOf(first.body._links.next[0].href).replace("/scans/tickets", ""));
    const pages = [first, ...rest];
    const walked = pages.flatMap((p) => p.body.tickets as Listed[]);
    const ids = walked.map((t) => t.ticket_id);
    expect(new Set(ids).size, "no ticket twice in one walk").toBe(ids.length);
    expect([...ids].sort(), "in ticket id order").toEqual(ids);
    for (const id of stays.ids)
      expect(
        ids.filter((x) => x === id),
        `${id} stayed valid throughout`,
      ).toHaveLength(1);
    for (const id of renamed.ids) expect(ids.filter((x) => x === id)).toHaveLength(1);
    for (const p of pages) expect(p.body.sync_token, "the walk's token is its first page's").toBe(token);

    // The door phone applies the delta since the walk's token: it then holds exactly the list as it is now.
    const kept = new Map(walked.map((t) => [t.ticket_id, t]));
    const delta = await walk(f.gate, `?since=${token}&per_page=5`);
    applyDelta(kept, delta);
    expect([...kept.values()].sort(byId)).toStrictEqual([...now].sort(byId));
    const changed = delta.flatMap((p) => p.body.tickets as Listed[]);
    const revoked = delta.flatMap((p) => p.body.revoked as { ticket_id: string }[]);
    expect(changed.map((t) => t.ticket_id).sort()).toEqual([...added.ids, ...renamed.ids].sort());
    expect(changed.filter((t) => renamed.ids.includes(t.ticket_id)).every((t) => t.name === "New Name")).toBe(true);
    expect(revoked.map((r) => r.ticket_id).sort()).toEqual([...dropped.ids].sort());
    const newToken = delta[0]!.body.sync_token as string;
    expect(Number(newToken)).toBeGreaterThan(Number(token));

    // Nothing changed since: an empty delta with the same token.
    const quiet = await walk(f.gate, `?since=${newToken}`);
    expect(quiet).toHaveLength(1);
    expect(quiet[0]!.body).toMatchObject({ tickets: [], revoked: [], sync_token: newToken });
  });
});

describe("GET /scans/tickets?since=<sync_token>", () => {
  it("answers only what changed: new and changed tickets in tickets, tickets no longer valid in revoked", async () => {
    const f = await setup();
    const x = await order(f, 3, "Xavier");
    const y = await order(f, 2, "Yara");
    const z = await order(f, 2, "Zeno");
    await listWhen(f.gate, knows([...x.ids, ...y.ids, ...z.ids]));
    const full = await getJson(f.gate);
    const token = full.sync_token as string;
    expect(token).toMatch(/^\d+$/);

    // Y's tickets deleted and issued again: the old ids are revoked, the new ones valid.
    await expectJson(call("DELETE", `/admin/tickets/${y.id}`), 200);
    const again = await expectJson(call("POST", `/admin/tickets/${y.id}`), 201);
    const fresh: string[] = again.tickets.map((t: Json) => t.ticket_id);
    await listWhen(f.gate, (ts) => knows(fresh)(ts) && lacks(y.ids)(ts));

    const delta = await getJson(f.gate, `?since=${token}`);
    expect(Object.keys(delta)).toEqual(["event_id", "tickets", "revoked", "sync_token", "_links"]);
    expect([...delta.tickets].sort(byId)).toStrictEqual(
      fresh.map((id) => ({ ticket_id: id, order_id: y.id, ticket_type: "Regular", name: "Yara", ticket_type_id: f.type.id })).sort(byId),
    );
    expect(delta.revoked.map((r: Json) => r.ticket_id).sort()).toEqual([...y.ids].sort());
    for (const r of delta.revoked) expect(Object.keys(r)).toEqual(["ticket_id"]);
    expect(delta._links.next).toBeUndefined();

    // since=0: everything the list ever held, the valid tickets as they are now and the revoked ones.
    const everything = await getJson(f.gate, "?since=0");
    expect(everything.tickets.map((t: Listed) => t.ticket_id).sort()).toEqual([...x.ids, ...fresh, ...z.ids].sort());
    expect(everything.revoked.map((r: Json) => r.ticket_id).sort()).toEqual([...y.ids].sort());
  });

  it("a scan changes nothing in the list: the delta after scans is empty", async () => {
    const f = await setup();
    const o = await order(f, 2);
    await listWhen(f.gate, knows(o.ids));
    const token = (await getJson(f.gate)).sync_token;
    for (const id of o.ids) expect((await expectJson(call("POST", "/scans", { key: f.gate, auth: null, body: { id } }), 200)).status).toBe(true);
    expect(await getJson(f.gate, `?since=${token}`)).toMatchObject({ tickets: [], revoked: [], sync_token: token });
  });

  it("a ticket whose type id alone changes is a change: an object that held it before it kept type ids learns it again", async () => {
    const f = await setup();
    const o = await order(f, 2, "Tia Typed");
    await listWhen(f.gate, knows(o.ids));
    const stub = eventObject(env, f.event.id);
    const held = (await stub.snapshot()).tickets.filter((t) => o.ids.includes(t.id));
    const uid = held[0]!.uid;
    const info = { orderId: o.id, name: "Tia Typed", email: "tia@example.com" };
    // As such an object holds them: the type text, no type id.
    await stub.replaceTickets(
      uid,
      held.map(({ id, typeName }) => ({ id, typeId: "", typeName })),
      info,
    );
    const before = await getJson(f.gate);
    expect(before.tickets.map((t: Listed) => t.ticket_type_id)).toEqual(["", ""]);

    await stub.replaceTickets(
      uid,
      held.map(({ id, typeName }) => ({ id, typeId: f.type.id, typeName })),
      info,
    );
    const delta = await getJson(f.gate, `?since=${before.sync_token}`);
    expect([...delta.tickets].sort(byId)).toStrictEqual(
      o.ids.map((id) => ({ ticket_id: id, order_id: o.id, ticket_type: "Regular", name: "Tia Typed", ticket_type_id: f.type.id })).sort(byId),
    );
    expect(delta.revoked).toEqual([]);
  });

  it("an object made with the update trigger that missed type ids drops it as it starts: one change is numbered once", async () => {
    const f = await setup();
    const o = await order(f, 1, "Una Once");
    await listWhen(f.gate, knows(o.ids));
    const triggers = await runInDurableObject(eventObject(env, f.event.id), (_i: EventObject, state) => {
      const sql = state.storage.sql;
      sql.exec(`CREATE TRIGGER tickets_listed_update_v1 AFTER UPDATE ON tickets BEGIN UPDATE list_meta SET head = head + 1 WHERE id = 1; END`);
      // Made before the object's migrations were numbered (storage.ts): no bookkeeping (and no waiting list, migration
      // 2), so the migrations run as it starts.
      sql.exec(`DROP TABLE _migrations`);
      sql.exec(`DROP TABLE waiting`);
      migrateStorage(state.storage);
      return sql
        .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name`)
        .toArray()
        .map((r) => r.name);
    });
    expect(triggers).toEqual(["tickets_listed_delete_v1", "tickets_listed_insert_v1", "tickets_listed_update_v2"]);
    const token = Number((await getJson(f.gate)).sync_token);
    await expectJson(call("PUT", `/admin/orders/${o.id}`, { body: { name: "Una Renamed", email: "una@example.com" } }), 200);
    await listWhen(f.gate, (ts) => ts.some((t) => t.name === "Una Renamed"));
    expect(Number((await getJson(f.gate)).sync_token)).toBe(token + 1);
  });

  it("what the object already holds, sent again, is no change: an object rebuilt from D1 keeps its list's version", async () => {
    const f = await setup();
    const kept = await order(f, 4, "Kim Kept");
    const other = await order(f, 2, "Ola Other");
    await listWhen(f.gate, knows([...kept.ids, ...other.ids]));
    const res = await get(f.gate);
    const etag = res.headers.get("ETag")!;
    const token = ((await res.json()) as Json).sync_token as string;

    await rebuildEventObject(depsFromEnv(env), f.event.id);
    // The same tickets again, and their order's tickets sent again as a re-drive would: nothing changed.
    await eventObject(env, f.event.id).replaceTickets(
      (await eventObject(env, f.event.id).snapshot()).tickets.find((t) => t.id === kept.ids[0])!.uid,
      (await eventObject(env, f.event.id).snapshot()).tickets.filter((t) => kept.ids.includes(t.id)).map(({ id, typeId, typeName }) => ({ id, typeId, typeName })),
      { orderId: kept.id, name: "Kim Kept", email: "kim@example.com" },
    );
    expect((await get(f.gate, "", { "If-None-Match": etag })).status).toBe(304);
    expect(await getJson(f.gate, `?since=${token}`)).toMatchObject({ tickets: [], revoked: [], sync_token: token });

    // A real difference still shows: the other order's tickets gone from D1, then the object rebuilt.
    await expectJson(call("DELETE", `/admin/tickets/${other.id}`), 200);
    await listWhen(f.gate, lacks(other.ids));
    await rebuildEventObject(depsFromEnv(env), f.event.id);
    const delta = await getJson(f.gate, `?since=${token}`);
    expect(delta.tickets).toEqual([]);
    expect(delta.revoked.map((r: Json) => r.ticket_id).sort()).toEqual([...other.ids].sort());
  });
});

describe("ETag and If-None-Match", () => {
  const ETAG = /^W\/"\d+-\d+-[0-9a-f]{8}"$/;

  it("an unchanged list answers 304 without a body; any change of the list gives a new ETag", async () => {
    const f = await setup();
    const o = await order(f, 3);
    await listWhen(f.gate, knows(o.ids));

    const res = await get(f.gate);
    expect(res.status).toBe(200);
    const etag = res.headers.get("ETag")!;
    expect(etag).toMatch(ETAG);
    // Nothing stops the edge from compressing the JSON for clients that accept it (docs/scanning.md).
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(res.headers.get("Content-Encoding")).toBeNull();
    expect(res.headers.get("Cache-Control") ?? "").not.toMatch(/no-transform/);
    const token = ((await res.json()) as Json).sync_token;

    const again = await get(f.gate, "", { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("ETag")).toBe(etag);
    // Weak comparison: with or without W/, and among other tags.
    expect((await get(f.gate, "", { "If-None-Match": etag.slice(2) })).status).toBe(304);
    expect((await get(f.gate, "", { "If-None-Match": `"other", ${etag}` })).status).toBe(304);
    expect((await get(f.gate, "", { "If-None-Match": '"other"' })).status).toBe(200);

    // Each query has its own tag: a page, a delta.
    const paged = await get(f.gate, "?per_page=2");
    const pagedTag = paged.headers.get("ETag")!;
    expect(pagedTag).toMatch(ETAG);
    expect(pagedTag).not.toBe(etag);
    expect((await get(f.gate, "?per_page=2", { "If-None-Match": etag })).status).toBe(200);
    expect((await get(f.gate, "?per_page=2", { "If-None-Match": pagedTag })).status).toBe(304);
    const deltaTag = (await get(f.gate, `?since=${token}`)).headers.get("ETag")!;
    expect((await get(f.gate, `?since=${token}`, { "If-None-Match": deltaTag })).status).toBe(304);

    // Scans are no change of the list.
    await expectJson(call("POST", "/scans", { key: f.gate, auth: null, body: { id: o.ids[0] } }), 200);
    expect((await get(f.gate, "", { "If-None-Match": etag })).status).toBe(304);

    // A change of the list: the old tag no longer matches, for the whole list and for the delta.
    const more = await order(f, 1, "Late Buyer");
    await listWhen(f.gate, knows(more.ids));
    const changed = await get(f.gate, "", { "If-None-Match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("ETag")).not.toBe(etag);
    expect(((await changed.json()) as Json).tickets.map((t: Listed) => t.ticket_id)).toContain(more.ids[0]);
    const delta = await get(f.gate, `?since=${token}`, { "If-None-Match": deltaTag });
    expect(delta.status).toBe(200);
    expect(((await delta.json()) as Json).tickets.map((t: Listed) => t.ticket_id)).toEqual(more.ids);
  });

  it("the object answers a matching version from its change counter, without reading the list", async () => {
    const f = await setup();
    await seed(f.event.id, 50, (i) => ({ name: `Seeded ${i}`, type: "Regular" }));
    const first = await getJson(f.gate);
    const head = Number(first.sync_token);
    const statements = await runInDurableObject(eventObject(env, f.event.id), (instance: EventObject) => {
      const target = instance as unknown as { sql: SqlStorage };
      const real = target.sql;
      const seen: string[] = [];
      const exec = (query: string, ...args: unknown[]) => {
        seen.push(query);
        return real.exec(query, ...(args as []));
      };
      target.sql = { exec } as unknown as SqlStorage;
      try {
        const answer = instance.offlineList(f.gate, 0, { whole: true }, [head]);
        expect(answer).toMatchObject({ ok: true, list: { kind: "not_modified" } });
      } finally {
        target.sql = real;
      }
      return seen;
    });
    expect(statements.length).toBeGreaterThan(0);
    for (const s of statements) expect(s, "no statement reads the tickets").not.toMatch(/\btickets\b|\blist_changes\b/);
  });
});

describe("parameters", () => {
  it("per_page is 1 to 1,000; anything else is 400 rest_invalid_param naming per_page", async () => {
    const f = await setup();
    for (const bad of ["0", "1001", "-1", "abc", "1.5", "", "10000000000000000000"]) {
      const err = await expectError(get(f.gate, `?per_page=${encodeURIComponent(bad)}`), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params ?? {}), bad).toEqual(["per_page"]);
    }
    await getJson(f.gate, "?per_page=1");
    await getJson(f.gate, "?per_page=1000");
  });

  it("a cursor this list did not make, or one that does not fit the query, is 400 rest_invalid_param naming cursor", async () => {
    const f = await setup();
    const o = await order(f, 4);
    await listWhen(f.gate, knows(o.ids));
    const first = await getJson(f.gate, "?per_page=1");
    const next = new URL(first._links.next[0].href).searchParams.get("cursor")!;
    const token = Number(first.sync_token);
    const delta = encodeCursor({ kind: "delta", snapshot: token, since: 0, after: 0 });
    for (const query of [
      "?cursor=garbage!",
      "?cursor=",
      `?cursor=${btoa("[1]")}`,
      `?cursor=${"A".repeat(600)}`,
      // From the future of this list (a snapshot past its change counter).
      `?cursor=${encodeCursor({ kind: "full", snapshot: token + 1_000_000, after: "" })}`,
      // A walk of changes without its since, with another since; a walk of the whole list with a since.
      `?cursor=${delta}`,
      `?cursor=${delta}&since=1`,
      `?cursor=${next}&since=0`,
    ]) {
      const err = await expectError(get(f.gate, query), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params ?? {}), query).toEqual(["cursor"]);
    }
    // The cursor as given, with its own since, is fine.
    await getJson(f.gate, `?cursor=${delta}&since=0`);
    await getJson(f.gate, `?cursor=${next}`);
  });

  it("a since that is not a sync token of this list is 400 rest_invalid_param naming since", async () => {
    const f = await setup();
    const head = Number((await getJson(f.gate)).sync_token);
    for (const bad of ["abc", "2024-01-01 10:00:00", "-1", "1.5", "", String(head + 1_000_000)]) {
      const err = await expectError(get(f.gate, `?since=${encodeURIComponent(bad)}`), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params ?? {}), bad).toEqual(["since"]);
      expect(err.data.params!.since).toMatch(/sync_token/);
    }
    await getJson(f.gate, `?since=${head}`);
  });
});

describe("who sees the list", () => {
  it("a scan key of another event sees nothing of this event, whatever cursor, token or ETag it sends", async () => {
    const a = await setup();
    const b = await setup();
    const ours = await order(a, 6, "Alice Event");
    const theirs = await order(b, 2, "Bea Other");
    await listWhen(a.gate, knows(ours.ids));
    await listWhen(b.gate, knows(theirs.ids));
    const aFirst = await get(a.gate, "?per_page=2");
    const aTag = aFirst.headers.get("ETag")!;
    const aBody = (await aFirst.json()) as Json;
    const aCursor = new URL(aBody._links.next[0].href).searchParams.get("cursor")!;

    const answers: Response[] = [
      await get(b.gate),
      await get(b.gate, "?per_page=2", { "If-None-Match": aTag }),
      await get(b.gate, `?cursor=${aCursor}`),
      await get(b.gate, `?since=${aBody.sync_token}`),
      await get(b.gate, "?since=0"),
    ];
    for (const res of answers) {
      expect([200, 400]).toContain(res.status);
      const text = await res.text();
      for (const id of ours.ids) expect(text).not.toContain(id);
      if (res.status === 200) expect(JSON.parse(text).event_id).toBe(b.event.id);
    }
    // Another event's ETag never matches here.
    expect(answers[1]!.status).toBe(200);
  });

  it("needs a scan key: none, an unknown one, or the service API key (with or without a login) is 401", async () => {
    const f = await setup();
    for (const [key, auth] of [
      [null, null],
      ["NoSuchScanKey000", null],
      [API_KEY, null],
      [API_KEY, undefined],
    ] as const) {
      for (const query of ["", "?per_page=10", "?since=0"]) {
        await expectError(call("GET", `/scans/tickets${query}`, { key, auth }), 401, "rest_forbidden_api_key");
      }
    }
    // A deleted key: refused (and no 304 for it either).
    const doomed = (await createScanKey(f.event.id, { level: 0, location: "Doomed" })).key as string;
    const tag = (await get(doomed)).headers.get("ETag")!;
    await expectJson(call("DELETE", `/admin/events/${f.event.id}/scan-keys/${doomed}`), 200);
    await expectError(get(doomed, "", { "If-None-Match": tag }), 401, "rest_forbidden_api_key");
  });
});

describe("answer sizes", () => {
  it("a page of 1,000 tickets stays well under 1 MB", async () => {
    const f = await setup();
    const ids = await seed(f.event.id, 1200, (i) => ({ name: `Firstname Lastname-${i}`, type: "Regular, row 12 seat 34" }));
    const pages = await walk(f.gate, "?per_page=1000");
    expect(pages.map((p) => p.body.tickets.length)).toEqual([1000, 200]);
    expect(pages[0]!.bytes).toBeLessThan(200_000);
    expect(pages.flatMap((p) => p.body.tickets.map((t: Listed) => t.ticket_id))).toEqual([...ids].sort());
  });

  it("a page of the longest names and type texts ends early rather than reach 1 MB; the walk still brings every ticket once", async () => {
    const f = await setup();
    // A 50-character name of four-byte characters and escapes, and a 100-character type name of control characters
    // (six bytes each in JSON; type names may hold them) plus a long seat text: about 900 bytes a ticket.
    const name = "😀".repeat(25) + '"\\'.repeat(12) + "xx";
    const type = "\u0001".repeat(100) + ", row ".padEnd(120, "R");
    const ids = await seed(f.event.id, 1000, () => ({ name, type }));
    const pages = await walk(f.gate, "?per_page=1000");
    expect(pages.length).toBeGreaterThan(1);
    for (const p of pages) expect(p.bytes).toBeLessThan(1_000_000);
    expect(pages[0]!.bytes).toBeGreaterThan(LIST_PAGE_BYTES * 0.9);
    expect(pages.flatMap((p) => p.body.tickets.map((t: Listed) => t.ticket_id))).toEqual([...ids].sort());
  });
});

describe("without paging parameters (backwards compatible)", () => {
  it("answers the whole list in one answer up to 5,000 tickets, with the sync token and an ETag", async () => {
    const f = await setup();
    const ids = await seed(f.event.id, 5000, (i) => ({ name: `Guest ${i}`, type: "Regular" }));
    const res = await get(f.gate);
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).toMatch(/^W\//);
    expect(res.headers.get("Link")).toBeNull();
    const text = await res.text();
    expect(new TextEncoder().encode(text).length).toBeLessThan(1_000_000);
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(["event_id", "tickets", "sync_token", "_links"]);
    expect(body.tickets.map((t: Listed) => t.ticket_id)).toEqual([...ids].sort());
    expect(body._links).toEqual({ self: [{ href: `${BASE}/scans/tickets` }] });
  });

  it("a list too large for one answer is 400 scan_list_too_large, which says to page", async () => {
    const f = await setup();
    await seed(f.event.id, 5001, (i) => ({ name: `Guest ${i}`, type: "Regular" }));
    const err = await expectError(get(f.gate), 400, "scan_list_too_large");
    expect(err.message).toMatch(/per_page/);
    // Paged, the same list is there.
    const pages = await walk(f.gate, "?per_page=1000");
    expect(pages.flatMap((p) => p.body.tickets)).toHaveLength(5001);
  });
});

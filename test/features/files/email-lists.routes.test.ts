import { env, exports } from "cloudflare:workers";
import { asc, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { emailListEntries } from "../../../src/db/schema";
import { ADMIN, API_KEY, BASE, basic, call, createUser, expectError, expectJson, type Credentials } from "../../helpers/api";
import { createEvent, db } from "../../helpers/catalogue";

/** POST /admin/emaillists/<eventId> as multipart; `csv` null sends a form without a `file` part. */
function upload(
  eventId: number | string,
  csv: string | null,
  options: { auth?: Credentials; key?: string | null; extra?: Record<string, string>; fileAsText?: boolean } = {},
): Promise<Response> {
  const form = new FormData();
  if (csv !== null) {
    if (options.fileAsText) form.append("file", csv);
    else form.append("file", new File([csv], "list.csv", { type: "text/csv" }));
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) form.append(name, value);
  const headers = new Headers({ Authorization: basic(options.auth ?? ADMIN) });
  const key = options.key === undefined ? API_KEY : options.key;
  if (key !== null) headers.set("X-EVT-API-KEY", key);
  return exports.default.fetch(new Request(`${BASE}/admin/emaillists/${eventId}`, { method: "POST", headers, body: form }));
}

/** The event's entries in D1, oldest first. */
function entriesOf(eventId: number) {
  return db.select().from(emailListEntries).where(eq(emailListEntries.eventId, eventId)).orderBy(asc(emailListEntries.id));
}

async function entryCount(eventId: number): Promise<number> {
  const row = await db.select({ n: count() }).from(emailListEntries).where(eq(emailListEntries.eventId, eventId)).get();
  return row?.n ?? 0;
}

/** Keys of the R2 objects kept for the event's uploads. */
async function storedUploads(eventId: number): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.FILES.list({ prefix: `emaillists/${eventId}/`, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys.sort();
}

const listLinks = (eventId: number) => ({
  self: [{ href: `${BASE}/admin/emaillists/${eventId}` }],
  collection: [{ href: `${BASE}/admin/emaillists` }],
});

/** An event with a list of `csv` (uploaded as the administrator). */
async function eventWithList(csv: string) {
  const event = await createEvent();
  await expectJson(upload(event.id, csv), 201);
  return event;
}

describe("POST /admin/emaillists/<event_id>", () => {
  it("creates a list: 201 with Location, {event_id, total, _links}, rows in D1", async () => {
    const event = await createEvent();
    const res = await upload(event.id, "name,email,cap\nAnn Smith,Ann@Example.com,2\nBob,bob@example.com,\nCarl,carl@example.com,0\n");
    const body = await expectJson(res, 201);
    expect(res.headers.get("Location")).toBe(`${BASE}/admin/emaillists/${event.id}`);
    expect(body).toEqual({ event_id: event.id, total: 3, _links: listLinks(event.id) });

    const rows = await entriesOf(event.id);
    expect(rows.map(({ emailKey, email, name, maxTickets }) => ({ emailKey, email, name, maxTickets }))).toEqual([
      { emailKey: "ann@example.com", email: "Ann@Example.com", name: "Ann Smith", maxTickets: 2 },
      { emailKey: "bob@example.com", email: "bob@example.com", name: "Bob", maxTickets: 0 },
      { emailKey: "carl@example.com", email: "carl@example.com", name: "Carl", maxTickets: 0 },
    ]);
    expect(await expectJson(call("GET", `/admin/emaillists/${event.id}`), 200)).toEqual(body);
  });

  it("merges a second upload: 200, repeated addresses keep their id and take the new name and cap, others stay", async () => {
    const event = await createEvent();
    await expectJson(upload(event.id, "Ann,ann@example.com,1\nBob,bob@example.com,2\nDan,dan@example.com,4\n"), 201);
    const before = await entriesOf(event.id);
    const idOf = (rows: typeof before, key: string) => rows.find((r) => r.emailKey === key)?.id;

    const res = await upload(event.id, "Annie,ANN@Example.COM,5\nCarl,carl@example.com,3\nDaniel,Dan@example.com,\n");
    const body = await expectJson(res, 200);
    expect(body).toEqual({ event_id: event.id, total: 4, _links: listLinks(event.id) });
    expect(res.headers.get("Location")).toBeNull();

    const after = await entriesOf(event.id);
    expect(after).toHaveLength(4);
    const ann = after.find((r) => r.emailKey === "ann@example.com")!;
    expect(ann.id).toBe(idOf(before, "ann@example.com"));
    expect(ann).toMatchObject({ name: "Annie", maxTickets: 5 });
    const dan = after.find((r) => r.emailKey === "dan@example.com")!;
    expect(dan.id).toBe(idOf(before, "dan@example.com"));
    expect(dan).toMatchObject({ name: "Daniel", maxTickets: 0 });
    // Absent from the second file: unchanged.
    expect(after.find((r) => r.emailKey === "bob@example.com")).toEqual(before.find((r) => r.emailKey === "bob@example.com"));
    // New address: a new entry.
    const carl = after.find((r) => r.emailKey === "carl@example.com")!;
    expect(carl).toMatchObject({ name: "Carl", email: "carl@example.com", maxTickets: 3 });
    expect(before.some((r) => r.id === carl.id)).toBe(false);

    expect(await expectJson(call("GET", `/admin/emaillists/${event.id}`), 200)).toMatchObject({ total: 4 });
    // A third upload of only known addresses changes no count and still answers 200.
    await expectJson(upload(event.id, "Bob,BOB@example.com,7\n"), 200).then((b) => expect(b.total).toBe(4));
    expect((await entriesOf(event.id)).map((r) => r.id)).toEqual(after.map((r) => r.id));
  });

  it("keeps every accepted upload in R2 under emaillists/<event_id>/", async () => {
    const event = await createEvent();
    const other = await createEvent();
    const first = "\uFEFFname;email\r\nAnn;ann@example.com\r\n";
    const second = "Bob,bob@example.com,1\n";
    await expectJson(upload(event.id, first), 201);
    await expectJson(upload(event.id, second), 200);
    const keys = await storedUploads(event.id);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(new RegExp(`^emaillists/${event.id}/[^/]+$`));
    const contents = await Promise.all(keys.map(async (key) => (await env.FILES.get(key))!.text()));
    expect(contents.sort()).toEqual([first.replace(/^\uFEFF/, ""), second].sort());
    expect(await storedUploads(other.id)).toEqual([]);
  });

  it("answers 201 to only one of two first uploads sent at once; the other merged (200)", async () => {
    const event = await createEvent();
    const results = await Promise.all([upload(event.id, "Ann,ann@example.com\n"), upload(event.id, "Bob,bob@example.com\n")]);
    const bodies = await Promise.all(results.map((r) => r.json() as Promise<any>));
    expect(results.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(results.filter((r) => r.headers.has("Location"))).toHaveLength(1);
    expect(bodies.map((b) => b.total)).toContain(2);
    expect(await entryCount(event.id)).toBe(2);
    expect(await storedUploads(event.id)).toHaveLength(2);
  });

  it("accepts a 100,000-row CSV", { timeout: 60_000 }, async () => {
    const event = await createEvent();
    const rows = Array.from({ length: 100_000 }, (_, i) => `Person ${i},Person.${i}@Example.com,${i % 7}`);
    const csv = `name,email,cap\r\n${rows.join("\r\n")}\r\n`;
    const started = Date.now();
    const body = await expectJson(upload(event.id, csv), 201);
    const elapsed = Date.now() - started;
    console.info(`100,000-row email list upload: ${elapsed} ms (${(csv.length / 1e6).toFixed(1)} MB)`);
    expect(body).toEqual({ event_id: event.id, total: 100_000, _links: listLinks(event.id) });
    expect(elapsed).toBeLessThan(60_000);

    expect(await entryCount(event.id)).toBe(100_000);
    for (const i of [0, 4_999, 5_000, 54_321, 99_999]) {
      const row = await db
        .select()
        .from(emailListEntries)
        .where(eq(emailListEntries.emailKey, `person.${i}@example.com`))
        .all();
      expect(row.filter((r) => r.eventId === event.id)).toEqual([expect.objectContaining({ name: `Person ${i}`, email: `Person.${i}@Example.com`, maxTickets: i % 7 })]);
    }
    expect(await expectJson(call("GET", `/admin/emaillists/${event.id}`), 200)).toMatchObject({ total: 100_000 });
    const [key] = await storedUploads(event.id);
    expect((await env.FILES.head(key!))?.size).toBe(new TextEncoder().encode(csv).length);
  });

  describe("refuses a malformed file with 400 naming file and the line, changing nothing", () => {
    const existing = "Keep,keep@example.com,1\nOther,other@example.com,2\n";
    it.each([
      ["a bad email", "Changed,keep@example.com,9\nBob,not-an-email,1\n", /^line 2: .*not a valid email address/],
      ["too many columns", "Changed,keep@example.com,9\nBob,bob@example.com,1\nCarl,carl@example.com,1,extra\n", /^line 3: .*4 column/],
      ["a bad cap", "name,email,cap\nChanged,keep@example.com,9\nBob,bob@example.com,two\n", /^line 3: .*whole number/],
      ["a negative cap", "Changed,keep@example.com,9\nBob,bob@example.com,-1\n", /^line 2: .*whole number/],
      ["a duplicate address", "Changed,keep@example.com,9\nBob,bob@example.com\nRobert,BOB@EXAMPLE.COM\n", /^line 3: .*already on line 2/],
      ["an unclosed quote", 'Changed,keep@example.com,9\n"Bob,bob@example.com,1\n', /^line 2: .*not closed/],
      ["a name over 100 characters", `Changed,keep@example.com,9\n${"n".repeat(101)},bob@example.com\n`, /^line 2: .*100 characters/],
    ])("%s", async (_label, csv, message) => {
      const event = await eventWithList(existing);
      const rowsBefore = await entriesOf(event.id);
      const keysBefore = await storedUploads(event.id);

      const err = await expectError(upload(event.id, csv), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!)).toEqual(["file"]);
      expect(err.data.params!.file).toMatch(message);

      expect(await entriesOf(event.id)).toEqual(rowsBefore);
      expect(await storedUploads(event.id)).toEqual(keysBefore);
      expect(await expectJson(call("GET", `/admin/emaillists/${event.id}`), 200)).toMatchObject({ total: 2 });
    });

    it.each([
      ["an empty file", ""],
      ["a header-only file", "name,email,cap\r\n"],
    ])("%s", async (_label, csv) => {
      const event = await eventWithList(existing);
      const rowsBefore = await entriesOf(event.id);
      const keysBefore = await storedUploads(event.id);

      const err = await expectError(upload(event.id, csv), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!)).toEqual(["file"]);
      expect(err.data.params!.file).toMatch(/no addresses/);

      expect(await entriesOf(event.id)).toEqual(rowsBefore);
      expect(await storedUploads(event.id)).toEqual(keysBefore);
    });

    it("on an event without a list, which stays without one", async () => {
      const event = await createEvent();
      const err = await expectError(upload(event.id, "Ann,ann@example.com\nBob,bob@\n"), 400, "rest_invalid_param");
      expect(err.data.params!.file).toMatch(/^line 2: /);
      expect(await entryCount(event.id)).toBe(0);
      expect(await storedUploads(event.id)).toEqual([]);
      await expectError(call("GET", `/admin/emaillists/${event.id}`), 404, "rest_emaillist_invalid_id");
    });
  });

  it("refuses a JSON body with 415", async () => {
    const event = await createEvent();
    await expectError(call("POST", `/admin/emaillists/${event.id}`, { body: { file: "Ann,ann@example.com\n" } }), 415, "rest_unsupported_media_type");
    await expectError(
      call("POST", `/admin/emaillists/${event.id}`, {
        body: "Ann,ann@example.com\n",
        headers: { "Content-Type": "text/csv" },
      }),
      415,
      "rest_unsupported_media_type",
    );
    expect(await entryCount(event.id)).toBe(0);
  });

  it("refuses a form without a file part as a missing parameter", async () => {
    const event = await createEvent();
    const err = await expectError(upload(event.id, null), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params!)).toEqual(["file"]);
    expect(await entryCount(event.id)).toBe(0);
  });

  it("refuses a file part sent as plain text, and unknown parts", async () => {
    const event = await createEvent();
    const asText = await expectError(upload(event.id, "Ann,ann@example.com\n", { fileAsText: true }), 400, "rest_invalid_param");
    expect(Object.keys(asText.data.params!)).toEqual(["file"]);
    const extra = await expectError(upload(event.id, "Ann,ann@example.com\n", { extra: { title: "x" } }), 400, "rest_invalid_param");
    expect(Object.keys(extra.data.params!)).toEqual(["title"]);
    expect(await entryCount(event.id)).toBe(0);
    expect(await storedUploads(event.id)).toEqual([]);
  });

  it("refuses an upload over 10 MiB with 413", async () => {
    const event = await createEvent();
    const line = `${"N".repeat(60)},someone@example.com\n`;
    const csv = line.repeat(Math.ceil((10 * 1024 * 1024 + 1) / line.length));
    await expectError(upload(event.id, csv), 413, "rest_payload_too_large");
    expect(await entryCount(event.id)).toBe(0);
  });

  it("answers 404 rest_event_invalid_id for an unknown or malformed event id", async () => {
    await expectError(upload(987654321, "Ann,ann@example.com\n"), 404, "rest_event_invalid_id");
    await expectError(upload("abc", "Ann,ann@example.com\n"), 404, "rest_event_invalid_id");
    expect(await entryCount(987654321)).toBe(0);
  });
});

describe("GET /admin/emaillists/<event_id>", () => {
  it("answers the list, keeping only the fields named in _fields", async () => {
    const event = await eventWithList("Ann,ann@example.com\nBob,bob@example.com\n");
    expect(await expectJson(call("GET", `/admin/emaillists/${event.id}`), 200)).toEqual({
      event_id: event.id,
      total: 2,
      _links: listLinks(event.id),
    });
    expect(await expectJson(call("GET", `/admin/emaillists/${event.id}?_fields=total`), 200)).toEqual({ total: 2 });
  });

  it("answers 404 rest_emaillist_invalid_id for an event without a list", async () => {
    const event = await createEvent();
    await expectError(call("GET", `/admin/emaillists/${event.id}`), 404, "rest_emaillist_invalid_id");
  });

  it("answers 404 rest_event_invalid_id for an unknown or malformed event id", async () => {
    await expectError(call("GET", "/admin/emaillists/987654321"), 404, "rest_event_invalid_id");
    await expectError(call("GET", "/admin/emaillists/0"), 404, "rest_event_invalid_id");
    await expectError(call("GET", "/admin/emaillists/abc"), 404, "rest_event_invalid_id");
  });
});

describe("DELETE /admin/emaillists/<event_id>", () => {
  it("removes the entries and the stored uploads and answers exactly {deleted: true}", async () => {
    const event = await eventWithList("Ann,ann@example.com\nBob,bob@example.com\n");
    await expectJson(upload(event.id, "Carl,carl@example.com\n"), 200);
    const untouched = await eventWithList("Zed,zed@example.com\n");
    expect(await storedUploads(event.id)).toHaveLength(2);

    const res = await call("DELETE", `/admin/emaillists/${event.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: true });

    expect(await entryCount(event.id)).toBe(0);
    expect(await storedUploads(event.id)).toEqual([]);
    await expectError(call("GET", `/admin/emaillists/${event.id}`), 404, "rest_emaillist_invalid_id");
    await expectError(call("DELETE", `/admin/emaillists/${event.id}`), 404, "rest_emaillist_invalid_id");

    // Another event's list and uploads are left alone; the event itself still exists.
    expect(await entryCount(untouched.id)).toBe(1);
    expect(await storedUploads(untouched.id)).toHaveLength(1);
    await expectJson(call("GET", `/admin/events/${event.id}`), 200);

    // A new upload after the delete starts a new list.
    expect(await expectJson(upload(event.id, "Ann,ann@example.com\n"), 201)).toMatchObject({ total: 1 });
  });

  it("goes with its event: deleting the event removes the entries and the stored uploads", async () => {
    const event = await eventWithList("Ann,ann@example.com\nBob,bob@example.com\n");
    expect(await storedUploads(event.id)).toHaveLength(1);
    await expectJson(call("DELETE", `/admin/events/${event.id}`), 200);
    await expectError(call("GET", `/admin/emaillists/${event.id}`), 404, "rest_event_invalid_id");
    expect(await entryCount(event.id)).toBe(0);
    expect(await storedUploads(event.id)).toEqual([]);
  });

  it("answers 404 for an event without a list and for an unknown event", async () => {
    const event = await createEvent();
    await expectError(call("DELETE", `/admin/emaillists/${event.id}`), 404, "rest_emaillist_invalid_id");
    await expectError(call("DELETE", "/admin/emaillists/987654321"), 404, "rest_event_invalid_id");
  });
});

describe("GET /admin/emaillists", () => {
  it("answers the lists of every event to an administrator, with unpaged headers", async () => {
    const a = await eventWithList("Ann,ann@example.com\nBob,bob@example.com\n");
    const b = await eventWithList("Carl,carl@example.com\n");
    const withoutList = await createEvent();

    const res = await call("GET", "/admin/emaillists");
    const lists = await expectJson<any[]>(res, 200);
    expect(lists).toContainEqual({ event_id: a.id, total: 2, _links: listLinks(a.id) });
    expect(lists).toContainEqual({ event_id: b.id, total: 1, _links: listLinks(b.id) });
    expect(lists.some((l) => l.event_id === withoutList.id)).toBe(false);
    expect(res.headers.get("X-WP-Total")).toBe(String(lists.length));
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
    const ids = lists.map((l) => l.event_id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));

    const trimmed = await expectJson<any[]>(call("GET", "/admin/emaillists?_fields=event_id"), 200);
    expect(trimmed).toContainEqual({ event_id: a.id });
    for (const l of trimmed) expect(Object.keys(l)).toEqual(["event_id"]);
  });
});

describe("email lists and roles", () => {
  it("lets an organizer upload, read, list and delete the list of an authorised event", async () => {
    const event = await createEvent();
    const organizer = await createUser("organizer", { authorised_events: [event.id] });
    const auth = organizer.credentials;

    const res = await upload(event.id, "Ann,ann@example.com,1\n", { auth });
    expect(await expectJson(res, 201)).toEqual({ event_id: event.id, total: 1, _links: listLinks(event.id) });
    expect(res.headers.get("Location")).toBe(`${BASE}/admin/emaillists/${event.id}`);
    expect(await expectJson(upload(event.id, "Bob,bob@example.com\n", { auth }), 200)).toMatchObject({ total: 2 });
    expect(await expectJson(call("GET", `/admin/emaillists/${event.id}`, { auth }), 200)).toMatchObject({ total: 2 });

    const deleted = await call("DELETE", `/admin/emaillists/${event.id}`, { auth });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: true });
    expect(await entryCount(event.id)).toBe(0);
    expect(await storedUploads(event.id)).toEqual([]);
  });

  it("refuses an organizer another event's list with 403, changing nothing", async () => {
    const own = await createEvent();
    const foreign = await eventWithList("Ann,ann@example.com,1\n");
    const organizer = await createUser("organizer", { authorised_events: [own.id] });
    const auth = organizer.credentials;
    const rowsBefore = await entriesOf(foreign.id);
    const keysBefore = await storedUploads(foreign.id);

    await expectError(upload(foreign.id, "Changed,ann@example.com,9\nBob,bob@example.com\n", { auth }), 403, "rest_forbidden");
    await expectError(call("GET", `/admin/emaillists/${foreign.id}`, { auth }), 403, "rest_forbidden");
    await expectError(call("DELETE", `/admin/emaillists/${foreign.id}`, { auth }), 403, "rest_forbidden");

    expect(await entriesOf(foreign.id)).toEqual(rowsBefore);
    expect(await storedUploads(foreign.id)).toEqual(keysBefore);

    // An event without a list is refused the same way (the 403 does not reveal whether a list exists).
    const foreignEmpty = await createEvent();
    await expectError(upload(foreignEmpty.id, "Bob,bob@example.com\n", { auth }), 403, "rest_forbidden");
    await expectError(call("GET", `/admin/emaillists/${foreignEmpty.id}`, { auth }), 403, "rest_forbidden");
    expect(await entryCount(foreignEmpty.id)).toBe(0);
    expect(await storedUploads(foreignEmpty.id)).toEqual([]);
  });

  it("shows an organizer only the lists of its authorised events", async () => {
    const mine = await eventWithList("Ann,ann@example.com\nBob,bob@example.com\n");
    const mineToo = await eventWithList("Carl,carl@example.com\n");
    const mineWithoutList = await createEvent();
    const foreign = await eventWithList("Dan,dan@example.com\n");
    const organizer = await createUser("organizer", { authorised_events: [mine.id, mineToo.id, mineWithoutList.id] });

    const res = await call("GET", "/admin/emaillists", { auth: organizer.credentials });
    const lists = await expectJson<any[]>(res, 200);
    expect(lists).toEqual([
      { event_id: mine.id, total: 2, _links: listLinks(mine.id) },
      { event_id: mineToo.id, total: 1, _links: listLinks(mineToo.id) },
    ]);
    expect(res.headers.get("X-WP-Total")).toBe("2");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");

    const admin = await expectJson<any[]>(call("GET", "/admin/emaillists"), 200);
    expect(admin.map((l) => l.event_id)).toContain(foreign.id);

    const nobody = await createUser("organizer");
    const empty = await call("GET", "/admin/emaillists", { auth: nobody.credentials });
    expect(await expectJson(empty, 200)).toEqual([]);
    expect(empty.headers.get("X-WP-Total")).toBe("0");
    expect(empty.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("answers 404 rest_event_invalid_id to an organizer for an unknown event", async () => {
    const organizer = await createUser("organizer");
    const auth = organizer.credentials;
    await expectError(upload(987654321, "Ann,ann@example.com\n", { auth }), 404, "rest_event_invalid_id");
    await expectError(call("GET", "/admin/emaillists/987654321", { auth }), 404, "rest_event_invalid_id");
    await expectError(call("DELETE", "/admin/emaillists/987654321", { auth }), 404, "rest_event_invalid_id");
  });

  it("needs the API key and Basic credentials", async () => {
    const event = await eventWithList("Ann,ann@example.com\n");
    await expectError(call("GET", "/admin/emaillists", { key: null }), 401, "rest_forbidden_api_key");
    await expectError(call("GET", `/admin/emaillists/${event.id}`, { key: "wrong-key" }), 401, "rest_forbidden_api_key");
    await expectError(call("DELETE", `/admin/emaillists/${event.id}`, { key: null }), 401, "rest_forbidden_api_key");
    await expectError(upload(event.id, "Bob,bob@example.com\n", { key: null }), 401, "rest_forbidden_api_key");
    const noLogin = await call("GET", "/admin/emaillists", { auth: null });
    expect(noLogin.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
    await expectError(noLogin, 401, "rest_not_logged_in");
    await expectError(upload(event.id, "Bob,bob@example.com\n", { auth: { username: ADMIN.username, password: "wrong" } }), 401, "incorrect_password");
    expect(await entryCount(event.id)).toBe(1);
    expect(await storedUploads(event.id)).toHaveLength(1);
  });
});

import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events as eventsTable, orders as ordersTable, tickets as ticketsTable, ticketTypes as ticketTypesTable } from "../../../src/db/schema";
import { BASE, call, createUser, expectError, expectJson, unique, type Credentials } from "../../helpers/api";
import { createEvent, createInputField, createScanKey, createTicketType, db, insertOrder, insertTemplate } from "../../helpers/catalogue";

// ---------------------------------------------------------------------------------------------------------------
// Helpers local to this file
// ---------------------------------------------------------------------------------------------------------------

const FLAGS = [
  "emails_needed",
  "tickets_needed",
  "invoice_needed",
  "unique_users_needed",
  "user_groups_needed",
  "recaptcha_needed",
  "confirmation_emails_needed",
  "add_dashboard_orders_needed",
  "test_payments_needed",
  "seats_needed",
  "webhooks_needed",
  "reload_on_exit_needed",
  "coupons_needed",
  "waiting_list_needed",
] as const;

/** A unique event name that no other name in this file contains (search is a substring match). */
const uname = (prefix: string) => `${unique(prefix)}~`;

const allFlags = (value: boolean) => Object.fromEntries(FLAGS.map((f) => [f, value]));

const eventLinks = (id: number) => ({
  self: [{ href: `${BASE}/admin/events/${id}` }],
  collection: [{ href: `${BASE}/admin/events` }],
  ticket_types: [{ embeddable: true, href: `${BASE}/admin/events/${id}/ticket-types` }],
  input_fields: [{ embeddable: true, href: `${BASE}/admin/events/${id}/input-fields` }],
  scan_keys: [{ embeddable: true, href: `${BASE}/admin/events/${id}/scan-keys` }],
  sales_totals: [{ embeddable: true, href: `${BASE}/admin/events/${id}/sales` }],
  scan_totals: [{ embeddable: true, href: `${BASE}/admin/events/${id}/scans` }],
});

/** The `Link` header as rel -> URL. */
function linkHeader(res: Response): Record<string, URL> {
  const out: Record<string, URL> = {};
  for (const m of (res.headers.get("Link") ?? "").matchAll(/<([^>]+)>;\s*rel="([a-z]+)"/g)) out[m[2]!] = new URL(m[1]!);
  return out;
}

function post(body: unknown, auth?: Credentials) {
  return call("POST", "/admin/events", { body, auth });
}

function put(id: number, body: unknown, auth?: Credentials) {
  return call("PUT", `/admin/events/${id}`, { body, auth });
}

/** Asserts a 400 `rest_invalid_param` (or the given code) whose `data.params` names exactly `fields`. */
async function expectInvalid(res: Promise<Response>, fields: string[], code = "rest_invalid_param") {
  const err = await expectError(res, 400, code);
  expect(Object.keys(err.data.params ?? {}).sort()).toEqual([...fields].sort());
  return err;
}

async function list(path: string, auth?: Credentials) {
  const res = await call("GET", path, { auth });
  const body = await expectJson<any[]>(res, 200);
  return { res, body, ids: body.map((e) => e.id as number), total: res.headers.get("X-WP-Total"), pages: res.headers.get("X-WP-TotalPages") };
}

async function userOf(id: number) {
  return expectJson(call("GET", `/admin/users/${id}`), 200);
}

/** Stored UTC epoch seconds of an event's dates, to check in which zone the wire values were read. */
async function storedDates(id: number) {
  const row = await db.select().from(eventsTable).where(eq(eventsTable.id, id)).get();
  return { eventDate: row!.eventDate, startDate: row!.startDate, endDate: row!.endDate };
}

const utc = (y: number, mo: number, d: number, h: number, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) / 1000;

// ---------------------------------------------------------------------------------------------------------------
// POST /admin/events
// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/events", () => {
  it("creates an event from only event_name: 201, Location, the full shape with every default", async () => {
    const name = uname("Minimal ");
    const res = await post({ event_name: name });
    const body = await expectJson(res, 201);
    expect(body.id).toEqual(expect.any(Number));
    expect(body.id).toBeGreaterThan(0);
    expect(res.headers.get("Location")).toBe(`${BASE}/admin/events/${body.id}`);
    expect(body).toStrictEqual({
      id: body.id,
      event_name: name,
      event_date: "",
      event_date_format: "Y-m-d H:i",
      timezone: "Europe/Amsterdam",
      region: "weur",
      start_date: "",
      end_date: "",
      stock: 0,
      sold: 0,
      stock_link: 0,
      group_type: 0,
      event_group: "",
      redirect: "",
      order_submit_text: "",
      terms: "",
      email: { sender_name: "", sender_email: "", bcc: "", subject: "", body: "" },
      email_confirmation: { bcc: "", subject: "", body: "", redirect: "" },
      confirmation_timeout: 0,
      unique_event_ids: "",
      user_groups: { group_type: 0, rest_url: "", rest_header: "" },
      seats: { number_of_seats: 0, seats_format: "", seats_config: "", linked_event: 0 },
      pdf_fields: { ticket: { attachment_id: 0, x_position: 10, y_position: 10, rotation: 0, scale: 100, no_border: false } },
      ...allFlags(false),
      _links: eventLinks(body.id),
    });
    // The Location answers with the same resource.
    expect(await expectJson(call("GET", `/admin/events/${body.id}`), 200)).toStrictEqual(body);
  });

  it("creates an event with every field set and reads it back equal", async () => {
    const other = await createEvent({ event_name: uname("Linked ") });
    const owner = await createUser("organizer");
    const template = await insertTemplate(owner.id);
    const input = {
      event_name: "Summer concert",
      event_date: "2030-07-01 20:00:00",
      event_date_format: "D j F Y, H:i \\h",
      timezone: "Europe/London",
      region: "eeur",
      start_date: "2030-05-01 09:00:00",
      end_date: "2030-07-01 18:30:00",
      stock: 500,
      stock_link: other.id,
      group_type: 1,
      event_group: "Summer series",
      redirect: "https://example.com/thanks",
      order_submit_text: "Buy now",
      terms: 'I agree to the <b>terms</b> and <a href="https://example.com/terms">conditions</a>',
      email: {
        sender_name: "Box office",
        sender_email: "tickets@example.com",
        bcc: "archive@example.com",
        subject: "Your tickets",
        body: "<p>Hello {%NAME%}</p>",
      },
      email_confirmation: {
        bcc: "confirm-archive@example.com",
        subject: "Please confirm",
        body: "<p>Click {%CONFIRM%}</p>",
        redirect: "https://example.com/confirmed",
      },
      confirmation_timeout: 30,
      unique_event_ids: String(other.id),
      user_groups: { group_type: 2, rest_url: "https://example.com/check", rest_header: "Authorization: Bearer abc" },
      seats: { number_of_seats: 20, seats_format: "Row %s seat %d", seats_config: "A:1-10,B:1-10", linked_event: other.id },
      pdf_fields: { ticket: { attachment_id: template, x_position: 20.5, y_position: 30, rotation: 90, scale: 80, no_border: true } },
      ...allFlags(true),
    };
    const res = await post(input);
    const body = await expectJson(res, 201);
    expect(body).toStrictEqual({ id: body.id, sold: 0, ...input, _links: eventLinks(body.id) });
    expect(Object.keys(body).sort()).toEqual(Object.keys({ id: 0, sold: 0, _links: 0, ...input }).sort());
    const read = await expectJson(call("GET", `/admin/events/${body.id}`), 200);
    expect(read).toStrictEqual(body);
  });

  it("trims event_name and accepts exactly 50 characters", async () => {
    const name = "n".repeat(50);
    const body = await createEvent({ event_name: `  ${name}  ` });
    expect(body.event_name).toBe(name);
  });

  it("counts event_name in characters, not bytes or UTF-16 units", async () => {
    expect((await createEvent({ event_name: "é".repeat(50) })).event_name).toBe("é".repeat(50));
    // 50 characters outside the Basic Multilingual Plane (each two UTF-16 units in JavaScript).
    const name = "🎫".repeat(25) + "𝄞".repeat(25);
    expect([...name]).toHaveLength(50);
    expect((await createEvent({ event_name: name })).event_name).toBe(name);
    await expectInvalid(post({ event_name: "é".repeat(51) }), ["event_name"]);
  });

  it("requires event_name", async () => {
    await expectInvalid(post({}), ["event_name"], "rest_missing_callback_param");
    await expectInvalid(post({ stock: 5 }), ["event_name"], "rest_missing_callback_param");
  });

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["over 50 characters", "x".repeat(51)],
    ["not a string", 42],
  ])("refuses an event_name that is %s", async (_label, value) => {
    await expectInvalid(post({ event_name: value }), ["event_name"]);
  });

  it.each(["event_date", "start_date", "end_date"])("refuses %s not in YYYY-MM-DD HH:MM:SS", async (field) => {
    for (const value of [
      "2030-01-01",
      "2030-01-01 10:00",
      "2030-01-01T10:00:00",
      "01-01-2030 10:00:00",
      "2030-02-30 10:00:00",
      "2030-01-01 24:00:00",
      "2030-01-01 10:00:00Z",
      1893456000,
    ]) {
      await expectInvalid(post({ event_name: uname("Date "), [field]: value }), [field]);
    }
  });

  it("accepts an empty date as unset, on create and on update", async () => {
    const created = await createEvent({ event_name: uname("Dates "), event_date: "", start_date: "", end_date: "" });
    expect(created).toMatchObject({ event_date: "", start_date: "", end_date: "" });
    const set = await expectJson(put(created.id, { event_date: "2030-03-01 20:00:00", start_date: "2030-01-01 00:00:00", end_date: "2030-03-01 18:00:00" }), 200);
    expect(set).toMatchObject({ event_date: "2030-03-01 20:00:00", start_date: "2030-01-01 00:00:00", end_date: "2030-03-01 18:00:00" });
    const cleared = await expectJson(put(created.id, { event_date: "", start_date: "" }), 200);
    expect(cleared).toMatchObject({ event_date: "", start_date: "", end_date: "2030-03-01 18:00:00" });
    expect(await storedDates(created.id)).toMatchObject({ eventDate: null, startDate: null });
  });

  it("refuses an end_date before start_date, on create and on update", async () => {
    await expectInvalid(post({ event_name: uname("Window "), start_date: "2030-02-01 10:00:00", end_date: "2030-02-01 09:59:59" }), ["end_date"]);
    const event = await createEvent({ event_name: uname("Window "), start_date: "2030-02-01 10:00:00", end_date: "2030-02-01 10:00:00" });
    await expectInvalid(put(event.id, { end_date: "2030-01-31 10:00:00" }), ["end_date"]);
    await expectInvalid(put(event.id, { start_date: "2030-02-02 10:00:00" }), ["end_date"]);
    expect(await expectJson(call("GET", `/admin/events/${event.id}`), 200)).toMatchObject({
      start_date: "2030-02-01 10:00:00",
      end_date: "2030-02-01 10:00:00",
    });
  });

  it.each(["Mars/Olympus_Mons", "+01:00", "EST", "europe/amsterdam", "", "Europe/Amsterdam "])("refuses the timezone %j", async (tz) => {
    await expectInvalid(post({ event_name: uname("Zone "), timezone: tz }), ["timezone"]);
  });

  it.each([
    ["Y-m-d Q", "Q"],
    ["d.m.Y H:i e", "e"],
    ["T", "T"],
    ["Y-m-d\\", "backslash"],
    ["", "empty"],
  ])("refuses event_date_format %j", async (format, named) => {
    const err = await expectInvalid(post({ event_name: uname("Format "), event_date_format: format }), ["event_date_format"]);
    expect(err.data.params?.event_date_format).toContain(named);
  });

  it("accepts every supported date letter and escaped letters in event_date_format", async () => {
    const format = "d D j l N w z W F m M n t L Y y a A g G h H i s \\Q\\T";
    expect((await createEvent({ event_name: uname("Format "), event_date_format: format })).event_date_format).toBe(format);
  });

  it.each([
    ["stock", -1],
    ["stock", 1.5],
    ["stock", "10"],
    ["stock_link", -1],
    ["confirmation_timeout", -5],
    ["group_type", 4],
    ["redirect", "javascript:alert(1)"],
  ])("refuses an invalid %s (%j)", async (field, value) => {
    await expectInvalid(post({ event_name: uname("Num "), [field]: value }), [field]);
  });

  it("refuses a stock_link to a missing event (400) and to the event itself", async () => {
    await expectInvalid(post({ event_name: uname("Link "), stock_link: 987654321 }), ["stock_link"]);
    const event = await createEvent({ event_name: uname("Self ") });
    await expectInvalid(put(event.id, { stock_link: event.id }), ["stock_link"]);
    const target = await createEvent({ event_name: uname("Target ") });
    expect((await expectJson(put(event.id, { stock_link: target.id }), 200)).stock_link).toBe(target.id);
    expect((await expectJson(put(event.id, { stock_link: 0 }), 200)).stock_link).toBe(0);
  });

  it.each([1, 2, 3])("requires event_group with group_type %i", async (groupType) => {
    await expectInvalid(post({ event_name: uname("Group "), group_type: groupType }), ["event_group"]);
    await expectInvalid(post({ event_name: uname("Group "), group_type: groupType, event_group: "   " }), ["event_group"]);
    const ok = await createEvent({ event_name: uname("Group "), group_type: groupType, event_group: "Festival" });
    expect(ok).toMatchObject({ group_type: groupType, event_group: "Festival" });
    await expectInvalid(put(ok.id, { event_group: "" }), ["event_group"]);
    expect((await expectJson(put(ok.id, { event_group: "", group_type: 0 }), 200)).group_type).toBe(0);
  });

  it("refuses unknown fields, top-level and nested, and ignores _links", async () => {
    const name = uname("Unknown ");
    const err = await expectInvalid(post({ event_name: name, colour: "blue" }), ["colour"]);
    expect(err.data.params!.colour).toBe("is not a known field");
    await expectInvalid(post({ event_name: name, email: { subjekt: "Hi" } }), ["email"]);
    await expectInvalid(post({ event_name: name, pdf_fields: { ticket: { size: 3 } } }), ["pdf_fields"]);
    const created = await createEvent({ event_name: name, _links: { self: [{ href: "x" }] } });
    expect(created._links).toEqual(eventLinks(created.id));
    expect((await list(`/admin/events?search=${encodeURIComponent(name)}`)).ids).toEqual([created.id]);
  });

  it.each([
    ["id", 1],
    ["sold", 0],
  ])("refuses the read-only field %s on create", async (field, value) => {
    const name = uname("RO ");
    const err = await expectInvalid(post({ event_name: name, [field]: value }), [field]);
    expect(err.data.params![field]).toBe("is read-only");
    expect((await list(`/admin/events?search=${encodeURIComponent(name)}`)).total).toBe("0");
  });

  it("purifies terms: keeps only a, b, i and u, drops scripts with their content", async () => {
    const terms =
      '<p>Read <b>this</b>, <i>that</i> and <u>more</u> <a href="https://example.com/t" onclick="x()">here</a>' +
      '<script>alert("x")</script><span style="color:red">!</span> <a href="javascript:alert(1)">bad</a></p>';
    const event = await createEvent({ event_name: uname("Terms "), terms });
    expect(event.terms).toBe('Read <b>this</b>, <i>that</i> and <u>more</u> <a href="https://example.com/t">here</a>! <a>bad</a>');
    const updated = await expectJson(put(event.id, { terms: "<img src=x onerror=alert(1)><u>ok</u><iframe>gone</iframe>" }), 200);
    expect(updated.terms).toBe("<u>ok</u>");
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Nested settings: validated only while their flag is on
// ---------------------------------------------------------------------------------------------------------------

describe("nested settings", () => {
  it("user_groups_needed needs group_type 1 or 2, but the same settings pass while the flag is off", async () => {
    await expectInvalid(post({ event_name: uname("UG "), user_groups_needed: true }), ["user_groups"]);
    await expectInvalid(post({ event_name: uname("UG "), user_groups_needed: true, user_groups: { group_type: 0 } }), ["user_groups"]);
    const off = await createEvent({ event_name: uname("UG "), user_groups_needed: false, user_groups: { group_type: 0 } });
    expect(off).toMatchObject({ user_groups_needed: false, user_groups: { group_type: 0 } });
    // Turning the flag on later checks the stored settings.
    await expectInvalid(put(off.id, { user_groups_needed: true }), ["user_groups"]);
    const on = await expectJson(put(off.id, { user_groups_needed: true, user_groups: { group_type: 1 } }), 200);
    expect(on).toMatchObject({ user_groups_needed: true, user_groups: { group_type: 1, rest_url: "", rest_header: "" } });
  });

  it.each([
    ["a private address", "http://10.0.0.5/check"],
    ["a private https address", "https://192.168.1.20/check"],
    ["a link-local address", "https://169.254.169.254/latest"],
    ["a private IPv6 address", "https://[fd00::1]/check"],
    ["a scheme other than http(s)", "ftp://example.com/check"],
    ["credentials in the URL", "https://user:pw@example.com/check"],
    ["no URL at all", ""],
    ["a relative URL", "/check"],
  ])("refuses a REST check rest_url with %s while user_groups_needed is on", async (_label, url) => {
    const settings = { user_groups: { group_type: 2, rest_url: url } };
    await expectInvalid(post({ event_name: uname("REST "), user_groups_needed: true, ...settings }), ["user_groups"]);
    const off = await createEvent({ event_name: uname("REST "), user_groups_needed: false, ...settings });
    expect(off.user_groups).toEqual({ group_type: 2, rest_url: url, rest_header: "" });
  });

  it("accepts https and, with ALLOW_HTTP_OUTBOUND, http and loopback REST check URLs", async () => {
    for (const url of ["https://example.com/check", "http://example.com/check", "http://localhost:8787/check", "http://127.0.0.1/check"]) {
      const event = await createEvent({ event_name: uname("REST "), user_groups_needed: true, user_groups: { group_type: 2, rest_url: url } });
      expect(event.user_groups.rest_url).toBe(url);
    }
  });

  it("refuses a rest_header that is not one Name: value line while the REST check is on", async () => {
    const base = { event_name: uname("Header "), user_groups_needed: true };
    await expectInvalid(post({ ...base, user_groups: { group_type: 2, rest_url: "https://example.com/c", rest_header: "no colon here" } }), ["user_groups"]);
    const ok = await createEvent({ ...base, user_groups: { group_type: 2, rest_url: "https://example.com/c", rest_header: "X-Token: abc" } });
    expect(ok.user_groups.rest_header).toBe("X-Token: abc");
  });

  it("emails_needed needs a subject that is not blank", async () => {
    await expectInvalid(post({ event_name: uname("Mail "), emails_needed: true }), ["email"]);
    await expectInvalid(post({ event_name: uname("Mail "), emails_needed: true, email: { subject: "   " } }), ["email"]);
    const off = await createEvent({ event_name: uname("Mail "), email: { subject: " " } });
    expect(off.email.subject).toBe("");
    await expectInvalid(put(off.id, { emails_needed: true }), ["email"]);
    const on = await expectJson(put(off.id, { emails_needed: true, email: { subject: "Your order" } }), 200);
    expect(on).toMatchObject({ emails_needed: true, email: { subject: "Your order" } });
  });

  it.each([
    ["sender_email", "not-an-email"],
    ["bcc", "a@example.com, b@example.com"],
  ])("refuses an email.%s that is not one address", async (field, value) => {
    await expectInvalid(post({ event_name: uname("Mail "), email: { [field]: value } }), ["email"]);
  });

  it("confirmation_emails_needed needs a confirmation subject that is not blank", async () => {
    await expectInvalid(post({ event_name: uname("Confirm "), confirmation_emails_needed: true, email_confirmation: { subject: "  ", body: "x" } }), [
      "email_confirmation",
    ]);
    const off = await createEvent({ event_name: uname("Confirm "), email_confirmation: { subject: "", body: "x" } });
    await expectInvalid(put(off.id, { confirmation_emails_needed: true }), ["email_confirmation"]);
    const on = await expectJson(put(off.id, { confirmation_emails_needed: true, email_confirmation: { subject: "Confirm please" } }), 200);
    expect(on.email_confirmation).toEqual({ bcc: "", subject: "Confirm please", body: "x", redirect: "" });
  });

  it.each([
    ["seats_config", { seats_config: "A 1-10", seats_format: "Row %s seat %d" }],
    ["seats_config", { seats_config: "", seats_format: "Row %s seat %d" }],
    ["seats_format", { seats_config: "A:1-10", seats_format: "Seat %d" }],
    ["seats_format", { seats_config: "A:1-10", seats_format: "Row %s seat %x" }],
  ])("seats_needed refuses a bad %s but the flag off accepts it", async (_label, seats) => {
    await expectInvalid(post({ event_name: uname("Seats "), seats_needed: true, seats }), ["seats"]);
    const off = await createEvent({ event_name: uname("Seats "), seats_needed: false, seats });
    expect(off.seats).toMatchObject(seats);
    await expectInvalid(put(off.id, { seats_needed: true }), ["seats"]);
  });

  it("seats_needed accepts a good plan, %02d included", async () => {
    const seats = { number_of_seats: 30, seats_config: "A:1-10, B:1-20", seats_format: "%s-%02d" };
    const event = await createEvent({ event_name: uname("Seats "), seats_needed: true, seats });
    expect(event.seats).toEqual({ ...seats, linked_event: 0 });
  });

  it("a ticket template must exist (400) and be the organizer's (403), whether tickets_needed is on or off (decisions.md 15)", async () => {
    const organizer = await createUser("organizer");
    const stranger = await createUser("organizer");
    const own = await insertTemplate(organizer.id);
    const foreign = await insertTemplate(stranger.id);
    const as = organizer.credentials;
    const ticket = (attachment_id: number) => ({ pdf_fields: { ticket: { attachment_id } } });

    for (const tickets_needed of [true, false]) {
      await expectInvalid(post({ event_name: uname("PDF "), tickets_needed, ...ticket(987654321) }, as), ["pdf_fields"]);
      const name = uname("PDF ");
      const refused = await expectError(post({ event_name: name, tickets_needed, ...ticket(foreign) }, as), 403, "rest_forbidden");
      expect(refused.message).toBe("Sorry, you are not allowed to do that.");
      expect((await list(`/admin/events?search=${encodeURIComponent(name)}`)).body).toEqual([]);
    }
    const mine = await expectJson(post({ event_name: uname("PDF "), tickets_needed: true, ...ticket(own) }, as), 201);
    expect(mine.pdf_fields.ticket).toEqual({ attachment_id: own, x_position: 10, y_position: 10, rotation: 0, scale: 100, no_border: false });
    // Flag off: checked alike, on an update too, and nothing is written.
    const off = await expectJson(post({ event_name: uname("PDF "), tickets_needed: false, ...ticket(own) }, as), 201);
    expect(off.pdf_fields.ticket.attachment_id).toBe(own);
    await expectError(put(off.id, ticket(foreign), as), 403, "rest_forbidden");
    await expectInvalid(put(off.id, ticket(987654321), as), ["pdf_fields"]);
    expect((await expectJson(call("GET", `/admin/events/${off.id}`), 200)).pdf_fields.ticket.attachment_id).toBe(own);
    // An administrator may use anyone's template, flag on or off.
    const admins = await createEvent({ event_name: uname("PDF "), tickets_needed: true, ...ticket(foreign) });
    expect(admins.pdf_fields.ticket.attachment_id).toBe(foreign);
    expect((await createEvent({ event_name: uname("PDF "), ...ticket(foreign) })).pdf_fields.ticket.attachment_id).toBe(foreign);
    await expectInvalid(post({ event_name: uname("PDF "), tickets_needed: true, ...ticket(987654321) }), ["pdf_fields"]);
    await expectInvalid(post({ event_name: uname("PDF "), ...ticket(987654321) }), ["pdf_fields"]);
  });

  it("an organizer may keep a template an administrator gave its event, but switching tickets on with it is using it (403)", async () => {
    const organizer = await createUser("organizer");
    const foreign = await insertTemplate((await createUser("organizer")).id);
    const as = organizer.credentials;
    const mine = await expectJson(post({ event_name: uname("PDF ") }, as), 201);
    await expectJson(put(mine.id, { pdf_fields: { ticket: { attachment_id: foreign } } }), 200);
    expect((await expectJson(put(mine.id, { stock: 3 }, as), 200)).pdf_fields.ticket.attachment_id).toBe(foreign);
    await expectError(put(mine.id, { tickets_needed: true }, as), 403, "rest_forbidden");
    expect((await expectJson(call("GET", `/admin/events/${mine.id}`), 200)).tickets_needed).toBe(false);
  });

  it.each([
    ["x_position", -1],
    ["y_position", 298],
    ["scale", 0],
    ["scale", 101],
    ["rotation", 361],
    ["no_border", "yes"],
  ])("refuses pdf_fields.ticket.%s = %j", async (field, value) => {
    await expectInvalid(post({ event_name: uname("PDF "), pdf_fields: { ticket: { [field]: value } } }), ["pdf_fields"]);
  });

  it("unique_event_ids must name existing events, whether unique_users_needed is on or off (decisions.md 15)", async () => {
    const a = await createEvent({ event_name: uname("Uniq ") });
    const b = await createEvent({ event_name: uname("Uniq ") });
    await expectInvalid(post({ event_name: uname("Uniq "), unique_users_needed: true, unique_event_ids: `${a.id},987654321` }), ["unique_event_ids"]);
    await expectInvalid(post({ event_name: uname("Uniq "), unique_users_needed: false, unique_event_ids: `${a.id},987654321` }), ["unique_event_ids"]);
    const off = await createEvent({ event_name: uname("Uniq "), unique_users_needed: false, unique_event_ids: String(a.id) });
    expect(off.unique_event_ids).toBe(String(a.id));
    await expectInvalid(put(off.id, { unique_event_ids: `${a.id},987654321` }), ["unique_event_ids"]);
    await expectInvalid(put(off.id, { unique_users_needed: true, unique_event_ids: `${a.id},987654321` }), ["unique_event_ids"]);
    expect((await expectJson(call("GET", `/admin/events/${off.id}`), 200)).unique_event_ids).toBe(String(a.id));
    const on = await expectJson(put(off.id, { unique_users_needed: true, unique_event_ids: ` ${b.id}, ${a.id},${off.id},${a.id}` }), 200);
    // Read as a sorted list without repeats; the event itself may be in its own list.
    expect(on.unique_event_ids).toBe([a.id, b.id, off.id].sort((x, y) => x - y).join(","));
    await expectInvalid(post({ event_name: uname("Uniq "), unique_event_ids: "1;2" }), ["unique_event_ids"]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Time zones
// ---------------------------------------------------------------------------------------------------------------

describe("event time zones", () => {
  it("reads and shows the dates of an event in the service zone by default", async () => {
    const event = await createEvent({ event_name: uname("AMS "), event_date: "2030-07-01 20:00:00", start_date: "2030-01-15 09:00:00" });
    expect(event).toMatchObject({ timezone: "Europe/Amsterdam", event_date: "2030-07-01 20:00:00", start_date: "2030-01-15 09:00:00" });
    // Summer time (+02:00) and winter time (+01:00).
    expect(await storedDates(event.id)).toMatchObject({ eventDate: utc(2030, 7, 1, 18), startDate: utc(2030, 1, 15, 8) });
  });

  it("reads and shows the dates of an America/New_York event in that zone", async () => {
    const input = {
      event_name: uname("NYC "),
      timezone: "America/New_York",
      event_date: "2030-07-01 20:00:00",
      start_date: "2030-01-15 09:00:00",
      end_date: "2030-07-01 19:00:00",
    };
    const event = await createEvent(input);
    expect(event).toMatchObject(input);
    expect(await storedDates(event.id)).toEqual({
      eventDate: utc(2030, 7, 2, 0), // EDT, -04:00
      startDate: utc(2030, 1, 15, 14), // EST, -05:00
      endDate: utc(2030, 7, 1, 23),
    });
    expect(await expectJson(call("GET", `/admin/events/${event.id}`), 200)).toMatchObject(input);
    // A date sent on update is read in the event's zone too.
    const updated = await expectJson(put(event.id, { event_date: "2030-12-31 23:30:00" }), 200);
    expect(updated.event_date).toBe("2030-12-31 23:30:00");
    expect((await storedDates(event.id)).eventDate).toBe(utc(2031, 1, 1, 4, 30));
  });

  it("keeps the wall-clock times shown when a PUT changes only the timezone", async () => {
    const dates = { event_date: "2030-07-01 20:00:00", start_date: "2030-01-15 09:00:00", end_date: "2030-07-01 19:00:00" };
    const event = await createEvent({ event_name: uname("Move "), ...dates });
    const moved = await expectJson(put(event.id, { timezone: "America/New_York" }), 200);
    expect(moved).toMatchObject({ timezone: "America/New_York", ...dates });
    expect(await storedDates(event.id)).toEqual({
      eventDate: utc(2030, 7, 2, 0),
      startDate: utc(2030, 1, 15, 14),
      endDate: utc(2030, 7, 1, 23),
    });
    expect(await expectJson(call("GET", `/admin/events/${event.id}`), 200)).toMatchObject({ timezone: "America/New_York", ...dates });
    // And back again.
    const back = await expectJson(put(event.id, { timezone: "Europe/Amsterdam" }), 200);
    expect(back).toMatchObject({ timezone: "Europe/Amsterdam", ...dates });
  });

  it("reads dates sent with a new timezone in that new zone and keeps the others' wall-clock times", async () => {
    const event = await createEvent({ event_name: uname("Move "), event_date: "2030-07-01 20:00:00", start_date: "2030-06-01 10:00:00" });
    const moved = await expectJson(put(event.id, { timezone: "Asia/Tokyo", event_date: "2030-07-02 18:00:00" }), 200);
    expect(moved).toMatchObject({ timezone: "Asia/Tokyo", event_date: "2030-07-02 18:00:00", start_date: "2030-06-01 10:00:00" });
    expect(await storedDates(event.id)).toMatchObject({ eventDate: utc(2030, 7, 2, 9), startDate: utc(2030, 6, 1, 1) });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// GET /admin/events/<id> and PUT
// ---------------------------------------------------------------------------------------------------------------

describe("GET and PUT /admin/events/<id>", () => {
  it("answers 404 rest_event_invalid_id for unknown and malformed ids", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      for (const id of ["987654321", "0", "-1", "abc", "1.5", "1e3", "99999999999999999999"]) {
        await expectError(call(method, `/admin/events/${id}`, method === "PUT" ? { body: { stock: 1 } } : {}), 404, "rest_event_invalid_id");
      }
    }
  });

  it("merges nested settings field by field", async () => {
    const email = { sender_name: "Box", sender_email: "box@example.com", bcc: "bcc@example.com", subject: "Old", body: "<p>Body</p>" };
    const event = await createEvent({ event_name: uname("Merge "), email, seats: { number_of_seats: 5, seats_config: "A:1-5" } });
    const updated = await expectJson(put(event.id, { email: { subject: "x" }, seats: { seats_format: "%s%d" } }), 200);
    expect(updated.email).toEqual({ ...email, subject: "x" });
    expect(updated.seats).toEqual({ number_of_seats: 5, seats_config: "A:1-5", seats_format: "%s%d", linked_event: 0 });
    const read = await expectJson(call("GET", `/admin/events/${event.id}`), 200);
    expect(read.email).toEqual({ ...email, subject: "x" });
    const ticket = await expectJson(put(event.id, { pdf_fields: { ticket: { scale: 50 } } }), 200);
    expect(ticket.pdf_fields.ticket).toEqual({ attachment_id: 0, x_position: 10, y_position: 10, rotation: 0, scale: 50, no_border: false });
  });

  it("changes only what is sent", async () => {
    const event = await createEvent({ event_name: uname("Partial "), stock: 10, order_submit_text: "Order" });
    const updated = await expectJson(put(event.id, { stock: 20 }), 200);
    expect(updated).toStrictEqual({ ...event, stock: 20 });
    expect(await expectJson(put(event.id, {}), 200)).toStrictEqual(updated);
  });

  it("accepts read-only id and sold when equal, refuses them when different", async () => {
    const event = await createEvent({ event_name: uname("RO ") });
    const same = await expectJson(put(event.id, { id: event.id, sold: 0, stock: 3 }), 200);
    expect(same.stock).toBe(3);
    let err = await expectInvalid(put(event.id, { id: event.id + 1, stock: 4 }), ["id"]);
    expect(err.data.params!.id).toBe("is read-only");
    err = await expectInvalid(put(event.id, { sold: 7 }), ["sold"]);
    expect(err.data.params!.sold).toBe("is read-only");
    expect((await expectJson(call("GET", `/admin/events/${event.id}`), 200)).stock).toBe(3);
  });

  it("accepts back exactly what it read, _links included", async () => {
    const other = await createEvent({ event_name: uname("Other ") });
    const event = await createEvent({
      event_name: uname("Echo "),
      timezone: "America/New_York",
      event_date: "2030-05-05 05:05:05",
      stock_link: other.id,
      email: { subject: "S" },
      emails_needed: true,
    });
    const read = await expectJson(call("GET", `/admin/events/${event.id}`), 200);
    expect(await expectJson(put(event.id, read), 200)).toStrictEqual(read);
    // Read with _embed and sent back whole: _embedded is ignored like _links.
    const embedded = await expectJson(call("GET", `/admin/events/${event.id}?_embed`), 200);
    expect(embedded._embedded).toBeDefined();
    expect(await expectJson(put(event.id, embedded), 200)).toStrictEqual(read);
  });

  it("validates updates like creates and changes nothing on failure", async () => {
    const event = await createEvent({ event_name: uname("Bad ") });
    await expectInvalid(put(event.id, { event_name: "" }), ["event_name"]);
    await expectInvalid(put(event.id, { event_name: "y".repeat(51) }), ["event_name"]);
    await expectInvalid(put(event.id, { stock: -1, timezone: "Nowhere/Land", colour: 1 }), ["stock", "timezone", "colour"]);
    expect(await expectJson(call("GET", `/admin/events/${event.id}`), 200)).toStrictEqual(event);
  });

  it("keeps only the fields named in _fields", async () => {
    const event = await createEvent({ event_name: uname("Fields ") });
    const picked = await expectJson(call("GET", `/admin/events/${event.id}?_fields=id,event_name,nonsense`), 200);
    expect(picked).toStrictEqual({ id: event.id, event_name: event.event_name });
    const withLinks = await expectJson(call("GET", `/admin/events/${event.id}?_fields=id,_links`), 200);
    expect(withLinks).toStrictEqual({ id: event.id, _links: eventLinks(event.id) });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// _embed
// ---------------------------------------------------------------------------------------------------------------

describe("_embed", () => {
  async function eventWithCatalogue() {
    const event = await createEvent({ event_name: uname("Embed ") });
    // Read back: the create answer leaves out `sold`, as the spec says.
    const created = await createTicketType(event.id, { name: "Adult" });
    const type = await expectJson(call("GET", `/admin/events/${event.id}/ticket-types/${created.id}`), 200);
    const field = await createInputField(event.id, { name: "Company" });
    const key = await createScanKey(event.id, { location: "Gate A" });
    return { event, type, field, key };
  }

  it("embeds ticket types, input fields and scan keys under _embedded", async () => {
    const { event, type, field, key } = await eventWithCatalogue();
    const body = await expectJson(call("GET", `/admin/events/${event.id}?_embed`), 200);
    expect(Object.keys(body._embedded).sort()).toEqual(["input_fields", "sales_totals", "scan_keys", "scan_totals", "ticket_types"]);
    expect(body._embedded.sales_totals).toEqual([{ total_orders: 0, total_amount: 0, total_tickets: 0, final: { total_orders: 0, total_amount: 0, total_tickets: 0 } }]);
    expect(body._embedded.scan_totals).toEqual([{ tickets: 0, scanned_tickets: 0, unscanned_tickets: 0, total_scans: 0, scans_by_level: {} }]);
    expect(body._embedded.ticket_types).toEqual([type]);
    expect(body._embedded.input_fields).toEqual([field]);
    expect(body._embedded.scan_keys).toEqual([key]);
    const { _embedded, ...rest } = body;
    expect(rest).toStrictEqual(event);
    // The embedded resources are what their own collections answer.
    expect(_embedded.ticket_types).toEqual(await expectJson(call("GET", `/admin/events/${event.id}/ticket-types`), 200));
    expect(_embedded.scan_keys).toEqual(await expectJson(call("GET", `/admin/events/${event.id}/scan-keys`), 200));
    expect(await expectJson(call("GET", `/admin/events/${event.id}?_embed=1`), 200)).toEqual(body);
  });

  it("embeds only the relations named", async () => {
    const { event, type, key } = await eventWithCatalogue();
    const one = await expectJson(call("GET", `/admin/events/${event.id}?_embed=ticket_types`), 200);
    expect(one._embedded).toEqual({ ticket_types: [type] });
    const two = await expectJson(call("GET", `/admin/events/${event.id}?_embed=scan_keys,ticket_types`), 200);
    expect(two._embedded).toEqual({ ticket_types: [type], scan_keys: [key] });
    const none = await expectJson(call("GET", `/admin/events/${event.id}?_embed=orders`), 200);
    expect(none).not.toHaveProperty("_embedded");
    const plain = await expectJson(call("GET", `/admin/events/${event.id}`), 200);
    expect(plain).not.toHaveProperty("_embedded");
  });

  it("embeds empty lists for an event without catalogue, and embeds in lists", async () => {
    const bare = await createEvent({ event_name: uname("Bare ") });
    const body = await expectJson(call("GET", `/admin/events/${bare.id}?_embed`), 200);
    expect(body._embedded).toMatchObject({ ticket_types: [], input_fields: [], scan_keys: [] });

    const { event, field } = await eventWithCatalogue();
    const { body: rows } = await list(`/admin/events?include=${event.id},${bare.id}&_embed=input_fields`);
    expect(rows.map((r) => [r.id, r._embedded])).toEqual(
      [
        [event.id, { input_fields: [field] }],
        [bare.id, { input_fields: [] }],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
  });

  it("keeps _embedded with _fields when _embed is sent", async () => {
    const { event, type } = await eventWithCatalogue();
    const body = await expectJson(call("GET", `/admin/events/${event.id}?_embed=ticket_types&_fields=id`), 200);
    expect(body).toStrictEqual({ id: event.id, _embedded: { ticket_types: [type] } });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// GET /admin/events: paging, search, filters, order
// ---------------------------------------------------------------------------------------------------------------

describe("GET /admin/events", () => {
  /** Five events whose names share a unique prefix, in creation (id) order. */
  async function fiveEvents() {
    const prefix = uname("Paging");
    const ids: number[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await createEvent({ event_name: `${prefix} ${i}` })).id);
    return { prefix, ids };
  }

  it("lists events with the event shape, paged by default at 10", async () => {
    const event = await createEvent({ event_name: uname("Listed ") });
    const { res, body, total, pages } = await list(`/admin/events?include=${event.id}`);
    expect(body).toStrictEqual([event]);
    expect(total).toBe("1");
    expect(pages).toBe("1");
    expect(res.headers.get("Link")).toBeNull();
    const all = await list("/admin/events");
    expect(all.body.length).toBeLessThanOrEqual(10);
    expect(Number(all.total)).toBeGreaterThanOrEqual(1);
    expect(all.pages).toBe(String(Math.ceil(Number(all.total) / 10)));
  });

  it("pages by page and per_page with X-WP-Total, X-WP-TotalPages and Link", async () => {
    const { prefix, ids } = await fiveEvents();
    const q = `search=${encodeURIComponent(prefix)}&per_page=2`;

    const p1 = await list(`/admin/events?${q}`);
    expect(p1.ids).toEqual(ids.slice(0, 2));
    expect([p1.total, p1.pages]).toEqual(["5", "3"]);
    let links = linkHeader(p1.res);
    expect(Object.keys(links)).toEqual(["next"]);
    expect(links.next!.origin + links.next!.pathname).toBe(`${BASE}/admin/events`);
    expect(links.next!.searchParams.get("page")).toBe("2");
    expect(links.next!.searchParams.get("per_page")).toBe("2");
    expect(links.next!.searchParams.get("search")).toBe(prefix);

    const p2 = await list(`/admin/events?${q}&page=2`);
    expect(p2.ids).toEqual(ids.slice(2, 4));
    links = linkHeader(p2.res);
    expect(Object.keys(links).sort()).toEqual(["next", "prev"]);
    expect(links.prev!.searchParams.get("page")).toBe("1");
    expect(links.next!.searchParams.get("page")).toBe("3");

    const p3 = await list(`/admin/events?${q}&page=3`);
    expect(p3.ids).toEqual(ids.slice(4));
    expect([p3.total, p3.pages]).toEqual(["5", "3"]);
    links = linkHeader(p3.res);
    expect(Object.keys(links)).toEqual(["prev"]);
    expect(links.prev!.searchParams.get("page")).toBe("2");

    // Following the links walks the whole list.
    const walked: number[] = [];
    let next: string | null = `/admin/events?${q}`;
    while (next) {
      const r = await list(next);
      walked.push(...r.ids);
      const n = linkHeader(r.res).next;
      next = n ? n.href.slice(BASE.length) : null;
    }
    expect(walked).toEqual(ids);
  });

  it("answers a page past the end with 200 [] and correct headers", async () => {
    const { prefix } = await fiveEvents();
    const past = await list(`/admin/events?search=${encodeURIComponent(prefix)}&per_page=2&page=9`);
    expect(past.body).toEqual([]);
    expect([past.total, past.pages]).toEqual(["5", "3"]);
    const links = linkHeader(past.res);
    expect(Object.keys(links)).toEqual(["prev"]);
    expect(links.prev!.searchParams.get("page")).toBe("3");
  });

  it("pages by offset, which overrides page", async () => {
    const { prefix, ids } = await fiveEvents();
    const q = `search=${encodeURIComponent(prefix)}&per_page=2`;
    const mid = await list(`/admin/events?${q}&offset=1`);
    expect(mid.ids).toEqual(ids.slice(1, 3));
    expect([mid.total, mid.pages]).toEqual(["5", "3"]);
    let links = linkHeader(mid.res);
    expect(links.prev!.searchParams.get("offset")).toBe("0");
    expect(links.next!.searchParams.get("offset")).toBe("3");

    const last = await list(`/admin/events?${q}&offset=3&page=1`);
    expect(last.ids).toEqual(ids.slice(3));
    links = linkHeader(last.res);
    expect(Object.keys(links)).toEqual(["prev"]);
    expect(links.prev!.searchParams.get("offset")).toBe("1");

    const overridden = await list(`/admin/events?${q}&page=3&offset=0`);
    expect(overridden.ids).toEqual(ids.slice(0, 2));

    const past = await list(`/admin/events?${q}&offset=50`);
    expect(past.body).toEqual([]);
    expect([past.total, past.pages]).toEqual(["5", "3"]);
  });

  it("answers an empty result with X-WP-Total 0 and X-WP-TotalPages 0", async () => {
    const empty = await list(`/admin/events?search=${uname("nothing-matches-")}`);
    expect(empty.body).toEqual([]);
    expect([empty.total, empty.pages]).toEqual(["0", "0"]);
    expect(empty.res.headers.get("Link")).toBeNull();
  });

  it.each([
    ["per_page", "0"],
    ["per_page", "101"],
    ["per_page", "ten"],
    ["page", "0"],
    ["page", "-1"],
    ["offset", "-1"],
    ["orderby", "event_name"],
    ["order", "up"],
    ["include", "1,x"],
    ["exclude", "abc"],
  ])("refuses %s=%s with 400", async (param, value) => {
    await expectInvalid(call("GET", `/admin/events?${param}=${value}`), [param]);
  });

  it("accepts per_page 1 and 100", async () => {
    const one = await list("/admin/events?per_page=1");
    expect(one.body.length).toBe(1);
    expect(one.pages).toBe(one.total);
    const hundred = await list("/admin/events?per_page=100");
    expect(hundred.body.length).toBe(Math.min(100, Number(hundred.total)));
  });

  it("searches event_name case-insensitively by substring, literally", async () => {
    const tag = uname("srch");
    const a = await createEvent({ event_name: `Jazz ${tag} Night` });
    const b = await createEvent({ event_name: `ROCK ${tag.toUpperCase()} a_b` });
    const c = await createEvent({ event_name: `rock ${tag} axb` });
    expect((await list(`/admin/events?search=${tag.toUpperCase()}`)).ids).toEqual([a.id, b.id, c.id]);
    expect((await list(`/admin/events?search=${encodeURIComponent(`rOcK ${tag}`)}`)).ids).toEqual([b.id, c.id]);
    expect((await list(`/admin/events?search=${encodeURIComponent(`${tag} night`)}`)).ids).toEqual([a.id]);
    // `_` and `%` are ordinary characters, not wildcards.
    const literal = await list(`/admin/events?search=${encodeURIComponent(`${tag} a_b`)}`);
    expect(literal.ids).toEqual([b.id]);
    expect(literal.total).toBe("1");
    expect((await list(`/admin/events?search=${encodeURIComponent(`${tag}%`)}`)).ids).toEqual([]);
  });

  it("filters by include and exclude, combined", async () => {
    const [a, b, c] = [await createEvent(), await createEvent(), await createEvent()];
    expect((await list(`/admin/events?include=${c.id},${a.id}`)).ids).toEqual([a.id, c.id]);
    const combined = await list(`/admin/events?include=${a.id},${b.id},${c.id}&exclude=${b.id}`);
    expect(combined.ids).toEqual([a.id, c.id]);
    expect(combined.total).toBe("2");
    const excluded = await list(`/admin/events?exclude=${a.id},${c.id}&per_page=100&orderby=id&order=desc`);
    expect(excluded.ids).not.toContain(a.id);
    expect(excluded.ids).not.toContain(c.id);
    expect(excluded.ids).toContain(b.id);
    expect((await list(`/admin/events?include=987654321`)).body).toEqual([]);
  });

  it("orders by id, event_date, start_date and end_date, ascending and descending", async () => {
    const e1 = await createEvent({ event_date: "2031-03-01 20:00:00", start_date: "2030-01-02 10:00:00", end_date: "2030-12-02 10:00:00" });
    const e2 = await createEvent({ event_date: "2031-01-01 20:00:00", start_date: "2030-01-03 10:00:00", end_date: "2030-12-01 10:00:00" });
    const e3 = await createEvent({ event_date: "2031-02-01 20:00:00", start_date: "2030-01-01 10:00:00", end_date: "2030-12-03 10:00:00" });
    const inc = `include=${e1.id},${e2.id},${e3.id}`;
    const expected: Record<string, number[]> = {
      id: [e1.id, e2.id, e3.id],
      event_date: [e2.id, e3.id, e1.id],
      start_date: [e3.id, e1.id, e2.id],
      end_date: [e2.id, e1.id, e3.id],
    };
    for (const [orderby, asc] of Object.entries(expected)) {
      expect((await list(`/admin/events?${inc}&orderby=${orderby}`)).ids, orderby).toEqual(asc);
      expect((await list(`/admin/events?${inc}&orderby=${orderby}&order=asc`)).ids, orderby).toEqual(asc);
      expect((await list(`/admin/events?${inc}&orderby=${orderby}&order=desc`)).ids, orderby).toEqual([...asc].reverse());
    }
    expect((await list(`/admin/events?${inc}`)).ids).toEqual(expected.id);
    expect((await list(`/admin/events?${inc}&order=desc`)).ids).toEqual([...expected.id!].reverse());
  });

  it("searches case-insensitively beyond ASCII letters", async () => {
    const tag = uname("intl");
    const event = await createEvent({ event_name: `Café Zürich ${tag}` });
    expect((await list(`/admin/events?search=${encodeURIComponent(`café zürich ${tag}`)}`)).ids, "lower case").toEqual([event.id]);
    expect((await list(`/admin/events?search=${encodeURIComponent(`CAFÉ ZÜRICH ${tag.toUpperCase()}`)}`)).ids, "upper case").toEqual([event.id]);
  });

  it("answers an absurdly large page with 200 [] and a prev link to the last page", async () => {
    const { prefix } = await fiveEvents();
    const page = "9007199254740991";
    const past = await list(`/admin/events?search=${encodeURIComponent(prefix)}&per_page=100&page=${page}`);
    expect(past.body).toEqual([]);
    expect([past.total, past.pages]).toEqual(["5", "1"]);
    expect(linkHeader(past.res).prev!.searchParams.get("page")).toBe("1");
    const offset = await list(`/admin/events?search=${encodeURIComponent(prefix)}&per_page=100&offset=${page}`);
    expect(offset.body).toEqual([]);
    expect(offset.total).toBe("5");
  });

  it("keeps only the fields named in _fields on every item", async () => {
    const a = await createEvent();
    const b = await createEvent();
    const { body } = await list(`/admin/events?include=${a.id},${b.id}&_fields=id,stock`);
    expect(body).toStrictEqual([
      { id: a.id, stock: 0 },
      { id: b.id, stock: 0 },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Roles
// ---------------------------------------------------------------------------------------------------------------

describe("roles", () => {
  it("adds an event an organizer creates to its authorised_events", async () => {
    const existing = await createEvent({ event_name: uname("Given ") });
    const organizer = await createUser("organizer", { authorised_events: [existing.id] });
    const mine = await expectJson(post({ event_name: uname("Mine ") }, organizer.credentials), 201);
    expect((await userOf(organizer.id)).authorised_events).toEqual([existing.id, mine.id].sort((a, b) => a - b));
    const second = await expectJson(post({ event_name: uname("Mine ") }, organizer.credentials), 201);
    expect((await userOf(organizer.id)).authorised_events).toEqual([existing.id, mine.id, second.id].sort((a, b) => a - b));
    // It can read and change what it created.
    await expectJson(call("GET", `/admin/events/${mine.id}`, { auth: organizer.credentials }), 200);
    expect((await expectJson(put(mine.id, { stock: 9 }, organizer.credentials), 200)).stock).toBe(9);
  });

  it("adds every one of an organizer's concurrent creates to its authorised_events", async () => {
    const organizer = await createUser("organizer");
    const created = await Promise.all(Array.from({ length: 6 }, (_, i) => expectJson(post({ event_name: uname(`Burst ${i} `) }, organizer.credentials), 201)));
    const ids = created.map((e) => e.id as number).sort((a, b) => a - b);
    expect(new Set(ids).size).toBe(6);
    expect((await userOf(organizer.id)).authorised_events).toEqual(ids);
    expect((await list("/admin/events?per_page=100", organizer.credentials)).ids).toEqual(ids);
  });

  it("an administrator's new event is not added to its authorised_events", async () => {
    const admin = await createUser("administrator");
    const event = await expectJson(post({ event_name: uname("Admin ") }, admin.credentials), 201);
    expect((await userOf(admin.id)).authorised_events).toEqual([]);
    await expectJson(call("GET", `/admin/events/${event.id}`, { auth: admin.credentials }), 200);
  });

  it("lists for an organizer only its authorised events", async () => {
    const given = await createEvent({ event_name: uname("Given ") });
    const notGiven = await createEvent({ event_name: uname("Hidden ") });
    const organizer = await createUser("organizer", { authorised_events: [given.id] });
    const mine = await expectJson(post({ event_name: uname("Mine ") }, organizer.credentials), 201);
    const seen = await list("/admin/events?per_page=100", organizer.credentials);
    expect(seen.ids.sort((a, b) => a - b)).toEqual([given.id, mine.id].sort((a, b) => a - b));
    expect([seen.total, seen.pages]).toEqual(["2", "1"]);
    const searched = await list(`/admin/events?search=${encodeURIComponent(notGiven.event_name)}`, organizer.credentials);
    expect(searched.body).toEqual([]);
    expect(searched.total).toBe("0");
  });

  it("refuses an organizer a filter naming an event outside its authorised events (403)", async () => {
    const hidden = await createEvent({ event_name: uname("Hidden ") });
    const organizer = await createUser("organizer");
    const mine = await expectJson(post({ event_name: uname("Mine ") }, organizer.credentials), 201);
    expect((await list(`/admin/events?include=${mine.id}`, organizer.credentials)).ids).toEqual([mine.id]);
    await expectError(call("GET", `/admin/events?include=${mine.id},${hidden.id}`, { auth: organizer.credentials }), 403, "rest_forbidden");
  });

  it("refuses an organizer GET, PUT and DELETE of another event with 403 rest_forbidden", async () => {
    const other = await createEvent({ event_name: uname("Other "), stock: 5 });
    const organizer = await createUser("organizer");
    const as = { auth: organizer.credentials };
    await expectError(call("GET", `/admin/events/${other.id}`, as), 403, "rest_forbidden");
    await expectError(call("GET", `/admin/events/${other.id}?_embed`, as), 403, "rest_forbidden");
    await expectError(call("PUT", `/admin/events/${other.id}`, { ...as, body: { stock: 1 } }), 403, "rest_forbidden");
    await expectError(call("DELETE", `/admin/events/${other.id}?force=true`, as), 403, "rest_forbidden");
    expect(await expectJson(call("GET", `/admin/events/${other.id}`), 200)).toStrictEqual(other);
    // An unknown id is still a 404 for an organizer.
    await expectError(call("GET", "/admin/events/987654321", as), 404, "rest_event_invalid_id");
  });

  it("refuses an organizer naming an unauthorised event in stock_link (403), in a create and an update", async () => {
    const other = await createEvent({ event_name: uname("Other ") });
    const organizer = await createUser("organizer");
    const name = uname("Linking ");
    await expectError(post({ event_name: name, stock_link: other.id }, organizer.credentials), 403, "rest_forbidden");
    expect((await userOf(organizer.id)).authorised_events).toEqual([]);
    expect((await list(`/admin/events?search=${encodeURIComponent(name)}`)).body).toEqual([]);

    const mine = await expectJson(post({ event_name: name }, organizer.credentials), 201);
    await expectError(put(mine.id, { stock_link: other.id }, organizer.credentials), 403, "rest_forbidden");
    await expectError(put(mine.id, { unique_users_needed: true, unique_event_ids: String(other.id) }, organizer.credentials), 403, "rest_forbidden");
    // A missing event is still a 400.
    await expectInvalid(put(mine.id, { stock_link: 987654321 }, organizer.credentials), ["stock_link"]);
    expect((await expectJson(call("GET", `/admin/events/${mine.id}`), 200)).stock_link).toBe(0);

    // Between two of its own events it may link.
    const second = await expectJson(post({ event_name: uname("Linking ") }, organizer.credentials), 201);
    expect((await expectJson(put(mine.id, { stock_link: second.id }, organizer.credentials), 200)).stock_link).toBe(second.id);
  });

  it("lets an organizer change its event when an administrator linked it to an event the organizer cannot see", async () => {
    const hidden = await createEvent({ event_name: uname("Hidden ") });
    const organizer = await createUser("organizer");
    const mine = await expectJson(post({ event_name: uname("Mine ") }, organizer.credentials), 201);
    await expectJson(put(mine.id, { stock_link: hidden.id }), 200);
    // The organizer names no unauthorised event: it changes only its stock.
    const updated = await expectJson(put(mine.id, { stock: 5 }, organizer.credentials), 200);
    expect(updated).toMatchObject({ stock: 5, stock_link: hidden.id });
  });

  it("refuses an organizer naming an unauthorised event in seats.linked_event (403)", async () => {
    const other = await createEvent({ event_name: uname("Other ") });
    const organizer = await createUser("organizer");
    const seats = { seats_config: "A:1-10", seats_format: "%s%d", linked_event: other.id };
    await expectError(post({ event_name: uname("Seats "), seats_needed: true, seats }, organizer.credentials), 403, "rest_forbidden");
    const mine = await expectJson(post({ event_name: uname("Seats "), seats_needed: true, seats: { ...seats, linked_event: 0 } }, organizer.credentials), 201);
    await expectInvalid(put(mine.id, { seats: { linked_event: mine.id } }, organizer.credentials), ["seats"]);
    await expectInvalid(put(mine.id, { seats: { linked_event: 987654321 } }, organizer.credentials), ["seats"]);
  });

  it.each([
    ["unique_event_ids", (id: number) => ({ unique_users_needed: false, unique_event_ids: String(id) })],
    ["seats", (id: number) => ({ seats_needed: false, seats: { seats_config: "A:1-10", seats_format: "%s%d", linked_event: id } })],
  ] as const)(
    "refuses an organizer naming an unauthorised event in %s while its flag is off (403), in a create and an update (decisions.md 15)",
    async (field, refer) => {
      const other = await createEvent({ event_name: uname("Other ") });
      const organizer = await createUser("organizer");
      const as = organizer.credentials;
      const name = uname("Dormant ");
      const refused = await expectError(post({ event_name: name, ...refer(other.id) }, as), 403, "rest_forbidden");
      expect(refused.message).toBe("Sorry, you are not allowed to do that.");
      expect(refused.message).not.toContain(String(other.id));
      expect((await list(`/admin/events?search=${encodeURIComponent(name)}`)).body).toEqual([]);
      expect((await userOf(organizer.id)).authorised_events).toEqual([]);
      // An unknown id is a 400 naming the field, flag off or not.
      await expectInvalid(post({ event_name: uname("Dormant "), ...refer(987654321) }, as), [field]);

      const mine = await expectJson(post({ event_name: name }, as), 201);
      const before = await expectJson(call("GET", `/admin/events/${mine.id}`), 200);
      await expectError(put(mine.id, refer(other.id), as), 403, "rest_forbidden");
      await expectInvalid(put(mine.id, refer(987654321), as), [field]);
      expect(await expectJson(call("GET", `/admin/events/${mine.id}`), 200)).toStrictEqual(before);
      // Its own events it may name, flag off or on.
      const second = await expectJson(post({ event_name: uname("Dormant ") }, as), 201);
      await expectJson(put(mine.id, refer(second.id), as), 200);
    },
  );

  it("lets an organizer keep a reference an administrator made while its flag is off, but not turn the flag on over it (403)", async () => {
    const hidden = await createEvent({ event_name: uname("Hidden ") });
    const organizer = await createUser("organizer");
    const as = organizer.credentials;
    const mine = await expectJson(post({ event_name: uname("Mine ") }, as), 201);
    const seats = { seats_config: "A:1-10", seats_format: "%s%d", linked_event: hidden.id };
    await expectJson(put(mine.id, { unique_event_ids: String(hidden.id), seats }), 200);
    expect((await expectJson(put(mine.id, { stock: 4 }, as), 200)).unique_event_ids).toBe(String(hidden.id));
    // Switching a flag on makes the event reach the other one: that needs authority over it.
    await expectError(put(mine.id, { unique_users_needed: true }, as), 403, "rest_forbidden");
    await expectError(put(mine.id, { seats_needed: true }, as), 403, "rest_forbidden");
    expect(await expectJson(call("GET", `/admin/events/${mine.id}`), 200)).toMatchObject({ unique_users_needed: false, seats_needed: false, stock: 4 });
  });

  it("refuses an organizer turning its event of a group an administrator mixed into a passe-partout (403), changing nothing (decisions.md 15)", async () => {
    const group = unique("Mixed ");
    const victim = await createUser("organizer");
    const theirs = await expectJson(post({ event_name: uname("Theirs "), group_type: 1, event_group: group, stock: 5 }, victim.credentials), 201);
    const theirType = await createTicketType(theirs.id, { name: "Day", price: 10, stock_control: true, stock: 5 });
    const attacker = await createUser("organizer");
    const as = attacker.credentials;
    const mine = await expectJson(post({ event_name: uname("Mine "), add_dashboard_orders_needed: true }, as), 201);
    const myType = await createTicketType(mine.id, { name: "Pass", price: 0 }, as);
    // The administrator mixes the two organizers' events in one group, on purpose.
    await expectJson(put(mine.id, { group_type: 1, event_group: group }), 200);
    const before = await expectJson(call("GET", `/admin/events/${mine.id}`), 200);

    for (const change of [{ group_type: 3 }, { group_type: 3, event_group: group }, { group_type: 3, stock: 9 }]) {
      const err = await expectError(put(mine.id, change, as), 403, "rest_forbidden");
      expect(err.message).toBe("Sorry, you are not allowed to do that.");
      expect(await expectJson(call("GET", `/admin/events/${mine.id}`), 200)).toStrictEqual(before);
    }
    // An order on the organizer's event still issues tickets for that event alone, and takes nothing of the other's.
    const order = await expectJson(
      call("POST", "/admin/orders", { body: { event_id: mine.id, name: "Pat", email: "pat@example.com", tickets: [{ [myType.id]: 2 }] }, auth: as }),
      201,
    );
    const issued = await db.select({ eventId: ticketsTable.eventId }).from(ticketsTable).where(eq(ticketsTable.orderId, order.id));
    expect(issued.map((t) => t.eventId)).toEqual([mine.id, mine.id]);
    expect((await db.select().from(eventsTable).where(eq(eventsTable.id, theirs.id)).get())!.sold).toBe(0);
    expect((await expectJson(call("GET", `/admin/events/${theirs.id}/ticket-types/${theirType.id}`), 200)).stock).toBe(5);
    // Staying in the group is not reaching into it: the organizer changes the rest of its event.
    expect((await expectJson(put(mine.id, { stock: 9 }, as), 200)).group_type).toBe(1);
    // An administrator may make the passe-partout, on purpose; the organizer may then change the rest of it.
    await expectJson(put(mine.id, { group_type: 3 }), 200);
    expect((await expectJson(put(mine.id, { event_name: uname("Pass ") }, as), 200)).group_type).toBe(3);
  });

  it.each([1, 2, 3])("refuses an organizer an event_group (group_type %i) holding another organizer's event (403)", async (groupType) => {
    const group = unique("Theirs ");
    const victim = await createUser("organizer");
    const theirs = await expectJson(post({ event_name: uname("Theirs "), group_type: 1, event_group: group }, victim.credentials), 201);
    const attacker = await createUser("organizer");
    const name = uname("Intruder ");
    await expectError(post({ event_name: name, group_type: groupType, event_group: group }, attacker.credentials), 403, "rest_forbidden");
    expect((await list(`/admin/events?search=${encodeURIComponent(name)}`)).body).toEqual([]);
    expect((await userOf(attacker.id)).authorised_events).toEqual([]);

    // Joining by an update is refused alike, whether the group or only the group type changes; nothing is written.
    const mine = await expectJson(post({ event_name: name, event_group: group }, attacker.credentials), 201);
    await expectError(put(mine.id, { group_type: groupType }, attacker.credentials), 403, "rest_forbidden");
    const other = await expectJson(post({ event_name: uname("Intruder "), group_type: groupType, event_group: unique("Own ") }, attacker.credentials), 201);
    await expectError(put(other.id, { event_group: group }, attacker.credentials), 403, "rest_forbidden");
    expect(await expectJson(call("GET", `/admin/events/${mine.id}`), 200)).toMatchObject({ group_type: 0, event_group: group });
    expect((await expectJson(call("GET", `/admin/events/${other.id}`), 200)).event_group).not.toBe(group);
    expect((await expectJson(call("GET", `/admin/events/${theirs.id}`), 200)).event_group).toBe(group);
  });

  it("lets an organizer group its own events, and an administrator mix organizers' events on purpose", async () => {
    const group = unique("Mixed ");
    const organizer = await createUser("organizer");
    const first = await expectJson(post({ event_name: uname("Day 1 "), group_type: 1, event_group: group }, organizer.credentials), 201);
    const second = await expectJson(post({ event_name: uname("Pass "), group_type: 3, event_group: group }, organizer.credentials), 201);
    const hidden = await createEvent({ event_name: uname("Hidden "), group_type: 1, event_group: group });
    // The organizer may still change the rest of its events in the group the administrator mixed.
    expect((await expectJson(put(second.id, { stock: 7 }, organizer.credentials), 200)).stock).toBe(7);
    expect((await expectJson(put(first.id, { event_name: uname("Day one ") }, organizer.credentials), 200)).event_group).toBe(group);
    // Leaving the group and coming back is joining it again: refused now that it holds an event it cannot manage.
    await expectJson(put(first.id, { group_type: 0 }, organizer.credentials), 200);
    await expectError(put(first.id, { group_type: 1 }, organizer.credentials), 403, "rest_forbidden");
    expect(hidden.event_group).toBe(group);
  });

  it("keeps an event with group_type 0 out of a group's passe-partout, dates and reports", async () => {
    const group = unique("Loose ");
    const day = await createEvent({ event_name: uname("Day "), group_type: 1, event_group: group });
    const loose = await createEvent({ event_name: uname("Loose "), group_type: 0, event_group: group });
    const pass = await createEvent({ event_name: uname("Pass "), group_type: 3, event_group: group, add_dashboard_orders_needed: true });
    const passType = await createTicketType(pass.id, { name: "Pass", price: 0 });
    await createTicketType(day.id, { name: "Pass", price: 0 });
    await createTicketType(loose.id, { name: "Pass", price: 0 });
    const order = await expectJson(
      call("POST", "/admin/orders", { body: { event_id: pass.id, name: "Pat", email: "pat@example.com", tickets: [{ [passType.id]: 1 }] } }),
      201,
    );
    const issued = await db.select({ eventId: ticketsTable.eventId }).from(ticketsTable).where(eq(ticketsTable.orderId, order.id));
    // The group's day gets the ticket; the loose event none, and the pass itself none either (decisions.md 15).
    expect(issued.map((t) => t.eventId)).toEqual([day.id]);
    const form = await expectJson(call("GET", `/events/${day.id}/order-form`), 200);
    expect(JSON.stringify(form)).not.toContain(String(loose.event_name));
  });

  it("lets an administrator see and change every event", async () => {
    const organizer = await createUser("organizer");
    const orgEvent = await expectJson(post({ event_name: uname("Org ") }, organizer.credentials), 201);
    const admin = await createUser("administrator");
    const as = admin.credentials;
    expect((await list(`/admin/events?include=${orgEvent.id}`, as)).ids).toEqual([orgEvent.id]);
    await expectJson(call("GET", `/admin/events/${orgEvent.id}`, { auth: as }), 200);
    expect((await expectJson(put(orgEvent.id, { stock: 50 }, as), 200)).stock).toBe(50);
    const total = await list("/admin/events", as);
    const bootstrap = await list("/admin/events");
    expect(total.total).toBe(bootstrap.total);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// DELETE /admin/events/<id>
// ---------------------------------------------------------------------------------------------------------------

describe("DELETE /admin/events/<id>", () => {
  it("answers {deleted: true, previous} with previous the event without _links", async () => {
    const event = await createEvent({ event_name: uname("Gone "), stock: 7, email: { subject: "S" } });
    const { _links, ...withoutLinks } = event;
    const body = await expectJson(call("DELETE", `/admin/events/${event.id}`), 200);
    expect(body).toStrictEqual({ deleted: true, previous: withoutLinks });
    await expectError(call("GET", `/admin/events/${event.id}`), 404, "rest_event_invalid_id");
    await expectError(call("DELETE", `/admin/events/${event.id}`), 404, "rest_event_invalid_id");
    expect((await list(`/admin/events?include=${event.id}`)).body).toEqual([]);
  });

  it("never gives a deleted event's id to a new event", async () => {
    const event = await createEvent({ event_name: uname("Newest ") });
    await expectJson(call("DELETE", `/admin/events/${event.id}`), 200);
    const next = await createEvent({ event_name: uname("Next ") });
    expect(next.id).toBeGreaterThan(event.id);
  });

  it("deletes the event's ticket types, input fields and scan keys", async () => {
    const event = await createEvent({ event_name: uname("Catalogue ") });
    const type = await createTicketType(event.id);
    const field = await createInputField(event.id);
    const key = await createScanKey(event.id);
    await expectJson(call("DELETE", `/admin/events/${event.id}`), 200);
    await expectError(call("GET", `/admin/events/${event.id}/ticket-types/${type.id}`), 404, "rest_event_invalid_id");
    await expectError(call("GET", `/admin/events/${event.id}/input-fields/${field.id}`), 404, "rest_event_invalid_id");
    await expectError(call("GET", `/admin/events/${event.id}/scan-keys/${key.key}`), 404, "rest_event_invalid_id");
    expect(await db.select().from(ticketTypesTable).where(eq(ticketTypesTable.eventId, event.id))).toEqual([]);
  });

  it("refuses an event with orders with 409 unless ?force=true, which deletes its orders and tickets", async () => {
    const event = await createEvent({ event_name: uname("Sold ") });
    const type = await createTicketType(event.id);
    const orderA = await insertOrder(event.id, [type.id, type.id]);
    const orderB = await insertOrder(event.id);
    const keep = await createEvent({ event_name: uname("Keep ") });
    const keepType = await createTicketType(keep.id);
    const keepOrder = await insertOrder(keep.id, [keepType.id]);

    await expectError(call("DELETE", `/admin/events/${event.id}`), 409, "rest_conflict");
    await expectError(call("DELETE", `/admin/events/${event.id}?force=false`), 409, "rest_conflict");
    await expectJson(call("GET", `/admin/events/${event.id}`), 200);
    expect(await db.select().from(ordersTable).where(eq(ordersTable.eventId, event.id))).toHaveLength(2);

    const { _links, ...previous } = event;
    expect(await expectJson(call("DELETE", `/admin/events/${event.id}?force=true`), 200)).toStrictEqual({ deleted: true, previous });
    expect(
      await db
        .select()
        .from(ordersTable)
        .where(inArray(ordersTable.id, [orderA, orderB])),
    ).toEqual([]);
    expect(await db.select().from(ticketsTable).where(eq(ticketsTable.eventId, event.id))).toEqual([]);
    await expectError(call("GET", `/admin/events/${event.id}`), 404, "rest_event_invalid_id");
    // Another event's orders are untouched.
    expect(await db.select().from(ordersTable).where(eq(ordersTable.id, keepOrder))).toHaveLength(1);
    expect(await db.select().from(ticketsTable).where(eq(ticketsTable.eventId, keep.id))).toHaveLength(1);
  });

  it("refuses an invalid force value", async () => {
    const event = await createEvent({ event_name: uname("Force ") });
    await expectInvalid(call("DELETE", `/admin/events/${event.id}?force=yes`), ["force"]);
    await expectJson(call("GET", `/admin/events/${event.id}`), 200);
  });

  it("refuses to delete an event another event links to, with or without force", async () => {
    const target = await createEvent({ event_name: uname("Target ") });
    const linker = await createEvent({ event_name: uname("Linker "), stock_link: target.id });
    await expectError(call("DELETE", `/admin/events/${target.id}`), 409, "rest_conflict");
    await expectError(call("DELETE", `/admin/events/${target.id}?force=true`), 409, "rest_conflict");
    await expectJson(call("GET", `/admin/events/${target.id}`), 200);
    await expectJson(put(linker.id, { stock_link: 0 }), 200);
    await expectJson(call("DELETE", `/admin/events/${target.id}`), 200);
    // The linking event itself can always go.
    const target2 = await createEvent({ event_name: uname("Target ") });
    const linker2 = await createEvent({ event_name: uname("Linker "), stock_link: target2.id });
    await expectJson(call("DELETE", `/admin/events/${linker2.id}`), 200);
    await expectJson(call("DELETE", `/admin/events/${target2.id}`), 200);
  });

  it("refuses to delete an event named in another event's unique_event_ids or seat plan", async () => {
    const target = await createEvent({ event_name: uname("Target ") });
    const unique = await createEvent({ event_name: uname("Uniq "), unique_users_needed: true, unique_event_ids: String(target.id) });
    const seated = await createEvent({
      event_name: uname("Seated "),
      seats_needed: true,
      seats: { seats_config: "A:1-2", seats_format: "%s%d", linked_event: target.id },
    });
    await expectError(call("DELETE", `/admin/events/${target.id}?force=true`), 409, "rest_conflict");
    await expectJson(put(unique.id, { unique_event_ids: "" }), 200);
    await expectError(call("DELETE", `/admin/events/${target.id}`), 409, "rest_conflict");
    await expectJson(put(seated.id, { seats: { linked_event: 0 } }), 200);
    await expectJson(call("DELETE", `/admin/events/${target.id}`), 200);
  });

  it("is not blocked by references held while their flag is off, even for an administrator's forced delete; they let go of it (decisions.md 15)", async () => {
    const target = await createEvent({ event_name: uname("Target ") });
    const type = await createTicketType(target.id);
    await insertOrder(target.id, [type.id]);
    const organizer = await createUser("organizer");
    const holder = await expectJson(post({ event_name: uname("Holder ") }, organizer.credentials), 201);
    const other = await createEvent({ event_name: uname("Other ") });
    // Written before section 15, when references were not checked while their flag was off.
    await db
      .update(eventsTable)
      .set({
        uniqueEventIds: [other.id, target.id],
        seats: { number_of_seats: 0, seats_format: "%s%d", seats_config: "A:1-2", linked_event: target.id },
      })
      .where(eq(eventsTable.id, holder.id));

    await expectError(call("DELETE", `/admin/events/${target.id}`), 409, "rest_conflict"); // its order, not the references
    await expectJson(call("DELETE", `/admin/events/${target.id}?force=true`), 200);
    await expectError(call("GET", `/admin/events/${target.id}`), 404, "rest_event_invalid_id");
    const after = await expectJson(call("GET", `/admin/events/${holder.id}`), 200);
    expect(after).toMatchObject({ unique_event_ids: String(other.id), unique_users_needed: false, seats_needed: false });
    expect(after.seats).toEqual({ number_of_seats: 0, seats_format: "%s%d", seats_config: "A:1-2", linked_event: 0 });
    // Without orders, no force is needed either.
    const plain = await createEvent({ event_name: uname("Target ") });
    await db
      .update(eventsTable)
      .set({ uniqueEventIds: [plain.id] })
      .where(eq(eventsTable.id, holder.id));
    await expectJson(call("DELETE", `/admin/events/${plain.id}`), 200);
    expect((await expectJson(call("GET", `/admin/events/${holder.id}`), 200)).unique_event_ids).toBe("");
  });

  it("removes the deleted id from every user's authorised_events", async () => {
    const organizer = await createUser("organizer");
    const kept = await expectJson(post({ event_name: uname("Kept ") }, organizer.credentials), 201);
    const gone = await expectJson(post({ event_name: uname("Gone ") }, organizer.credentials), 201);
    const colleague = await createUser("organizer", { authorised_events: [gone.id] });
    expect((await userOf(organizer.id)).authorised_events).toEqual([kept.id, gone.id]);

    await expectJson(call("DELETE", `/admin/events/${gone.id}`, { auth: organizer.credentials }), 200);
    expect((await userOf(organizer.id)).authorised_events).toEqual([kept.id]);
    expect((await userOf(colleague.id)).authorised_events).toEqual([]);
    expect((await list("/admin/events?per_page=100", organizer.credentials)).ids).toEqual([kept.id]);
  });
});

describe("region: where the event's object is created (docs/scale.md 'Near the venue')", () => {
  it("takes a location hint on create, or follows the time zone, or names none", async () => {
    const named = await expectJson(post({ event_name: uname("Region "), region: "apac", timezone: "Europe/Amsterdam" }), 201);
    expect(named.region).toBe("apac");
    const zoned = await expectJson(post({ event_name: uname("Region "), timezone: "America/New_York" }), 201);
    expect(zoned.region).toBe("enam");
    const followed = await expectJson(post({ event_name: uname("Region "), region: "", timezone: "Europe/Warsaw" }), 201);
    expect(followed.region).toBe("eeur");
    const nowhere = await expectJson(post({ event_name: uname("Region "), timezone: "UTC" }), 201);
    expect(nowhere.region).toBe("");
    expect((await expectJson(call("GET", `/admin/events/${zoned.id}`), 200)).region).toBe("enam");
  });

  it("refuses a region that is not a location hint, creating nothing", async () => {
    const name = uname("Bad region ");
    const err = await expectInvalid(post({ event_name: name, region: "mars" }), ["region"]);
    expect(err.data.params!.region).toBe('must be one of wnam, enam, sam, weur, eeur, apac, oc, afr, me, or "" to follow the time zone');
    expect(await db.select().from(eventsTable).where(eq(eventsTable.eventName, name))).toEqual([]);
  });

  it("is set once: an update may send it back unchanged, never change it, and a new time zone does not move it", async () => {
    const event = await expectJson(post({ event_name: uname("Fixed region "), timezone: "Europe/London" }), 201);
    expect(event.region).toBe("weur");
    const err = await expectInvalid(put(event.id, { region: "apac" }), ["region"]);
    expect(err.data.params!.region).toBe("is read-only");
    const same = await expectJson(put(event.id, { region: "weur", timezone: "Asia/Tokyo" }), 200);
    expect(same).toMatchObject({ region: "weur", timezone: "Asia/Tokyo" });
  });
});

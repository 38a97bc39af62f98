import { env } from "cloudflare:workers";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { call, expectError, expectJson, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType } from "../../helpers/catalogue";
import { readPage } from "../../pdf/pdf-inspect";

/**
 * `GET/PUT /tickets/<uid>/personalisation` and the `GET /tickets/<uid>/personalise` page (decisions.md 7 and 13
 * "Flows"): public, the order uid is the capability. Storage is shared: every test makes its own event and order.
 */

const pub = { key: null, auth: null } as const;
const getNeeds = (uid: string) => call("GET", `/tickets/${uid}/personalisation`, pub);
const putNeeds = (uid: string, tickets: { ticket_id: string; fields: Record<string, string> }[]) =>
  call("PUT", `/tickets/${uid}/personalisation`, { ...pub, body: { tickets } });

interface NeedsView {
  tickets: {
    ticket_id: string;
    ticket_type: string;
    personalised: boolean;
    fields: { id: string; name: string; type: string; value: string; required: boolean }[];
  }[];
}

/**
 * An event with personalised fields Attendee (required text) and Nickname (optional, at most 10 characters), a type
 * Named asking both (with a layout showing Attendee), a type Plain asking nothing, and an order of 2 Named + 1 Plain.
 */
async function setup() {
  const event = await createEvent({ event_name: unique("Pers "), add_dashboard_orders_needed: true });
  const attendee = await createInputField(event.id, { name: "Attendee", type: "text", is_personalised: true, is_required: true });
  const nickname = await createInputField(event.id, { name: "Nickname", type: "text", is_personalised: true, is_required: false, max: "10" });
  const named = await createTicketType(event.id, { name: "Named", personalise: "Attendee,Nickname", layout: "Attendee,Name" });
  const plain = await createTicketType(event.id, { name: "Plain" });
  const order = await expectJson(
    call("POST", "/admin/orders", {
      body: { event_id: event.id, name: "Ada Lovelace", email: "ada@example.com", tickets: [{ [named.id]: 2 }, { [plain.id]: 1 }] },
    }),
    201,
  );
  const view = await expectJson<NeedsView>(getNeeds(order.uid), 200);
  const namedIds = view.tickets.filter((t) => t.ticket_type === "Named").map((t) => t.ticket_id);
  const plainId = view.tickets.find((t) => t.ticket_type === "Plain")!.ticket_id;
  return { event, attendee, nickname, named, plain, order, namedIds, plainId };
}

const ticketOf = (view: NeedsView, id: string) => view.tickets.find((t) => t.ticket_id === id)!;

describe("GET /tickets/<uid>/personalisation", () => {
  it("lists every ticket with the personalised fields its type asks for, without credentials", async () => {
    const { order, attendee, nickname } = await setup();
    const view = await expectJson<NeedsView>(getNeeds(order.uid), 200);
    expect(Object.keys(view)).toEqual(["tickets"]);
    const admin = await expectJson(call("GET", `/admin/tickets/${order.id}`), 200);
    expect(view.tickets.map((t) => t.ticket_id).sort()).toEqual(admin.tickets.map((t: any) => t.ticket_id).sort());
    expect(view.tickets).toHaveLength(3);
    for (const t of view.tickets) expect(Object.keys(t).sort()).toEqual(["fields", "personalised", "ticket_id", "ticket_type"]);

    const named = view.tickets.filter((t) => t.ticket_type === "Named");
    expect(named).toHaveLength(2);
    for (const t of named) {
      expect(t.personalised).toBe(false);
      expect(t.fields).toEqual([
        { id: attendee.id, name: "Attendee", type: "text", value: "", required: true },
        { id: nickname.id, name: "Nickname", type: "text", value: "", required: false },
      ]);
    }
    expect(view.tickets.filter((t) => t.ticket_type === "Plain")).toEqual([{ ticket_id: expect.any(String), ticket_type: "Plain", personalised: true, fields: [] }]);
  });

  it("an unknown uid is a 404 on every route", async () => {
    const uid = "f".repeat(40);
    await expectError(getNeeds(uid), 404, "rest_order_invalid_id");
    await expectError(putNeeds(uid, [{ ticket_id: "x", fields: {} }]), 404, "rest_order_invalid_id");
    await expectError(call("GET", `/tickets/${uid}/personalise`, pub), 404, "rest_order_invalid_id");
  });
});

describe("PUT /tickets/<uid>/personalisation", () => {
  it("saves one ticket's values, shows them, and refuses a second save with 409", async () => {
    const { order, attendee, nickname, namedIds } = await setup();
    const [first, second] = namedIds as [string, string];
    const saved = await expectJson<NeedsView>(putNeeds(order.uid, [{ ticket_id: first, fields: { [attendee.id]: "Łukasz" } }]), 200);
    expect(ticketOf(saved, first)).toEqual({
      ticket_id: first,
      ticket_type: "Named",
      personalised: true,
      fields: [
        { id: attendee.id, name: "Attendee", type: "text", value: "Łukasz", required: true },
        { id: nickname.id, name: "Nickname", type: "text", value: "", required: false },
      ],
    });
    expect(ticketOf(saved, second).personalised).toBe(false);
    expect(await expectJson<NeedsView>(getNeeds(order.uid), 200)).toEqual(saved);

    await expectError(putNeeds(order.uid, [{ ticket_id: first, fields: { [attendee.id]: "Someone Else" } }]), 409, "ticket_already_personalised");
    // A batch naming it with a fresh ticket changes nothing either.
    await expectError(
      putNeeds(order.uid, [
        { ticket_id: second, fields: { [attendee.id]: "Zofia" } },
        { ticket_id: first, fields: { [attendee.id]: "Someone Else" } },
      ]),
      409,
      "ticket_already_personalised",
    );
    const after = await expectJson<NeedsView>(getNeeds(order.uid), 200);
    expect(ticketOf(after, first).fields[0]!.value).toBe("Łukasz");
    expect(ticketOf(after, second).personalised).toBe(false);
  });

  it("validates values like order input fields and saves nothing from a refused batch", async () => {
    const { order, attendee, nickname, namedIds, plainId } = await setup();
    const [first, second] = namedIds as [string, string];
    const ok = { ticket_id: second, fields: { [attendee.id]: "Valid Name" } };

    await expectError(putNeeds(order.uid, [ok, { ticket_id: first, fields: { [nickname.id]: "Nick" } }]), 400, "order_required_fields");
    await expectError(putNeeds(order.uid, [ok, { ticket_id: first, fields: { [attendee.id]: "   " } }]), 400, "order_required_fields");
    await expectError(putNeeds(order.uid, [ok, { ticket_id: first, fields: { [attendee.id]: "x".repeat(51) } }]), 400, "order_illegal_field_value");
    await expectError(putNeeds(order.uid, [ok, { ticket_id: first, fields: { [attendee.id]: "Ann", [nickname.id]: "x".repeat(11) } }]), 400, "order_illegal_field_value");
    await expectError(putNeeds(order.uid, [ok, { ticket_id: first, fields: { [attendee.id]: "Ann", nope: "x" } }]), 400, "order_illegal_field_value");

    const unknown = await expectError(putNeeds(order.uid, [ok, { ticket_id: "NoSuchTicket0000", fields: { [attendee.id]: "Ann" } }]), 400, "rest_invalid_param");
    expect(unknown.data.params?.tickets).toContain("NoSuchTicket0000");
    await expectError(putNeeds(order.uid, [{ ticket_id: plainId, fields: {} }]), 400, "rest_invalid_param");
    await expectError(putNeeds(order.uid, [ok, ok]), 400, "rest_invalid_param");
    await expectError(putNeeds(order.uid, []), 400, "rest_invalid_param");

    const view = await expectJson<NeedsView>(getNeeds(order.uid), 200);
    for (const id of namedIds) expect(ticketOf(view, id).personalised).toBe(false);

    // 50 characters is fine.
    const fifty = "y".repeat(50);
    const saved = await expectJson<NeedsView>(putNeeds(order.uid, [{ ticket_id: first, fields: { [attendee.id]: fifty } }]), 200);
    expect(ticketOf(saved, first).fields[0]!.value).toBe(fifty);
  });

  it("a password field cannot be personalised, so no password is ever asked for or shown (ticketing-api.md)", async () => {
    const { event, order, attendee } = await setup();
    const refused = await expectError(
      call("POST", `/admin/events/${event.id}/input-fields`, { body: { name: unique("Pin"), type: "password", is_personalised: true } }),
      400,
      "rest_invalid_param",
    );
    expect(Object.keys(refused.data.params ?? {})).toEqual(["is_personalised"]);
    await expectError(call("PUT", `/admin/events/${event.id}/input-fields/${attendee.id}`, { body: { type: "password" } }), 400, "rest_invalid_param");
    const view = await expectJson<NeedsView>(getNeeds(order.uid), 200);
    for (const t of view.tickets) for (const f of t.fields) expect(f.type).not.toBe("password");
    const html = await (await call("GET", `/tickets/${order.uid}/personalise`, pub)).text();
    expect(html).not.toContain('type="password"');
  });

  it("once every ticket is personalised the download works and shows the names", async () => {
    const { order, attendee, namedIds } = await setup();
    const [first, second] = namedIds as [string, string];
    await expectJson(putNeeds(order.uid, [{ ticket_id: first, fields: { [attendee.id]: "Łukasz Nowak" } }]), 200);
    await expectError(call("GET", `/tickets/${order.uid}`, pub), 409, "tickets_not_personalised");
    expect(await env.FILES.head(`tickets/${order.uid}.pdf`)).toBeNull();
    await expectJson(putNeeds(order.uid, [{ ticket_id: second, fields: { [attendee.id]: "Grace Hopper" } }]), 200);

    const res = await call("GET", `/tickets/${order.uid}`, pub);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/pdf");
    const doc = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()));
    expect(doc.getPageCount()).toBe(3);
    const all = doc.getPages().flatMap((p) => readPage(p).lines.map((l) => l.text));
    // Without fonts in R2 the standard font draws Ł as L (docs/tickets-pdf.md); with them it is kept.
    expect(all.filter((l) => l === "Łukasz Nowak" || l === "Lukasz Nowak")).toHaveLength(1);
    expect(all.filter((l) => l === "Grace Hopper")).toHaveLength(1);
    expect(all.filter((l) => l === "Ada Lovelace")).toHaveLength(3);
    expect(await env.FILES.head(`tickets/${order.uid}.pdf`)).not.toBeNull();
  });
});

describe("GET /tickets/<uid>/personalise", () => {
  it("is an HTML page with a form per ticket that needs personalising", async () => {
    const { order, attendee, nickname, namedIds, plainId } = await setup();
    const [first, second] = namedIds as [string, string];
    const res = await call("GET", `/tickets/${order.uid}/personalise`, pub);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html.match(/<form /g)).toHaveLength(2);
    for (const id of namedIds) expect(html).toContain(`data-ticket="${id}"`);
    expect(html).not.toContain(`data-ticket="${plainId}"`);
    expect(html).toContain(`name="${attendee.id}"`);
    expect(html).toContain(`name="${nickname.id}"`);
    expect(html).toContain(`/tickets/${order.uid}/personalisation`);

    await expectJson(putNeeds(order.uid, [{ ticket_id: first, fields: { [attendee.id]: "<b>Ann</b>" } }]), 200);
    const after = await (await call("GET", `/tickets/${order.uid}/personalise`, pub)).text();
    const formOf = (id: string) => after.slice(after.indexOf(`data-ticket="${id}"`)).split("</form>")[0]!;
    expect(formOf(first)).toContain("disabled");
    expect(formOf(first)).toContain("&lt;b&gt;Ann&lt;/b&gt;");
    expect(after).not.toContain("<b>Ann</b>");
    expect(formOf(second)).not.toContain("disabled");
    expect(formOf(second)).toContain('type="submit"');
  });

  it("points to the order's page (the download; the wallet passes where configured) once every ticket is personalised", async () => {
    const { order, attendee, namedIds } = await setup();
    // This deployment has no wallet: the link does not promise one (wallet-links.test.ts has the page with one).
    const ready = `<p id="ready"%s><a href="/ticketing/v1/shop/orders/${order.uid}">Your tickets are ready: download them</a></p>`;
    const page = async () => (await call("GET", `/tickets/${order.uid}/personalise`, pub)).text();
    // Shown by the page's script once the last form is saved; hidden until then.
    expect(await page()).toContain(ready.replace("%s", " hidden"));
    for (const id of namedIds) await expectJson(putNeeds(order.uid, [{ ticket_id: id, fields: { [attendee.id]: "Ada" } }]), 200);
    expect(await page()).toContain(ready.replace("%s", ""));
  });
});

describe("select fields", () => {
  it("offer their choices as options (never as a value), render as a list on the page, and save a choice", async () => {
    const event = await createEvent({ event_name: unique("Pers select "), add_dashboard_orders_needed: true });
    const size = await createInputField(event.id, { name: "Size", type: "select", value: "S,M,L", is_personalised: true, is_required: true });
    const type = await createTicketType(event.id, { name: "Shirt", personalise: "Size" });
    const order = await expectJson(
      call("POST", "/admin/orders", { body: { event_id: event.id, name: "Ada Lovelace", email: "ada@example.com", tickets: [{ [type.id]: 1 }] } }),
      201,
    );
    const view = await expectJson<NeedsView>(getNeeds(order.uid), 200);
    const ticket = view.tickets[0]!;
    expect(ticket.fields).toEqual([{ id: size.id, name: "Size", type: "select", value: "", required: true, options: ["S", "M", "L"] }]);

    const page = await (await call("GET", `/tickets/${order.uid}/personalise`, pub)).text();
    expect(page).toContain(`<select name="${size.id}" required>`);
    expect(page).toContain("<option>M</option>");
    expect(page).not.toContain('value="S,M,L"');

    await expectError(putNeeds(order.uid, [{ ticket_id: ticket.ticket_id, fields: { [size.id]: "XL" } }]), 400, "order_illegal_field_value");
    const saved = await expectJson<NeedsView>(putNeeds(order.uid, [{ ticket_id: ticket.ticket_id, fields: { [size.id]: "M" } }]), 200);
    expect(saved.tickets[0]!.fields[0]).toMatchObject({ value: "M", options: ["S", "M", "L"] });
    const after = await (await call("GET", `/tickets/${order.uid}/personalise`, pub)).text();
    expect(after).toContain("<option selected>M</option>");
    expect(after).toContain(`<select name="${size.id}" disabled required>`);
  });
});

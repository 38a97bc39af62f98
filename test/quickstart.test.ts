import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { count, eq } from "drizzle-orm";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import devVarsExample from "../.dev.vars.example?raw";
import quickstart from "../docs/quickstart.md?raw";
import { curlCommand, DEMO_STEPS, DEV_BASE, DEV_CREDENTIALS, runDemo, type DemoCall, type DemoStep, type FetchLike } from "../scripts/demo-steps";
import { orders } from "../src/db/schema";
import worker from "../src/index";
import { ADMIN, API_KEY, BASE, call, expectJson } from "./helpers/api";
import { db } from "./helpers/catalogue";

/**
 * docs/quickstart.md, `npm run demo` and this test share one list of steps (scripts/demo-steps.ts). Here the steps run
 * against the service inside workerd, every answer is checked, and the document is checked to show each step's
 * command in the steps' order.
 */

type Json = Record<string, any>;

const TEST_CREDENTIALS = { apiKey: API_KEY, username: ADMIN.username, password: ADMIN.password };

/** The Worker's fetch, its deferred work (the event object learning the order's tickets) done before it answers. */
const serviceFetch: FetchLike = async (url, init) => {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url, init), env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
};

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function stepOf(calls: DemoCall[], path: string, which = 0): DemoCall {
  const found = calls.filter((c) => c.step.path === path)[which];
  expect(found, `a call of ${path}`).toBeDefined();
  return found!;
}

describe("the quickstart's steps (scripts/demo-steps.ts) against the service", () => {
  it("every step answers as docs/quickstart.md says: event, type, shop page, scan key, order and its replay, tickets, PDF, admitted, already scanned", async () => {
    const calls = await runDemo(serviceFetch, BASE, TEST_CREDENTIALS);
    expect(calls.map((c) => `${c.method} ${c.step.path}`)).toEqual(DEMO_STEPS.map((s) => `${s.method} ${s.path}`));

    const event = stepOf(calls, "/admin/events");
    expect(event.status).toBe(201);
    const eventId = (event.json as Json).id as number;
    expect(event.json).toMatchObject({ event_name: "Quickstart concert", add_dashboard_orders_needed: true });
    expect(eventId).toBeGreaterThan(0);

    const type = stepOf(calls, "/admin/events/$EVENT_ID/ticket-types");
    expect([type.status, type.path]).toEqual([201, `/admin/events/${eventId}/ticket-types`]);
    const typeId = (type.json as Json).id as string;
    expect(type.json).toMatchObject({ name: "Regular", price: 25 });
    expect(typeId).toMatch(/^v[0-9a-f]{5}$/);

    // The event's shop page: public (no key), HTML, the event's own page (decisions.md 15 "The box office").
    const shop = stepOf(calls, "/shop/$EVENT_ID");
    expect([shop.status, shop.path]).toEqual([200, `/shop/${eventId}`]);
    expect(shop.headers).toStrictEqual({});
    expect(shop.contentType).toMatch(/^text\/html/);
    expect(text(shop.bytes)).toContain("Quickstart concert");
    // Its order form, with the ticket type just made (the form's contract: one count input per type).
    expect(text(shop.bytes)).toContain(`<form id="order-form" method="post" action="/ticketing/v1/shop/${eventId}?lang=`);
    expect(text(shop.bytes)).toContain(`name="ticket_${typeId}"`);
    expect(shop.step.page).toBe("The event's shop page");

    const key = stepOf(calls, "/admin/events/$EVENT_ID/scan-keys");
    expect(key.status).toBe(201);
    const scanKey = (key.json as Json).key as string;
    expect(scanKey).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(key.json).toMatchObject({ level: 0, location: "Main entrance" });

    // The dashboard order, sent with its Idempotency-Key and the tickets as a list of {"<type id>": count} maps.
    const order = stepOf(calls, "/admin/orders");
    expect(order.status).toBe(201);
    expect(order.headers["Idempotency-Key"]).toBe(`quickstart-${eventId}`);
    expect(JSON.parse(order.body!)).toStrictEqual({ event_id: eventId, name: "Ann Smith", email: "ann@example.com", tickets: [{ [typeId]: 2 }] });
    const placed = order.json as Json;
    expect(placed).toMatchObject({ event_id: eventId, payment_status: "dashboard", payment_id: "", num_tickets: 2, total: 50, name: "Ann Smith" });
    expect(placed.uid).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(order.answerHeaders.get("Idempotent-Replayed")).toBeNull();

    // The same request again: the first answer, replayed; still one order.
    const replay = stepOf(calls, "/admin/orders", 1);
    expect(replay.status).toBe(201);
    expect(replay.headers["Idempotency-Key"]).toBe(`quickstart-${eventId}`);
    expect(replay.answerHeaders.get("Idempotent-Replayed")).toBe("true");
    expect(replay.json).toStrictEqual(placed);
    const [ordersOfEvent] = await db.select({ n: count() }).from(orders).where(eq(orders.eventId, eventId));
    expect(ordersOfEvent!.n).toBe(1);

    // The order's tickets and the download link.
    const tickets = stepOf(calls, "/admin/tickets/$ORDER_ID");
    expect([tickets.status, tickets.path]).toEqual([200, `/admin/tickets/${placed.id}`]);
    const view = tickets.json as Json;
    expect(view.order_id).toBe(placed.id);
    expect(view.tickets).toHaveLength(2);
    for (const t of view.tickets) expect(t).toMatchObject({ event_id: eventId, event_name: "Quickstart concert", ticket_type: "Regular", scans: [] });
    expect(view._links.download).toEqual([{ href: `${BASE}/tickets/${placed.uid}` }]);
    const ticketId = view.tickets[0].ticket_id as string;

    // The PDF: no credentials sent, application/pdf, a PDF of one page per ticket.
    const pdf = stepOf(calls, "/tickets/$ORDER_UID");
    expect([pdf.status, pdf.path]).toEqual([200, `/tickets/${placed.uid}`]);
    expect(pdf.headers).toStrictEqual({});
    expect(pdf.contentType).toBe("application/pdf");
    expect(text(pdf.bytes.slice(0, 5))).toBe("%PDF-");
    expect((await PDFDocument.load(pdf.bytes)).getPageCount()).toBe(2);

    // Scans: the scan key in X-EVT-API-KEY, no Basic; admitted once, then refused as already scanned.
    const first = stepOf(calls, "/scans");
    const second = stepOf(calls, "/scans", 1);
    for (const scan of [first, second]) {
      expect(scan.headers).toStrictEqual({ "X-EVT-API-KEY": scanKey, "Content-Type": "application/json" });
      expect(JSON.parse(scan.body!)).toStrictEqual({ id: ticketId });
      expect(scan.status).toBe(200);
    }
    const admitted = first.json as Json;
    expect(admitted).toMatchObject({
      order_id: placed.id,
      qrcode: ticketId,
      event: "Quickstart concert",
      name: "Ann Smith",
      email: "ann@example.com",
      level: 0,
      type: "Regular",
      status: true,
      location: "Main entrance",
    });
    expect(admitted.error).toBeUndefined();
    expect(admitted.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(second.json).toStrictEqual({ ...admitted, status: false, error: "This scan has already been done" });
  });

  it("a run stops at the first answer the quickstart does not expect: without add_dashboard_orders_needed, the order is refused", async () => {
    const steps: DemoStep[] = DEMO_STEPS.map((s, i) => (i === 0 ? { ...s, body: '{"event_name": "Quickstart without dashboard orders"}' } : s));
    const seen: DemoCall[] = [];
    await expect(runDemo(serviceFetch, BASE, TEST_CREDENTIALS, (c) => seen.push(c), steps)).rejects.toThrow(
      /^step 5 \(POST \/admin\/orders\) answered 400, not 201: .*order_dashboard_disabled/,
    );
    expect(seen.map((c) => c.status)).toEqual([201, 201, 200, 201, 400]);
  });
});

describe("docs/quickstart.md", () => {
  it("shows each step's curl command, in the order of the steps, and sets each variable a step saves before the next step", () => {
    let from = 0;
    for (const [i, step] of DEMO_STEPS.entries()) {
      const command = curlCommand(step);
      const at = quickstart.indexOf(command, from);
      expect(at, `step ${i + 1} (${step.title}) should follow step ${i} in docs/quickstart.md as:\n\n${command}\n`).toBeGreaterThanOrEqual(0);
      const next = DEMO_STEPS[i + 1];
      const until = next ? quickstart.indexOf(curlCommand(next), at + command.length) : quickstart.length;
      const between = quickstart.slice(at + command.length, until < 0 ? quickstart.length : until);
      for (const name of Object.keys(step.saves ?? {}))
        expect(between, `docs/quickstart.md should set ${name} after step ${i + 1}`).toMatch(new RegExp(`^${name}=\\S+`, "m"));
      from = at + command.length;
    }
  });

  it("carries a development ORDERING_KEY and CORS_ORIGINS, so a shop front or an embed on a local page works at once", async () => {
    const vars = Object.fromEntries([...devVarsExample.matchAll(/^([A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    const origins = (vars.CORS_ORIGINS ?? "").split(",").map((o) => o.trim());
    expect(vars.ORDERING_KEY, "ORDERING_KEY in .dev.vars.example").toMatch(/\S/);
    expect(origins.length, "CORS_ORIGINS in .dev.vars.example").toBeGreaterThan(0);
    const local = { ...env, ORDERING_KEY: vars.ORDERING_KEY, CORS_ORIGINS: vars.CORS_ORIGINS } as typeof env;
    const fetchLocal = async (path: string, init: RequestInit) => {
      const ctx = createExecutionContext();
      const response = await worker.fetch(new Request(`${BASE}${path}`, init), local, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };
    const event = await expectJson(call("POST", "/admin/events", { body: { event_name: "Local shop" } }), 201);
    for (const origin of origins) {
      // The browser's preflight of a page served locally, then the order form with the publishable key.
      const preflight = await fetchLocal(`/events/${event.id}/order-form`, {
        method: "OPTIONS",
        headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-evt-api-key" },
      });
      expect(preflight.status, origin).toBe(204);
      expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe(origin);
      const form = await fetchLocal(`/events/${event.id}/order-form`, { headers: { Origin: origin, "X-EVT-API-KEY": vars.ORDERING_KEY! } });
      expect(form.status, origin).toBe(200);
      expect(form.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    }
  });

  it("uses the base address and the development credentials of .dev.vars.example", () => {
    expect(quickstart).toContain(`API=${DEV_BASE}\n`);
    const vars = Object.fromEntries([...devVarsExample.matchAll(/^([A-Z_]+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
    expect({ apiKey: vars.API_KEY, username: vars.ADMIN_USERNAME, password: vars.ADMIN_PASSWORD }).toStrictEqual(DEV_CREDENTIALS);
  });
});

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { logs, orders } from "../../../src/db/schema";
import worker from "../../../src/index";
import { expectError, expectJson, request, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { programStub, receivedBy, stubUrl, type StubBehaviour } from "../../helpers/stubs";

/**
 * reCAPTCHA v2 / Turnstile on customer orders (decisions.md 5.1, 5.4, 12 and 13): the token is verified by POSTing
 * `secret`, `response` and `remoteip` as a form to RECAPTCHA_VERIFY_URL (here the local stub), after name, email and
 * terms and before the sale window; a verifier that cannot be reached refuses the order and is logged.
 */

type Json = Record<string, any>;

const WRONG = "Wrong reCAPTCHA";

interface Shop {
  event: Json;
  types: Json[];
}

async function shop(event: Json = {}, types: Json[] = [{ name: "Regular", price: 10 }]): Promise<Shop> {
  const created = await createEvent({ event_name: unique("Captcha "), recaptcha_needed: true, ...event });
  const made: Json[] = [];
  for (const t of types) made.push(await createTicketType(created.id, t));
  return { event: created, types: made };
}

const lines = (s: Shop, counts: number[]) => s.types.map((t, i) => ({ [t.id]: counts[i] ?? 0 }));

function body(s: Shop, extra: Json = {}, counts: number[] = [1]): Json {
  return { name: "Ann Smith", email: "ann@example.com", tickets: lines(s, counts), ...extra };
}

/** The verifier of this deployment: the stub `name` answering as programmed. */
async function verifier(name: string, behaviour: StubBehaviour = {}) {
  await programStub(name, behaviour);
  return { RECAPTCHA_VERIFY_URL: stubUrl(`/${name}/siteverify`), RECAPTCHA_SECRET: "sekret" };
}

/** Calls the worker with some settings changed, as another deployment would be configured. */
async function callWith(overrides: Record<string, unknown>, req: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, { ...env, ...overrides } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function postWith(overrides: Record<string, unknown>, s: Shop, b: unknown, headers: Record<string, string> = {}) {
  return callWith(overrides, request("POST", `/events/${s.event.id}/orders`, { auth: null, body: b, headers }));
}

const ordersOf = (eventId: number) => db.select().from(orders).where(eq(orders.eventId, eventId));
const captchaLogs = (eventId: number) =>
  db
    .select()
    .from(logs)
    .where(and(eq(logs.eventId, eventId), eq(logs.logType, "Captcha")));

async function expectCaptchaFailed(res: Promise<Response>, s: Shop) {
  const err = await expectError(res, 400, "order_captcha_failed");
  expect(err.message).toBe(WRONG);
  expect(await ordersOf(s.event.id)).toEqual([]);
}

describe("customer orders on an event with recaptcha_needed", () => {
  it("without a token: order_captcha_failed, and the verifier is not asked", async () => {
    const name = unique("cap-missing");
    const settings = await verifier(name, { body: '{"success": true}' });
    const s = await shop();
    await expectCaptchaFailed(postWith(settings, s, body(s)), s);
    await expectCaptchaFailed(postWith(settings, s, body(s, { recaptcha_token: "" })), s);
    expect(await receivedBy(name)).toEqual([]);
  });

  it("the verifier says success false: order_captcha_failed, nothing logged (the verifier answered)", async () => {
    const name = unique("cap-false");
    const settings = await verifier(name, { body: '{"success": false, "error-codes": ["invalid-input-response"]}' });
    const s = await shop();
    await expectCaptchaFailed(postWith(settings, s, body(s, { recaptcha_token: "bad-token" })), s);
    expect(await receivedBy(name)).toHaveLength(1);
    expect(await captchaLogs(s.event.id)).toEqual([]);
  });

  it("the verifier says success true: the order is placed; the verifier got secret, response and remoteip as a form", async () => {
    const name = unique("cap-true");
    const settings = await verifier(name, { body: '{"success": true, "hostname": "shop.example"}' });
    const s = await shop();
    const order = await expectJson(postWith(settings, s, body(s, { recaptcha_token: "tok-123+/=" }), { "CF-Connecting-IP": "203.0.113.7" }), 201);
    expect(order.payment_status).toBe("open");
    expect(order.ip_address).toBe("203.0.113.7");
    expect(await ordersOf(s.event.id)).toHaveLength(1);

    const got = await receivedBy(name);
    expect(got).toHaveLength(1);
    expect(got[0]!.method).toBe("POST");
    expect(got[0]!.path).toBe(`/${name}/siteverify`);
    expect(got[0]!.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
    const form = new URLSearchParams(got[0]!.body);
    expect(Object.fromEntries(form)).toEqual({ secret: "sekret", response: "tok-123+/=", remoteip: "203.0.113.7" });
  });

  it("without CF-Connecting-IP no remoteip is sent", async () => {
    const name = unique("cap-noip");
    const settings = await verifier(name, { body: '{"success": true}' });
    const s = await shop();
    await expectJson(postWith(settings, s, body(s, { recaptcha_token: "tok" })), 201);
    const [req] = await receivedBy(name);
    expect(Object.fromEntries(new URLSearchParams(req!.body))).toEqual({ secret: "sekret", response: "tok" });
  });

  it("a verifier that cannot be reached refuses the order and writes a log entry", async () => {
    const s = await shop();
    // Port 9 (discard) on loopback: nothing listens there, the connection is refused.
    const unreachable = { RECAPTCHA_VERIFY_URL: "http://127.0.0.1:9/siteverify", RECAPTCHA_SECRET: "sekret" };
    await expectCaptchaFailed(postWith(unreachable, s, body(s, { recaptcha_token: "tok" })), s);
    const entries = await captchaLogs(s.event.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.description.length).toBeGreaterThan(0);
  });

  it("a verifier answering 5xx refuses the order and writes a log entry", async () => {
    const name = unique("cap-503");
    const settings = await verifier(name, { status: 503, body: "unavailable" });
    const s = await shop();
    await expectCaptchaFailed(postWith(settings, s, body(s, { recaptcha_token: "tok" })), s);
    const entries = await captchaLogs(s.event.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.description).toContain("503");
  });

  it("an unreadable verifier answer is never taken for success", async () => {
    for (const answer of ["not json", "{}", '{"success": "true"}', '{"success": 1}']) {
      const name = unique("cap-odd");
      const settings = await verifier(name, { body: answer });
      const s = await shop();
      await expectCaptchaFailed(postWith(settings, s, body(s, { recaptcha_token: "tok" })), s);
      expect(await receivedBy(name), answer).toHaveLength(1);
    }
  });

  it("a verifier refused by the outbound rule (https only, no private literals) is never called and refuses", async () => {
    const s = await shop();
    const refused = await callWith(
      { RECAPTCHA_VERIFY_URL: "http://10.0.0.1/siteverify", RECAPTCHA_SECRET: "sekret" },
      request("POST", `/events/${s.event.id}/orders`, { auth: null, body: body(s, { recaptcha_token: "tok" }) }),
    );
    const err = await expectError(refused, 400, "order_captcha_failed");
    expect(err.message).toBe(WRONG);
    expect(await captchaLogs(s.event.id)).toHaveLength(1);
  });

  it("Turnstile: the same protocol at another verify URL", async () => {
    const name = unique("turnstile");
    await programStub(name, { body: '{"success": true, "challenge_ts": "2026-01-01T00:00:00Z"}' });
    const s = await shop();
    const settings = { RECAPTCHA_VERIFY_URL: stubUrl(`/${name}/turnstile/v0/siteverify`), RECAPTCHA_SECRET: "0x4AAAA-secret" };
    await expectJson(postWith(settings, s, body(s, { recaptcha_token: "XXXX.DUMMY.TOKEN" }), { "CF-Connecting-IP": "2001:db8::1" }), 201);
    const [req] = await receivedBy(name);
    expect(req!.path).toBe(`/${name}/turnstile/v0/siteverify`);
    expect(Object.fromEntries(new URLSearchParams(req!.body))).toEqual({ secret: "0x4AAAA-secret", response: "XXXX.DUMMY.TOKEN", remoteip: "2001:db8::1" });
  });

  it("each order is verified with its own token (a token is not remembered)", async () => {
    const name = unique("cap-each");
    const settings = await verifier(name, { body: '{"success": true}' });
    const s = await shop();
    await expectJson(postWith(settings, s, body(s, { recaptcha_token: "one" })), 201);
    await expectJson(postWith(settings, s, body(s, { recaptcha_token: "two", email: "bob@example.com" })), 201);
    expect((await receivedBy(name)).map((r) => new URLSearchParams(r.body).get("response"))).toEqual(["one", "two"]);
  });
});

describe("where the captcha sits among the order rules", () => {
  it("name and email come first: the verifier is not asked for an order without them", async () => {
    const name = unique("cap-first");
    const settings = await verifier(name, { body: '{"success": false}' });
    const s = await shop();
    const err = await expectError(postWith(settings, s, { tickets: lines(s, [1]), recaptcha_token: "tok" }), 400, "order_missing_input");
    expect(err.message).toBe("Mandatory input not available");
    await expectError(postWith(settings, s, body(s, { email: "nope", recaptcha_token: "tok" })), 400, "order_invalid_email");
    expect(await receivedBy(name)).toEqual([]);
  });

  it("terms before captcha: terms not ticked is refused as such, without asking the verifier", async () => {
    const name = unique("cap-terms");
    const settings = await verifier(name, { body: '{"success": false}' });
    const s = await shop({ terms: "I agree" });
    const err = await expectError(postWith(settings, s, body(s, { recaptcha_token: "tok" })), 400, "order_terms_not_accepted");
    expect(err.message).toBe("You must agree to the terms");
    expect(await receivedBy(name)).toEqual([]);
    // Terms ticked: now the captcha decides.
    await expectCaptchaFailed(postWith(settings, s, body(s, { recaptcha_token: "tok", terms_accepted: true })), s);
    expect(await receivedBy(name)).toHaveLength(1);
  });

  it("captcha before the sale window: a bad token on a closed event is order_captcha_failed; a good one meets the window", async () => {
    const bad = await verifier(unique("cap-window-bad"), { body: '{"success": false}' });
    const good = await verifier(unique("cap-window-good"), { body: '{"success": true}' });
    const s = await shop({ start_date: "2098-01-01 00:00:00", event_date: "2099-01-01 20:00:00" });
    await expectCaptchaFailed(postWith(bad, s, body(s, { recaptcha_token: "tok" })), s);
    await expectCaptchaFailed(postWith(bad, s, body(s)), s);
    const err = await expectError(postWith(good, s, body(s, { recaptcha_token: "tok" })), 400, "order_event_inactive");
    expect(err.message).toBe(`Event ${s.event.id} is not active`);
  });

  it("captcha before the ticket lines: a bad token with nothing ordered, or a type missing, is order_captcha_failed", async () => {
    const settings = await verifier(unique("cap-lines"), { body: '{"success": false}' });
    const s = await shop({}, [
      { name: "Adult", price: 10 },
      { name: "Child", price: 5 },
    ]);
    await expectCaptchaFailed(postWith(settings, s, body(s, { recaptcha_token: "tok" }, [0, 0])), s);
    await expectCaptchaFailed(postWith(settings, s, { name: "Ann", email: "ann@example.com", tickets: [{ [s.types[0]!.id]: 1 }], recaptcha_token: "tok" }), s);
    // With a good token the same bodies meet the ticket-line rules.
    const good = await verifier(unique("cap-lines-ok"), { body: '{"success": true}' });
    await expectError(postWith(good, s, body(s, { recaptcha_token: "tok" }, [0, 0])), 400, "order_no_tickets");
    const missing = await expectError(
      postWith(good, s, { name: "Ann", email: "ann@example.com", tickets: [{ [s.types[0]!.id]: 1 }], recaptcha_token: "tok" }),
      400,
      "order_missing_ticket_type",
    );
    expect(missing.message).toBe("Missing ticket type: Child");
  });

  it("without recaptcha_needed no token is needed and the verifier is never asked, even when a token is sent", async () => {
    const name = unique("cap-off");
    const settings = await verifier(name, { body: '{"success": false}' });
    const s = await shop({ recaptcha_needed: false });
    await expectJson(postWith(settings, s, body(s)), 201);
    await expectJson(postWith(settings, s, body(s, { recaptcha_token: "ignored", email: "bob@example.com" })), 201);
    expect(await receivedBy(name)).toEqual([]);
  });

  it("dashboard orders skip the captcha", async () => {
    const name = unique("cap-dash");
    const settings = await verifier(name, { body: '{"success": false}' });
    const s = await shop({ add_dashboard_orders_needed: true });
    const order = await expectJson(
      callWith(settings, request("POST", "/admin/orders", { body: { event_id: s.event.id, name: "Staff", email: "staff@example.com", tickets: lines(s, [1]) } })),
      201,
    );
    expect(order.payment_status).toBe("dashboard");
    expect(await receivedBy(name)).toEqual([]);
  });
});

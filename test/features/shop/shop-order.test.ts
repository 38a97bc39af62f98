import { exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { idempotencyKeys, orderClaims } from "../../../src/db/schema";
import { errorText, type Lang, messagesFor } from "../../../src/domain/messages";
import { ADMIN, API_KEY, BASE, basic, unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { programStub, receivedBy, stubUrl } from "../../helpers/stubs";
import { wallClockAt } from "../../helpers/wall-clock";
import {
  enteredValue,
  errorAt,
  type FormFields,
  freshToken,
  type Json,
  ordersOf,
  pageHtml,
  postForm,
  type Shop,
  shop,
  summaryOf,
  tokenOf,
  validForm,
} from "./shop-helpers";

/**
 * `POST /ticketing/v1/shop/<event_id>` (decisions.md 15 "The box office"): the shop page's form orders through the
 * rules, errors and limits of `POST /events/<event_id>/orders` from an ordering-key caller; `form_token` is the
 * Idempotency-Key; success is a `303` (or `200 {"location"}` for the page's script), a refusal the page again
 * (`422`) with each error beside its field, in the page's language, the values kept, and nothing ordered. Each test
 * makes its own events.
 */

const wireIn = (minutes: number) => wallClockAt(Date.now() + minutes * 60_000, "Europe/Amsterdam");

/** The refusal: a 422 page, after which the event has exactly the orders it had. */
async function refused(s: Shop, fields: FormFields | string, lang: Lang = "en", headers: Record<string, string> = {}): Promise<string> {
  const before = (await ordersOf(s.event.id)).length;
  const html = await pageHtml(postForm(s.event.id, fields, { lang, headers }), 422);
  expect(html).toContain(`<html lang="${lang}">`);
  expect((await ordersOf(s.event.id)).length, "a refused post orders nothing").toBe(before);
  return html;
}

/** The refusal's text beside `control` and in the summary (linking to it), in `en` and `nl`. */
async function refusedAt(s: Shop, fields: () => FormFields, control: string, expected: (lang: Lang) => string): Promise<void> {
  for (const lang of ["en", "nl"] as const) {
    const html = await refused(s, fields(), lang);
    expect(errorAt(html, control), `${lang}: beside ${control}`).toBe(expected(lang));
    expect(summaryOf(html), lang).toContainEqual({ control, text: expected(lang) });
  }
}

/** The refusal's text in the summary only (it is about no one field), in `en` and `nl`. */
async function refusedInSummary(s: Shop, fields: () => FormFields, expected: (lang: Lang) => string): Promise<void> {
  for (const lang of ["en", "nl"] as const) {
    const html = await refused(s, fields(), lang);
    expect(summaryOf(html), lang).toEqual([{ control: null, text: expected(lang) }]);
    expect(html).not.toContain('class="field-error"');
  }
}

/** An error's text as the page shows it: by its code in the page's language, else the service's message. */
const byCode = (code: string, message: string) => (lang: Lang) => errorText(lang, code, message);
const shopWord = (key: keyof ReturnType<typeof messagesFor>["shop"]) => (lang: Lang) => messagesFor(lang).shop[key];

describe("the shop page's post: where it goes next", () => {
  it("a paid order: 303 to the provider's checkout; one open order, placed as the ordering key's", async () => {
    const s = await shop();
    const res = await postForm(s.event.id, validForm(s, [2]), { headers: { "CF-Connecting-IP": "198.51.100.10" } });
    expect(res.status, await res.clone().text()).toBe(303);
    const placed = await ordersOf(s.event.id);
    expect(placed).toHaveLength(1);
    expect(placed[0]).toMatchObject({ paymentStatus: "open", name: "Ann Smith", email: "ann@example.com", totalCents: 2000 });
    expect(res.headers.get("Location")).toBe(placed[0]!.checkoutUrl);
    expect(res.headers.get("Location")).toMatch(/\/ticketing\/v1\/pay\/test\//);
    // An ordering-key order waiting for payment holds the buyer's places (decisions.md 15 "Open orders per buyer").
    expect(await db.select().from(orderClaims).where(eq(orderClaims.eventId, s.event.id))).not.toHaveLength(0);
  });

  it("a free order: 303 to the order's page in the page's language; with a redirect, there", async () => {
    const s = await shop({ types: [{ name: "Guest", price: 0 }] });
    const res = await postForm(s.event.id, validForm(s), { lang: "nl" });
    expect(res.status).toBe(303);
    const [order] = await ordersOf(s.event.id);
    expect(order?.paymentStatus).toBe("booked");
    expect(res.headers.get("Location")).toBe(`/ticketing/v1/shop/orders/${order!.uid}?lang=nl`);

    const redirected = await shop({ event: { redirect: "https://organiser.example/thanks" }, types: [{ name: "Guest", price: 0 }] });
    const res2 = await postForm(redirected.event.id, validForm(redirected));
    expect(res2.status).toBe(303);
    expect(res2.headers.get("Location")).toBe("https://organiser.example/thanks");
    // Payment due comes first: a paid order of that event goes to the checkout.
    const paid = await shop({ event: { redirect: "https://organiser.example/thanks" } });
    const res3 = await postForm(paid.event.id, validForm(paid));
    expect(res3.headers.get("Location")).toMatch(/\/pay\/test\//);
  });

  it("Accept: application/json (the page's own script): 200 {location}; a refusal is still the 422 page", async () => {
    const s = await shop();
    const res = await postForm(s.event.id, validForm(s), { headers: { Accept: "application/json" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(Object.keys(body)).toEqual(["location"]);
    expect(body.location).toBe((await ordersOf(s.event.id))[0]!.checkoutUrl);
    const html = await refused(s, validForm(s, [1], { name: "" }), "en", { Accept: "application/json" });
    expect(html).toContain('<main id="main"><div id="form-errors" role="alert"');
  });

  it("a group's chosen dates order through event_ids", async () => {
    const group = unique("grp");
    const first = await createEvent({ event_name: unique("Night one "), event_group: group, group_type: 1 });
    const second = await createEvent({ event_name: unique("Night two "), event_group: group, group_type: 1 });
    const t1 = await createTicketType(first.id);
    await createTicketType(second.id);
    const s: Shop = { event: first, types: [t1], fields: [] };
    const res = await postForm(first.id, validForm(s, [1], { event_ids: String(second.id) }));
    expect(res.status, await res.clone().text()).toBe(303);
    expect(await ordersOf(first.id)).toHaveLength(0);
    expect(await ordersOf(second.id)).toHaveLength(1);
    await refusedAt(
      s,
      () => validForm(s, [1], { event_ids: [String(first.id), String(second.id)] }),
      "event_ids",
      byCode("order_invalid_event_ids", "Invalid event ids"),
    );
  });
});

describe("the form token is the order's Idempotency-Key", () => {
  it("a double post makes one order and answers the same 303 twice", async () => {
    const s = await shop();
    const fields = validForm(s);
    const [a, b] = await Promise.all([postForm(s.event.id, fields), postForm(s.event.id, fields)]);
    const statuses = [a.status, b.status].sort();
    // Both at once: one runs, the other is answered as the first (or told it is still running, on the page).
    expect(statuses[0]).toBe(303);
    expect((await ordersOf(s.event.id)).length).toBe(1);
    const replay = await postForm(s.event.id, fields);
    expect(replay.status).toBe(303);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.headers.get("Location")).toBe((await ordersOf(s.event.id))[0]!.checkoutUrl);
    expect((await ordersOf(s.event.id)).length).toBe(1);
  });

  it("a token reused with other values is the idempotency conflict, shown on the page", async () => {
    const s = await shop();
    const fields = validForm(s);
    expect((await postForm(s.event.id, fields)).status).toBe(303);
    await refusedInSummary(
      s,
      () => ({ ...fields, email: "someone.else@example.com" }),
      byCode("idempotency_key_reused", "This Idempotency-Key was used with a different request body."),
    );
    expect((await ordersOf(s.event.id)).length).toBe(1);
  });

  it("a missing or malformed token is a refusal on the page, with a fresh token to send again", async () => {
    const s = await shop();
    const { form_token: _, ...noToken } = validForm(s);
    await refusedInSummary(s, () => noToken, shopWord("formExpired"));
    await refusedInSummary(s, () => ({ ...noToken, form_token: "short" }), shopWord("formExpired"));
    await refusedInSummary(s, () => ({ ...noToken, form_token: "<script>alert(1)</script>xxxxxxxx" }), shopWord("formExpired"));
    const html = await refused(s, noToken);
    expect(tokenOf(html)).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(enteredValue(html, "name")).toBe("Ann Smith");
  });

  it("the key is scoped to the shop page's path and the ordering caller: the same token on the API is another request", async () => {
    const s = await shop();
    const fields = validForm(s);
    expect((await postForm(s.event.id, fields)).status).toBe(303);
    const keys = await db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.key, String(fields.form_token)));
    expect(keys.map((k) => k.scope)).toEqual([`POST /ticketing/v1/shop/${s.event.id} key:ordering`]);
  });
});

describe("refusals: each error beside its field, in the page's language, nothing ordered", () => {
  it("name and email", async () => {
    const s = await shop();
    await refusedAt(s, () => validForm(s, [1], { name: "  " }), "name", byCode("order_missing_input", "Mandatory input not available"));
    await refusedAt(s, () => validForm(s, [1], { email: "" }), "email", byCode("order_missing_input", "Mandatory input not available"));
    await refusedAt(s, () => validForm(s, [1], { email: "not-an-address" }), "email", byCode("order_invalid_email", "Invalid emailaddress"));
    await refusedAt(s, () => validForm(s, [1], { name: "x".repeat(51) }), "name", byCode("order_name_too_long", "Name is too long (Max 50 chars)"));
  });

  it("terms", async () => {
    const s = await shop({ event: { terms: "Be <b>nice</b>" } });
    await refusedAt(s, () => validForm(s), "terms_accepted", byCode("order_terms_not_accepted", "You must agree to the terms"));
    expect((await postForm(s.event.id, validForm(s, [1], { terms_accepted: "on" }))).status).toBe(303);
  });

  it("ticket counts: not a number, huge, outside the type's limits, none at all", async () => {
    const s = await shop({
      types: [
        { name: "Adult", price: 10, minimum_to_order: 2, maximum_to_order: 4 },
        { name: "Child", price: 5 },
      ],
    });
    const [adult, child] = s.types as [Json, Json];
    await refusedAt(s, () => validForm(s, [0, 0], { [`ticket_${child.id}`]: "two" }), `ticket_${child.id}`, shopWord("invalidCount"));
    await refusedAt(s, () => validForm(s, [0, 0], { [`ticket_${child.id}`]: "-1" }), `ticket_${child.id}`, shopWord("invalidCount"));
    await refusedAt(s, () => validForm(s, [0, 99_999]), `ticket_${child.id}`, shopWord("invalidCount"));
    await refusedAt(s, () => validForm(s, [0, 999_999_999_999]), `ticket_${child.id}`, shopWord("invalidCount"));
    await refusedAt(s, () => validForm(s, [1, 0]), `ticket_${adult.id}`, byCode("order_wrong_amount", "Wrong amount for this ticket type: Adult"));
    await refusedAt(s, () => validForm(s, [5, 0]), `ticket_${adult.id}`, byCode("order_wrong_amount", "Wrong amount for this ticket type: Adult"));
    await refusedInSummary(s, () => validForm(s, [0, 0]), byCode("order_no_tickets", "No tickets ordered"));
    // The counts entered are shown again.
    const html = await refused(s, validForm(s, [1, 3]));
    expect(enteredValue(html, `ticket_${adult.id}`)).toBe("1");
    expect(enteredValue(html, `ticket_${child.id}`)).toBe("3");
  });

  it("input fields: required, illegal values; the values are kept, a password's never", async () => {
    const s = await shop({
      fields: [
        { name: "Company", is_required: true },
        { name: "Size", type: "select", value: "S,M,L" },
        { name: "Secret", type: "password" },
      ],
    });
    const [company, size, secret] = s.fields as [Json, Json, Json];
    const good = { [`field_${company.id}`]: "ACME", [`field_${size.id}`]: "M" };
    await refusedAt(
      s,
      () => validForm(s, [1], { [`field_${size.id}`]: "M" }),
      `field_${company.id}`,
      byCode("order_required_fields", "Required extra input fields not available"),
    );
    await refusedAt(
      s,
      () => validForm(s, [1], { ...good, [`field_${size.id}`]: "XL" }),
      `field_${size.id}`,
      byCode("order_illegal_field_value", "Illegal value extra input field"),
    );
    const html = await refused(s, validForm(s, [1], { ...good, [`field_${size.id}`]: "XL", [`field_${secret.id}`]: "hunter2" }));
    expect(enteredValue(html, `field_${company.id}`)).toBe("ACME");
    expect(html).not.toContain('<option value="XL"');
    expect(html).not.toContain("hunter2");
    expect(enteredValue(html, `field_${secret.id}`)).toBeUndefined();
  });

  it("coupon", async () => {
    const s = await shop({ event: { coupons_needed: true } });
    const code = unique("NOPE");
    await refusedAt(s, () => validForm(s, [1], { coupon: code }), "coupon", byCode("coupon_not_found", `Coupon code ${code} not found`));
    expect(enteredValue(await refused(s, validForm(s, [1], { coupon: code })), "coupon")).toBe(code);
  });

  it("stock: beside the type that has too few left", async () => {
    const s = await shop({
      types: [
        { name: "Limited", price: 10, stock_control: true, stock: 1, show_remaining: true },
        { name: "Plenty", price: 10 },
      ],
    });
    const limited = s.types[0]!;
    await refusedAt(s, () => validForm(s, [2, 0]), `ticket_${limited.id}`, byCode("order_stock_unavailable", "Not enough stock available for ticket-type: Limited (1)"));
  });

  it("the sale window: closed between the page and the post", async () => {
    const s = await shop({ event: { start_date: "2020-01-01 00:00:00", end_date: wireIn(-1), event_date: "2099-01-01 20:00:00" } });
    await refusedInSummary(s, () => validForm(s), byCode("order_event_inactive", `Event ${s.event.id} is not active`));
    expect(await refused(s, validForm(s))).toContain("The sale has ended.");
  });

  it("the email list, unique users", async () => {
    const listed = await shop({ event: { user_groups_needed: true, user_groups: { group_type: 1 } } });
    const form = new FormData();
    form.append("file", new File(["Ann,ann@example.com,0\n"], "list.csv", { type: "text/csv" }));
    const upload = await exports.default.fetch(
      new Request(`${BASE}/admin/emaillists/${listed.event.id}`, { method: "POST", headers: { "X-EVT-API-KEY": API_KEY, Authorization: basic(ADMIN) }, body: form }),
    );
    expect([200, 201]).toContain(upload.status);
    await refusedInSummary(listed, () => validForm(listed, [1], { email: "stranger@example.com" }), byCode("order_not_allowed", "You are not allowed to book/order"));
    expect((await postForm(listed.event.id, validForm(listed))).status).toBe(303);

    const once = await shop({ event: { unique_users_needed: true }, types: [{ name: "Free", price: 0 }] });
    expect((await postForm(once.event.id, validForm(once))).status).toBe(303);
    const message = (await refused(once, validForm(once)).then(summaryOf))[0]!.text;
    expect(message).toBe(errorText("en", "order_already_ordered", message));
    await refusedInSummary(
      once,
      () => validForm(once),
      (lang) => errorText(lang, "order_already_ordered", message),
    );
  });

  it("the outbound eligibility check: its refusal, with the consumer's message", async () => {
    const name = unique("shop-elig");
    await programStub(name, { status: 403, body: '{"count": 0, "error": "Members only"}' });
    const s = await shop({ event: { user_groups_needed: true, user_groups: { group_type: 2, rest_url: stubUrl(`/${name}/check`), rest_header: "X-Secret: abc" } } });
    await refusedInSummary(s, () => validForm(s), byCode("order_not_allowed", "Members only"));
  });

  it("too many open orders: the ordering key's limit of two per buyer", async () => {
    const s = await shop();
    const from = { "CF-Connecting-IP": "198.51.100.77" };
    for (const email of ["one@example.com", "two@example.com"]) {
      expect((await postForm(s.event.id, validForm(s, [1], { email }), { headers: from })).status).toBe(303);
    }
    const html = await refused(s, validForm(s, [1], { email: "three@example.com" }), "de", from);
    expect(summaryOf(html)).toEqual([{ control: null, text: errorText("de", "order_too_many_open", "You already have orders waiting for payment") }]);
    // It says when to come back, as the API's 429 does.
    const again = await postForm(s.event.id, validForm(s, [1], { email: "four@example.com" }), { headers: from });
    expect(again.status).toBe(422);
    expect(again.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
  });
});

describe("reCAPTCHA", () => {
  it("g-recaptcha-response is the order's token, verified as the API verifies it; without it, the refusal is on the page", async () => {
    const name = unique("shop-cap");
    await programStub(name, { body: '{"success": true}' });
    const overrides = { RECAPTCHA_VERIFY_URL: stubUrl(`/${name}/siteverify`), RECAPTCHA_SECRET: "sekret", RECAPTCHA_SITE_KEY: "site-key" };
    const s = await shop({ event: { recaptcha_needed: true } });
    const missing = await postForm(s.event.id, validForm(s), { lang: "nl", overrides });
    const html = await pageHtml(missing, 422);
    expect(summaryOf(html)).toEqual([{ control: null, text: errorText("nl", "order_captcha_failed", "Wrong reCAPTCHA") }]);
    expect(html).toContain('<div class="g-recaptcha" data-sitekey="site-key"></div>');
    const res = await postForm(s.event.id, validForm(s, [1], { "g-recaptcha-response": "tok-from-widget" }), { overrides });
    expect(res.status, await res.clone().text()).toBe(303);
    const got = await receivedBy(name);
    expect(got).toHaveLength(1);
    expect(new URLSearchParams(got[0]!.body).get("response")).toBe("tok-from-widget");
    expect(await ordersOf(s.event.id)).toHaveLength(1);
  });
});

describe("hostile input", () => {
  it("forged fields, another event's ticket type, a form of another shape: refused on the page, nothing ordered", async () => {
    const s = await shop();
    const other = await shop();
    await refusedInSummary(s, () => validForm(s, [1], { field_f00000: "x" }), byCode("order_illegal_field_value", "Illegal value extra input field"));
    await refusedInSummary(
      s,
      () => validForm(s, [1], { [`ticket_${other.types[0]!.id}`]: "1" }),
      byCode("rest_invalid_param", `${other.types[0]!.id} is not a ticket type of this event`),
    );
    await refusedInSummary(s, () => validForm(s, [1], { ticket_x: "1" }), shopWord("invalidValue"));
    await refusedInSummary(s, () => validForm(s, [1], { event_ids: "abc" }), shopWord("invalidValue"));
    // JSON is not the form: refused on the page, whatever it holds.
    const before = (await ordersOf(s.event.id)).length;
    const json = await postForm(s.event.id, JSON.stringify({ name: "A", email: "a@example.com" }), { headers: { "Content-Type": "application/json" } });
    expect(json.status).toBe(422);
    expect(summaryOf(await json.text())).toEqual([{ control: null, text: messagesFor("en").shop.unsupportedForm }]);
    expect((await ordersOf(s.event.id)).length).toBe(before);
  });

  it("<script> in what the buyer typed is shown escaped", async () => {
    const s = await shop();
    const evil = '"><script>alert(1)</script>';
    const html = await refused(s, validForm(s, [1], { name: evil, email: evil }));
    expect(html).not.toContain("<script>alert(1)");
    expect(enteredValue(html, "name")).toBe(evil);
    expect(errorAt(html, "email")).toBe(errorText("en", "order_invalid_email", "Invalid emailaddress"));
  });

  it("an unknown event is a 404 page, nothing ordered", async () => {
    const res = await postForm(987_654_321, { form_token: freshToken(), name: "A", email: "a@example.com" }, { lang: "fr" });
    const html = await pageHtml(res, 404);
    expect(html).toContain("Événement introuvable");
  });
});

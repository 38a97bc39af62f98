import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { unique } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { wallClockAt } from "../../helpers/wall-clock";
import { type Json, openPage, pageHtml, shop, tokenOf } from "./shop-helpers";

/**
 * `GET /ticketing/v1/shop/<event_id>` (decisions.md 15 "The box office"): the shop page shows what the order form
 * shows, as a form following the form contract, in the page's language; shareable (title, description, Open
 * Graph, schema.org JSON-LD); an unknown event is an HTML page. Each test makes its own events.
 */

const wireIn = (minutes: number) => wallClockAt(Date.now() + minutes * 60_000, "Europe/Amsterdam");

/** The `<tag ...>` (its opening tag) whose id is `id`. */
const tagWithId = (html: string, id: string) => new RegExp(`<[a-z]+[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0] ?? "";

const labelFor = (html: string, id: string) => new RegExp(`<label for="${id}">([^<]*)</label>`).exec(html)?.[1];

describe("the shop page of an open event", () => {
  it("shows the event, its types with prices, VAT, volume prices, remaining and limits, as the form contract's inputs", async () => {
    const s = await shop({
      event: { event_date: "2099-06-01 20:00:00", event_date_format: "d-m-Y H:i", order_submit_text: "Buy now" },
      types: [
        { name: "Regular", price: "12.50", vat: 21, minimum_to_order: 2, maximum_to_order: 8, stock_control: true, stock: 30, show_remaining: true },
        { name: "Group", price: 10, vat: 9, volume_price: [{ "5": "9.50" }] },
      ],
    });
    const regular = s.types[0]!;
    const group = s.types[1]!;
    const html = await pageHtml(openPage(s.event.id));
    expect(html).toContain(`<h1>${s.event.event_name}</h1>`);
    expect(html).toContain("01-06-2099 20:00");
    expect(html).toMatch(
      new RegExp(`<form id="order-form" method="post" action="/ticketing/v1/shop/${s.event.id}\\?lang=en" novalidate="" data-currency="EUR" data-lang="en">`),
    );
    expect(tokenOf(html)).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    // Labels: the type's name for its count.
    expect(labelFor(html, `ticket_${regular.id}`)).toBe("Regular");
    expect(labelFor(html, `ticket_${group.id}`)).toBe("Group");
    expect(html).toContain("€12.50 (incl. 21% VAT)");
    expect(html).toContain("5 or more: €9.50 each");
    expect(html).toContain("30 left");
    expect(html).toContain("Order at least 2, at most 8.");
    const input = tagWithId(html, `ticket_${regular.id}`);
    expect(input).toContain(`name="ticket_${regular.id}"`);
    expect(input).toContain('data-price-cents="1250"');
    expect(input).toContain('data-vat-hundredths="2100"');
    expect(input).toContain('data-volume="[]"');
    expect(input).toContain('max="8"');
    expect(input).toContain(`aria-describedby="ticket_${regular.id}-hint"`);
    expect(tagWithId(html, `ticket_${group.id}`)).toContain('data-volume="[{&quot;count&quot;:5,&quot;cents&quot;:950}]"');
    expect(html).toContain('<output id="order-total">€0.00</output>');
    expect(html).toContain('<output id="order-vat">€0.00</output>');
    expect(labelFor(html, "name")).toBe("Name");
    expect(labelFor(html, "email")).toBe("Email");
    expect(tagWithId(html, "email")).toContain('type="email"');
    expect(html).toContain('<button type="submit">Buy now</button>');
    // No coupon, terms or captcha where the event asks none.
    expect(html).not.toContain('id="coupon"');
    expect(html).not.toContain('id="terms_accepted"');
    expect(html).not.toContain("g-recaptcha");
  });

  it("a fresh token per rendered form", async () => {
    const s = await shop();
    const first = tokenOf(await pageHtml(openPage(s.event.id)));
    const second = tokenOf(await pageHtml(openPage(s.event.id)));
    expect(first).not.toBe(second);
  });

  it("order-level input fields by type (text, select with its options, password, date, time), never the personalised ones", async () => {
    const s = await shop({
      fields: [
        { name: "Company", is_required: true, max: "30" },
        { name: "Size", type: "select", value: "S,M,L" },
        { name: "Secret", type: "password" },
        { name: "Day", type: "date", min: "2099-01-01", max: "2099-12-31" },
        { name: "Arrival", type: "time", min: "08:00", max: "12:00" },
        { name: "Attendee", is_personalised: true },
      ],
    });
    const [company, size, secret, day, arrival] = s.fields as [Json, Json, Json, Json, Json];
    const html = await pageHtml(openPage(s.event.id));
    expect(labelFor(html, `field_${company.id}`)).toBe("Company");
    expect(tagWithId(html, `field_${company.id}`)).toMatch(/type="text"[^>]*required=""[^>]*maxlength="30"|required=""[^>]*maxlength="30"/);
    expect(labelFor(html, `field_${size.id}`)).toBe("Size");
    expect(html).toMatch(
      new RegExp(
        `<select id="field_${size.id}" name="field_${size.id}"[^>]*><option value="">Choose…</option><option value="S">S</option><option value="M">M</option><option value="L">L</option></select>`,
      ),
    );
    expect(tagWithId(html, `field_${secret.id}`)).toContain('type="password"');
    expect(tagWithId(html, `field_${day.id}`)).toMatch(/type="date".*min="2099-01-01" max="2099-12-31"/);
    expect(tagWithId(html, `field_${arrival.id}`)).toMatch(/type="time".*min="08:00" max="12:00"/);
    expect(html).not.toContain("Attendee");
  });

  it("terms (purified, shown as HTML) with their checkbox, a coupon field, an RSVP notice, free types", async () => {
    const s = await shop({
      event: {
        terms: 'Read the <b>terms</b><script>alert(1)</script> <a href="https://example.com/t" onclick="x()">here</a>',
        coupons_needed: true,
        confirmation_emails_needed: true,
        email_confirmation: { subject: "Confirm", body: "<p>Confirm {%NAME%}</p>", redirect: "" },
      },
      types: [{ name: "Guest", price: 0 }],
    });
    const html = await pageHtml(openPage(s.event.id));
    expect(html).toContain("Read the <b>terms</b>");
    expect(html).not.toContain("alert(1)");
    expect(html).not.toContain("onclick");
    expect(labelFor(html, "terms_accepted")).toBe("I accept the terms");
    expect(tagWithId(html, "terms_accepted")).toContain('type="checkbox"');
    expect(labelFor(html, "coupon")).toBe("Coupon code");
    expect(html).toContain("After ordering you will get an email to confirm your booking.");
    expect(html).toMatch(/<p class="price">Free<\/p>/);
  });

  it("speaks the page's language: the service's words translated, the organiser's as written", async () => {
    const s = await shop({ event: { coupons_needed: true }, types: [{ name: "Regular", price: "12.50" }] });
    for (const [query, headers, lang] of [
      ["?lang=nl", {}, "nl"],
      ["", { "Accept-Language": "de-DE, en;q=0.5" }, "de"],
    ] as const) {
      const html = await pageHtml(openPage(s.event.id, query, headers));
      expect(html).toContain(`<html lang="${lang}">`);
      expect(labelFor(html, `ticket_${s.types[0]!.id}`)).toBe("Regular");
      if (lang === "nl") {
        expect(labelFor(html, "name")).toBe("Naam");
        expect(labelFor(html, "email")).toBe("E-mail");
        expect(labelFor(html, "coupon")).toBe("Kortingscode");
        expect(html).toContain('<button type="submit">Bestellen</button>');
        expect(html).toMatch(/€\s12,50/);
        expect(html).toContain(`action="/ticketing/v1/shop/${s.event.id}?lang=nl"`);
      } else {
        expect(labelFor(html, "coupon")).toBe("Gutscheincode");
        expect(html).toMatch(/12,50\s€/);
      }
    }
  });

  it("a group's dates: one to choose (radio) or several (checkboxes); a passe-partout's events", async () => {
    const group = unique("grp");
    const first = await createEvent({ event_name: unique("Night one "), event_group: group, group_type: 1, event_date: "2099-03-01 20:00:00" });
    const second = await createEvent({ event_name: unique("Night two "), event_group: group, group_type: 1, event_date: "2099-03-02 20:00:00" });
    await createTicketType(first.id);
    await createTicketType(second.id);
    const html = await pageHtml(openPage(first.id));
    expect(html).toContain("<legend>Choose a date</legend>");
    expect(html).toMatch(new RegExp(`<input type="radio" id="event_ids" name="event_ids" value="${first.id}" checked=""`));
    expect(html).toMatch(new RegExp(`<input type="radio" id="event_ids_${second.id}" name="event_ids" value="${second.id}"`));
    expect(labelFor(html, `event_ids_${second.id}`)).toContain(second.event_name);

    const several = unique("grp");
    const a = await createEvent({ event_name: unique("Day A "), event_group: several, group_type: 2 });
    await createEvent({ event_name: unique("Day B "), event_group: several, group_type: 2 });
    await createTicketType(a.id);
    const html2 = await pageHtml(openPage(a.id, "?lang=fr"));
    expect(html2).toContain("<legend>Choisissez une ou plusieurs dates</legend>");
    expect(html2).toMatch(/<input type="checkbox" id="event_ids" name="event_ids"/);

    const festival = unique("grp");
    const pass = await createEvent({ event_name: unique("Pass "), event_group: festival, group_type: 3, event_date_format: "d-m-Y" });
    const day1 = await createEvent({ event_name: unique("Festival day 1 "), event_group: festival, group_type: 1, event_date: "2099-08-01 12:00:00" });
    const day2 = await createEvent({ event_name: unique("Festival day 2 "), event_group: festival, group_type: 1 });
    await createTicketType(pass.id, { name: "Weekend pass" });
    const html3 = await pageHtml(openPage(pass.id));
    expect(html3).toContain("This pass admits to:");
    expect(html3).toContain(`<li>${day1.event_name}, 01-08-2099</li>`);
    expect(html3).toContain(`<li>${day2.event_name}</li>`);
  });
});

describe("the shop page of a closed event: why, and no form", () => {
  it("before the sale window: when it opens", async () => {
    const s = await shop({ event: { start_date: "2098-05-01 10:00:00", event_date: "2099-01-01 20:00:00", event_date_format: "d-m-Y H:i" } });
    const html = await pageHtml(openPage(s.event.id));
    expect(html).toContain("The sale has not started yet. It opens on 01-05-2098 10:00.");
    expect(html).not.toContain('id="order-form"');
    const nl = await pageHtml(openPage(s.event.id, "?lang=nl"));
    expect(nl).toContain("De verkoop is nog niet begonnen.");
  });

  it("after the sale window", async () => {
    const s = await shop({ event: { start_date: "2020-01-01 00:00:00", end_date: wireIn(-60), event_date: "2099-01-01 20:00:00" } });
    const html = await pageHtml(openPage(s.event.id, "?lang=es"));
    expect(html).toContain("La venta ha terminado.");
    expect(html).not.toContain('id="order-form"');
  });

  it("sold out: the whole event, or one type of an open event", async () => {
    const gone = await shop({ types: [{ name: "A", stock_control: true, stock: 0 }] });
    const html = await pageHtml(openPage(gone.event.id));
    expect(html).toContain("This event is sold out.");
    expect(html).not.toContain('id="order-form"');
    expect(html).toContain('"availability":"https://schema.org/SoldOut"');

    const partly = await shop({ types: [{ name: "Early", stock_control: true, stock: 0, show_remaining: true }, { name: "Late" }] });
    const open = await pageHtml(openPage(partly.event.id));
    expect(open).toContain('id="order-form"');
    expect(open).toContain('<p class="sold-out">Sold out</p>');
    expect(open).not.toContain(`id="ticket_${partly.types[0]!.id}"`);
    expect(open).toContain(`id="ticket_${partly.types[1]!.id}"`);
  });
});

describe("reCAPTCHA on the shop page", () => {
  it("shows the widget with RECAPTCHA_SITE_KEY where the event asks for it, and its CSP admits Google's script", async () => {
    const s = await shop({ event: { recaptcha_needed: true } });
    const res = await openPage(s.event.id, "?lang=de", {}, { RECAPTCHA_SITE_KEY: "site-key-123" });
    const html = await pageHtml(res);
    expect(html).toContain('<div class="g-recaptcha" data-sitekey="site-key-123"></div>');
    expect(html).toContain('<script src="https://www.google.com/recaptcha/api.js?hl=de" async="" defer=""></script>');
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toMatch(/script-src 'self' https:\/\/www\.google\.com\/recaptcha\/ https:\/\/www\.gstatic\.com\/recaptcha\//);
    expect(csp).toContain("frame-src https://www.google.com/recaptcha/");
    expect(csp).not.toContain("unsafe-inline");

    // Without a site key, or on an event without recaptcha_needed: no widget and nothing from Google.
    const unset = await openPage(s.event.id);
    expect(await pageHtml(unset)).not.toContain("g-recaptcha");
    expect(unset.headers.get("Content-Security-Policy")).not.toContain("google");
    const plain = await shop();
    const other = await openPage(plain.event.id, "", {}, { RECAPTCHA_SITE_KEY: "site-key-123" });
    expect(await pageHtml(other)).not.toContain("g-recaptcha");
    expect(other.headers.get("Content-Security-Policy")).not.toContain("google");
  });
});

describe("the shop page is shareable", () => {
  it("title, description, Open Graph tags and schema.org Event JSON-LD with its offers", async () => {
    const s = await shop({
      event: { event_date: "2099-06-01 20:00:00", start_date: "2098-01-01 10:00:00", end_date: "2099-06-01 18:00:00", event_date_format: "d-m-Y H:i" },
      types: [
        { name: "Regular", price: "12.50" },
        { name: "Early", price: 9, stock_control: true, stock: 0, show_remaining: true },
      ],
    });
    const name = s.event.event_name;
    const res = await openPage(s.event.id, "", {}, { PUBLIC_URL: "https://tickets.example.com" });
    const html = await pageHtml(res);
    const url = `https://tickets.example.com/ticketing/v1/shop/${s.event.id}`;
    expect(html).toContain(`<title>${name}</title>`);
    expect(html).toContain(`<meta name="description" content="Tickets for ${name} on 01-06-2099 20:00"/>`);
    expect(html).toContain(`<meta property="og:title" content="${name}"/>`);
    expect(html).toContain('<meta property="og:type" content="website"/>');
    expect(html).toContain(`<meta property="og:url" content="${url}"/>`);
    const json = /<script type="application\/ld\+json">([^<]*)<\/script>/.exec(html)?.[1];
    expect(json).toBeDefined();
    const ld = JSON.parse(json!);
    expect(ld).toEqual({
      "@context": "https://schema.org",
      "@type": "Event",
      name,
      startDate: "2099-06-01T20:00:00+02:00",
      eventStatus: "https://schema.org/EventScheduled",
      url,
      offers: [
        {
          "@type": "Offer",
          name: "Regular",
          price: "12.50",
          priceCurrency: "EUR",
          availability: "https://schema.org/InStock",
          url,
          validFrom: "2098-01-01T10:00:00+01:00",
          validThrough: "2099-06-01T18:00:00+02:00",
        },
        {
          "@type": "Offer",
          name: "Early",
          price: "9.00",
          priceCurrency: "EUR",
          availability: "https://schema.org/SoldOut",
          url,
          validFrom: "2098-01-01T10:00:00+01:00",
          validThrough: "2099-06-01T18:00:00+02:00",
        },
      ],
    });
    // The CSP allows no inline script: the JSON-LD is data, never run.
    expect(res.headers.get("Content-Security-Policy")).not.toContain("unsafe-inline");
  });

  it("the organiser's texts are escaped everywhere, and cannot end the JSON-LD's script", async () => {
    const evil = '</script><script>alert("x")</script>';
    const s = await shop({
      event: { event_name: `Show ${evil}` },
      types: [{ name: `Type <img src=x onerror=alert(1)>` }],
      fields: [{ name: "<b>Field</b>", type: "select", value: "<i>a</i>,b" }],
    });
    const html = await pageHtml(openPage(s.event.id));
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<b>Field</b>");
    expect(html).not.toContain("<i>a</i>");
    expect(html).toContain("Show &lt;/script&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    const json = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    expect(json).toContain("\\u003c/script>");
    expect(JSON.parse(json).name).toBe(`Show ${evil}`);
    // Only the page's own script and two data blocks no browser runs (the JSON-LD, and the words of the page's
    // script: docs/shop.md), nothing else is a script.
    const types = (html.match(/<script[^>]*>/g) ?? []).map((tag) => /type="([^"]*)"/.exec(tag)?.[1] ?? "").sort();
    expect(types).toEqual(["application/json", "application/ld+json", "module"]);
    expect(html).toContain('<script type="application/json" id="shop-messages">');
  });
});

describe("an unknown event, and what GET does not do", () => {
  it("an unknown or malformed event id is a 404 page in the page's language", async () => {
    const html = await pageHtml(openPage(987_654_321, "", { "Accept-Language": "nl" }), 404);
    expect(html).toContain('<html lang="nl">');
    expect(html).toContain("Evenement niet gevonden");
    const en = await pageHtml(openPage("not-a-number"), 404);
    expect(en).toContain("Event not found");
  });

  it("writes nothing to D1", async () => {
    const s = await shop({ fields: [{ name: "Company" }] });
    const count = async () => {
      const tables = ["orders", "tickets", "idempotency_keys", "logs", "order_claims", "emails"];
      const rows = await Promise.all(tables.map((t) => db.all<{ n: number }>(sql.raw(`SELECT count(*) AS n FROM ${t}`))));
      return rows.map((r) => r[0]!.n);
    };
    await pageHtml(openPage(s.event.id));
    const before = await count();
    await pageHtml(openPage(s.event.id, "?lang=fr"));
    await pageHtml(openPage(s.event.id));
    expect(await count()).toEqual(before);
  });
});

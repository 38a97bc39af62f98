import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectJson, unique } from "../../helpers/api";
import { createEvent, createInputField, createTicketType } from "../../helpers/catalogue";

/**
 * Each box-office page weighs under 50 KB compressed: its HTML, its stylesheet and its script, fonts apart
 * (decisions.md 15 "The box office", "Weight and speed"). Measured on a rich event, the heaviest page an organiser
 * makes: 10 ticket types with volume prices, 8 input fields of every type, terms, a group of 6 dates and a coupon
 * field; the order page of an order of all its types. Each page's weight is printed in `npm test`, as
 * scripts/bundle-size.mjs prints the bundle's.
 */

const LIMIT_BYTES = 50 * 1024;

async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** The stylesheets and scripts a page loads from the service's own assets (the CSP allows no others). */
function subresources(html: string): string[] {
  const paths = new Set<string>();
  for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
    if (tag.startsWith("<link") && !/\brel="(stylesheet|modulepreload)"/.test(tag)) continue;
    const url = /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1];
    if (url) paths.add(url.replace(/&amp;/g, "&"));
  }
  return [...paths];
}

interface Weight {
  raw: number;
  gzip: number;
  parts: string[];
}

/** The page's HTML and every stylesheet and script it loads, each gzip-compressed on its own as a server sends them. */
async function pageWeight(html: string): Promise<Weight> {
  const htmlBytes = new TextEncoder().encode(html);
  const weight: Weight = { raw: htmlBytes.length, gzip: await gzipSize(htmlBytes), parts: [] };
  weight.parts.push(`HTML ${kib(weight.gzip)}`);
  const files = subresources(html);
  // The frame loads at least its stylesheet and its one script (src/features/shop/page-layout.tsx).
  expect(files.some((f) => f.endsWith(".css"))).toBe(true);
  expect(files.some((f) => f.endsWith(".js"))).toBe(true);
  for (const path of files) {
    expect(path, "a page loads only the service's own files").toMatch(/^\/ticketing\/v1\//);
    const res = await env.ASSETS.fetch(new Request(`https://shop.example${path}`));
    expect(res.status, path).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const gzip = await gzipSize(bytes);
    weight.raw += bytes.length;
    weight.gzip += gzip;
    weight.parts.push(`${path.split("/").at(-1)} ${kib(gzip)}`);
  }
  return weight;
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

function report(label: string, weight: Weight): void {
  // One line per page in the output of `npm test` (vitest.config.ts keeps lines without "level":"info").
  console.log(`✔ ${label}: ${kib(weight.raw)} raw, ${kib(weight.gzip)} gzip (${weight.parts.join(" + ")}); limit ${kib(LIMIT_BYTES)} gzip, fonts apart`);
}

/** The richest shop an organiser sets up: every part of the order form at once. */
async function richEvent() {
  const group = unique("Weight group ");
  const dates = [];
  for (let day = 1; day <= 6; day++) {
    dates.push(
      await createEvent({
        event_name: unique(`Festival day ${day} `),
        event_date: `2099-07-0${day} 20:00:00`,
        group_type: 2,
        event_group: group,
        coupons_needed: true,
        terms:
          "<p>By ordering you accept the <strong>terms of sale</strong>: tickets are personal, not refundable except when the event is cancelled, " +
          "and may be checked against an identity document at the door.</p><ul><li>No re-entry after leaving.</li><li>Children under 12 only with an adult.</li></ul>",
      }),
    );
  }
  const event = dates[0]!;
  const types: { id: string; name: string }[] = [];
  for (let i = 1; i <= 10; i++) {
    const name = `Ticket type ${i} ${["Early bird", "Regular", "Student", "Senior", "Family", "VIP", "Backstage", "Weekend", "Group", "Press"][i - 1]}`;
    const type = await createTicketType(event.id, {
      name,
      price: 10 + i * 2.5,
      vat: 21,
      ...(i % 2 === 0 ? { stock_control: true, stock: 500, show_remaining: true } : {}),
      volume_price: [{ "5": 9 + i * 2.5 }, { "10": 8 + i * 2.5 }],
    });
    types.push({ id: type.id, name });
  }
  const fields = [
    { name: "Company", type: "text", max: "100" },
    { name: "Phone number", type: "text", is_required: true },
    { name: "T-shirt size", type: "select", value: "XS,S,M,L,XL,XXL" },
    { name: "Dietary wishes", type: "select", value: "None,Vegetarian,Vegan,Gluten-free,Halal,Kosher" },
    { name: "Member password", type: "password" },
    { name: "Date of birth", type: "date", min: "1900-01-01", max: "2020-12-31" },
    { name: "Arrival time", type: "time", min: "08:00", max: "23:00" },
    { name: "Remarks", type: "text", max: "500" },
  ];
  const answers: Record<string, string> = {};
  for (const field of fields) {
    const made = await createInputField(event.id, field);
    if (field.is_required) answers[made.id] = "+31 20 123 4567";
  }
  return { event, types, answers };
}

describe("the box office's page weight (decisions.md 15 'Weight and speed')", () => {
  it("the shop page of a rich event is under 50 KB compressed, HTML, CSS and script together", async () => {
    const { event, types } = await richEvent();
    const res = await call("GET", `/shop/${event.id}`, { key: null, auth: null });
    const html = await res.text();
    expect(res.status, html.slice(0, 500)).toBe(200);
    // The page measured is the event's own, with its whole order form: every type, field, the terms, coupon and dates.
    expect(html).toContain(event.event_name);
    expect(html).toContain('id="order-form"');
    for (const { name } of types) expect(html).toContain(name);
    for (const name of ["Company", "T-shirt size", "Member password", "Date of birth", "Arrival time"]) expect(html).toContain(name);
    expect(html).toContain("terms of sale");
    expect(html).toContain('name="coupon"');
    expect(html.match(/name="event_ids"/g)?.length).toBe(6);
    const weight = await pageWeight(html);
    report(`shop page (10 types with volume prices, 8 fields, terms, 6 dates, coupon)`, weight);
    expect(weight.gzip).toBeLessThan(LIMIT_BYTES);
  });

  it("the order page of an order of every type of that event, waiting for payment, is under 50 KB compressed", async () => {
    const { event, types, answers } = await richEvent();
    const body = {
      name: "Ann Smith",
      email: `${unique("ann")}@example.com`,
      tickets: types.map((t) => ({ [t.id]: 1 })),
      fields: answers,
      terms_accepted: true,
    };
    const order = await expectJson(call("POST", `/events/${event.id}/orders`, { auth: null, body }), 201);
    // Waiting for payment: the fullest state (the checkout link, the deadline, the refresh link and data-refresh).
    const res = await call("GET", `/shop/orders/${order.uid}`, { key: null, auth: null });
    const html = await res.text();
    expect(res.status, html.slice(0, 500)).toBe(200);
    expect(html).toContain('data-page="order"');
    expect(html).toContain("data-refresh=");
    const weight = await pageWeight(html);
    report("order page (waiting for payment, 10 ticket types ordered)", weight);
    expect(weight.gzip).toBeLessThan(LIMIT_BYTES);
  });
});

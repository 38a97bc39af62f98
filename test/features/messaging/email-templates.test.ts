import { describe, expect, it } from "vitest";
import { escapeHtml } from "../../../src/lib/html";
import {
  DEFAULT_CONFIRM_BODY,
  DEFAULT_CONFIRMED_BODY,
  DEFAULT_ORDER_BODY,
  fillKeywords,
  renderEmail,
  wrapBody,
  type KeywordValues,
} from "../../../src/features/messaging/email-templates";

/**
 * Email templates (spec: event configuration, email settings; decisions.md 9 and 14; docs/webhooks-and-email.md
 * "Email"): every keyword replaced, values escaped for HTML, inside attributes only the link keywords (also
 * URL-escaped), unknown keywords kept, subjects plain text on one line, bodies in a container at most 600 px wide.
 * The values here are made by hand; emails.routes.test.ts checks the ones an order gets.
 */

const LINK = "https://tickets.example.com/ticketing/v1";
const DOWNLOAD = `${LINK}/tickets/UID123`;
const SUMMARY = "<table><tr><td>Regular</td><td>2</td><td>25.00 EUR</td></tr></table>";
const DOWNLOAD_BLOCK = `<p><a href="${DOWNLOAD}">Download your tickets</a></p>`;
const PERSONALISE_BLOCK = `<p>Please personalise your tickets first: <a href="${DOWNLOAD}/personalise">personalise your tickets</a></p>`;
const FIELDS_TABLE = "<table><tr><td>Company</td><td>Acme</td></tr></table>";
const WALLET_BLOCK = `<p>Add your tickets to your phone's wallet:</p><table><tr><td>1. Regular</td><td><a href="${DOWNLOAD}/T1/wallet/google">Add to Google Wallet</a></td></tr></table>`;

/**
 * A value for every keyword of an order's email, with the meanings of decisions.md 14: the link keywords are
 * addresses, the blocks and tables markup, and {%ORDER%} (our extra) the order summary.
 */
const ALL: KeywordValues = {
  NAME: { text: "Ann Smith" },
  EMAIL: { text: "ann@example.com" },
  YEAR: { text: "2026" },
  TICKETS: { text: DOWNLOAD },
  "DOWNLOAD-TICKETS": { html: DOWNLOAD_BLOCK },
  PERSONALISE: { html: PERSONALISE_BLOCK },
  INVOICE: { text: `${LINK}/invoices/UID123` },
  FIELDS: { html: FIELDS_TABLE },
  CONFIRM: { text: `${LINK}/orders/confirm/UID123` },
  ORDER: { html: SUMMARY },
  WALLET: { html: WALLET_BLOCK },
};

// A link keyword's value is its address: markup there does not compile (it could not be put in an href).
// @ts-expect-error TICKETS takes text only
const _ticketsAsMarkup: KeywordValues = { TICKETS: { html: SUMMARY } };
void _ticketsAsMarkup;

describe("fillKeywords", () => {
  it("replaces every keyword of the spec, and {%ORDER%}, with its value", () => {
    const template =
      "N={%NAME%}|E={%EMAIL%}|Y={%YEAR%}|T={%TICKETS%}|D={%DOWNLOAD-TICKETS%}|P={%PERSONALISE%}|I={%INVOICE%}|F={%FIELDS%}|C={%CONFIRM%}|O={%ORDER%}|W={%WALLET%}";
    expect(fillKeywords(template, ALL, true)).toBe(
      `N=Ann Smith|E=ann@example.com|Y=2026|T=${DOWNLOAD}|D=${DOWNLOAD_BLOCK}|P=${PERSONALISE_BLOCK}|I=${LINK}/invoices/UID123|` +
        `F=${FIELDS_TABLE}|C=${LINK}/orders/confirm/UID123|O=${SUMMARY}|W=${WALLET_BLOCK}`,
    );
  });

  it("replaces each keyword one by one, and every occurrence of it", () => {
    const expected: Record<string, string> = {
      NAME: "Ann Smith",
      EMAIL: "ann@example.com",
      YEAR: "2026",
      TICKETS: DOWNLOAD,
      "DOWNLOAD-TICKETS": DOWNLOAD_BLOCK,
      PERSONALISE: PERSONALISE_BLOCK,
      INVOICE: `${LINK}/invoices/UID123`,
      FIELDS: FIELDS_TABLE,
      CONFIRM: `${LINK}/orders/confirm/UID123`,
      ORDER: SUMMARY,
      WALLET: WALLET_BLOCK,
    };
    for (const [keyword, value] of Object.entries(expected)) {
      expect(fillKeywords(`<p>{%${keyword}%}</p><p>{%${keyword}%}</p>`, ALL, true), keyword).toBe(`<p>${value}</p><p>${value}</p>`);
    }
  });

  it("escapes text values for HTML in bodies, and inserts the HTML summaries as markup", () => {
    const values: KeywordValues = {
      NAME: { text: `<b>Ann</b> & "Bo" 'Cy'` },
      EMAIL: { text: "a<script>@example.com" },
      ORDER: { html: "<table><tr><td>A &amp; B</td></tr></table>" },
    };
    expect(fillKeywords("<p>{%NAME%} / {%EMAIL%}</p>{%ORDER%}", values, true)).toBe(
      "<p>&lt;b&gt;Ann&lt;/b&gt; &amp; &quot;Bo&quot; &#39;Cy&#39; / a&lt;script&gt;@example.com</p>" + "<table><tr><td>A &amp; B</td></tr></table>",
    );
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;");
  });

  it("in plain text (subjects) inserts text values as they are and the HTML summaries without tags", () => {
    const values: KeywordValues = { NAME: { text: `Ann & "Bo" <x>` }, ORDER: { html: "<table><tr><td>Regular</td><td>2</td></tr></table>" } };
    const filled = fillKeywords("For {%NAME%}: {%ORDER%}", values, false);
    expect(filled).toBe(`For Ann & "Bo" <x>: Regular 2`);
  });

  it("{%TICKETS%} is the download address wherever it lands: text, href plain or URL-escaped, plain text", () => {
    const template = '<p>{%TICKETS%}</p><a href="{%TICKETS%}">a</a><a href="%7B%25TICKETS%25%7D">b</a><a href="%7b%25tickets%25%7d">c</a>';
    expect(fillKeywords(template, ALL, true)).toBe(`<p>${DOWNLOAD}</p><a href="${DOWNLOAD}">a</a><a href="${DOWNLOAD}">b</a><a href="${DOWNLOAD}">c</a>`);
    expect(fillKeywords("Tickets: {%TICKETS%}", ALL, false)).toBe(`Tickets: ${DOWNLOAD}`);
  });

  it("never reads keywords inside inserted values (a customer's name cannot pull in another value)", () => {
    const values: KeywordValues = { NAME: { text: "{%INVOICE%} %7B%25INVOICE%25%7D" }, INVOICE: { text: `${LINK}/invoices/SECRET` } };
    const filled = fillKeywords("<p>{%NAME%}</p>", values, true);
    expect(filled).toBe("<p>{%INVOICE%} %7B%25INVOICE%25%7D</p>");
    expect(filled).not.toContain("SECRET");
    expect(fillKeywords('<a href="?n=%7B%25NAME%25%7D">x</a>', values, true)).not.toContain("SECRET");
  });

  it("fills the link keywords inside href with their address, URL-escaped or plain", () => {
    const template =
      '<a href="%7B%25TICKETS%25%7D">Tickets</a> <a href="%7B%25INVOICE%25%7D">Invoice</a> <a href="%7B%25CONFIRM%25%7D">Confirm</a> ' +
      '<a href="{%TICKETS%}">T</a> <a href="{%INVOICE%}">I</a> <a href="{%CONFIRM%}">C</a>';
    expect(fillKeywords(template, ALL, true)).toBe(
      `<a href="${LINK}/tickets/UID123">Tickets</a> <a href="${LINK}/invoices/UID123">Invoice</a> <a href="${LINK}/orders/confirm/UID123">Confirm</a> ` +
        `<a href="${LINK}/tickets/UID123">T</a> <a href="${LINK}/invoices/UID123">I</a> <a href="${LINK}/orders/confirm/UID123">C</a>`,
    );
  });

  it("accepts the URL escapes in any letter case of the hex digits", () => {
    const expected = `<a href="${LINK}/invoices/UID123">x</a>`;
    for (const escaped of ["%7B%25INVOICE%25%7D", "%7b%25INVOICE%25%7d", "%7B%25INVOICE%25%7d", "%7b%25INVOICE%25%7D"]) {
      expect(fillKeywords(`<a href="${escaped}">x</a>`, ALL, true), escaped).toBe(expected);
    }
  });

  it("escapes a link address for the attribute, and puts nothing there that is not an http(s) address", () => {
    const values: KeywordValues = { INVOICE: { text: "https://x.example/t?a=1&b=2" }, CONFIRM: { text: "javascript:alert(1)" } };
    expect(fillKeywords('<a href="%7B%25INVOICE%25%7D">d</a>', values, true)).toBe('<a href="https://x.example/t?a=1&amp;b=2">d</a>');
    expect(fillKeywords('<a href="{%CONFIRM%}">c</a>', values, true)).toBe('<a href="">c</a>');
  });

  it("leaves unknown keywords, and keywords without a value, as they are written", () => {
    const template = "{%UNKNOWN%} %7B%25UNKNOWN%25%7D {%CODE%} {%NAME %} {NAME} %NAME% {%CONFIRM%} %7B%25CONFIRM%25%7D";
    const withoutConfirm: KeywordValues = { ...ALL };
    delete withoutConfirm.CONFIRM;
    expect(fillKeywords(template, withoutConfirm, true)).toBe(template);
    expect(fillKeywords("no keywords at all & <b>markup</b>", ALL, true)).toBe("no keywords at all & <b>markup</b>");
  });

  it("an empty link (an event without invoices) is empty in text and in an href, never left as a keyword", () => {
    const values: KeywordValues = { INVOICE: { text: "" }, PERSONALISE: { text: "" } };
    expect(fillKeywords('<p>{%INVOICE%}</p><a href="%7B%25INVOICE%25%7D">i</a>{%PERSONALISE%}', values, true)).toBe('<p></p><a href="">i</a>');
  });
});

describe("fillKeywords: customer input never becomes markup (decisions.md 14)", () => {
  const NON_LINK = ["NAME", "EMAIL", "YEAR", "DOWNLOAD-TICKETS", "PERSONALISE", "FIELDS", "ORDER"] as const;

  it("empties a name inside href, plain or URL-escaped in any case: no javascript: link, no link to the customer's address", () => {
    for (const name of ["javascript:alert(1)", "https://evil.example/login", 'x" onmouseover="alert(1)']) {
      const values: KeywordValues = { ...ALL, NAME: { text: name } };
      for (const href of ["{%NAME%}", "%7B%25NAME%25%7D", "%7b%25NAME%25%7d", "%7B%25name%25%7D", "https://shop.example/?n=%7B%25NAME%25%7D"]) {
        const emptied = href.replace(/\{%NAME%\}|%7B%25NAME%25%7D/i, "");
        expect(fillKeywords(`<p><a href="${href}">Hi</a> {%NAME%}</p>`, values, true), `${href} / ${name}`).toBe(
          `<p><a href="${emptied}">Hi</a> ${escapeHtml(name)}</p>`,
        );
      }
    }
  });

  it("empties every keyword but the links in any attribute value, quoted or not, and outside values inside a tag", () => {
    for (const keyword of NON_LINK) {
      const template =
        `<img src="{%${keyword}%}" alt='{%${keyword}%}' title=%7B%25${keyword}%25%7D style="color:{%${keyword}%}">` +
        `<a {%${keyword}%} href="%7B%25INVOICE%25%7D">i</a>`;
      expect(fillKeywords(template, ALL, true), keyword).toBe(`<img src="" alt='' title= style="color:"><a  href="${LINK}/invoices/UID123">i</a>`);
    }
  });

  it("reads attribute quotes as a browser does: a > inside a value does not end the tag", () => {
    const values: KeywordValues = { NAME: { text: "javascript:alert(1)" } };
    expect(fillKeywords('<a title="a>b" href="{%NAME%}">{%NAME%}</a>', values, true)).toBe('<a title="a>b" href="">javascript:alert(1)</a>');
    expect(fillKeywords("<a title='x>' href=%7B%25NAME%25%7D>n</a>", values, true)).toBe("<a title='x>' href=>n</a>");
  });

  it("fills no value into comments, doctypes or the content of <style>", () => {
    const values: KeywordValues = { NAME: { text: "}body{background:url(https://evil.example/)}" } };
    expect(fillKeywords("<!DOCTYPE {%NAME%}><!-- {%NAME%} --><style>p{color:{%NAME%}}</style><p>{%NAME%}</p>", values, true)).toBe(
      "<!DOCTYPE ><!--  --><style>p{color:}</style><p>}body{background:url(https://evil.example/)}</p>",
    );
  });

  it("escapes a name in the body, and a < of the template that starts no tag cannot start one with the name", () => {
    const bold: KeywordValues = { NAME: { text: "<b>x</b>" } };
    expect(fillKeywords("<p>Dear {%NAME%},</p>", bold, true)).toBe("<p>Dear &lt;b&gt;x&lt;/b&gt;,</p>");
    const tag: KeywordValues = { NAME: { text: "img src=x onerror=alert(1)" } };
    expect(fillKeywords("<p><{%NAME%}> 1 < 2</p>", tag, true)).toBe("<p>&lt;img src=x onerror=alert(1)> 1 &lt; 2</p>");
  });
});

describe("renderEmail", () => {
  it("makes the subject plain text (no escaping, no tags, trimmed)", () => {
    const values: KeywordValues = { ...ALL, NAME: { text: `Ann & "Bo" <Smith>` } };
    const { subject } = renderEmail({ subject: "  Tickets for {%NAME%} ({%YEAR%})  ", body: "" }, values);
    expect(subject).toBe(`Tickets for Ann & "Bo" <Smith> (2026)`);
    const withSummary = renderEmail({ subject: "{%ORDER%} {%FIELDS%}", body: "" }, values).subject;
    expect(withSummary).toBe("Regular 2 25.00 EUR Company Acme");
    expect(renderEmail({ subject: "Your tickets: {%TICKETS%}", body: "" }, values).subject).toBe(`Your tickets: ${DOWNLOAD}`);
  });

  it("puts the subject on one line: the template's line breaks and any control character in a value become spaces", () => {
    const values: KeywordValues = { NAME: { text: "Ann\r\nBcc: evil@x.com" }, YEAR: { text: "2026" } };
    const { subject } = renderEmail({ subject: "Tickets\r\nfor {%NAME%}\n({%YEAR%})\r", body: "" }, values);
    expect(subject).toBe("Tickets for Ann Bcc: evil@x.com (2026)");
    expect(subject).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it("shows characters of the HTML summaries as themselves in the subject, not as HTML entities", () => {
    // The summaries escape names for HTML (`Rock &amp; Roll`); a plain-text subject must read `Rock & Roll`.
    const values: KeywordValues = {
      ORDER: { html: "<table><tr><td>Rock &amp; Roll</td><td>1</td></tr></table>" },
      FIELDS: { html: "<table><tr><td>Company</td><td>Smith &amp; Sons &lt;Ltd&gt; &quot;X&quot; &#39;Y&#39;</td></tr></table>" },
    };
    const { subject } = renderEmail({ subject: "{%ORDER%} / {%FIELDS%}", body: "" }, values);
    expect(subject).toContain("Rock & Roll");
    expect(subject).toContain(`Company Smith & Sons <Ltd> "X" 'Y'`);
    expect(subject).not.toMatch(/&(amp|lt|gt|quot|#39);/);
  });

  it("wraps the filled body in a centred container at most 600 px wide", () => {
    const { html } = renderEmail({ subject: "s", body: "<p>Hello {%NAME%}</p>{%ORDER%}" }, { ...ALL, NAME: { text: "A & B" } });
    const inner = `<p>Hello A &amp; B</p>${SUMMARY}`;
    expect(html).toBe(wrapBody(inner));
    expect(html.startsWith("<!DOCTYPE html><html>")).toBe(true);
    const container = /<div style="([^"]*)">([\s\S]*)<\/div><\/body><\/html>$/.exec(html);
    expect(container, html).not.toBeNull();
    expect(container![1]).toMatch(/(^|;)max-width:600px(;|$)/);
    expect(container![1]).toContain("margin:0 auto");
    expect(container![2]).toBe(inner);
    // Nothing else in the message is wider than the container.
    expect(html.match(/\d+px/g)).toEqual(["600px", "16px"]);
  });

  it("renders the default bodies with the order summary, the personalisation, download and wallet links, no keyword left", () => {
    for (const body of [DEFAULT_ORDER_BODY, DEFAULT_CONFIRMED_BODY]) {
      const { html } = renderEmail({ subject: "s", body }, ALL);
      expect(html).toContain("<p>Dear Ann Smith,</p>");
      expect(html).toContain(SUMMARY);
      expect(html).toContain(PERSONALISE_BLOCK);
      expect(html).toContain(WALLET_BLOCK);
      expect(html).toContain(`<a href="${DOWNLOAD}">`);
      // The address is a link's target, not shown as text where the summary used to be.
      expect(html).not.toContain(`>${DOWNLOAD}<`);
      expect(html).not.toMatch(/\{%|%7B%25/i);
      // Nothing to personalise: the block is simply not there.
      expect(renderEmail({ subject: "s", body }, { ...ALL, PERSONALISE: { text: "" } }).html).not.toContain("personalise");
    }
    const { html } = renderEmail({ subject: "s", body: DEFAULT_CONFIRM_BODY }, ALL);
    expect(html).toContain(`<a href="${LINK}/orders/confirm/UID123">`);
  });
});

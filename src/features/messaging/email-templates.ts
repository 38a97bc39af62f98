import { escapeHtml } from "../../lib/html";
import { splitHtml } from "../../lib/html-parts";

/**
 * Email bodies of decisions.md 9 and 14: the spec's keywords replaced, values escaped for HTML, the body wrapped in
 * a container at most 600 px wide. Bodies are stored purified (events.service), so rendering only fills them in;
 * what a keyword may put where is decided here, because customers choose the values.
 */

type Keyword =
  | "NAME"
  | "EMAIL"
  | "YEAR"
  | "TICKETS"
  | "DOWNLOAD-TICKETS"
  | "PERSONALISE"
  | "INVOICE"
  | "FIELDS"
  | "CONFIRM"
  // Our extra (decisions.md 14): the order summary as a table.
  | "ORDER"
  // The order's wallet passes (decisions.md 15 "Wallet passes").
  | "WALLET"
  // Coupon emails (decisions.md 9).
  | "CODE"
  | "AMOUNT"
  | "START-DATE"
  | "END-DATE"
  | "MIN-TICKETS"
  | "MAX-TICKETS"
  | "MIN-AMOUNT"
  | "MAX-AMOUNT";

/**
 * The only keywords filled inside an attribute value: addresses the service makes. Any other value there (a name,
 * an email) could be a `javascript:` URL, a link to anywhere, or the end of the attribute.
 */
type LinkKeyword = "TICKETS" | "INVOICE" | "CONFIRM";
const LINK_KEYWORDS: ReadonlySet<string> = new Set<LinkKeyword>(["TICKETS", "INVOICE", "CONFIRM"]);

/**
 * Each keyword's value: `text` is inserted escaped, `html` as markup (blocks and tables the service builds). A link
 * keyword's value is its address, the same in text and in an attribute, so it is never markup.
 */
export type KeywordValues = { [K in LinkKeyword]?: { text: string } } & {
  [K in Exclude<Keyword, LinkKeyword>]?: { text: string } | { html: string };
};

/**
 * The text of a small HTML block or table, for plain-text places such as a subject: cells spaced, rows split by `;`,
 * entities decoded.
 */
function htmlToText(html: string): string {
  return html
    .replace(/<\/(td|th)>/gi, " ")
    .replace(/<\/(tr|li|p)>/gi, "; ")
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!)
    .replace(/\s+/g, " ")
    .replace(/ ;/g, ";")
    .replace(/[;\s]+$/, "")
    .trim();
}

const KEYWORD = /\{%([A-Z-]+)%\}/g;
/** In text a keyword, and a `<` that starts no tag (written `&lt;` so that a value cannot complete one). */
const KEYWORD_OR_LT = /\{%([A-Z-]+)%\}|</g;
/** In markup a keyword, plain or URL-escaped as editors save it inside an href (any case of the hex digits). */
const MARKUP_KEYWORD = /\{%([A-Z-]+)%\}|%7B%25([A-Z-]+)%25%7D/gi;

/**
 * Replaces the keywords of `template`, each in one pass (a value is never read for keywords); keywords without a
 * value stay as written. For HTML, a value lands escaped in text; in markup (attributes, comments, <style>) only
 * a link keyword's http(s) address lands, escaped, and any other keyword becomes empty.
 */
export function fillKeywords(template: string, values: KeywordValues, forHtml: boolean): string {
  const valueFor = (name: string) => values[name.toUpperCase() as Keyword];
  if (!forHtml) {
    return template.replace(KEYWORD, (whole, name: string) => {
      const v = valueFor(name);
      if (!v) return whole;
      return "html" in v ? htmlToText(v.html) : v.text;
    });
  }
  const inText = (whole: string, name: string | undefined) => {
    if (name === undefined) return "&lt;";
    const v = valueFor(name);
    if (!v) return whole;
    return "html" in v ? v.html : escapeHtml(v.text);
  };
  const inMarkup = (whole: string, plain: string | undefined, escaped: string | undefined) => {
    const name = (plain ?? escaped)!.toUpperCase();
    if (!LINK_KEYWORDS.has(name)) return valueFor(name) ? "" : whole;
    const link = values[name as LinkKeyword];
    if (!link) return whole;
    return /^https?:\/\//i.test(link.text) ? escapeHtml(link.text) : "";
  };
  return splitHtml(template)
    .map((part) => (part.text ? part.source.replace(KEYWORD_OR_LT, inText) : part.source.replace(MARKUP_KEYWORD, inMarkup)))
    .join("");
}

/** The whole message: at most 600 px wide, centred, whatever the body's own markup does. */
export function wrapBody(html: string): string {
  return `<!DOCTYPE html><html><body style="margin:0;padding:0"><div style="max-width:600px;margin:0 auto;padding:16px;font-family:Arial,Helvetica,sans-serif">${html}</div></body></html>`;
}

export interface RenderedEmail {
  subject: string;
  html: string;
}

/** A subject is one header line: line breaks (the template's, or a value's from before they were refused) split it. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
}

export function renderEmail(template: { subject: string; body: string }, values: KeywordValues): RenderedEmail {
  return { subject: oneLine(fillKeywords(template.subject, values, false)), html: wrapBody(fillKeywords(template.body, values, true)) };
}

/**
 * What an event sends when its own body is empty: every link the customer needs, never an attachment. The blocks
 * are empty when they do not apply (nothing to personalise); the confirmation request has no tickets yet.
 */
const TICKETS_PART = "{%ORDER%}{%PERSONALISE%}{%DOWNLOAD-TICKETS%}{%WALLET%}";
export const DEFAULT_ORDER_BODY = `<p>Dear {%NAME%},</p><p>Thank you for your order.</p>${TICKETS_PART}`;
export const DEFAULT_CONFIRM_BODY = '<p>Dear {%NAME%},</p><p>Please confirm your booking:</p><p><a href="%7B%25CONFIRM%25%7D">Confirm my booking</a></p>';
export const DEFAULT_CONFIRMED_BODY = `<p>Dear {%NAME%},</p><p>Your booking is confirmed.</p>${TICKETS_PART}`;

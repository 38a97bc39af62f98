import { escapeHtml } from "../lib/html";

/**
 * Email bodies of decisions.md 9: the spec's keywords replaced (also URL-escaped inside links), values escaped
 * for HTML, the body wrapped in a container at most 600 px wide. Bodies are stored purified (events.service), so
 * rendering only fills them in.
 */

export type Keyword =
  | "NAME"
  | "EMAIL"
  | "YEAR"
  | "TICKETS"
  | "DOWNLOAD-TICKETS"
  | "PERSONALISE"
  | "INVOICE"
  | "FIELDS"
  | "CONFIRM"
  // Coupon emails (decisions.md 9).
  | "CODE"
  | "AMOUNT"
  | "START-DATE"
  | "END-DATE"
  | "MIN-TICKETS"
  | "MAX-TICKETS"
  | "MIN-AMOUNT"
  | "MAX-AMOUNT";

/** Each keyword's value: `text` is inserted escaped, `html` as markup (the ticket and field summaries). */
export type KeywordValues = Partial<Record<Keyword, { text: string } | { html: string }>>;

export { escapeHtml };

/** The text of a small HTML summary, for plain-text places such as a subject: cells spaced, entities decoded. */
function htmlToText(html: string): string {
  return html
    .replace(/<\/(td|th)>/gi, " ")
    .replace(/<\/(tr|li|p)>/gi, "; ")
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!)
    .replace(/\s+/g, " ")
    .replace(/[;\s]+$/, "")
    .trim();
}

const KEYWORD = /\{%([A-Z-]+)%\}/g;
const ESCAPED_KEYWORD = /%7B%25([A-Z-]+)%25%7D/gi;

/** Replaces the keywords of `template`; unknown keywords stay as written. */
export function fillKeywords(template: string, values: KeywordValues, forHtml: boolean): string {
  const value = (name: string): string | null => {
    const v = values[name.toUpperCase() as Keyword];
    if (!v) return null;
    if ("html" in v) return forHtml ? v.html : htmlToText(v.html);
    return forHtml ? escapeHtml(v.text) : v.text;
  };
  // Inside an href a keyword arrives URL-escaped; its value goes in as a URL component (links stay links).
  const inLinks = template.replace(ESCAPED_KEYWORD, (whole, name: string) => {
    const v = values[name.toUpperCase() as Keyword];
    if (!v || !("text" in v)) return whole;
    return /^https?:\/\//.test(v.text) ? escapeHtml(v.text) : encodeURIComponent(v.text);
  });
  return inLinks.replace(KEYWORD, (whole, name: string) => value(name) ?? whole);
}

/** The whole message: at most 600 px wide, centred, whatever the body's own markup does. */
export function wrapBody(html: string): string {
  return `<!DOCTYPE html><html><body style="margin:0;padding:0"><div style="max-width:600px;margin:0 auto;padding:16px;font-family:Arial,Helvetica,sans-serif">${html}</div></body></html>`;
}

export interface RenderedEmail {
  subject: string;
  html: string;
}

export function renderEmail(template: { subject: string; body: string }, values: KeywordValues): RenderedEmail {
  return { subject: fillKeywords(template.subject, values, false).trim(), html: wrapBody(fillKeywords(template.body, values, true)) };
}

/** What an event sends when its own body is empty: every link the customer needs, never an attachment. */
export const DEFAULT_ORDER_BODY =
  '<p>Dear {%NAME%},</p><p>Thank you for your order.</p>{%TICKETS%}<p><a href="%7B%25DOWNLOAD-TICKETS%25%7D">Download your tickets</a></p>';
export const DEFAULT_CONFIRM_BODY =
  '<p>Dear {%NAME%},</p><p>Please confirm your booking:</p><p><a href="%7B%25CONFIRM%25%7D">Confirm my booking</a></p>';
export const DEFAULT_CONFIRMED_BODY =
  '<p>Dear {%NAME%},</p><p>Your booking is confirmed.</p>{%TICKETS%}<p><a href="%7B%25DOWNLOAD-TICKETS%25%7D">Download your tickets</a></p>';

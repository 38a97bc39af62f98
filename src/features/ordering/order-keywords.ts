import { API_BASE } from "../../config";
import { escapeHtml } from "../../lib/html";
import { centsToDecimal } from "../../lib/money";
import { wallClockAt } from "../../lib/time";
import type { Deps } from "../../platform/deps";
import type { KeywordValues } from "../messaging/email-templates";
import type { EventRow, OrderRow } from "../../db/rows";
import { isFinalOrder } from "../../db/order-status";
import { passLinks, type PassTicket, type TicketPasses } from "../tickets/wallet-links";

/**
 * The keyword values of an order's emails, with the meanings of Fast Events (decisions.md 14), because migrated
 * templates put `{%TICKETS%}` in an href and expect the download address: the link keywords are absolute
 * addresses, the blocks short paragraphs that are empty when they do not apply, and `{%ORDER%}` (our extra) the
 * order summary. Links only, never attachments.
 */

/** What an order's email offers besides the download. */
export interface OrderOffers {
  /** The confirmation link, only in the email that asks for it: the token is shown nowhere else (decisions.md 14). */
  confirm: boolean;
  /** Some of the order's tickets are still to be personalised. */
  personalise: boolean;
  /** The order's tickets, for their wallet passes. */
  passes: readonly PassTicket[];
}

function table(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return "";
  return `<table>${rows.map((cells) => `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`).join("")}</table>`;
}

function linkParagraph(lead: string, href: string, label: string): string {
  return `<p>${escapeHtml(lead)}<a href="${escapeHtml(href)}">${escapeHtml(label)}</a></p>`;
}

/**
 * The link of the email that asks for confirmation: the order's own token, never its uid, which API answers show.
 * Only orders placed awaiting confirmation have one.
 */
function confirmLink(base: string, order: OrderRow): string {
  if (order.confirmToken === null) throw new Error("an order that awaits no confirmation has no confirmation link");
  return `${base}/orders/confirm/${order.confirmToken}`;
}

/**
 * `{%WALLET%}` (decisions.md 15 "Wallet passes"): a link per configured wallet for each ticket, as a table; empty
 * while the download is not allowed (the order not final, a ticket to personalise) or no wallet is configured.
 */
function walletBlock(passes: readonly TicketPasses[]): string {
  if (passes.length === 0) return "";
  const cell = (href: string, label: string) => (href === "" ? "" : `<td><a href="${escapeHtml(href)}">${label}</a></td>`);
  const rows = passes.map((p, i) => `<tr><td>${i + 1}. ${escapeHtml(p.label)}</td>${cell(p.apple, "Add to Apple Wallet")}${cell(p.google, "Add to Google Wallet")}</tr>`);
  return `<p>Add your tickets to your phone's wallet:</p><table>${rows.join("")}</table>`;
}

export function orderKeywords(deps: Deps, order: OrderRow, event: EventRow, offers: OrderOffers): KeywordValues {
  const base = `${deps.origin}${API_BASE}`;
  const download = `${base}/tickets/${order.uid}`;
  const downloadAllowed = isFinalOrder(order) && !offers.personalise && !offers.confirm;
  const summary = order.lines.filter((l) => l.count > 0).map((l) => [l.name, String(l.count), `${centsToDecimal(l.unitCents * l.count)} ${order.currency}`]);
  return {
    NAME: { text: order.name },
    EMAIL: { text: order.email },
    YEAR: { text: String(wallClockAt(deps.now() * 1000, event.timezone).year) },
    TICKETS: { text: download },
    "DOWNLOAD-TICKETS": { html: linkParagraph("", download, "Download your tickets") },
    PERSONALISE: offers.personalise
      ? { html: linkParagraph("Your tickets must be personalised before they can be downloaded: ", `${download}/personalise`, "personalise your tickets") }
      : { text: "" },
    // The invoice route answers only for events with invoices (invoices.service).
    INVOICE: { text: event.invoiceNeeded ? `${base}/invoices/${order.uid}` : "" },
    FIELDS: { html: table(order.fields.map((f) => [f.name, f.value])) },
    ORDER: { html: table(summary) },
    WALLET: { html: downloadAllowed ? walletBlock(passLinks(deps, order.uid, offers.passes)) : "" },
    ...(offers.confirm ? { CONFIRM: { text: confirmLink(base, order) } } : {}),
  };
}

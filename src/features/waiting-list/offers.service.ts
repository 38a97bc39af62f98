import { and, eq, inArray, sql } from "drizzle-orm";
import { API_BASE } from "../../config";
import { events, ticketTypes, waitingList } from "../../db/schema";
import { fail } from "../../domain/errors";
import { LANGUAGES, messagesFor, type Lang } from "../../domain/messages";
import { sha256Hex } from "../../lib/crypto";
import { escapeHtml } from "../../lib/html";
import { randomString } from "../../lib/random";
import type { Deps } from "../../platform/deps";
import type { WaitingListUpdateJob } from "../../platform/messages";
import { enqueueEmails, outboxStatement, type OutboxEmail } from "../messaging/emails.service";
import { deliveryStatements, enqueueDeliveries, writtenDeliveries } from "../messaging/webhook-deliveries.service";
import type { EventRow } from "../../db/rows";
import { entryPayload, type WaitingEntry } from "./waiting-list.service";

/**
 * What the event's object decided about waiting entries, written to D1 (decisions.md 15 "Selling like the peers"):
 * an offer gets its personal link (a random token, stored hashed), its email and its `waiting_list.offered`
 * deliveries in one batch; an offer used or expired is recorded. Each write moves an entry only forward (waiting,
 * offered, then ordered or expired), so an update sent twice changes nothing the second time. The object is told
 * once D1 holds them, and sends again what it is not told of.
 */

type EntryRow = typeof waitingList.$inferSelect;
type Update = WaitingListUpdateJob["updates"][number];

/** The `waiting-list.update` job. */
export async function recordWaitingListUpdates(deps: Deps, job: WaitingListUpdateJob): Promise<void> {
  const ids = job.updates.map((u) => u.entryId);
  const rows = await deps.db
    .select()
    .from(waitingList)
    .where(and(eq(waitingList.eventId, job.eventId), inArray(waitingList.id, ids)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const event = await deps.db.select().from(events).where(eq(events.id, job.eventId)).get();
  for (const update of job.updates) {
    const entry = byId.get(update.entryId);
    // An entry deleted meanwhile: its object is told by the delete (waiting-list.service.ts), not here.
    if (!entry || entry.state === "deleted" || !event) continue;
    if (update.state === "offered") await recordOffer(deps, event, entry, update.deadline ?? deps.now() * 1000);
    else await recordEnd(deps, entry, update);
  }
  await deps.eventObjects.get(job.eventId).waitingListSynced(job.updates.map(({ entryId, state }) => ({ entryId, state })));
}

async function recordOffer(deps: Deps, event: EventRow, entry: EntryRow, deadlineMs: number): Promise<void> {
  if (entry.state !== "waiting") return; // recorded before
  const token = randomString(32);
  const tokenHash = await sha256Hex(token);
  const now = deps.now();
  const offered = { ...entry, state: "offered" as const, offeredAt: now, offerExpiresAt: Math.floor(deadlineMs / 1000), tokenHash, synced: true, modifiedAt: now };
  const ours = sql`EXISTS (SELECT 1 FROM waiting_list WHERE id = ${entry.id} AND token_hash = ${tokenHash})`;
  const type = await deps.db
    .select({ name: ticketTypes.name })
    .from(ticketTypes)
    .where(and(eq(ticketTypes.eventId, entry.eventId), eq(ticketTypes.id, entry.ticketTypeId)))
    .get();
  const shown: WaitingEntry = { ...offered, ticketTypeName: type?.name ?? "", orderId: null };
  const results = await deps.db.batch([
    deps.db
      .update(waitingList)
      .set({ state: "offered", offeredAt: now, offerExpiresAt: offered.offerExpiresAt, tokenHash, synced: true, modifiedAt: now })
      .where(and(eq(waitingList.id, entry.id), eq(waitingList.state, "waiting"))),
    outboxStatement(deps, offerEmail(deps, event, shown, token), 0, ours),
    ...deliveryStatements(
      deps,
      "waiting_list.offered",
      { eventId: entry.eventId, body: JSON.stringify(entryPayload(deps, shown)), source: `${deps.origin}${API_BASE}` },
      ours,
    ),
  ]);
  const emailIds = (results[1] as { id: number }[]).map((r) => r.id);
  await enqueueEmails(deps, emailIds);
  await enqueueDeliveries(deps, writtenDeliveries(results));
}

async function recordEnd(deps: Deps, entry: EntryRow, update: Update): Promise<void> {
  await deps.db
    .update(waitingList)
    .set({ state: update.state, orderUid: update.orderUid, synced: true, modifiedAt: deps.now() })
    .where(and(eq(waitingList.id, entry.id), inArray(waitingList.state, ["waiting", "offered"])));
}

const isLang = (value: string): value is Lang => (LANGUAGES as readonly string[]).includes(value);

/** `{name}` placeholders of a catalogue text filled with escaped values. */
function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? escapeHtml(String(values[key])) : whole));
}

/** The offer's end as the buyer reads it: in the event's time zone and the entry's language. */
export function deadlineText(deadlineS: number, timeZone: string, lang: Lang): string {
  return new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "short", timeZone }).format(new Date(deadlineS * 1000));
}

/** The personal link of an offer: the event's shop page, holding the offer. */
function offerLink(deps: Deps, eventId: number, token: string, lang: Lang): string {
  return `${deps.origin}${API_BASE}/shop/${eventId}?offer=${token}&lang=${lang}`;
}

/** The offer's email, in the language the buyer joined in, from the event's sender. */
function offerEmail(deps: Deps, event: EventRow, entry: WaitingEntry, token: string): OutboxEmail {
  const lang = isLang(entry.lang) ? entry.lang : "en";
  const t = messagesFor(lang).waitingList;
  const values = {
    name: entry.name,
    event: event.eventName,
    count: entry.count,
    type: entry.ticketTypeName ?? "",
    deadline: deadlineText(entry.offerExpiresAt ?? 0, event.timezone, lang),
  };
  const link = escapeHtml(offerLink(deps, event.id, token, lang));
  const body = [
    `<p>${fill(t.emailGreeting, values)}</p>`,
    `<p>${fill(t.emailHeld, values)}</p>`,
    `<p><a href="${link}">${fill(t.emailLink, values)}</a></p>`,
    `<p>${fill(t.emailAfter, values)}</p>`,
  ].join("\n");
  const now = deps.now();
  return {
    to: entry.email,
    bcc: "",
    fromName: event.email.sender_name || deps.config.email.fromName,
    fromEmail: event.email.sender_email || deps.config.email.from,
    subject: t.emailSubject.replace("{event}", event.eventName),
    body: `<html lang="${lang}"><body>\n${body}\n</body></html>`,
    eventId: event.id,
    createdAt: now,
    dueAt: now,
  };
}

/**
 * The offer a personal link holds, for ordering through it: the entry of this event whose token it is, still
 * offered and not past its end; anything else is `409 waiting_list_offer_invalid`. The order must be placed with
 * the email that joined (the offer is personal; an email list or unique users then judge that email).
 */
export async function openOffer(deps: Deps, eventId: number, token: string): Promise<WaitingEntry> {
  const found = /^[A-Za-z0-9]{32}$/.test(token)
    ? await deps.db
        .select()
        .from(waitingList)
        .where(and(eq(waitingList.tokenHash, await sha256Hex(token)), eq(waitingList.eventId, eventId)))
        .get()
    : undefined;
  if (found?.state !== "offered" || (found.offerExpiresAt ?? 0) <= deps.now()) throw fail.waiting_list_offer_invalid();
  const type = await deps.db
    .select({ name: ticketTypes.name })
    .from(ticketTypes)
    .where(and(eq(ticketTypes.eventId, eventId), eq(ticketTypes.id, found.ticketTypeId)))
    .get();
  return { ...found, ticketTypeName: type?.name ?? null, orderId: null };
}

import type { EventRow } from "../../db/rows";
import { format, type Lang, messagesFor } from "../../domain/messages";
import { centsToDecimal, parseCents } from "../../lib/money";
import { isoDateTimeWithOffset } from "../../lib/time";
import type { OrderFormView } from "../checkout/customer-orders.schema";
import { shopDate } from "./shop-page";

/** Where the reCAPTCHA widget's script comes from (Google's, so the page's CSP names it; docs/ordering.md). */
const RECAPTCHA_SCRIPT = "https://www.google.com/recaptcha/api.js";

interface MetaProps {
  lang: Lang;
  view: OrderFormView;
  event: EventRow;
  url: string;
  recaptcha: boolean;
}

/** The page's one-line description: the event and its date. */
function description({ lang, view, event }: MetaProps): string {
  const words = messagesFor(lang).shop;
  return view.event_date === ""
    ? format(words.description, { name: view.event_name })
    : format(words.descriptionDate, { name: view.event_name, date: shopDate(view.event_date, event.eventDateFormat, lang) });
}

/**
 * schema.org `Event` (decisions.md 15 "The box office": shareable): the event, its date with its offset, and one
 * offer per ticket type with its price, availability and the sale window. Data, never run.
 */
function eventJsonLd({ view, event, url }: MetaProps): Record<string, unknown> {
  const tz = event.timezone;
  const saleEnd = event.endDate ?? event.eventDate;
  return {
    "@context": "https://schema.org",
    "@type": "Event",
    name: view.event_name,
    ...(event.eventDate !== null ? { startDate: isoDateTimeWithOffset(event.eventDate, tz) } : {}),
    eventStatus: "https://schema.org/EventScheduled",
    url,
    offers: view.ticket_types.map((t) => ({
      "@type": "Offer",
      name: t.name,
      price: centsToDecimal(parseCents(String(t.price)) ?? 0),
      priceCurrency: view.currency,
      availability: view.reason === "sold_out" || t.remaining === 0 ? "https://schema.org/SoldOut" : "https://schema.org/InStock",
      url,
      ...(event.startDate !== null ? { validFrom: isoDateTimeWithOffset(event.startDate, tz) } : {}),
      ...(saleEnd !== null ? { validThrough: isoDateTimeWithOffset(saleEnd, tz) } : {}),
    })),
  };
}

/**
 * JSON inside `<script>`: a `<` is written `\u003c`, so an organiser's `</script>` in a name cannot end the element
 * (and `<!--` cannot open a comment); the JSON reads the same.
 */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/** What the shop page adds to `<head>`: description, Open Graph tags, the JSON-LD, and reCAPTCHA's script where asked. */
export function ShopMeta(props: MetaProps) {
  const text = description(props);
  return (
    <>
      <meta name="description" content={text} />
      <meta property="og:title" content={props.view.event_name} />
      <meta property="og:description" content={text} />
      <meta property="og:type" content="website" />
      <meta property="og:url" content={props.url} />
      <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: scriptSafeJson(eventJsonLd(props)) }} />
      {props.recaptcha ? <script src={`${RECAPTCHA_SCRIPT}?hl=${props.lang}`} async defer /> : null}
    </>
  );
}

import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { API_BASE } from "../../config";
import { format, formatMoney, type Lang, messagesFor } from "../../domain/messages";
import { selectChoices, MAX_CUSTOMER_INPUT } from "../../domain/input-field-rules";
import { orderTotals, unitPriceCents } from "../../domain/pricing";
import { parseCents } from "../../lib/money";
import { formatPhpDate } from "../../lib/php-date";
import { parseWallClock } from "../../lib/time";
import type { OrderFormView } from "../checkout/customer-orders.schema";
import type { Control, EnteredValues } from "./shop-form";
import { ShopLayout } from "./page-layout";
import { JOIN_CONTROLS, type JoinValues } from "./waiting-list-form";

/** An error shown on the page: beside its control and in the summary, or in the summary only (control null). */
export interface PageError {
  control: Control | null;
  text: string;
}

type TicketTypeView = OrderFormView["ticket_types"][number];
type FieldView = OrderFormView["input_fields"][number];

/** Everything the shop page shows of an event (decisions.md 15 "The box office"). */
export interface ShopPageData {
  lang: Lang;
  view: OrderFormView;
  /** The event's `event_date_format` (PHP date pattern). */
  dateFormat: string;
  /** A passe-partout's events (group type 3): their names and dates. */
  admits: { name: string; date: string }[];
  /** Whether the order is booked only once its customer confirms by email (RSVP). */
  confirmationByEmail: boolean;
  /** The reCAPTCHA widget's site key; "" when the event asks none or none is configured. */
  recaptchaSiteKey: string;
  /** The page's absolute address without `lang` (og:url, JSON-LD). */
  url: string;
  /** The terms, purified (lib/html.ts purifyTerms) and inserted as they are. */
  termsHtml: string;
  /** `<head>` content beyond the frame's: the shareable description (shop-meta.tsx). */
  head: Child;
  token: string;
  values: EnteredValues;
  errors: PageError[];
  /** The ticket types with nothing left to order (the event's object's stock as the form was read). */
  soldOutTypes: readonly string[];
  /**
   * The waiting-list form (docs/shop.md "The waiting list"): shown when the event keeps a waiting list and a type is
   * sold out; null otherwise. `joined`: the redirect after joining, which proves nothing of the entry.
   */
  waitingList: { values: JoinValues; joined: boolean } | null;
  /** The waiting-list offer the page's personal link holds; null without a valid one. */
  offer: ShopOffer | null;
  /** A notice above the form (an offer link no longer valid), in the page's language; "" none. */
  notice: string;
}

/** What the shop page shows of the offer its personal link holds, and only with that link (decisions.md 15). */
export interface ShopOffer {
  token: string;
  typeId: string;
  typeName: string;
  count: number;
  name: string;
  email: string;
  /** The offer's end in the event's time zone and the page's language. */
  deadline: string;
}

const shopPath = (eventId: number) => `${API_BASE}/shop/${eventId}`;

/**
 * An event date as the event's `event_date_format` writes it, day and month names in the page's language
 * (decisions.md 15 "Languages"). The order form answers wall-clock times in the event's zone, hence no zone here.
 */
export function shopDate(wireDateTime: string, pattern: string, lang: Lang): string {
  const wall = parseWallClock(wireDateTime);
  return wall === null ? "" : formatPhpDate(wall, pattern, lang);
}

const centsOf = (amount: number): number => parseCents(String(amount)) ?? 0;
const volumeOf = (t: TicketTypeView) =>
  t.volume_price.flatMap((entry) => Object.entries(entry).map(([count, amount]) => ({ count: Number(count), cents: centsOf(amount) })));
const offeredHere = (t: TicketTypeView, data: ShopPageData) => data.offer?.typeId === t.id;
/** Sold out to this visitor: nothing left, unless the page's offer holds units of the type for them. */
const soldOut = (t: TicketTypeView, data: ShopPageData) =>
  !offeredHere(t, data) && (data.view.reason === "sold_out" || t.remaining === 0 || data.soldOutTypes.includes(t.id));

/** Total and VAT of the counts entered (0 on a fresh form), as the order would price them (domain/pricing.ts). */
function enteredTotals(view: OrderFormView, values: EnteredValues) {
  const lines = view.ticket_types.map((t) => {
    const typed = (values.tickets[t.id] ?? "").trim();
    const count = /^\d{1,5}$/.test(typed) ? Number(typed) : 0;
    return { count, unitCents: unitPriceCents(centsOf(t.price), volumeOf(t), count), vatHundredths: centsOf(t.vat) };
  });
  return orderTotals(lines);
}

/** The ids an input's `aria-describedby` names: its hint when it has one, its error when it has one. */
function describedBy(control: string, hint: boolean, errors: readonly PageError[]): string | undefined {
  const ids = [...(hint ? [`${control}-hint`] : []), ...(errors.some((e) => e.control === control) ? [`${control}-error`] : [])];
  return ids.length === 0 ? undefined : ids.join(" ");
}

function FieldError({ control, errors }: { control: string; errors: readonly PageError[] }) {
  const own = errors.filter((e) => e.control === control);
  if (own.length === 0) return null;
  return (
    <p class="field-error" id={`${control}-error`}>
      {own.map((e) => e.text).join(" ")}
    </p>
  );
}

const invalid = (control: string, errors: readonly PageError[]) => (errors.some((e) => e.control === control) ? "true" : undefined);

/** The first control of a group of dates carries the group's own id, so the summary's link lands on it. */
const dateInputId = (index: number, eventId: number) => (index === 0 ? "event_ids" : `event_ids_${eventId}`);

function ErrorSummary({ data }: { data: ShopPageData }) {
  if (data.errors.length === 0) return null;
  const words = messagesFor(data.lang).shop;
  return (
    <div id="form-errors" role="alert" tabindex={-1}>
      <h2>{words.errorSummary}</h2>
      <ul>
        {data.errors.map((e) => (
          <li>{e.control === null ? e.text : <a href={`#${e.control}`}>{e.text}</a>}</li>
        ))}
      </ul>
    </div>
  );
}

function TicketType({ t, data }: { t: TicketTypeView; data: ShopPageData }) {
  const { lang, view, errors, values } = data;
  const words = messagesFor(lang).shop;
  const control = `ticket_${t.id}`;
  const priceCents = centsOf(t.price);
  // Through an offer the type takes up to the units held (and the type's own maximum), whatever the form says is left.
  const offer = offeredHere(t, data) ? data.offer : null;
  const most = offer ? (t.maximum_to_order > 0 ? Math.min(offer.count, t.maximum_to_order) : offer.count) : t.maximum_to_order;
  const hint =
    most > 0
      ? format(words.amountHint, { min: Math.max(1, t.minimum_to_order), max: most })
      : t.minimum_to_order > 1
        ? format(words.amountHintMin, { min: t.minimum_to_order })
        : "";
  const gone = soldOut(t, data);
  const max = most > 0 ? String(most) : undefined;
  const remaining = offer ? offer.count : t.remaining;
  return (
    <div class="ticket-type">
      <label for={control}>{t.name}</label>
      <p class="price">
        {priceCents === 0 ? words.free : formatMoney(priceCents, view.currency, lang)}
        {t.vat > 0 ? ` (${format(words.vatIncluded, { vat: t.vat })})` : ""}
      </p>
      {volumeOf(t).length > 0 ? (
        <ul class="volume-prices">
          {volumeOf(t).map((v) => (
            <li>{format(words.volumePrice, { count: v.count, price: formatMoney(v.cents, view.currency, lang) })}</li>
          ))}
        </ul>
      ) : null}
      {gone ? (
        <p class="sold-out">{words.soldOut}</p>
      ) : (
        <>
          {!offer && t.remaining !== undefined && t.remaining !== null ? <p class="remaining">{format(words.remaining, { count: t.remaining })}</p> : null}
          {hint !== "" ? (
            <p class="hint" id={`${control}-hint`}>
              {hint}
            </p>
          ) : null}
          <input
            type="number"
            id={control}
            name={control}
            min="0"
            max={max}
            step="1"
            inputmode="numeric"
            value={values.tickets[t.id] ?? "0"}
            data-price-cents={String(priceCents)}
            data-vat-hundredths={String(centsOf(t.vat))}
            data-volume={JSON.stringify(volumeOf(t))}
            // The script's count check (src/domain/shop-checks.ts): the type's minimum, and what is left only
            // where the type shows it anyway (docs/shop.md).
            data-minimum={t.minimum_to_order > 1 ? String(t.minimum_to_order) : undefined}
            data-remaining={remaining !== undefined && remaining !== null ? String(remaining) : undefined}
            aria-invalid={invalid(control, errors)}
            aria-describedby={describedBy(control, hint !== "", errors)}
          />
          <FieldError control={control} errors={errors} />
        </>
      )}
    </div>
  );
}

function GroupDates({ data }: { data: ShopPageData }) {
  const { view, lang, values, errors, dateFormat } = data;
  if (view.group === null) return null;
  const words = messagesFor(lang).shop;
  const several = view.group.group_type === 2;
  const chosen = values.eventIds.length > 0 ? values.eventIds : [String(view.event_id)];
  return (
    <fieldset class="dates">
      <legend>{several ? words.chooseDates : words.chooseOneDate}</legend>
      {view.group.dates.map((d, i) => {
        const id = dateInputId(i, d.event_id);
        return (
          <div class="date">
            <input
              type={several ? "checkbox" : "radio"}
              id={id}
              name="event_ids"
              value={String(d.event_id)}
              checked={chosen.includes(String(d.event_id))}
              disabled={!d.open}
              aria-invalid={invalid("event_ids", errors)}
              aria-describedby={describedBy("event_ids", false, errors)}
            />
            <label for={id}>
              {d.event_name}
              {d.event_date !== "" ? `, ${shopDate(d.event_date, dateFormat, lang)}` : ""}
            </label>
          </div>
        );
      })}
      <FieldError control="event_ids" errors={errors} />
    </fieldset>
  );
}

function InputField({ f, data }: { f: FieldView; data: ShopPageData }) {
  const { values, errors, lang } = data;
  const control = `field_${f.id}`;
  const common = {
    id: control,
    name: control,
    required: f.is_required,
    "aria-invalid": invalid(control, errors),
    "aria-describedby": describedBy(control, false, errors),
  };
  const entered = values.fields[f.id] ?? "";
  let input: Child;
  switch (f.type) {
    case "select":
      input = (
        <select {...common}>
          <option value="">{messagesFor(lang).shop.choose}</option>
          {selectChoices(f.value).map((choice) => (
            <option value={choice} selected={choice === entered}>
              {choice}
            </option>
          ))}
        </select>
      );
      break;
    case "date":
    case "time":
      input = <input type={f.type} {...common} min={f.min || undefined} max={f.max || undefined} value={entered} />;
      break;
    default:
      // Text and password: min and max are lengths (domain/order-rules.ts); a password's value is never sent back.
      input = (
        <input
          type={f.type === "password" ? "password" : "text"}
          {...common}
          minlength={f.min === "" ? undefined : Number(f.min)}
          maxlength={f.max === "" ? MAX_CUSTOMER_INPUT : Number(f.max)}
          value={f.type === "password" ? undefined : entered}
          autocomplete={f.type === "password" ? "off" : undefined}
        />
      );
  }
  return (
    <div class="input-field">
      <label for={control}>{f.name}</label>
      {input}
      <FieldError control={control} errors={errors} />
    </div>
  );
}

function TextInput(props: { control: string; label: string; type: string; autocomplete: string; value: string; errors: readonly PageError[]; readonly?: boolean }) {
  const { control, errors } = props;
  return (
    <div class="input-field">
      <label for={control}>{props.label}</label>
      <input
        type={props.type}
        id={control}
        name={control}
        autocomplete={props.autocomplete}
        value={props.value}
        required
        readonly={props.readonly}
        aria-invalid={invalid(control, errors)}
        aria-describedby={describedBy(control, false, errors)}
      />
      <FieldError control={control} errors={errors} />
    </div>
  );
}

/** The order form of an open event, following the form contract (docs/ordering.md "How the shop page orders"). */
function OrderForm({ data }: { data: ShopPageData }) {
  const { view, lang, values, errors } = data;
  const words = messagesFor(lang).shop;
  const totals = enteredTotals(view, values);
  return (
    <form id="order-form" method="post" action={`${shopPath(view.event_id)}?lang=${lang}`} novalidate data-currency={view.currency} data-lang={lang}>
      <input type="hidden" name="form_token" value={data.token} />
      {data.offer ? <input type="hidden" name="offer" value={data.offer.token} /> : null}
      <GroupDates data={data} />
      <fieldset class="tickets">
        <legend>{words.ticketsHeading}</legend>
        {view.ticket_types.map((t) => (
          <TicketType t={t} data={data} />
        ))}
        <p class="totals">
          <span>{words.total}</span> <output id="order-total">{formatMoney(totals.totalCents, view.currency, lang)}</output> <span>{words.vat}</span>{" "}
          <output id="order-vat">{formatMoney(totals.vatCents, view.currency, lang)}</output>
        </p>
      </fieldset>
      <fieldset class="details">
        <legend>{words.detailsHeading}</legend>
        <TextInput control="name" label={words.name} type="text" autocomplete="name" value={values.name} errors={errors} />
        {data.offer ? (
          // The offer is personal: it orders only with the email that joined (decisions.md 15 "Selling like the peers").
          <TextInput control="email" label={words.email} type="email" autocomplete="email" value={data.offer.email} errors={errors} readonly />
        ) : (
          <TextInput control="email" label={words.email} type="email" autocomplete="email" value={values.email} errors={errors} />
        )}
        {view.input_fields.map((f) => (
          <InputField f={f} data={data} />
        ))}
        {view.coupon ? (
          <div class="input-field">
            <label for="coupon">{words.coupon}</label>
            <input
              type="text"
              id="coupon"
              name="coupon"
              autocomplete="off"
              value={values.coupon}
              aria-invalid={invalid("coupon", errors)}
              aria-describedby={describedBy("coupon", false, errors)}
            />
            <FieldError control="coupon" errors={errors} />
          </div>
        ) : null}
      </fieldset>
      {view.terms.trim() !== "" ? (
        <fieldset class="terms">
          <legend>{words.termsHeading}</legend>
          <div class="terms-text">{raw(data.termsHtml)}</div>
          <input
            type="checkbox"
            id="terms_accepted"
            name="terms_accepted"
            checked={values.termsAccepted}
            required
            aria-invalid={invalid("terms_accepted", errors)}
            aria-describedby={describedBy("terms_accepted", false, errors)}
          />
          <label for="terms_accepted">{words.termsAccept}</label>
          <FieldError control="terms_accepted" errors={errors} />
        </fieldset>
      ) : null}
      {data.recaptchaSiteKey !== "" ? (
        <div class="captcha">
          <p>{words.captcha}</p>
          <div class="g-recaptcha" data-sitekey={data.recaptchaSiteKey} />
        </div>
      ) : null}
      {data.confirmationByEmail ? <p class="rsvp">{words.rsvp}</p> : null}
      <button type="submit">{view.order_submit_text.trim() !== "" ? view.order_submit_text : words.submit}</button>
    </form>
  );
}

/** Why an event sells nothing now: before or after its sale window, or sold out. */
function Closed({ data }: { data: ShopPageData }) {
  const { view, lang, dateFormat } = data;
  const words = messagesFor(lang).shop;
  const opens = view.reason === "not_started" && view.start_date !== "" ? ` ${format(words.opensAt, { date: shopDate(view.start_date, dateFormat, lang) })}` : "";
  const text = view.reason === "not_started" ? `${words.notStarted}${opens}` : view.reason === "ended" ? words.ended : words.eventSoldOut;
  return <p class={`closed closed-${view.reason ?? "sold_out"}`}>{text}</p>;
}

/** The types a visitor may join the waiting list for: sold out, but for the one the page's offer holds. */
const joinableTypes = (data: ShopPageData) => data.view.ticket_types.filter((t) => soldOut(t, data) && data.soldOutTypes.includes(t.id));
const showsWaitingList = (data: ShopPageData) => data.waitingList !== null && joinableTypes(data).length > 0;

/** The controls the page shows: an error about any other (a forged field) is shown in the summary only. */
function controlsOn(data: ShopPageData): Set<string> {
  const { view } = data;
  const join = showsWaitingList(data) ? JOIN_CONTROLS : [];
  if (!view.open) return new Set(join);
  return new Set([
    ...join,
    "name",
    "email",
    ...view.ticket_types.filter((t) => !soldOut(t, data)).map((t) => `ticket_${t.id}`),
    ...view.input_fields.map((f) => `field_${f.id}`),
    ...(view.coupon ? ["coupon"] : []),
    ...(view.terms.trim() !== "" ? ["terms_accepted"] : []),
    ...(view.group !== null ? ["event_ids"] : []),
  ]);
}

/** The offer the page's personal link holds (decisions.md 15 "Selling like the peers"): its units, type and end. */
function OfferBanner({ data }: { data: ShopPageData }) {
  const { offer, lang } = data;
  if (!offer) return null;
  const words = messagesFor(lang).waitingList;
  return (
    <section class="offer" aria-labelledby="offer-heading">
      <h2 id="offer-heading">{words.offerTitle}</h2>
      <p>{format(words.offer, { count: offer.count, type: offer.typeName, deadline: offer.deadline, email: offer.email })}</p>
    </section>
  );
}

/** The waiting-list form: the sold-out types to join for (docs/shop.md "The waiting list"); its post is a plain form post. */
function WaitingListForm({ data }: { data: ShopPageData }) {
  const { lang, view, errors } = data;
  if (data.waitingList === null || !showsWaitingList(data)) return null;
  const { values } = data.waitingList;
  const words = messagesFor(lang).waitingList;
  const shopWords = messagesFor(lang).shop;
  const types = joinableTypes(data);
  return (
    <section id="waiting-list" aria-labelledby="waiting-list-heading">
      <h2 id="waiting-list-heading">{words.heading}</h2>
      <p>{words.intro}</p>
      <form method="post" action={`${shopPath(view.event_id)}/waiting-list?lang=${lang}`} novalidate>
        <input type="hidden" name="form_token" value={data.token} />
        <TextInput control="waiting_name" label={shopWords.name} type="text" autocomplete="name" value={values.name} errors={errors} />
        <TextInput control="waiting_email" label={shopWords.email} type="email" autocomplete="email" value={values.email} errors={errors} />
        <div class="input-field">
          <label for="waiting_type">{words.type}</label>
          <select
            id="waiting_type"
            name="waiting_type"
            required
            aria-invalid={invalid("waiting_type", errors)}
            aria-describedby={describedBy("waiting_type", false, errors)}
          >
            {types.map((t) => (
              <option value={t.id} selected={t.id === values.type}>
                {t.name}
              </option>
            ))}
          </select>
          <FieldError control="waiting_type" errors={errors} />
        </div>
        <div class="input-field">
          <label for="waiting_count">{words.count}</label>
          <input
            type="number"
            id="waiting_count"
            name="waiting_count"
            min="1"
            max="1000"
            step="1"
            inputmode="numeric"
            required
            value={values.count}
            aria-invalid={invalid("waiting_count", errors)}
            aria-describedby={describedBy("waiting_count", false, errors)}
          />
          <FieldError control="waiting_count" errors={errors} />
        </div>
        <button type="submit">{words.join}</button>
      </form>
    </section>
  );
}

/** After joining: a generic confirmation, since the redirect proves nothing of whose entry it was. */
function Joined({ data }: { data: ShopPageData }) {
  if (!data.waitingList?.joined) return null;
  const words = messagesFor(data.lang).waitingList;
  return (
    <section id="waiting-list-joined" role="status" aria-labelledby="waiting-list-joined-heading">
      <h2 id="waiting-list-joined-heading">{words.joinedTitle}</h2>
      <p>{words.joinedGeneric}</p>
    </section>
  );
}

/** The shop page of an event: open, its form; closed, why (decisions.md 15 "The box office"). */
export function ShopPage({ data: given }: { data: ShopPageData }) {
  const shown = controlsOn(given);
  const data: ShopPageData = { ...given, errors: given.errors.map((e) => (e.control !== null && !shown.has(e.control) ? { ...e, control: null } : e)) };
  const { view, lang, dateFormat } = data;
  const words = messagesFor(lang).shop;
  return (
    <ShopLayout lang={lang} page="shop" title={view.event_name} path={shopPath(view.event_id)} head={data.head}>
      <ErrorSummary data={data} />
      <h1>{view.event_name}</h1>
      {view.event_date !== "" ? (
        <p class="event-date">
          <span>{words.eventDate}</span>: <time datetime={view.event_date.replace(" ", "T")}>{shopDate(view.event_date, dateFormat, lang)}</time>
        </p>
      ) : null}
      {data.admits.length > 0 ? (
        <div class="admits">
          <p>{words.admits}</p>
          <ul>
            {data.admits.map((a) => (
              <li>
                {a.name}
                {a.date !== "" ? `, ${shopDate(a.date, dateFormat, lang)}` : ""}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {data.notice !== "" ? (
        <p class="notice" role="status">
          {data.notice}
        </p>
      ) : null}
      <Joined data={data} />
      <OfferBanner data={data} />
      {view.open ? <OrderForm data={data} /> : <Closed data={data} />}
      <WaitingListForm data={data} />
    </ShopLayout>
  );
}

/** An unknown event: a page in the page's language, not the API's JSON. */
export function NotFoundPage({ lang, path }: { lang: Lang; path: string }) {
  const words = messagesFor(lang).shop;
  return (
    <ShopLayout lang={lang} page="shop" title={words.notFoundTitle} path={path}>
      <h1>{words.notFoundTitle}</h1>
      <p>{words.notFound}</p>
    </ShopLayout>
  );
}

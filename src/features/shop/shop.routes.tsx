import { bodyText } from "../../http/body-text";
import { Hono } from "hono";
import type { AppContext, AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { answerOnce } from "../../http/idempotency";
import { clientAddress, orderRateLimit } from "../../http/rate-limits";
import { toApiError } from "../../http/errors";
import { type ApiError, fail } from "../../domain/errors";
import { CODE } from "../../domain/error-codes";
import { describeRoute } from "../../http/route-docs";
import { errorText, type Lang, messagesFor, pickLanguage } from "../../domain/messages";
import { purifyTerms } from "../../lib/html";
import { formatOptionalDateTime } from "../../lib/time";
import { API_BASE } from "../../config";
import { committedCustomerOrder, createCustomerOrder, type CustomerOrderResult } from "../checkout/customer-orders.service";
import { keptShopEventPart, readShopEventPart, type ShopEventPart } from "./event-part";
import type { Deps } from "../../platform/deps";
import { orderFormWithStock } from "../checkout/order-form.service";
import { remainingOfType } from "../../domain/stock-left";
import type { EventRow } from "../../db/rows";
import { deadlineText, openOffer } from "../waiting-list/offers.service";
import { joinWaitingList, type WaitingEntry } from "../waiting-list/waiting-list.service";
import { setShopHeaders } from "./page-layout";
import { emptyValues, type EnteredValues, newFormToken, readPostedForm, toOrderInput } from "./shop-form";
import { ShopMeta } from "./shop-meta";
import { NotFoundPage, type PageError, ShopPage, type ShopOffer } from "./shop-page";
import { emptyJoinValues, joinRefusalErrors, type JoinValues, readJoinForm, toJoinInput } from "./waiting-list-form";
import { refusalErrors, shapeErrors } from "./shop-refusals";
import { shopApi } from "./shop.schema";

const shopPath = (eventId: number | string) => `${API_BASE}/shop/${eventId}`;

const langOf = (c: AppContext): Lang => pickLanguage(c.req.query("lang"), c.req.header("Accept-Language"));

/**
 * The path's event with what its page shows of it, or the not-found page in the page's language (never the API's
 * JSON). A view may take it as kept for up to 10 s (event-part.ts); a post reads it afresh.
 */
async function pageEvent(c: AppContext, lang: Lang, read: (deps: Deps, pathId: string) => Promise<ShopEventPart>): Promise<ShopEventPart | Response> {
  try {
    return await read(depsOf(c), c.req.param("id") ?? "");
  } catch (err) {
    if (toApiError(err)?.status !== 404) throw err;
    setShopHeaders(c);
    return c.html(<NotFoundPage lang={lang} path={shopPath(c.req.param("id") ?? "")} />, 404);
  }
}

interface FormState {
  values: EnteredValues;
  errors: PageError[];
  /** The waiting-list form's values (docs/shop.md "The waiting list"). */
  joining?: JoinValues;
  /** Showing the confirmation after joining. */
  joined?: boolean;
  /** The offer the page's personal link holds, and its token. */
  offer?: { entry: WaitingEntry; token: string } | null;
  notice?: string;
}

/** The offer as the page shows it: its end in the event's time zone, in the page's language. */
function shownOffer(event: EventRow, { entry, token }: { entry: WaitingEntry; token: string }, lang: Lang): ShopOffer {
  return {
    token,
    typeId: entry.ticketTypeId,
    typeName: entry.ticketTypeName ?? "",
    count: entry.count,
    name: entry.name,
    email: entry.email,
    deadline: deadlineText(entry.offerExpiresAt ?? 0, event.timezone, lang),
  };
}

/**
 * The offer a personal link's token holds (decisions.md 15 "Selling like the peers"), or why it holds none: the
 * `waiting_list_offer_invalid` text as a notice, the page otherwise the ordinary one. No token: neither.
 */
async function offerOf(deps: Deps, eventId: number, token: string, lang: Lang): Promise<{ offer: { entry: WaitingEntry; token: string } | null; notice: string }> {
  if (token === "") return { offer: null, notice: "" };
  try {
    return { offer: { entry: await openOffer(deps, eventId, token), token }, notice: "" };
  } catch (err) {
    const refusal = toApiError(err);
    if (refusal?.code !== CODE.waiting_list_offer_invalid) throw err;
    return { offer: null, notice: errorText(lang, refusal.code, refusal.message) };
  }
}

/** The shop page of `event`: what its order form shows, with the entered values and errors of a refused post. */
async function renderShop(c: AppContext, { event, parts, children }: ShopEventPart, lang: Lang, state: FormState, status: 200 | 422 | 503 = 200): Promise<Response> {
  const deps = depsOf(c);
  const read = await orderFormWithStock(deps, event, parts);
  const offer = state.offer ? shownOffer(event, state.offer, lang) : null;
  // An offer's units are held for its entry alone: its page sells them even when the form says sold out.
  const view = offer && read.view.reason === "sold_out" ? { ...read.view, open: true, reason: null } : read.view;
  // The types with nothing left, for the waiting list's form and beside an offer (whose page opens a sold-out form);
  // otherwise a type shows "sold out" only where the form says so (its remaining shown, or the event sold out).
  const soldOutTypes = event.waitingListNeeded || offer ? parts.types.filter((t) => (remainingOfType(read.remaining, t.id, t.isCounted) ?? 1) <= 0).map((t) => t.id) : [];
  const listed = event.waitingListNeeded && (view.reason === null || view.reason === "sold_out");
  const recaptchaSiteKey = event.recaptchaNeeded ? deps.config.captcha.siteKey : "";
  // og:url and the JSON-LD's url: PUBLIC_URL when set, else this request's origin (platform/deps.ts).
  const url = `${deps.origin}${shopPath(event.id)}`;
  setShopHeaders(c, { recaptcha: recaptchaSiteKey !== "" });
  const head = <ShopMeta lang={lang} view={view} event={event} url={url} recaptcha={recaptchaSiteKey !== ""} />;
  return c.html(
    <ShopPage
      data={{
        lang,
        view,
        dateFormat: event.eventDateFormat,
        admits: children.map((e) => ({ name: e.eventName, date: formatOptionalDateTime(e.eventDate, e.timezone) })),
        confirmationByEmail: event.confirmationEmailsNeeded,
        recaptchaSiteKey,
        url,
        termsHtml: view.terms.trim() === "" ? "" : await purifyTerms(view.terms),
        head,
        token: newFormToken(),
        values: offer ? { ...state.values, name: state.values.name === "" ? offer.name : state.values.name, email: offer.email } : state.values,
        errors: state.errors,
        soldOutTypes,
        waitingList: listed ? { values: state.joining ?? emptyJoinValues(), joined: state.joined === true } : null,
        offer,
        notice: state.notice ?? "",
      }}
    />,
    status,
  );
}

/**
 * Where a placed order goes next (decisions.md 15 "The box office"): the provider's checkout when payment is due,
 * else the event's `redirect` when set, else the order's page. A `303` for the form; `200 {"location"}` for the
 * page's own script (`Accept: application/json`), which cannot read a cross-origin redirect.
 */
function placed(c: AppContext, result: CustomerOrderResult, lang: Lang): Response {
  const location = result.payment?.checkout_url || result.event.redirect || `${API_BASE}/shop/orders/${result.order.uid}?lang=${lang}`;
  if ((c.req.header("Accept") ?? "").includes("application/json")) return c.json({ location }, 200);
  return c.redirect(location, 303);
}

/**
 * A post of one of the page's forms (the order, the waiting list): its language, its event read afresh (or the
 * not-found page), and its body when it is a form (null when it is not). The page is the browser shop front of
 * decisions.md 13: its posts count as the ordering key's.
 */
async function pagePost(c: AppContext): Promise<{ lang: Lang; part: ShopEventPart; words: ReturnType<typeof messagesFor>["shop"]; body: string | null } | Response> {
  const lang = langOf(c);
  const part = await pageEvent(c, lang, readShopEventPart);
  if (part instanceof Response) return part;
  c.set("shopKey", "ordering");
  const isForm = (c.req.header("Content-Type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded");
  return { lang, part, words: messagesFor(lang).shop, body: isForm ? await bodyText(c) : null };
}

type Refuse = (errors: PageError[], status?: 422 | 503, headers?: Record<string, string>) => Promise<Response>;

/** The page again with a post's errors (`422`, or `503` when busy) and the refusal's headers (`Retry-After`). */
async function refusedPage(
  c: AppContext,
  part: ShopEventPart,
  lang: Lang,
  state: FormState,
  status: 422 | 503 = 422,
  headers: Record<string, string> = {},
): Promise<Response> {
  const res = await renderShop(c, part, lang, state, status);
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  return res;
}

/** A post's refusal as the page shows it, its texts by `toErrors`; anything that is no refusal (a 500) is thrown on. */
function refusedBy(err: unknown, refuse: Refuse, toErrors: (refusal: ApiError) => PageError[]): Promise<Response> {
  const refusal = toApiError(err);
  if (refusal === null || refusal.status === 500) throw err;
  return refuse(toErrors(refusal), refusal.status >= 500 ? 503 : 422, refusal.headers);
}

/**
 * `/shop/<event_id>` (decisions.md 15 "The box office"): the event's shop page and its form's post, no key. The
 * post orders as a browser shop front holding the ordering key would: the same rules, errors and limits.
 */
export const shopRoutes = new Hono<AppEnv>()
  .get("/:id", describeRoute(shopApi.page), async (c) => {
    const lang = langOf(c);
    const part = await pageEvent(c, lang, keptShopEventPart);
    if (part instanceof Response) return part;
    const { offer, notice } = await offerOf(depsOf(c), part.event.id, c.req.query("offer") ?? "", lang);
    return renderShop(c, part, lang, { values: emptyValues(), errors: [], offer, notice, joined: c.req.query("joined") === "1" });
  })

  .post("/:id", describeRoute(shopApi.order), async (c) => {
    const post = await pagePost(c);
    if (post instanceof Response) return post;
    const { lang, part, words } = post;
    const { event } = part;
    const deps = depsOf(c);
    const form = readPostedForm(post.body ?? "");
    // An order through an offer's personal link: the offer is checked afresh; one no longer valid is a refusal.
    const held = await offerOf(deps, event.id, form.offer, lang);
    const refuse: Refuse = (errors, status, headers) => refusedPage(c, part, lang, { values: form.values, errors, offer: held.offer }, status, headers);
    if (post.body === null) return refuse([{ control: null, text: words.unsupportedForm }]);
    if (form.token === null) return refuse([{ control: null, text: words.formExpired }]);
    const offer = held.offer ? { entryId: held.offer.entry.id, emailKey: held.offer.entry.emailKey } : undefined;
    const mapped = toOrderInput(
      form,
      part.parts.types.map((t) => t.id),
    );
    if (mapped.input === null) return refuse(shapeErrors(mapped.errors, lang));
    const input = mapped.input;
    try {
      await orderRateLimit(c, async () => {});
      return await answerOnce(
        c,
        form.token,
        async () => {
          // Refused inside the token's run, so that a double post of an order that used its offer replays its answer.
          if (held.notice !== "") throw fail.waiting_list_offer_invalid();
          return placed(c, await createCustomerOrder(deps, event, input, clientAddress(c), c.var.idempotencyRef ?? null, "ordering", { via: "shop", offer }), lang);
        },
        async (ctx, ref) => {
          const committed = await committedCustomerOrder(depsOf(ctx), ref);
          return committed && placed(ctx, committed, lang);
        },
      );
    } catch (err) {
      return refusedBy(err, refuse, (refusal) => refusalErrors(refusal, lang));
    }
  })

  /**
   * The shop page's waiting-list form (decisions.md 15 "Selling like the peers"; docs/shop.md "The waiting list"):
   * joins as `POST /events/<id>/waiting-list` with the ordering key would, with the page's protections (the form's
   * token, the orders' limit per address). `303` to the page's confirmation, which names nothing of the entry.
   */
  .post("/:id/waiting-list", describeRoute(shopApi.joinWaitingList), async (c) => {
    const post = await pagePost(c);
    if (post instanceof Response) return post;
    const { lang, part, words } = post;
    const { event } = part;
    const deps = depsOf(c);
    const form = readJoinForm(post.body ?? "");
    const refuse: Refuse = (errors, status, headers) => refusedPage(c, part, lang, { values: emptyValues(), errors, joining: form.values }, status, headers);
    if (post.body === null) return refuse([{ control: null, text: words.unsupportedForm }]);
    const token = form.token;
    if (token === null) return refuse([{ control: null, text: words.formExpired }]);
    const parsed = toJoinInput(form.values, lang);
    if (parsed.input === null) return refuse(parsed.errors);
    const input = parsed.input;
    try {
      await orderRateLimit(c, async () => {});
      return await answerOnce(c, token, async () => {
        await joinWaitingList(deps, event, input);
        return c.redirect(`${shopPath(event.id)}?lang=${lang}&joined=1`, 303);
      });
    } catch (err) {
      return refusedBy(err, refuse, (refusal) => joinRefusalErrors(refusal, lang));
    }
  });

import { bodyText } from "../../http/body-text";
import { Hono } from "hono";
import type { AppContext, AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { answerOnce } from "../../http/idempotency";
import { clientAddress, orderRateLimit } from "../../http/rate-limits";
import { toApiError } from "../../http/errors";
import { describeRoute } from "../../http/route-docs";
import { type Lang, messagesFor, pickLanguage } from "../../domain/messages";
import { purifyTerms } from "../../lib/html";
import { formatOptionalDateTime } from "../../lib/time";
import { API_BASE } from "../../config";
import { committedCustomerOrder, createCustomerOrder, type CustomerOrderResult } from "../checkout/customer-orders.service";
import { keptShopEventPart, readShopEventPart, type ShopEventPart } from "./event-part";
import type { Deps } from "../../platform/deps";
import { orderForm } from "../checkout/order-form.service";
import { setShopHeaders } from "./page-layout";
import { emptyValues, type EnteredValues, newFormToken, readPostedForm, toOrderInput } from "./shop-form";
import { ShopMeta } from "./shop-meta";
import { NotFoundPage, type PageError, ShopPage } from "./shop-page";
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
}

/** The shop page of `event`: what its order form shows, with the entered values and errors of a refused post. */
async function renderShop(c: AppContext, { event, parts, children }: ShopEventPart, lang: Lang, state: FormState, status: 200 | 422 | 503 = 200): Promise<Response> {
  const deps = depsOf(c);
  const view = await orderForm(deps, event, parts);
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
        values: state.values,
        errors: state.errors,
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
 * `/shop/<event_id>` (decisions.md 15 "The box office"): the event's shop page and its form's post, no key. The
 * post orders as a browser shop front holding the ordering key would: the same rules, errors and limits.
 */
export const shopRoutes = new Hono<AppEnv>()
  .get("/:id", describeRoute(shopApi.page), async (c) => {
    const lang = langOf(c);
    const part = await pageEvent(c, lang, keptShopEventPart);
    if (part instanceof Response) return part;
    return renderShop(c, part, lang, { values: emptyValues(), errors: [] });
  })

  .post("/:id", describeRoute(shopApi.order), async (c) => {
    const lang = langOf(c);
    const part = await pageEvent(c, lang, readShopEventPart);
    if (part instanceof Response) return part;
    const { event } = part;
    const deps = depsOf(c);
    // The page is the browser shop front of decisions.md 13: its orders count as the ordering key's.
    c.set("shopKey", "ordering");
    const words = messagesFor(lang).shop;
    const isForm = (c.req.header("Content-Type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded");
    const form = readPostedForm(isForm ? await bodyText(c) : "");
    const refuse = (errors: PageError[], status: 422 | 503 = 422, headers: Record<string, string> = {}) =>
      renderShop(c, part, lang, { values: form.values, errors }, status).then((res) => {
        for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
        return res;
      });
    if (!isForm) return refuse([{ control: null, text: words.unsupportedForm }]);
    if (form.token === null) return refuse([{ control: null, text: words.formExpired }]);
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
        async () => placed(c, await createCustomerOrder(deps, event, input, clientAddress(c), c.var.idempotencyRef ?? null, "ordering", { via: "shop" }), lang),
        async (ctx, ref) => {
          const committed = await committedCustomerOrder(depsOf(ctx), ref);
          return committed && placed(ctx, committed, lang);
        },
      );
    } catch (err) {
      const refusal = toApiError(err);
      if (refusal === null || refusal.status === 500) throw err;
      return refuse(refusalErrors(refusal, lang), refusal.status >= 500 ? 503 : 422, refusal.headers);
    }
  });

import { Hono } from "hono";
import { API_BASE } from "../../config";
import { format, formatEventDate, formatMoney, type Lang, messagesFor, pickLanguage } from "../../domain/messages";
import type { AppEnv } from "../../http/context";
import { depsOf } from "../../http/deps";
import { describeRoute } from "../../http/route-docs";
import { formatPhpDate } from "../../lib/php-date";
import { wallClockAt } from "../../lib/time";
import { isUnknownOrder, ORDER_PAGE_REFRESH_S, orderPage, type OrderPage, type OrderPageDate } from "./order-page.service";
import { setShopHeaders, ShopLayout } from "./page-layout";
import { shopApi } from "./shop.schema";

/** The longest uid looked up; anything longer names no order (uids are 40 characters). */
const MAX_UID = 100;

/** A date of the event in its own zone and `event_date_format` (decisions.md 15 "Languages"). */
const eventDateText = (event: OrderPageDate["event"], lang: Lang) =>
  event.eventDate === null ? "" : formatEventDate(event.eventDate, event.eventDateFormat, event.timezone, lang);

/** A payment deadline: the event's zone, to the minute. */
const deadlineText = (epochSeconds: number, timezone: string) => formatPhpDate(wallClockAt(epochSeconds * 1000, timezone), "Y-m-d H:i");

/**
 * The tickets' wallet passes (decisions.md 15 "Wallet passes"), numbered as the tickets are. Every ticket's links read
 * alike, so each link's name says which ticket it is for, beginning with what it shows.
 */
function WalletPasses({ passes, lang }: { passes: OrderPageDate["passes"]; lang: Lang }) {
  const words = messagesFor(lang).orderPage;
  const link = (href: string, wallet: string, n: number, ticket: string) =>
    href === "" ? null : (
      <a href={href} aria-label={format(words.walletFor, { wallet, n, ticket })}>
        {wallet}
      </a>
    );
  return (
    <div class="order-wallet">
      <p>{words.wallet}</p>
      <ol>
        {passes.map((p, i) => (
          <li>
            {p.label} {link(p.apple, words.appleWallet, i + 1, p.label)} {link(p.google, words.googleWallet, i + 1, p.label)}
          </li>
        ))}
      </ol>
    </div>
  );
}

function DateSection({ date, lang }: { date: OrderPageDate; lang: Lang }) {
  const words = messagesFor(lang).orderPage;
  const { order, event } = date;
  const when = eventDateText(event, lang);
  const lines = order.lines.filter((l) => l.count > 0);
  return (
    <section class="order-date" aria-labelledby={`order-${order.id}`}>
      <h2 id={`order-${order.id}`}>{event.eventName}</h2>
      {when === "" ? null : (
        <p>
          {words.eventDate}: {when}
        </p>
      )}
      <p class="order-state" data-order-state={date.state}>
        {words.state[date.state]}
      </p>
      <table class="order-lines">
        <caption>{words.tickets}</caption>
        <tbody>
          {lines.map((l) => (
            <tr>
              <th scope="row">{l.name}</th>
              <td>{l.count}</td>
              <td>{formatMoney(l.unitCents * l.count, order.currency, lang)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">{words.total}</th>
            <td />
            <td>{formatMoney(order.totalCents, order.currency, lang)}</td>
          </tr>
        </tfoot>
      </table>
      {date.toPersonalise ? <p>{words.personaliseFirst}</p> : null}
      {date.preparing ? <p>{format(words.preparing, date.preparing)}</p> : null}
      <ul class="order-links">
        {date.downloadUrl ? (
          <li>
            <a href={date.downloadUrl}>{words.download}</a>
          </li>
        ) : null}
        {date.personaliseUrl ? (
          <li>
            <a href={date.personaliseUrl}>{words.personalise}</a>
          </li>
        ) : null}
        {date.invoiceUrl ? (
          <li>
            <a href={date.invoiceUrl}>{words.invoice}</a>
          </li>
        ) : null}
      </ul>
      {date.passes.length > 0 ? <WalletPasses passes={date.passes} lang={lang} /> : null}
    </section>
  );
}

function OrderView({ page, lang, self }: { page: OrderPage; lang: Lang; self: string }) {
  const words = messagesFor(lang).orderPage;
  const { order } = page;
  const timezone = page.dates[0]?.event.timezone ?? "UTC";
  return (
    <>
      <h1>{words.title}</h1>
      <p>
        {format(words.heading, { id: order.id })}. {format(words.orderedBy, { name: order.name })}
      </p>
      {page.checkoutUrl && order.expiresAt !== null ? (
        <p class="order-pay">
          {format(words.payBefore, { deadline: deadlineText(order.expiresAt, timezone) })} <a href={page.checkoutUrl}>{words.pay}</a>
        </p>
      ) : null}
      {page.dates.map((date) => (
        <DateSection date={date} lang={lang} />
      ))}
      {page.pending ? (
        <p class="order-refresh">
          {words.pendingNote} <a href={self}>{words.refresh}</a>
        </p>
      ) : null}
    </>
  );
}

/**
 * `GET /shop/orders/<uid>` (decisions.md 15 "The box office"): the order's page, where shop orders return from the
 * payment provider. No key: the uid is the capability, as for `/tickets/<uid>`; an unknown one is a 404 page that
 * says nothing of other orders. While something is pending `<main data-refresh>` lets the page's script look again,
 * and a link does it without script (no meta refresh).
 */
export const orderPageRoutes = new Hono<AppEnv>().get("/orders/:uid", describeRoute(shopApi.orderPage), async (c) => {
  const deps = depsOf(c);
  const uid = c.req.param("uid");
  const lang = pickLanguage(c.req.query("lang"), c.req.header("Accept-Language"));
  const words = messagesFor(lang).orderPage;
  const path = `${API_BASE}/shop/orders/${encodeURIComponent(uid)}`;
  setShopHeaders(c);
  // A private page: never cached, never indexed.
  c.header("Cache-Control", "private, no-store");
  c.header("X-Robots-Tag", "noindex");
  let page: OrderPage | null = null;
  if (uid.length <= MAX_UID) {
    try {
      page = await orderPage(deps, uid);
    } catch (err) {
      if (!isUnknownOrder(err)) throw err;
    }
  }
  if (!page) {
    return c.html(
      <ShopLayout lang={lang} page="order" title={words.notFoundTitle} path={path}>
        <h1>{words.notFoundTitle}</h1>
        <p>{words.notFound}</p>
      </ShopLayout>,
      404,
    );
  }
  return c.html(
    <ShopLayout lang={lang} page="order" title={words.title} path={path} refresh={page.pending ? ORDER_PAGE_REFRESH_S : undefined}>
      <OrderView page={page} lang={lang} self={`${path}?lang=${lang}`} />
    </ShopLayout>,
  );
});

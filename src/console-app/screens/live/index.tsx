import { api, ok, type Schemas } from "../../api";
import { format, formatMoney, type Lang, useLang, useText } from "../../i18n";
import { liveText } from "../../messages/live";
import { Problem } from "../../ui/load";
import { Table } from "../../ui/table";
import type { SectionProps } from "../event-page";
import { AdmissionsChart, clock } from "./chart";
import { usePoll } from "./poll";

type Live = Schemas["LiveNumbers"];

/** How often the section asks (decisions.md 15 "The organiser console": the numbers as they happen, no reload). */
const EVERY_MS = 3000;

const money = (amount: number, currency: string, lang: Lang) => formatMoney(Math.round(amount * 100), currency, lang);

/**
 * The event's live sales and check-ins: `GET /admin/events/<id>/live` every 3 seconds while the tab is visible.
 * It never takes the focus (the numbers change under the reader, the place in the page does not); when it last
 * updated is a polite note, to the minute, so a screen reader hears it at most once a minute.
 */
export function LivePanel({ event }: SectionProps) {
  const t = useText(liveText);
  const lang = useLang();
  const polled = usePoll(() => ok(api.GET("/ticketing/v1/admin/events/{id}/live", { params: { path: { id: String(event.id) } } })), EVERY_MS, [event.id]);
  const live = polled.data;
  return (
    <div class="live">
      <p class="hint">{t.howOften}</p>
      {polled.error !== undefined && <Problem error={polled.error} />}
      {polled.at && (
        <p class="live-updated" aria-live="polite" aria-atomic="true">
          {format(t.updated, { time: polled.at.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" }) })}
        </p>
      )}
      {live && (
        <>
          <Sales live={live} lang={lang} />
          <CheckIns live={live} lang={lang} />
          <Admissions live={live} lang={lang} />
        </>
      )}
    </div>
  );
}

function Sales({ live, lang }: { live: Live; lang: Lang }) {
  const t = useText(liveText);
  const { sales, currency } = live;
  const n = (x: number) => x.toLocaleString(lang);
  return (
    <section aria-labelledby="live-sales">
      <h2 id="live-sales">{t.sales}</h2>
      <dl class="details live-totals">
        <dt>{t.orders}</dt>
        <dd data-live="orders">{n(sales.total_orders)}</dd>
        <dt>{t.tickets}</dt>
        <dd data-live="tickets">{n(sales.total_tickets)}</dd>
        <dt>{t.revenue}</dt>
        <dd data-live="revenue">{money(sales.total_amount, currency, lang)}</dd>
        {sales.awaiting_confirmation > 0 && (
          <>
            <dt>{t.awaiting}</dt>
            <dd>{n(sales.awaiting_confirmation)}</dd>
          </>
        )}
      </dl>
      {sales.ticket_types.length === 0 ? (
        <p>{t.noSales}</p>
      ) : (
        <Table
          caption={t.salesCaption}
          rows={sales.ticket_types}
          columns={[
            { label: t.ticketType, rowHeader: true, cell: (line) => line.ticket_type },
            { label: t.sold, numeric: true, cell: (line) => n(line.sold) },
            { label: t.listAmount, numeric: true, cell: (line) => money(line.amount, currency, lang) },
          ]}
        />
      )}
    </section>
  );
}

function CheckIns({ live, lang }: { live: Live; lang: Lang }) {
  const t = useText(liveText);
  const { check_ins } = live;
  const n = (x: number) => x.toLocaleString(lang);
  return (
    <section aria-labelledby="live-check-ins">
      <h2 id="live-check-ins">{t.checkIns}</h2>
      <dl class="details live-totals">
        <dt>{t.admitted}</dt>
        <dd data-live="admitted">{n(check_ins.admitted)}</dd>
        {check_ins.inside !== null && (
          <>
            <dt>{t.inside}</dt>
            <dd data-live="inside">{n(check_ins.inside)}</dd>
          </>
        )}
      </dl>
      {check_ins.locations.length === 0 ? (
        <p>{t.noCheckIns}</p>
      ) : (
        <Table
          caption={t.checkInsCaption}
          rows={check_ins.locations}
          columns={[
            { label: t.location, rowHeader: true, cell: (line) => (line.location === "" ? t.noLocation : line.location) },
            { label: t.admitted, numeric: true, cell: (line) => n(line.admitted) },
          ]}
        />
      )}
    </section>
  );
}

function Admissions({ live, lang }: { live: Live; lang: Lang }) {
  const t = useText(liveText);
  return (
    <section aria-labelledby="live-admissions">
      <h2 id="live-admissions">{t.perFiveMinutes}</h2>
      <AdmissionsChart buckets={live.admissions} />
      <details>
        <summary>{t.showAsTable}</summary>
        <Table
          caption={t.perFiveMinutes}
          rows={live.admissions}
          columns={[
            { label: t.fiveMinutesFrom, rowHeader: true, cell: (b) => clock(b.start) },
            { label: t.admitted, numeric: true, cell: (b) => b.admitted.toLocaleString(lang) },
          ]}
        />
      </details>
    </section>
  );
}

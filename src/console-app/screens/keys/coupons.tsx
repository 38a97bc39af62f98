import { api, ok, okPage, type Schemas } from "../../api";
import { format, type Lang, useLang, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { keysText } from "../../messages/keys";
import { href, navigate, usePath } from "../../router";
import { Check, Field, Form, type FormValues, Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton, Heading, Pager } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import { CheckList } from "./check-list";
import { conflictOn } from "./conflict";

type Coupon = Schemas["Coupon"];
interface EventName {
  id: number;
  name: string;
}

const PER_PAGE = 20;

/** The events the signed-in user may name in a coupon (the API shows an organiser its own), for the checkboxes. */
async function eventNames(): Promise<EventName[]> {
  const events = await ok(api.GET("/ticketing/v1/admin/events", { params: { query: { per_page: "100", _fields: "id,event_name" } } }));
  return events.map((e) => ({ id: e.id, name: e.event_name }));
}

const eventIds = (coupon: Coupon | undefined) => (coupon?.events ?? "").split(",").filter((s) => s !== "");

/** `12.5` as the console's language writes a percentage or an amount (the API's coupon carries no currency). */
function discountText(coupon: Coupon, lang: Lang, t: (typeof keysText)["en"]): string {
  if (coupon.type === "percent") return new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 2 }).format(coupon.amount / 100);
  return format(t.amountOff, { amount: new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(coupon.amount) });
}

/** `YYYY-MM-DD HH:MM:SS` (the API, in the service's time zone) and the `datetime-local` control's `YYYY-MM-DDTHH:MM`. */
const toControl = (wire: string | undefined) => (wire ? wire.slice(0, 16).replace(" ", "T") : "");
const toWire = (control: string) => (control === "" ? "" : `${control.replace("T", " ")}:00`.slice(0, 19));

/** The body of a create or a change: every field of the form, so a change sends the coupon as the form shows it. */
function couponBody(v: FormValues) {
  return {
    code: v.text("code").trim(),
    description: v.text("description"),
    type: v.text("type") === "fixed" ? ("fixed" as const) : ("percent" as const),
    individual_use: v.bool("individual_use"),
    amount: v.text("amount").trim(),
    usage_limit: v.optionalInt("usage_limit") ?? 0,
    usage_limit_per_user: v.optionalInt("usage_limit_per_user") ?? 0,
    minimum_tickets: v.optionalInt("minimum_tickets") ?? 0,
    maximum_tickets: v.optionalInt("maximum_tickets") ?? 0,
    minimum_amount: v.optionalText("minimum_amount") ?? 0,
    maximum_amount: v.optionalText("maximum_amount") ?? 0,
    start_date: toWire(v.text("start_date")),
    end_date: toWire(v.text("end_date")),
    events: v.all("events").join(","),
    tickets: v.text("tickets").trim(),
    email: v.text("email").trim(),
  };
}

/** `#/coupons`: the coupons the user may change, paged (`?page=` in the fragment). */
export function CouponList() {
  const t = useText(keysText);
  const c = useText(commonText);
  const lang = useLang();
  const path = usePath();
  const page = Math.max(1, Number(new URLSearchParams(path.split("?")[1] ?? "").get("page")) || 1);
  const loaded = useLoad(async () => {
    const [coupons, events] = await Promise.all([
      okPage(api.GET("/ticketing/v1/admin/coupons", { params: { query: { page: String(page), per_page: String(PER_PAGE) } } })),
      eventNames(),
    ]);
    return { coupons, names: new Map(events.map((e) => [String(e.id), e.name])) };
  }, [page]);
  return (
    <>
      <Heading title={c.coupons}>{c.coupons}</Heading>
      <p>{t.couponsIntro}</p>
      <p class="actions">
        <a href={href("/coupons", "new")}>{t.newCoupon}</a>
      </p>
      <Show loaded={loaded}>
        {({ coupons, names }) =>
          coupons.items.length === 0 ? (
            <p>{t.noCoupons}</p>
          ) : (
            <>
              <Table
                caption={t.couponList}
                rows={coupons.items}
                columns={[
                  {
                    label: t.code,
                    rowHeader: true,
                    cell: (k) => (
                      <a href={href("/coupons", k.id)} aria-label={format(t.editCoupon, { code: k.code })}>
                        {k.code}
                      </a>
                    ),
                  },
                  { label: t.discount, cell: (k) => discountText(k, lang, t) },
                  {
                    label: t.events,
                    cell: (k) =>
                      k.events === ""
                        ? t.allEvents
                        : eventIds(k)
                            .map((id) => names.get(id) ?? `#${id}`)
                            .join(", "),
                  },
                  { label: t.used, numeric: true, cell: (k) => usedText(k, t) },
                  { label: t.valid, cell: (k) => validText(k, t) },
                ]}
              />
              <Pager page={page} pages={coupons.pages} onPage={(p) => navigate(`#/coupons?page=${p}`)} />
            </>
          )
        }
      </Show>
    </>
  );
}

/** "3 of 10" or "3 (no limit)": the coupon's uses against its limit (0: none), on the list and the coupon's page alike. */
const usedText = (k: Coupon, t: (typeof keysText)["en"]) => format(k.usage_limit > 0 ? t.usedOf : t.usedUnlimited, { used: k.used, limit: k.usage_limit });

function validText(k: Coupon, t: (typeof keysText)["en"]): string {
  const parts = [k.start_date && format(t.from, { date: k.start_date.slice(0, 16) }), k.end_date && format(t.until, { date: k.end_date.slice(0, 16) })].filter(Boolean);
  return parts.length === 0 ? t.always : parts.join(" ");
}

/** `#/coupons/new`. */
export function NewCoupon() {
  const t = useText(keysText);
  const c = useText(commonText);
  const events = useLoad(eventNames, []);
  return (
    <>
      <Heading title={t.newCoupon}>{t.newCoupon}</Heading>
      <p class="actions">
        <a href={href("/coupons")}>{t.backToCoupons}</a>
      </p>
      <Show loaded={events}>
        {(names) => (
          <Form
            submitLabel={t.createCoupon}
            onSubmit={async (values) => {
              const created = await conflictOn("code", t.codeTaken, ok(api.POST("/ticketing/v1/admin/coupons", { body: couponBody(values) })));
              navigate(href("/coupons", created.id));
              return c.created;
            }}
          >
            <CouponFields events={names} />
          </Form>
        )}
      </Show>
    </>
  );
}

/** `#/coupons/<id>`: a coupon's counters, its fields to change, resetting its counters, deleting it. */
export function CouponPage({ id }: { id: string }) {
  const t = useText(keysText);
  const c = useText(commonText);
  const loaded = useLoad(async () => {
    const [coupon, events] = await Promise.all([ok(api.GET("/ticketing/v1/admin/coupons/{id}", { params: { path: { id } } })), eventNames()]);
    return { coupon, events };
  }, [id]);
  return (
    <Show loaded={loaded}>
      {({ coupon, events }) => {
        const title = format(t.couponTitle, { code: coupon.code });
        return (
          <>
            <Heading title={title}>{title}</Heading>
            <p class="actions">
              <a href={href("/coupons")}>{t.backToCoupons}</a>
            </p>
            <dl class="details">
              <dt>{t.used}</dt>
              <dd>{usedText(coupon, t)}</dd>
              <dt>{t.lastUsed}</dt>
              <dd>{coupon.last_used === "" ? t.never : coupon.last_used.slice(0, 16)}</dd>
            </dl>
            <div class="actions">
              <ConfirmButton
                class="secondary"
                label={t.resetCounters}
                question={format(t.confirmReset, { code: coupon.code })}
                onConfirm={async () => {
                  await ok(api.GET("/ticketing/v1/admin/coupons/{id}/reset-counters", { params: { path: { id } } }));
                  announce(t.countersReset);
                  loaded.reload();
                }}
              />
              <ConfirmButton
                label={t.deleteCoupon}
                question={format(c.confirmDelete, { name: coupon.code })}
                onConfirm={async () => {
                  await ok(api.DELETE("/ticketing/v1/admin/coupons/{id}", { params: { path: { id } } }));
                  announce(c.deleted);
                  navigate(href("/coupons"));
                }}
              />
            </div>
            <Form
              key={coupon.date_modified}
              label={title}
              submitLabel={t.saveCoupon}
              onSubmit={async (values) => {
                await conflictOn("code", t.codeTaken, ok(api.PUT("/ticketing/v1/admin/coupons/{id}", { params: { path: { id } }, body: couponBody(values) })));
                loaded.reload();
                return c.saved;
              }}
            >
              <CouponFields coupon={coupon} events={events} />
            </Form>
          </>
        );
      }}
    </Show>
  );
}

function CouponFields({ coupon, events }: { coupon?: Coupon; events: readonly EventName[] }) {
  const t = useText(keysText);
  const chosen = eventIds(coupon);
  // An event of the coupon beyond the first hundred listed stays a (ticked) choice: leaving it out would drop it.
  const options = [
    ...events.map((e) => ({ value: String(e.id), label: e.name })),
    ...chosen.filter((id) => !events.some((e) => String(e.id) === id)).map((id) => ({ value: id, label: `#${id}` })),
  ];
  return (
    <>
      <Field name="code" label={t.code} hint={t.codeHint} required maxLength={50} pattern="\S+" autocomplete="off" value={coupon?.code} />
      <Field name="description" label={t.description} rows={2} maxLength={1000} value={coupon?.description} />
      <Select
        name="type"
        label={t.type}
        options={[
          { value: "percent", label: t.typePercent },
          { value: "fixed", label: t.typeFixed },
        ]}
        value={coupon?.type ?? "percent"}
      />
      <Field name="amount" label={t.amount} hint={t.amountHint} type="number" min={0} step="0.01" required value={coupon?.amount} />
      <Check name="individual_use" label={t.individualUse} checked={coupon?.individual_use ?? false} />
      <fieldset>
        <legend>{t.validity}</legend>
        <Field name="start_date" label={t.startDate} hint={t.dateHint} type="datetime-local" value={toControl(coupon?.start_date)} />
        <Field name="end_date" label={t.endDate} hint={t.dateHint} type="datetime-local" value={toControl(coupon?.end_date)} />
        <CheckList name="events" legend={t.eventsLegend} hint={t.eventsHint} options={options} checked={chosen} />
        <Field name="tickets" label={t.couponTickets} hint={t.couponTicketsHint} maxLength={2000} value={coupon?.tickets} />
        <Field name="email" label={t.email} hint={t.emailHint} type="email" maxLength={100} value={coupon?.email} />
      </fieldset>
      <fieldset>
        <legend>{t.limits}</legend>
        <Field name="usage_limit" label={t.usageLimit} hint={t.noLimitHint} type="number" min={0} step={1} value={coupon?.usage_limit ?? 0} />
        <Field name="usage_limit_per_user" label={t.usageLimitPerUser} hint={t.noLimitHint} type="number" min={0} step={1} value={coupon?.usage_limit_per_user ?? 0} />
        <Field name="minimum_tickets" label={t.minimumTickets} hint={t.noLimitHint} type="number" min={0} step={1} value={coupon?.minimum_tickets ?? 0} />
        <Field name="maximum_tickets" label={t.maximumTickets} hint={t.noLimitHint} type="number" min={0} step={1} value={coupon?.maximum_tickets ?? 0} />
        <Field name="minimum_amount" label={t.minimumAmount} hint={t.noLimitHint} type="number" min={0} step="0.01" value={coupon?.minimum_amount ?? 0} />
        <Field name="maximum_amount" label={t.maximumAmount} hint={t.noLimitHint} type="number" min={0} step="0.01" value={coupon?.maximum_amount ?? 0} />
      </fieldset>
    </>
  );
}

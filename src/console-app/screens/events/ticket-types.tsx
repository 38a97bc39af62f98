import { api, ok, type Schemas } from "../../api";
import { format, useLang, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { eventsText } from "../../messages/events";
import { Check, Field, type FormValues, Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { Table } from "../../ui/table";
import type { SectionProps } from "../event-page";
import { ChangeOrDelete, RowForm, useRowEditing } from "./row-editing";
import { formatAmount, templateOptions, ticketTemplates } from "./shared";

type TicketType = Schemas["TicketType"];

/** Volume prices as the organiser writes them, one `count: price` a line; the service checks them (decisions.md 13). */
function volumeText(type: TicketType | undefined): string {
  return (type?.volume_price ?? []).flatMap((entry) => Object.entries(entry).map(([count, price]) => `${count}: ${price}`)).join("\n");
}

function volumeEntries(text: string): Record<string, string>[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [count = "", price = ""] = line.split(/[:=]/, 2);
      return { [count.trim()]: price.trim().replace(",", ".") };
    });
}

/** A ticket type as the form sends it; amounts go as the decimal text typed, which the service reads exactly. */
function typeBody(v: FormValues) {
  const stockControl = v.bool("stock_control");
  return {
    name: v.text("name"),
    price: v.text("price").trim().replace(",", "."),
    vat: v.text("vat").trim().replace(",", ".") || "0",
    stock_control: stockControl,
    // The spec: `stock` is sent only with `stock_control`.
    ...(stockControl ? { stock: v.optionalInt("stock") ?? 0 } : {}),
    minimum_to_order: v.optionalInt("minimum_to_order") ?? 0,
    maximum_to_order: v.optionalInt("maximum_to_order") ?? 0,
    is_counted: v.bool("is_counted"),
    show_remaining: v.bool("show_remaining"),
    attachment_id: v.optionalInt("attachment_id") ?? 0,
    volume_price: volumeEntries(v.text("volume_price")),
    personalise: v.text("personalise"),
    layout: v.text("layout"),
  };
}

/** The `types` section of an event's page: its ticket types in a table, and a form to create or change one. */
export function TicketTypes({ event }: SectionProps) {
  const t = useText(eventsText);
  const c = useText(commonText);
  const lang = useLang();
  const id = String(event.id);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/events/{id}/ticket-types", { params: { path: { id } } })), [id]);
  const templates = useLoad(ticketTemplates, []);
  const editing = useRowEditing(loaded.data);
  const { edited } = editing;

  return (
    <>
      <Show loaded={loaded}>
        {(types) =>
          types.length === 0 ? (
            <p>{t.noTypes}</p>
          ) : (
            <Table
              caption={t.typesCaption}
              rows={types}
              columns={[
                { label: t.name, rowHeader: true, cell: (type) => type.name },
                { label: t.price, numeric: true, cell: (type) => formatAmount(type.price, lang) },
                { label: t.vat, numeric: true, cell: (type) => `${type.vat} %` },
                { label: t.soldStock, numeric: true, cell: (type) => `${type.sold} / ${type.stock_control ? (type.stock ?? 0) : t.unlimited}` },
                { label: t.minMax, numeric: true, cell: (type) => `${type.minimum_to_order} / ${type.maximum_to_order || "–"}` },
                {
                  label: c.actions,
                  cell: (type) => (
                    <ChangeOrDelete
                      row={type}
                      editing={editing}
                      remove={(gone) => ok(api.DELETE("/ticketing/v1/admin/events/{id}/ticket-types/{typeId}", { params: { path: { id, typeId: gone.id } } }))}
                      reload={loaded.reload}
                    />
                  ),
                },
              ]}
            />
          )
        }
      </Show>
      <RowForm
        editing={editing}
        newTitle={t.newType}
        createLabel={t.createType}
        saveLabel={t.saveType}
        create={(values) => ok(api.POST("/ticketing/v1/admin/events/{id}/ticket-types", { params: { path: { id } }, body: typeBody(values) }))}
        save={(type, values) =>
          ok(api.PUT("/ticketing/v1/admin/events/{id}/ticket-types/{typeId}", { params: { path: { id, typeId: type.id } }, body: typeBody(values) }))
        }
        reload={loaded.reload}
      >
        <Field name="name" label={t.name} required maxLength={100} value={edited?.name} />
        <Field name="price" type="number" min={0} step="0.01" label={t.price} hint={t.priceHint} required value={edited?.price} />
        <Field name="vat" type="number" min={0} max={100} step="0.01" label={t.vat} hint={t.vatHint} value={edited?.vat ?? 0} />
        <Check name="stock_control" label={t.stockControl} checked={edited?.stock_control ?? false} />
        <Field name="stock" type="number" min={0} step={1} label={t.typeStock} hint={t.typeStockHint} value={edited?.stock ?? 0} />
        <Field name="minimum_to_order" type="number" min={0} step={1} label={t.minimumToOrder} hint={t.minimumHint} value={edited?.minimum_to_order ?? 0} />
        <Field name="maximum_to_order" type="number" min={0} step={1} label={t.maximumToOrder} hint={t.maximumHint} value={edited?.maximum_to_order ?? 10} />
        <Field name="volume_price" rows={3} label={t.volumePrice} hint={t.volumePriceHint} value={volumeText(edited)} />
        <Check name="is_counted" label={t.isCounted} checked={edited?.is_counted ?? true} />
        <Check name="show_remaining" label={t.showRemaining} checked={edited?.show_remaining ?? false} />
        <Select
          name="attachment_id"
          label={t.typeTemplate}
          value={edited?.attachment_id ?? 0}
          options={templateOptions(templates.data, edited?.attachment_id ?? 0, t.eventsTemplate, (n) => format(t.templateNumber, { id: n }))}
        />
        <Field name="personalise" label={t.personalise} hint={t.personaliseHint} maxLength={2000} value={edited?.personalise ?? ""} />
        <Field name="layout" label={t.layout} hint={t.layoutHint} maxLength={2000} value={edited?.layout ?? ""} />
      </RowForm>
    </>
  );
}

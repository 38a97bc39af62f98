import { api, ok, type Schemas } from "../../api";
import { useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { eventsText } from "../../messages/events";
import { Check, Field, type FormValues, Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { Table } from "../../ui/table";
import type { SectionProps } from "../event-page";
import { ChangeOrDelete, RowForm, useRowEditing } from "./row-editing";

type InputField = Schemas["InputField"];
type FieldType = InputField["type"];

/** The API's input field types (decisions.md 13 "Catalogue"), each with its words. */
const TYPES = ["text", "select", "password", "date", "time"] as const satisfies readonly FieldType[];
const TYPE_LABEL = { text: "typeText", select: "typeSelect", password: "typePassword", date: "typeDate", time: "typeTime" } as const;

/** An input field as the form sends it. */
function fieldBody(values: FormValues) {
  return {
    name: values.text("name"),
    type: values.text("type") as FieldType,
    value: values.text("value"),
    min: values.text("min"),
    max: values.text("max"),
    is_required: values.bool("is_required"),
    is_personalised: values.bool("is_personalised"),
  };
}

/** The `fields` section of an event's page: what customers fill in, in form order, and a form to add or change one. */
export function InputFields({ event }: SectionProps) {
  const t = useText(eventsText);
  const c = useText(commonText);
  const id = String(event.id);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/events/{id}/input-fields", { params: { path: { id } } })), [id]);
  const editing = useRowEditing(loaded.data);
  const { edited } = editing;

  return (
    <>
      <Show loaded={loaded}>
        {(fields) =>
          fields.length === 0 ? (
            <p>{t.noFields}</p>
          ) : (
            <Table
              caption={t.fieldsCaption}
              rows={fields}
              columns={[
                { label: t.name, rowHeader: true, cell: (field) => field.name },
                { label: t.fieldType, cell: (field) => t[TYPE_LABEL[field.type]] },
                { label: t.fieldValue, cell: (field) => field.value },
                { label: t.fieldLimits, cell: (field) => (field.min || field.max ? `${field.min || "–"} … ${field.max || "–"}` : "–") },
                { label: t.isRequired, cell: (field) => (field.is_required ? c.yes : c.no) },
                { label: t.personalisedColumn, cell: (field) => (field.is_personalised ? c.yes : c.no) },
                {
                  label: c.actions,
                  cell: (field) => (
                    <ChangeOrDelete
                      row={field}
                      editing={editing}
                      remove={(gone) => ok(api.DELETE("/ticketing/v1/admin/events/{id}/input-fields/{fieldId}", { params: { path: { id, fieldId: gone.id } } }))}
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
        newTitle={t.newField}
        createLabel={t.createField}
        saveLabel={t.saveField}
        create={(values) => ok(api.POST("/ticketing/v1/admin/events/{id}/input-fields", { params: { path: { id } }, body: fieldBody(values) }))}
        save={(field, values) =>
          ok(api.PUT("/ticketing/v1/admin/events/{id}/input-fields/{fieldId}", { params: { path: { id, fieldId: field.id } }, body: fieldBody(values) }))
        }
        reload={loaded.reload}
      >
        <Field name="name" label={t.name} required maxLength={100} value={edited?.name} />
        <Select name="type" label={t.fieldType} value={edited?.type ?? "text"} options={TYPES.map((type) => ({ value: type, label: t[TYPE_LABEL[type]] }))} />
        <Field name="value" rows={2} label={t.fieldValue} hint={t.fieldValueHint} maxLength={1000} value={edited?.value ?? ""} />
        <Field name="min" label={t.fieldMin} hint={t.fieldMinHint} maxLength={10} value={edited?.min ?? ""} />
        <Field name="max" label={t.fieldMax} hint={t.fieldMaxHint} maxLength={10} value={edited?.max ?? ""} />
        <Check name="is_required" label={t.isRequired} checked={edited?.is_required ?? false} />
        <Check name="is_personalised" label={t.isPersonalised} hint={t.isPersonalisedHint} checked={edited?.is_personalised ?? false} />
      </RowForm>
    </>
  );
}

import { useEffect, useRef, useState } from "hono/jsx/dom";
import { api, ok, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { eventsText } from "../../messages/events";
import { Check, Field, Form, Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton } from "../../ui/page";
import { announce } from "../../ui/status";
import type { SectionProps } from "../event-page";

type InputField = Schemas["InputField"];
type FieldType = InputField["type"];

/** The API's input field types (decisions.md 13 "Catalogue"), each with its words. */
const TYPES = ["text", "select", "password", "date", "time"] as const satisfies readonly FieldType[];
const TYPE_LABEL = { text: "typeText", select: "typeSelect", password: "typePassword", date: "typeDate", time: "typeTime" } as const;

/** The `fields` section of an event's page: what customers fill in, in form order, and a form to add or change one. */
export function InputFields({ event }: SectionProps) {
  const t = useText(eventsText);
  const c = useText(commonText);
  const id = String(event.id);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/events/{id}/input-fields", { params: { path: { id } } })), [id]);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const formHeading = useRef<HTMLHeadingElement>(null);
  const edited = loaded.data?.find((field) => field.id === editing);
  useEffect(() => {
    if (editing) formHeading.current?.focus();
  }, [editing]);

  return (
    <>
      <Show loaded={loaded}>
        {(fields) =>
          fields.length === 0 ? (
            <p>{t.noFields}</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption>{t.fieldsCaption}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t.name}</th>
                    <th scope="col">{t.fieldType}</th>
                    <th scope="col">{t.fieldValue}</th>
                    <th scope="col">{t.fieldLimits}</th>
                    <th scope="col">{t.isRequired}</th>
                    <th scope="col">{t.personalisedColumn}</th>
                    <th scope="col">{c.actions}</th>
                  </tr>
                </thead>
                <tbody>
                  {fields.map((field) => (
                    <tr>
                      <th scope="row">{field.name}</th>
                      <td>{t[TYPE_LABEL[field.type]]}</td>
                      <td>{field.value}</td>
                      <td>{field.min || field.max ? `${field.min || "–"} … ${field.max || "–"}` : "–"}</td>
                      <td>{field.is_required ? c.yes : c.no}</td>
                      <td>{field.is_personalised ? c.yes : c.no}</td>
                      <td>
                        <div class="actions">
                          <button type="button" onClick={() => setEditing(field.id)}>
                            {format(t.changeNamed, { name: field.name })}
                          </button>
                          <ConfirmButton
                            label={format(t.deleteNamed, { name: field.name })}
                            question={format(c.confirmDelete, { name: field.name })}
                            onConfirm={async () => {
                              await ok(api.DELETE("/ticketing/v1/admin/events/{id}/input-fields/{fieldId}", { params: { path: { id, fieldId: field.id } } }));
                              if (editing === field.id) setEditing(undefined);
                              loaded.reload();
                              announce(c.deleted);
                            }}
                          />
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
      <h2 tabIndex={-1} ref={formHeading}>
        {edited ? format(t.changeNamed, { name: edited.name }) : t.newField}
      </h2>
      <Form
        key={edited?.id ?? "new"}
        label={edited ? format(t.changeNamed, { name: edited.name }) : t.newField}
        submitLabel={edited ? t.saveField : t.createField}
        onSubmit={async (values, form) => {
          const body = {
            name: values.text("name"),
            type: values.text("type") as FieldType,
            value: values.text("value"),
            min: values.text("min"),
            max: values.text("max"),
            is_required: values.bool("is_required"),
            is_personalised: values.bool("is_personalised"),
          };
          if (edited) {
            await ok(api.PUT("/ticketing/v1/admin/events/{id}/input-fields/{fieldId}", { params: { path: { id, fieldId: edited.id } }, body }));
            setEditing(undefined);
          } else {
            await ok(api.POST("/ticketing/v1/admin/events/{id}/input-fields", { params: { path: { id } }, body }));
            form.reset();
          }
          loaded.reload();
          return edited ? c.saved : c.created;
        }}
      >
        <Field name="name" label={t.name} required maxLength={100} value={edited?.name} />
        <Select name="type" label={t.fieldType} value={edited?.type ?? "text"} options={TYPES.map((type) => ({ value: type, label: t[TYPE_LABEL[type]] }))} />
        <Field name="value" rows={2} label={t.fieldValue} hint={t.fieldValueHint} maxLength={1000} value={edited?.value ?? ""} />
        <Field name="min" label={t.fieldMin} hint={t.fieldMinHint} maxLength={10} value={edited?.min ?? ""} />
        <Field name="max" label={t.fieldMax} hint={t.fieldMaxHint} maxLength={10} value={edited?.max ?? ""} />
        <Check name="is_required" label={t.isRequired} checked={edited?.is_required ?? false} />
        <Check name="is_personalised" label={t.isPersonalised} hint={t.isPersonalisedHint} checked={edited?.is_personalised ?? false} />
      </Form>
      {edited && (
        <p>
          <button type="button" onClick={() => setEditing(undefined)}>
            {t.cancelChange}
          </button>
        </p>
      )}
    </>
  );
}

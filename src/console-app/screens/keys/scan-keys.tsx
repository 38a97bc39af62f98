import { useEffect, useRef, useState } from "hono/jsx/dom";
import { api, ok, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { keysText } from "../../messages/keys";
import { href } from "../../router";
import { Field, Form, type FormValues, Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import type { SectionProps } from "../event-page";
import { CheckList } from "./check-list";
import { conflictOn } from "./conflict";
import { LEVELS, type Level, levelName, levelText } from "./levels";
import { QrImage } from "./qr-image";

type ScanKey = Schemas["ScanKey"];

export const listKeys = (id: number) => ok(api.GET("/ticketing/v1/admin/events/{id}/scan-keys", { params: { path: { id: String(id) } } }));

/** An event's scan keys and their types (for the ticket filter), loaded together. */
function useScanKeys(eventId: number) {
  return useLoad(async () => {
    const [keys, types] = await Promise.all([
      listKeys(eventId),
      ok(api.GET("/ticketing/v1/admin/events/{id}/ticket-types", { params: { path: { id: String(eventId) } } })),
    ]);
    return { keys, typeNames: types.map((t) => t.name) };
  }, [eventId]);
}

/**
 * The fields a scan key's form sends (decisions.md 6): `tickets` is the ticked type names, empty for all; without
 * the checkboxes (an event without types) it is not sent, so a change never widens a key by leaving it out.
 */
function keyBody(values: FormValues) {
  const hasTypes = values.form.querySelector('[name="tickets"]') !== null;
  return {
    location: values.text("location"),
    level: values.int("level") as Level,
    tickets: hasTypes ? values.all("tickets").join(",") : undefined,
    date_format: values.optionalText("date_format"),
  };
}

/** The event page's `keys` section: its scan keys with their QR codes, a new key, a change, a delete. */
export function ScanKeys({ event }: SectionProps) {
  const t = useText(keysText);
  const c = useText(commonText);
  const loaded = useScanKeys(event.id);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const eventId = String(event.id);
  return (
    <>
      <h2>{t.scanKeys}</h2>
      <p>{t.scanKeysIntro}</p>
      <h3>{t.levels}</h3>
      <ul class="levels">
        {LEVELS.map((l) => (
          <li>{levelText(t, l)}</li>
        ))}
      </ul>
      <p class="actions">
        <a href={href("/events", event.id, "keys-sheet")}>{t.sheetLink}</a>
      </p>
      <Show loaded={loaded}>
        {({ keys, typeNames }) => {
          const current = keys.find((k) => k.key === editing);
          return (
            <>
              {keys.length === 0 ? (
                <p>{t.noKeys}</p>
              ) : (
                <Table
                  caption={t.keysOfEvent}
                  rows={keys}
                  columns={[
                    { label: t.location, rowHeader: true, cell: (k) => k.location },
                    { label: t.level, cell: (k) => levelName(t, k.level) },
                    { label: t.ticketTypes, cell: (k) => (k.tickets === "" ? t.allTypes : k.tickets.split(",").join(", ")) },
                    { label: t.dateFormat, cell: (k) => <code>{k.date_format}</code> },
                    { label: t.qrCode, cell: (k) => <QrImage eventId={event.id} scanKey={k.key} alt={format(t.qrAlt, { location: k.location })} /> },
                    {
                      label: c.actions,
                      // Not RowActions: the button reads "Edit" and its accessible name names the key.
                      cell: (k) => (
                        <div class="actions">
                          <button type="button" aria-label={format(t.editKey, { location: k.location })} onClick={() => setEditing(k.key)}>
                            {c.edit}
                          </button>
                          <ConfirmButton
                            label={format(t.deleteKey, { location: k.location })}
                            question={format(c.confirmDelete, { name: k.location })}
                            onConfirm={async () => {
                              await ok(api.DELETE("/ticketing/v1/admin/events/{id}/scan-keys/{key}", { params: { path: { id: eventId, key: k.key } } }));
                              if (editing === k.key) setEditing(undefined);
                              announce(c.deleted);
                              loaded.reload();
                            }}
                          />
                        </div>
                      ),
                    },
                  ]}
                />
              )}
              {current ? (
                <EditKey
                  key={current.key}
                  scanKey={current}
                  typeNames={typeNames}
                  onSave={async (values) => {
                    await conflictOn(
                      "location",
                      t.locationTaken,
                      ok(api.PUT("/ticketing/v1/admin/events/{id}/scan-keys/{key}", { params: { path: { id: eventId, key: current.key } }, body: keyBody(values) })),
                    );
                    setEditing(undefined);
                    loaded.reload();
                    return c.saved;
                  }}
                  onCancel={() => setEditing(undefined)}
                />
              ) : (
                <>
                  <h3>{t.newKey}</h3>
                  <Form
                    label={t.newKey}
                    submitLabel={t.createKey}
                    onSubmit={async (values, form) => {
                      const body = { ...keyBody(values), key: values.optionalText("key") };
                      // Unique are the location (per event) and the key (service-wide): the list tells which.
                      const taken = keys.some((k) => k.location === body.location.trim());
                      await conflictOn(
                        taken ? "location" : "key",
                        taken ? t.locationTaken : t.keyTaken,
                        ok(api.POST("/ticketing/v1/admin/events/{id}/scan-keys", { params: { path: { id: eventId } }, body })),
                      );
                      form.reset();
                      loaded.reload();
                      return c.created;
                    }}
                  >
                    <KeyFields typeNames={typeNames} withKey />
                  </Form>
                </>
              )}
            </>
          );
        }}
      </Show>
    </>
  );
}

/** The form of one key being changed; its heading takes the focus, so the keyboard lands where the form is. */
function EditKey({
  scanKey,
  typeNames,
  onSave,
  onCancel,
}: {
  scanKey: ScanKey;
  typeNames: string[];
  onSave: (values: FormValues) => Promise<string>;
  onCancel: () => void;
}) {
  const t = useText(keysText);
  const c = useText(commonText);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const title = format(t.changeKey, { location: scanKey.location });
  return (
    <>
      <h3 tabIndex={-1} ref={heading}>
        {title}
      </h3>
      <Form label={title} submitLabel={t.saveKey} onSubmit={onSave}>
        <KeyFields typeNames={typeNames} scanKey={scanKey} />
      </Form>
      <button type="button" onClick={onCancel}>
        {c.cancel}
      </button>
    </>
  );
}

function KeyFields({ typeNames, scanKey, withKey }: { typeNames: string[]; scanKey?: ScanKey; withKey?: boolean }) {
  const t = useText(keysText);
  const ticked = scanKey && scanKey.tickets !== "" ? scanKey.tickets.split(",") : [];
  // A name the key holds that is no longer a type stays shown, ticked: leaving it out would widen the key.
  const names = [...new Set([...typeNames, ...ticked])];
  return (
    <>
      <Field name="location" label={t.location} hint={t.locationHint} required maxLength={100} value={scanKey?.location} />
      <Select name="level" label={t.level} options={LEVELS.map((l) => ({ value: l, label: levelText(t, l) }))} value={scanKey?.level ?? 0} />
      {names.length > 0 && (
        <CheckList name="tickets" legend={t.ticketTypesLegend} hint={t.ticketTypesHint} options={names.map((n) => ({ value: n, label: n }))} checked={ticked} />
      )}
      <Field name="date_format" label={t.dateFormat} hint={t.dateFormatHint} maxLength={100} value={scanKey?.date_format} />
      {withKey && <Field name="key" label={t.key} hint={t.keyHint} minLength={16} maxLength={16} pattern="[A-Za-z0-9]{16}" autocomplete="off" />}
    </>
  );
}

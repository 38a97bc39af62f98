import type { Child } from "hono/jsx/dom";
import { useEffect, useRef, useState } from "hono/jsx/dom";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { eventsText } from "../../messages/events";
import { Form, type FormValues } from "../../ui/form";
import { announce } from "../../ui/status";
import { RowActions } from "../../ui/table";

/** A row of an event's section that the section's one form creates and changes (a ticket type, an input field). */
interface Row {
  id: string;
  name: string;
}

interface RowEditing<T extends Row> {
  /** The row being changed, or undefined while the form creates a new one. */
  edited: T | undefined;
  editingId: string | undefined;
  setEditing: (id: string | undefined) => void;
  heading: { current: HTMLHeadingElement | null };
}

/**
 * Which row the form below the table changes. "Change <name>" moves the focus to the form's heading, so a keyboard
 * or screen reader user lands where the work now is (docs/console.md: everything works from the keyboard).
 */
export function useRowEditing<T extends Row>(rows: readonly T[] | undefined): RowEditing<T> {
  const [editingId, setEditing] = useState<string | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (editingId) heading.current?.focus();
  }, [editingId]);
  return { edited: rows?.find((row) => row.id === editingId), editingId, setEditing, heading };
}

/** A row's "Change <name>" (into the form below) and "Delete <name>" (after asking; the form lets go of it). */
export function ChangeOrDelete<T extends Row>({
  row,
  editing,
  remove,
  reload,
}: {
  row: T;
  editing: RowEditing<T>;
  remove: (row: T) => Promise<unknown>;
  reload: () => void;
}) {
  const t = useText(eventsText);
  const c = useText(commonText);
  return (
    <RowActions
      changeLabel={format(t.changeNamed, { name: row.name })}
      onChange={() => editing.setEditing(row.id)}
      deleteLabel={format(t.deleteNamed, { name: row.name })}
      question={format(c.confirmDelete, { name: row.name })}
      onDelete={async () => {
        await remove(row);
        if (editing.editingId === row.id) editing.setEditing(undefined);
        reload();
        announce(c.deleted);
      }}
    />
  );
}

/**
 * The form under the table: it creates a row, or changes the row chosen (its heading and name say which, and a
 * button gives the change up). After creating it empties for the next; after a change it goes back to creating.
 */
export function RowForm<T extends Row>({
  editing,
  newTitle,
  createLabel,
  saveLabel,
  create,
  save,
  reload,
  children,
}: {
  editing: RowEditing<T>;
  newTitle: string;
  createLabel: string;
  saveLabel: string;
  create: (values: FormValues) => Promise<unknown>;
  save: (row: T, values: FormValues) => Promise<unknown>;
  reload: () => void;
  children: Child;
}) {
  const t = useText(eventsText);
  const c = useText(commonText);
  const { edited, setEditing } = editing;
  const title = edited ? format(t.changeNamed, { name: edited.name }) : newTitle;
  return (
    <>
      <h2 tabIndex={-1} ref={editing.heading}>
        {title}
      </h2>
      <Form
        key={edited?.id ?? "new"}
        label={title}
        submitLabel={edited ? saveLabel : createLabel}
        onSubmit={async (values, form) => {
          if (edited) {
            await save(edited, values);
            setEditing(undefined);
          } else {
            await create(values);
            form.reset();
          }
          reload();
          return edited ? c.saved : c.created;
        }}
      >
        {children}
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

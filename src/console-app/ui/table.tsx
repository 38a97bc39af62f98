import type { Child } from "hono/jsx/dom";
import { ConfirmButton } from "./page";

/**
 * A table of the console: a caption (or an accessible name) every table needs, column headers scoped to their
 * columns, numbers right-aligned, and the row's own name as its header cell, so a screen reader reading a cell says
 * which row and column it is in. Scrolls sideways on a narrow screen instead of squeezing the page.
 */
export interface Column<T> {
  label: Child;
  cell: (row: T) => Child;
  /** Right-aligned, tabular digits (amounts, counts). */
  numeric?: boolean;
  /** The cell that names the row (`<th scope="row">`). */
  rowHeader?: boolean;
  /** Long unbroken text (a URL, an email address) may break anywhere rather than widen the table. */
  wrap?: boolean;
}

const cellClass = (column: { numeric?: boolean; wrap?: boolean }) => [column.numeric && "number", column.wrap && "wrap"].filter(Boolean).join(" ") || undefined;

export function Table<T>({ caption, columns, rows }: { caption: Child; columns: readonly Column<T>[]; rows: readonly T[] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" class={column.numeric ? "number" : undefined}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {columns.map((column) =>
                column.rowHeader ? (
                  <th scope="row" class={cellClass(column)}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td class={cellClass(column)}>{column.cell(row)}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A row's "Change <name>" and "Delete <name>" (the delete asks first, and shows a refusal beside it): the buttons
 * name their row, so a list of buttons read out of context still says what each does.
 */
export function RowActions({
  changeLabel,
  onChange,
  deleteLabel,
  question,
  onDelete,
}: {
  changeLabel?: string;
  onChange?: () => void;
  deleteLabel?: string;
  question?: string;
  onDelete?: () => Promise<unknown>;
}) {
  return (
    <div class="actions">
      {changeLabel && onChange && (
        <button type="button" onClick={onChange}>
          {changeLabel}
        </button>
      )}
      {deleteLabel && question && onDelete && <ConfirmButton label={deleteLabel} question={question} onConfirm={onDelete} />}
    </div>
  );
}

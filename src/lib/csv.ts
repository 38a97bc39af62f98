import { centsToDecimal } from "./money";

/**
 * RFC 4180 CSV with either `,` or `;` as separator (spreadsheets in many locales write `;`). Fields may be quoted
 * with `"`, a quote inside doubled; quoted fields may hold separators and line breaks. Line ends are CRLF or LF.
 */

export interface CsvRow {
  /** 1-based line on which the row starts. */
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** The separator of the first line: `;` when it has more of them than commas outside quotes, else `,`. */
export function detectSeparator(text: string): "," | ";" {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === "\n" || ch === "\r")) break;
    else if (!quoted && ch === ",") commas++;
    else if (!quoted && ch === ";") semicolons++;
  }
  return semicolons > commas ? ";" : ",";
}

/** Every non-blank row of `text` (a leading UTF-8 BOM is skipped). */
export function parseCsv(text: string, separator: "," | ";" = detectSeparator(text)): CsvRow[] {
  const rows: CsvRow[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let field = "";
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new CsvSyntaxError(start, "a quoted field is not closed");
          const ch = text[i]!;
          if (ch === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (ch === "\n") line++;
          field += ch;
          i++;
        }
        if (i < n && text[i] !== separator && text[i] !== "\n" && text[i] !== "\r") {
          throw new CsvSyntaxError(line, "text follows a closing quote");
        }
      } else {
        const from = i;
        while (i < n && text[i] !== separator && text[i] !== "\n" && text[i] !== "\r") {
          if (text[i] === '"') throw new CsvSyntaxError(line, "a quote inside an unquoted field");
          i++;
        }
        field = text.slice(from, i);
      }
      fields.push(field);
      if (i < n && text[i] === separator) {
        i++;
        continue;
      }
      break;
    }
    if (text[i] === "\r") i++;
    if (text[i] === "\n") i++;
    line++;
    if (!(fields.length === 1 && fields[0]!.trim() === "")) rows.push({ line: start, fields });
  }
  return rows;
}

/** A number written as it is (never quoted or prefixed): a count, or money as `centsToDecimal` writes it. */
export interface CsvNumber {
  number: string;
}

export type CsvCell = string | number | CsvNumber;

/** Money as a plain number with a dot and two decimals (`12.50` for 1250 cents). */
export function csvMoney(cents: number): CsvNumber {
  return { number: centsToDecimal(cents) };
}

/**
 * Text a spreadsheet would read as a formula (`=`, `+`, `-`, `@`) or that starts with a tab or CR gets a leading `'`,
 * so a customer's name cannot run in the organiser's spreadsheet (decisions.md 15 "The organiser console"). Numbers
 * are the service's own and are never prefixed.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

function csvField(cell: CsvCell): string {
  if (typeof cell === "number") return String(cell);
  if (typeof cell !== "string") return cell.number;
  const text = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One RFC 4180 row, comma separated, ended by CRLF. */
export function csvRow(cells: readonly CsvCell[]): string {
  return `${cells.map(csvField).join(",")}\r\n`;
}

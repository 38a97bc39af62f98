import { isEmailAddress } from "./email-address";
import { CsvSyntaxError, parseCsv } from "../lib/csv";

/**
 * An email list upload (spec: column 1 name, column 2 email address, column 3 the most tickets that person may
 * buy). A first row whose second column has no `@` is a header. One bad row fails the whole upload, naming its
 * line; addresses are compared lowercased and must be unique within the file.
 */

export interface EmailListEntry {
  name: string;
  email: string;
  /** Lowercased address: what orders are matched on. */
  emailKey: string;
  /** 0 means no cap. */
  maxTickets: number;
}

export class EmailListError extends Error {}

export function parseEmailList(text: string): EmailListEntry[] {
  let rows;
  try {
    rows = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new EmailListError(`line ${err.line}: ${err.message}`);
    throw err;
  }
  if (rows.length > 0 && !(rows[0]!.fields[1] ?? "").includes("@")) rows = rows.slice(1);
  const entries: EmailListEntry[] = [];
  const seen = new Map<string, number>();
  for (const { line, fields } of rows) {
    if (fields.length < 2 || fields.length > 3) throw new EmailListError(`line ${line}: expected name, email and an optional cap, found ${fields.length} column(s)`);
    const [rawName, rawEmail, rawCap = ""] = fields.map((f) => f.trim()) as [string, string, string?];
    if (rawName.length > 100) throw new EmailListError(`line ${line}: the name is longer than 100 characters`);
    if (rawEmail.length > 100 || !isEmailAddress(rawEmail)) throw new EmailListError(`line ${line}: "${rawEmail.slice(0, 100)}" is not a valid email address`);
    if (!/^\d{0,6}$/.test(rawCap)) throw new EmailListError(`line ${line}: the cap "${rawCap.slice(0, 20)}" is not a whole number`);
    const emailKey = rawEmail.toLowerCase();
    const earlier = seen.get(emailKey);
    if (earlier !== undefined) throw new EmailListError(`line ${line}: ${rawEmail} is already on line ${earlier}`);
    seen.set(emailKey, line);
    entries.push({ name: rawName, email: rawEmail, emailKey, maxTickets: rawCap === "" ? 0 : Number(rawCap) });
  }
  if (entries.length === 0) throw new EmailListError("the file holds no addresses");
  return entries;
}

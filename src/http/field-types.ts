import { z } from "zod";
import { parseCents } from "../lib/money";
import { phpDateFormatProblem } from "../lib/php-date";
import { isValidTimeZone, isWireDateTime } from "../lib/time";
import { isEmailAddress } from "../domain/email-address";

/** Wire-level field types shared by the request schemas. */

export const emailAddress = z.string().trim().max(100, "must be at most 100 characters").pipe(z.email("must be a valid email address"));

export const emailOrEmpty = z
  .string()
  .trim()
  .max(100, "must be at most 100 characters")
  .refine((s) => s === "" || isEmailAddress(s), "must be a valid email address or empty");

export const eventIdList = z
  .array(z.number().int().positive("must be event ids").max(Number.MAX_SAFE_INTEGER))
  .max(1000)
  .transform((ids) => [...new Set(ids)].sort((a, b) => a - b));

/** Comma-separated event ids as a string (`"3,7"`), or empty; read as a sorted list without repeats. */
export const eventIdCsv = z
  .string()
  .regex(/^\s*(\d{1,15}\s*(,\s*\d{1,15}\s*)*)?$/, "must be comma-separated event ids")
  .transform((s) =>
    [
      ...new Set(
        s
          .split(",")
          .map((p) => p.trim())
          .filter(Boolean)
          .map(Number),
      ),
    ].sort((a, b) => a - b),
  )
  .pipe(z.array(z.number().int().positive("must be event ids")).max(1000));

export const wireDateTimeOrEmpty = z.string().refine((s) => s === "" || isWireDateTime(s), 'must be a date-time "YYYY-MM-DD HH:MM:SS" or empty');

export const timeZoneName = z.string().refine(isValidTimeZone, "must be an IANA time zone name such as Europe/Amsterdam");

export const phpDateFormat = z
  .string()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .superRefine((pattern, ctx) => {
    const problem = phpDateFormatProblem(pattern);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** A non-negative amount with at most two decimals, as a JSON number or a decimal string; read as cents. */
export const money = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const cents = parseCents(value);
  if (cents === null) {
    ctx.addIssue({ code: "custom", message: "must be a non-negative amount with at most 2 decimals" });
    return z.NEVER;
  }
  return cents;
});

export const count = (max = 1_000_000) => z.number().int("must be a whole number").min(0, "must not be negative").max(max);

export const webUrlOrEmpty = z
  .string()
  .trim()
  .max(2000)
  .refine((s) => {
    if (s === "") return true;
    try {
      const u = new URL(s);
      return u.protocol === "https:" || u.protocol === "http:";
    } catch {
      return false;
    }
  }, "must be an http(s) URL or empty");

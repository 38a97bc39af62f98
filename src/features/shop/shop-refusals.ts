import type { ApiError } from "../../domain/errors";
import { errorText, type Lang, messagesFor } from "../../domain/messages";
import type { PageError } from "./shop-page";
import type { Control, ShapeError } from "./shop-form";

/**
 * Where a refused order's error shows on the shop page (decisions.md 15 "The box office"): beside the control it is
 * about (by its code, or the ticket type or input field the rule named), else in the summary only.
 */
function controlsOf(err: ApiError): (Control | null)[] {
  const about = err.subject;
  if (about?.ticketType !== undefined) return [`ticket_${about.ticketType}`];
  if (about?.field !== undefined) return [`field_${about.field}`];
  if (about?.input !== undefined && about.input.length > 0) return [...about.input];
  return err.code.startsWith("coupon_") ? ["coupon"] : [null];
}

/** A refusal's errors on the page, in the page's language by the error's code (the service's message until translated). */
export function refusalErrors(err: ApiError, lang: Lang): PageError[] {
  // A validation failure's own words are in its params ("<id> is not a ticket type of this event"), not its message.
  const detail = Object.values(err.params ?? {})[0];
  const text = errorText(lang, err.code, detail ?? err.message);
  return controlsOf(err).map((control) => ({ control, text }));
}

/** A form's shape errors on the page, in the catalogue's words. */
export function shapeErrors(errors: readonly ShapeError[], lang: Lang): PageError[] {
  const words = messagesFor(lang).shop;
  return errors.map((e) => ({ control: e.control, text: e.kind === "count" ? words.invalidCount : words.invalidValue }));
}

import type { ApiError } from "../../domain/errors";
import { errorText, type Lang, messagesFor } from "../../domain/messages";
import type { PageError } from "./shop-page";
import type { Control, EnteredValues, ShapeError } from "./shop-form";

/**
 * Where a refused order's error shows on the shop page (decisions.md 15 "The box office"): beside the control it is
 * about (by its code, or the ticket type or input field the rule named), else in the summary only.
 */
function controlsOf(err: ApiError, values: EnteredValues): (Control | null)[] {
  const about = err.subject;
  if (about?.ticketType !== undefined) return [`ticket_${about.ticketType}`];
  if (about?.field !== undefined) return [`field_${about.field}`];
  if (err.code.startsWith("coupon_")) return ["coupon"];
  switch (err.code) {
    case "order_missing_input": {
      const blank = (["name", "email"] as const).filter((c) => values[c].trim() === "");
      return blank.length > 0 ? blank : [null];
    }
    case "order_invalid_email":
    case "order_email_too_long":
      return ["email"];
    case "order_name_too_long":
      return ["name"];
    case "order_terms_not_accepted":
      return ["terms_accepted"];
    case "order_invalid_event_ids":
      return ["event_ids"];
    case "rest_invalid_param": {
      // Name and email with a control character name their field (domain/order-rules.ts checkOrderer).
      const named = Object.keys(err.params ?? {}).filter((k) => k === "name" || k === "email");
      return named.length > 0 ? named : [null];
    }
    default:
      return [null];
  }
}

/** A refusal's errors on the page, in the page's language by the error's code (the service's message until translated). */
export function refusalErrors(err: ApiError, values: EnteredValues, lang: Lang): PageError[] {
  // A validation failure's own words are in its params ("<id> is not a ticket type of this event"), not its message.
  const detail = Object.values(err.params ?? {})[0];
  const text = errorText(lang, err.code, detail ?? err.message);
  return controlsOf(err, values).map((control) => ({ control, text }));
}

/** A form's shape errors on the page, in the catalogue's words. */
export function shapeErrors(errors: readonly ShapeError[], lang: Lang): PageError[] {
  const words = messagesFor(lang).shop;
  return errors.map((e) => ({ control: e.control, text: e.kind === "count" ? words.invalidCount : words.invalidValue }));
}

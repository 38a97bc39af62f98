import { CODE } from "../../domain/error-codes";
import { errorText, type Lang } from "../../domain/messages";
import type { ApiFailure } from "../api";

/**
 * A refusal of the service in the console's language: the catalogue's text for its code (domain/messages), or the
 * service's own text where it has none. A conflict is the exception: the admin API's conflicts name what is in the
 * way ("A coupon with the code "X" already exists", "The PDF template is in use by ..."), which the catalogue's
 * general text for the code (written for a customer who reloads a page) cannot say; the console shows the service's
 * sentence, after its own translated word (decisions.md 3: the service's texts are English).
 */
export function refusalText(lang: Lang, failure: ApiFailure, notAccepted: string): string {
  if (failure.code === CODE.rest_conflict) return lang === "en" ? failure.message : `${notAccepted}: ${failure.message}`;
  return errorText(lang, failure.code, failure.message);
}

import type { ApiError } from "../../domain/errors";
import { errorText, type Lang, messagesFor } from "../../domain/messages";
import { joinWaitingListBody, type JoinWaitingListInput } from "../waiting-list/waiting-list.schema";
import { formTokenOf } from "./shop-form";
import type { PageError } from "./shop-page";

/**
 * The shop page's waiting-list form (decisions.md 15 "Selling like the peers", "The box office"; docs/shop.md "The
 * waiting list") read into the body of `POST /events/<event_id>/waiting-list`: the API's own schema reads it, and
 * each refusal shows beside its control. Its controls are prefixed `waiting_`, as the order form on the same page
 * has its own `name` and `email`.
 */

/** What the buyer entered in the join form, as posted, to show again with the errors. */
export interface JoinValues {
  name: string;
  email: string;
  type: string;
  count: string;
}

export const emptyJoinValues = (): JoinValues => ({ name: "", email: "", type: "", count: "1" });

/** The join form's controls by the API body's names (and the order rules' `input` names). */
const CONTROL: Readonly<Record<string, string>> = {
  name: "waiting_name",
  email: "waiting_email",
  ticket_type_id: "waiting_type",
  count: "waiting_count",
};

export const JOIN_CONTROLS: readonly string[] = Object.values(CONTROL);

/** The posted join form; its token is the one `newFormToken` makes (null when missing or malformed). */
export function readJoinForm(body: string): { token: string | null; values: JoinValues } {
  const form = new URLSearchParams(body);
  return {
    token: formTokenOf(form),
    values: {
      name: form.get("waiting_name") ?? "",
      email: form.get("waiting_email") ?? "",
      type: form.get("waiting_type") ?? "",
      count: form.get("waiting_count") ?? "",
    },
  };
}

/** The API body of a posted join form in the page's language, or the errors of its shape beside their controls. */
export function toJoinInput(values: JoinValues, lang: Lang): { input: JoinWaitingListInput; errors: [] } | { input: null; errors: PageError[] } {
  const words = messagesFor(lang).shop;
  const typed = values.count.trim();
  const count = /^\d{1,9}$/.test(typed) ? Number(typed) : Number.NaN;
  const parsed = joinWaitingListBody.safeParse({ name: values.name, email: values.email, ticket_type_id: values.type, count, lang });
  if (parsed.success) return { input: parsed.data, errors: [] };
  const errors = parsed.error.issues.map((issue) => {
    const control = CONTROL[String(issue.path[0])] ?? null;
    return { control, text: control === "waiting_count" ? words.invalidCount : words.invalidValue };
  });
  return { input: null, errors };
}

/** A refused join's errors in the page's language: beside the control the rule named, else in the summary. */
export function joinRefusalErrors(err: ApiError, lang: Lang): PageError[] {
  const detail = Object.values(err.params ?? {})[0];
  const text = errorText(lang, err.code, detail ?? err.message);
  const named = [...(err.subject?.input ?? []), ...Object.keys(err.params ?? {})].map((n) => CONTROL[n]).filter((c) => c !== undefined);
  return named.length === 0 ? [{ control: null, text }] : named.map((control) => ({ control, text }));
}

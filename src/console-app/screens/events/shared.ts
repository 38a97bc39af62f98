import { ApiFailure, api, ok } from "../../api";

/**
 * The event's date-times travel as `YYYY-MM-DD HH:MM:SS` in the event's own time zone (decisions.md 13
 * "Catalogue"); a `datetime-local` control shows and gives `YYYY-MM-DDTHH:MM`. An unchanged control gives back the
 * value it was shown, seconds included, so saving does not rewrite a date nobody touched.
 */
export function toInputDateTime(wire: string): string {
  return wire === "" ? "" : wire.slice(0, 16).replace(" ", "T");
}

export function fromInputDateTime(value: string, previous = ""): string {
  if (value === toInputDateTime(previous)) return previous;
  if (value === "") return "";
  return `${value.replace("T", " ")}${value.length === 16 ? ":00" : ""}`;
}

/**
 * The service names a nested setting's problem under its top-level field, with the inner path first
 * ("email": "sender_email: must be a valid email address", or "subject must not be blank while ...": decisions.md 3,
 * docs/catalogue.md). Where this form has a control for that inner setting (named `email.sender_email`), the rest
 * of the text goes beside it; anything else stays as the service said it.
 */
export function besideNestedFields(error: unknown, form: HTMLFormElement): unknown {
  if (!(error instanceof ApiFailure)) return error;
  const params: Record<string, string> = {};
  for (const [key, text] of Object.entries(error.params)) {
    const inner = /^([\w.]+):? ([\s\S]*)$/.exec(text);
    const name = inner ? `${key}.${inner[1]}` : "";
    if (inner && form.querySelector(`[name="${CSS.escape(name)}"]`)) params[name] = inner[2] ?? "";
    else params[key] = text;
  }
  return new ApiFailure(error.status, { code: error.code, message: error.message, data: { status: error.status, params } });
}

/** The ticket PDF templates the user may use (the list is one page), for the template choices. */
export async function ticketTemplates(): Promise<{ id: number; title: string }[]> {
  const all = await ok(api.GET("/ticketing/v1/admin/pdf-templates", { params: { query: { _fields: "id,title,type" } } }));
  return all.filter((t) => t.type === "ticket").map((t) => ({ id: t.id, title: t.title }));
}

/** An amount as the API writes it (`12.5`), shown with two decimals in the console's language. */
export function formatAmount(amount: number, lang: string): string {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount);
}

/**
 * The choices of a template select: "none" (0), the user's ticket templates, and the current one when the list
 * does not hold it (another owner's, set by an administrator), so saving keeps it rather than dropping it.
 */
export function templateOptions(templates: readonly { id: number; title: string }[] | undefined, current: number, none: string, numbered: (id: number) => string) {
  const list = templates ?? [];
  return [
    { value: 0, label: none },
    ...list.map((tp) => ({ value: tp.id, label: tp.title })),
    ...(current > 0 && !list.some((tp) => tp.id === current) ? [{ value: current, label: numbered(current) }] : []),
  ];
}

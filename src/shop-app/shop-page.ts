import { formatMoney, LANGUAGES, type Lang } from "../domain/messages";
import { type CheckCode, countProblem, emailProblem, fieldProblem, nameProblem } from "../domain/shop-checks";
import { countOf, readVolume, shopTotals } from "./shop-totals";

/**
 * The shop page's script (decisions.md 15 "The box office"; docs/shop.md): what it adds to a form that works without
 * it. Live totals priced by domain/pricing.ts, checks next to each field as the customer leaves it and before the form
 * is sent, and the post by `fetch` with `Accept: application/json`: the service answers `200 {location}` (a script
 * cannot read a redirect to another origin) or the page again with its errors (`422`), whose `<main>` replaces this
 * one. Listeners sit on the document, so a `<main>` swapped in works without binding anything again.
 */

interface ScriptMessages {
  problem: string;
  network: string;
  errors: Partial<Record<CheckCode, string>>;
}

type Control = HTMLInputElement | HTMLSelectElement;

/** The words the page carries for the script, in its language (src/features/shop/script-messages.tsx). */
function readMessages(): ScriptMessages {
  try {
    const data = JSON.parse(document.getElementById("shop-messages")?.textContent ?? "");
    return { problem: String(data.problem ?? ""), network: String(data.network ?? ""), errors: data.errors ?? {} };
  } catch {
    return { problem: "", network: "", errors: {} };
  }
}

const orderForm = (): HTMLFormElement | null => {
  const form = document.getElementById("order-form");
  return form instanceof HTMLFormElement ? form : null;
};

const ticketInputs = (form: HTMLFormElement) => [...form.querySelectorAll<HTMLInputElement>('input[name^="ticket_"]')];
const dateInputs = (form: HTMLFormElement) => [...form.querySelectorAll<HTMLInputElement>('input[name="event_ids"]')];
const fieldControls = (form: HTMLFormElement) => [...form.querySelectorAll<Control>('input[name^="field_"], select[name^="field_"]')];
const numberOr = (text: string | null | undefined, fallback: number) => (text != null && /^\d+$/.test(text.trim()) ? Number(text) : fallback);

function pageLang(form: HTMLFormElement): Lang {
  const lang = form.dataset.lang ?? document.documentElement.lang;
  return (LANGUAGES as readonly string[]).includes(lang) ? (lang as Lang) : "en";
}

/** `#order-total` and `#order-vat` from the ticket inputs' data attributes, each chosen date of "select several" counted. */
function updateTotals(form: HTMLFormElement): void {
  const choices = ticketInputs(form).map((input) => ({
    priceCents: numberOr(input.dataset.priceCents, 0),
    vatHundredths: numberOr(input.dataset.vatHundredths, 0),
    volume: readVolume(input.dataset.volume),
    count: countOf(input.value),
  }));
  const several = dateInputs(form).filter((i) => i.type === "checkbox");
  const totals = shopTotals(choices, several.filter((i) => i.checked).length);
  const lang = pageLang(form);
  const currency = form.dataset.currency || "EUR";
  const total = document.getElementById("order-total");
  const vat = document.getElementById("order-vat");
  if (total) total.textContent = formatMoney(totals.totalCents, currency, lang);
  if (vat) vat.textContent = formatMoney(totals.vatCents, currency, lang);
}

/** The problem of one control as the order's rules see it (src/domain/shop-checks.ts), or null. */
function problemOf(form: HTMLFormElement, control: Control): CheckCode | null {
  const name = control.name;
  if (name === "name") return nameProblem(control.value);
  if (name === "email") return emailProblem(control.value);
  if (name.startsWith("ticket_")) {
    const input = control as HTMLInputElement;
    // The type's maximum is the input's `max`; its minimum and what is left, when the page names them, data.
    const remaining = input.dataset.remaining;
    return countProblem(input.value, {
      minimum: numberOr(input.dataset.minimum, 0),
      maximum: numberOr(input.dataset.maximum ?? input.getAttribute("max"), 0),
      remaining: remaining == null ? null : numberOr(remaining, 0),
    });
  }
  if (name.startsWith("field_")) {
    const required = control.required || control.getAttribute("aria-required") === "true";
    const spec =
      control instanceof HTMLSelectElement
        ? { type: "select" as const, value: [...control.options].map((o) => o.value).join(","), min: "", max: "" }
        : control.type === "date" || control.type === "time"
          ? { type: control.type as "date" | "time", value: "", min: control.min, max: control.max }
          : { type: "text" as const, value: "", min: control.getAttribute("minlength") ?? "", max: control.getAttribute("maxlength") ?? "" };
    return fieldProblem(spec, control.value, required);
  }
  if (name === "terms_accepted") return (control as HTMLInputElement).checked ? null : "order_terms_not_accepted";
  if (name === "event_ids") return dateInputs(form).some((i) => i.checked) ? null : "order_invalid_event_ids";
  return null;
}

/** The controls a problem is shown at, in the form's order: one per date group. */
function checkedControls(form: HTMLFormElement): Control[] {
  const dates = dateInputs(form);
  return [
    ...form.querySelectorAll<Control>('input[name="name"], input[name="email"]'),
    ...ticketInputs(form),
    ...fieldControls(form),
    ...form.querySelectorAll<HTMLInputElement>('input[name="terms_accepted"]'),
    ...dates.slice(0, 1),
  ];
}

/** Every problem of the form; no ticket at all is the first count's problem. */
function allProblems(form: HTMLFormElement): { control: Control; code: CheckCode }[] {
  const found: { control: Control; code: CheckCode }[] = [];
  for (const control of checkedControls(form)) {
    const code = problemOf(form, control);
    if (code) found.push({ control, code });
  }
  const tickets = ticketInputs(form);
  const first = tickets[0];
  if (first && tickets.every((t) => countOf(t.value) === 0) && !found.some((p) => p.control.name.startsWith("ticket_"))) {
    found.push({ control: first, code: "order_no_tickets" });
  }
  return found.sort((a, b) => (a.control.compareDocumentPosition(b.control) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
}

function describedBy(control: Control, id: string, add: boolean): void {
  const ids = (control.getAttribute("aria-describedby") ?? "").split(/\s+/).filter((x) => x !== "" && x !== id);
  if (add) ids.push(id);
  if (ids.length > 0) control.setAttribute("aria-describedby", ids.join(" "));
  else control.removeAttribute("aria-describedby");
}

/** A control's own error (the form contract): `<p class="field-error" id="<input-id>-error">`, aria-invalid, aria-describedby. */
function showProblem(control: Control, text: string | null): void {
  if (!control.id) return;
  const errorId = `${control.id}-error`;
  let line = document.getElementById(errorId);
  if (text === null) {
    line?.remove();
    control.removeAttribute("aria-invalid");
    describedBy(control, errorId, false);
    return;
  }
  if (!line) {
    line = document.createElement("p");
    line.className = "field-error";
    line.id = errorId;
    // Where the page itself puts a field's error: at the end of the field's block (a group's at the end of its fieldset).
    const block = control.closest(".input-field, .ticket-type, fieldset.dates, fieldset.terms");
    if (block) block.append(line);
    else control.insertAdjacentElement("afterend", line);
  }
  line.textContent = text;
  control.setAttribute("aria-invalid", "true");
  describedBy(control, errorId, true);
}

/** The error summary first in <main> (the form contract): each problem a link to its field; focused. */
function showSummary(form: HTMLFormElement, heading: string, items: { href?: string; text: string }[]): void {
  let box = document.getElementById("form-errors");
  if (!box) {
    box = document.createElement("div");
    box.id = "form-errors";
    box.setAttribute("role", "alert");
    // Where the page itself puts it: first in <main>.
    const main = document.getElementById("main");
    if (main) main.prepend(box);
    else form.before(box);
  }
  box.tabIndex = -1;
  const title = document.createElement("h2");
  title.textContent = heading;
  const list = document.createElement("ul");
  for (const item of items) {
    const li = document.createElement("li");
    if (item.href) {
      const link = document.createElement("a");
      link.href = item.href;
      link.textContent = item.text;
      li.append(link);
    } else li.textContent = item.text;
    list.append(li);
  }
  box.replaceChildren(title, list);
  box.hidden = false;
  box.focus();
}

/** Where the order goes next: the service's own pages in this frame; another origin (a payment provider, the
 * organiser's `redirect`) in the whole tab when framed, as providers' checkouts refuse to be framed. */
function go(url: string): void {
  const target = new URL(url, location.href);
  if (window.top !== window && target.origin !== location.origin) {
    // Allowed for a frame the customer just clicked in (embed.js makes it without a sandbox); null when refused.
    if (window.open(target.href, "_top")) return;
  }
  location.assign(target.href);
}

export function startShopPage(): void {
  const messages = readMessages();
  const textOf = (code: CheckCode) => messages.errors[code] ?? code;
  /** Controls the customer changed: left unchanged, an empty field is not called wrong before the form is sent. */
  const touched = new WeakSet<Element>();
  let sending = false;
  /** After a failed post the next one is the browser's own (the same form_token, so never a second order). */
  let scriptPosts = true;

  const recheck = (form: HTMLFormElement, control: Control) => {
    const code = problemOf(form, control);
    showProblem(control, code ? textOf(code) : null);
  };

  const onChange = (event: Event) => {
    const form = orderForm();
    const control = event.target;
    if (!form || !(control instanceof HTMLInputElement || control instanceof HTMLSelectElement) || control.form !== form) return;
    touched.add(control);
    updateTotals(form);
    const shown = control.getAttribute("aria-invalid") === "true";
    if (shown || control.name.startsWith("ticket_") || control.type === "checkbox" || control.type === "radio") {
      recheck(form, control.name === "event_ids" ? (dateInputs(form)[0] ?? control) : control);
    }
  };
  document.addEventListener("input", onChange);
  document.addEventListener("change", onChange);

  document.addEventListener("focusout", (event) => {
    const form = orderForm();
    const control = event.target;
    if (!form || !(control instanceof HTMLInputElement || control instanceof HTMLSelectElement) || control.form !== form) return;
    // Not when the focus goes to the order button: a line shown now would move the button away from under the
    // pointer between press and release, and the click would be lost; the submit checks everything anyway.
    const next = event.relatedTarget;
    if (next instanceof HTMLButtonElement && next.form === form) return;
    if (touched.has(control) && control.name !== "event_ids") recheck(form, control);
  });

  // A summary link moves focus to its field, not only the view.
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest<HTMLAnchorElement>("#form-errors a[href^='#']") : null;
    const field = link ? document.getElementById(decodeURIComponent(link.hash.slice(1))) : null;
    if (!field) return;
    event.preventDefault();
    field.focus();
  });

  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.id !== "order-form" || !scriptPosts) return;
    event.preventDefault();
    if (sending) return;
    const problems = allProblems(form);
    for (const control of checkedControls(form)) showProblem(control, null);
    if (problems.length > 0) {
      for (const p of problems) showProblem(p.control, textOf(p.code));
      showSummary(
        form,
        messages.problem,
        problems.map((p) => ({ href: `#${p.control.id}`, text: textOf(p.code) })),
      );
      return;
    }
    sending = true;
    const buttons = [...form.querySelectorAll<HTMLButtonElement>("button[type=submit], button:not([type])")];
    for (const b of buttons) b.disabled = true;
    form.setAttribute("aria-busy", "true");
    const body = new URLSearchParams();
    for (const [key, value] of new FormData(form)) if (typeof value === "string") body.append(key, value);
    try {
      const res = await fetch(form.action, { method: "POST", body, headers: { Accept: "application/json" }, credentials: "same-origin" });
      const type = res.headers.get("Content-Type") ?? "";
      if (res.ok && type.includes("application/json")) {
        const { location: next } = (await res.json()) as { location?: string };
        if (typeof next === "string" && next !== "") {
          go(next); // `sending` stays set: nothing more is sent while the next page loads
          return;
        }
      }
      if (type.includes("text/html")) {
        const fresh = new DOMParser().parseFromString(await res.text(), "text/html").getElementById("main");
        const current = document.getElementById("main");
        if (fresh && current) {
          current.replaceWith(document.importNode(fresh, true));
          const next = orderForm();
          if (next) updateTotals(next);
          const summary = document.getElementById("form-errors");
          if (summary) {
            summary.tabIndex = -1;
            summary.focus();
          }
          sending = false;
          return;
        }
      }
      throw new Error(`unexpected answer ${res.status}`);
    } catch {
      // Not reached, or an answer the page cannot show: say so, and let the next press post the form itself.
      sending = false;
      scriptPosts = false;
      for (const b of buttons) b.disabled = false;
      form.removeAttribute("aria-busy");
      showSummary(form, messages.problem, [{ text: messages.network }]);
    }
  });

  const form = orderForm();
  if (form) updateTotals(form);
}

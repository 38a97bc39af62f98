import { createContext, useContext, useId, useRef, useState } from "hono/jsx/dom";
import type { Child } from "hono/jsx/dom";
import { ApiFailure } from "../api";
import { useLang, useText } from "../i18n";
import { commonText } from "../messages/common";
import { refusalText } from "./refusal";
import { announce } from "./status";

/**
 * A form of the console. The browser checks what the markup says (required, lengths, ranges, types) in its own
 * language before anything is sent; the service checks everything again and its refusal is shown here: each
 * `data.params` text beside the field of that name, the rest in a summary at the top, which takes the focus
 * (decisions.md 3's error shape; the issue's "errors next to the field they name").
 */
interface FormState {
  errors: Readonly<Record<string, string>>;
}

const FormContext = createContext<FormState>({ errors: {} });

export interface FormProps {
  /** Does the work; a thrown ApiFailure is shown, anything returned is announced (a "Saved." after a change). */
  onSubmit: (values: FormValues, form: HTMLFormElement) => Promise<unknown>;
  submitLabel: string;
  children: Child;
  /** An accessible name for the form when the page has several. */
  label?: string;
  class?: string;
}

export function Form({ onSubmit, submitLabel, children, label, class: className }: FormProps) {
  const lang = useLang();
  const t = useText(commonText);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [summary, setSummary] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const summaryRef = useRef<HTMLDivElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const form = event.currentTarget as HTMLFormElement;
    setBusy(true);
    try {
      const done = await onSubmit(new FormValues(form), form);
      setErrors({});
      setSummary([]);
      if (typeof done === "string") announce(done);
    } catch (error) {
      const { fields, rest } = explain(error, form, lang, t.fieldInvalid);
      setErrors(fields);
      setSummary(rest);
      queueMicrotask(() => summaryRef.current?.focus());
    } finally {
      setBusy(false);
    }
  };

  const hasErrors = summary.length > 0 || Object.keys(errors).length > 0;
  return (
    <FormContext.Provider value={{ errors }}>
      <form class={className} aria-label={label} onSubmit={submit}>
        {hasErrors && (
          <div class="error-summary" role="alert" tabIndex={-1} ref={summaryRef}>
            <h2>{t.errorSummary}</h2>
            <ul>
              {summary.map((text) => (
                <li>{text}</li>
              ))}
              {Object.entries(errors).map(([name, text]) => (
                <li>
                  <a href={`#${fieldId(name)}`} onClick={(e: Event) => focusField(e, name)}>
                    {text}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        )}
        {children}
        <div class="form-actions">
          <button type="submit" aria-disabled={busy ? "true" : undefined}>
            {busy ? t.working : submitLabel}
          </button>
        </div>
      </form>
    </FormContext.Provider>
  );
}

/** The service's refusal split into texts for named fields of this form and texts for the summary. */
function explain(error: unknown, form: HTMLFormElement, lang: ReturnType<typeof useLang>, invalid: string) {
  const fields: Record<string, string> = {};
  const rest: string[] = [];
  if (!(error instanceof ApiFailure)) {
    rest.push(error instanceof Error ? error.message : String(error));
    return { fields, rest };
  }
  for (const [name, detail] of Object.entries(error.params)) {
    // The detail is the service's own text (English, decisions.md 3); the console's word before it is translated.
    const text = lang === "en" ? `${capitalise(detail)}` : `${invalid}: ${detail}`;
    if (form.querySelector(`[name="${CSS.escape(name)}"]`)) fields[name] = text;
    else rest.push(`${name}: ${text}`);
  }
  if (Object.keys(error.params).length === 0 || rest.length > 0) rest.unshift(refusalText(lang, error, invalid));
  return { fields, rest };
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Fields are found by name: the id of a field's control is derived from it, unique per form render. */
const fieldId = (name: string) => `field-${name.replace(/[^\w-]/g, "_")}`;

function focusField(event: Event, name: string) {
  const form = (event.currentTarget as HTMLElement).closest("form");
  const control = form?.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`);
  if (control) {
    event.preventDefault();
    control.focus();
  }
}

/** The service's text about the field `name`, if its last answer named it. */
export function useFieldError(name: string): string | undefined {
  return useContext(FormContext).errors[name];
}

/** A form's values, read as the API's types want them. */
export class FormValues {
  private readonly data: FormData;
  constructor(readonly form: HTMLFormElement) {
    this.data = new FormData(form);
  }
  text(name: string): string {
    const value = this.data.get(name);
    return typeof value === "string" ? value : "";
  }
  /** A text, or undefined when left empty (the API's default then holds). */
  optionalText(name: string): string | undefined {
    const value = this.text(name).trim();
    return value === "" ? undefined : value;
  }
  int(name: string): number {
    return Number.parseInt(this.text(name), 10);
  }
  optionalInt(name: string): number | undefined {
    const value = this.text(name).trim();
    return value === "" ? undefined : Number.parseInt(value, 10);
  }
  /** A decimal amount as the API writes money (`12.50`), or undefined when empty. */
  optionalNumber(name: string): number | undefined {
    const value = this.text(name).trim().replace(",", ".");
    return value === "" ? undefined : Number(value);
  }
  bool(name: string): boolean {
    return this.data.get(name) !== null;
  }
  all(name: string): string[] {
    return this.data.getAll(name).filter((v): v is string => typeof v === "string");
  }
  file(name: string): File | undefined {
    const value = this.data.get(name);
    return value instanceof File && value.size > 0 ? value : undefined;
  }
}

export interface FieldProps {
  name: string;
  label: string;
  hint?: string;
  type?: "text" | "email" | "number" | "password" | "url" | "date" | "datetime-local" | "time" | "file" | "search" | "color";
  value?: string | number;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  min?: number | string;
  max?: number | string;
  step?: number | string;
  pattern?: string;
  accept?: string;
  autocomplete?: string;
  /** Several lines: a textarea. */
  rows?: number;
}

/**
 * What every control of a form shares: an id unique on the page, the service's error for its name, and the
 * `aria-describedby` that ties its hint and that error to it for assistive technology.
 */
export function useControl(name: string, hint: string | undefined) {
  const id = `${fieldId(name)}-${useId().replace(/[^\w-]/g, "")}`;
  const error = useFieldError(name);
  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ") || undefined;
  return { id, error, aria: { "aria-invalid": error ? "true" : undefined, "aria-describedby": describedBy } };
}

/** A control's hint and the service's error for it, under the control. */
export function Notes({ id, hint, error }: { id: string; hint: string | undefined; error: string | undefined }) {
  return (
    <>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="error">
          {error}
        </p>
      )}
    </>
  );
}

/** A labelled control with its hint and the service's error for it. */
export function Field(props: FieldProps) {
  const { id, error, aria } = useControl(props.name, props.hint);
  const common = { id, name: props.name, required: props.required, ...aria };
  return (
    <div class={error ? "field has-error" : "field"}>
      <label for={id}>{props.label}</label>
      {props.rows ? (
        <textarea {...common} rows={props.rows} maxLength={props.maxLength} value={props.value === undefined ? "" : String(props.value)} />
      ) : (
        <input
          {...common}
          type={props.type ?? "text"}
          value={props.value === undefined ? undefined : String(props.value)}
          minLength={props.minLength}
          maxLength={props.maxLength}
          min={props.min}
          max={props.max}
          step={props.step}
          pattern={props.pattern}
          accept={props.accept}
          autocomplete={props.autocomplete}
        />
      )}
      <Notes id={id} hint={props.hint} error={error} />
    </div>
  );
}

interface ChoiceProps {
  name: string;
  label: string;
  hint?: string;
  value?: string | number;
  options: readonly { value: string | number; label: string }[];
  required?: boolean;
}

/** A labelled select. */
export function Select(props: ChoiceProps) {
  const { id, error, aria } = useControl(props.name, props.hint);
  return (
    <div class={error ? "field has-error" : "field"}>
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} required={props.required} {...aria} value={props.value === undefined ? undefined : String(props.value)}>
        {props.options.map((o) => (
          <option value={String(o.value)} selected={String(o.value) === String(props.value)}>
            {o.label}
          </option>
        ))}
      </select>
      <Notes id={id} hint={props.hint} error={error} />
    </div>
  );
}

/** A labelled checkbox (a boolean of the API: sent as present or absent). */
export function Check(props: { name: string; label: string; hint?: string; checked?: boolean }) {
  const { id, error, aria } = useControl(props.name, props.hint);
  return (
    <div class={error ? "field check has-error" : "field check"}>
      <input type="checkbox" id={id} name={props.name} checked={props.checked ?? false} {...aria} />
      <label for={id}>{props.label}</label>
      <Notes id={id} hint={props.hint} error={error} />
    </div>
  );
}

import { useId } from "hono/jsx/dom";
import { useFieldError } from "../../ui/form";

/**
 * A labelled group of checkboxes sharing one body field of the API (`tickets`, `events`): the ticked values are sent
 * comma-separated, and the service's text about that field is shown under the group like a Field's.
 */
export function CheckList(props: { name: string; legend: string; hint?: string; options: readonly { value: string; label: string }[]; checked: readonly string[] }) {
  const id = `checks-${props.name}-${useId().replace(/[^\w-]/g, "")}`;
  const error = useFieldError(props.name);
  const describedBy = [props.hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ") || undefined;
  return (
    <fieldset class={error ? "check-list has-error" : "check-list"} aria-describedby={describedBy}>
      <legend>{props.legend}</legend>
      {props.hint && (
        <p id={`${id}-hint`} class="hint">
          {props.hint}
        </p>
      )}
      {props.options.map((o, i) => (
        <div class="field check">
          <input
            type="checkbox"
            id={`${id}-${i}`}
            name={props.name}
            value={o.value}
            checked={props.checked.includes(o.value)}
            aria-invalid={error ? "true" : undefined}
          />
          <label for={`${id}-${i}`}>{o.label}</label>
        </div>
      ))}
      {error && (
        <p id={`${id}-error`} class="error">
          {error}
        </p>
      )}
    </fieldset>
  );
}

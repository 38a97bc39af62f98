import { Notes, useControl } from "../../ui/form";

/**
 * A labelled group of checkboxes sharing one body field of the API (`tickets`, `events`): the ticked values are sent
 * comma-separated, and the service's text about that field is shown under the group like a Field's.
 */
export function CheckList(props: { name: string; legend: string; hint?: string; options: readonly { value: string; label: string }[]; checked: readonly string[] }) {
  const { id, error, aria } = useControl(props.name, props.hint);
  return (
    <fieldset class={error ? "check-list has-error" : "check-list"} aria-describedby={aria["aria-describedby"]}>
      <legend>{props.legend}</legend>
      <Notes id={id} hint={props.hint} error={undefined} />
      {props.options.map((o, i) => (
        <div class="field check">
          <input type="checkbox" id={`${id}-${i}`} name={props.name} value={o.value} checked={props.checked.includes(o.value)} aria-invalid={aria["aria-invalid"]} />
          <label for={`${id}-${i}`}>{o.label}</label>
        </div>
      ))}
      <Notes id={id} hint={undefined} error={error} />
    </fieldset>
  );
}

import { api, ok } from "../../api";
import { format, useText } from "../../i18n";
import { ordersText } from "../../messages/orders";
import { Select } from "../../ui/form";
import { Show, useLoad } from "../../ui/load";

/**
 * A choice of the events the user may see (the newest 100: the API's largest page), by name. An event named in
 * the address but not among them stays choosable by its id, so a link from an older event's page still works.
 */
export function EventChoice({ name, label, value, anyLabel, hint }: { name: string; label: string; value: string; anyLabel?: string; hint?: string }) {
  const t = useText(ordersText);
  const loaded = useLoad(
    () => ok(api.GET("/ticketing/v1/admin/events", { params: { query: { per_page: "100", orderby: "id", order: "desc", _fields: "id,event_name" } } })),
    [],
  );
  return (
    <Show loaded={loaded}>
      {(events) => {
        const options = events.map((e) => ({ value: String(e.id), label: format(t.eventOption, { name: e.event_name, id: e.id }) }));
        if (value && !options.some((o) => o.value === value)) options.unshift({ value, label: `#${value}` });
        if (anyLabel !== undefined) options.unshift({ value: "", label: anyLabel });
        return <Select name={name} label={label} hint={hint} value={value} options={options} required={anyLabel === undefined} />;
      }}
    </Show>
  );
}

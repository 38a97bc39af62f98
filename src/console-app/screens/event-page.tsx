import { api, ok, type Schemas } from "../api";
import { useText } from "../i18n";
import { eventPageText } from "../messages/event-page";
import { href } from "../router";
import { Show, useLoad } from "../ui/load";
import { Heading } from "../ui/page";
import { EventSettings, InputFields, TicketTypes } from "./events";
import { EmailList } from "./files";
import { ScanKeys } from "./keys";
import { LivePanel } from "./live";
import { EventOrders, Exports } from "./orders";
import { WaitingList } from "./waiting-list";

type Event = Schemas["Event"];

/** What each section of an event's page shows; every section gets the event and a way to load it again. */
export interface SectionProps {
  event: Event;
  reload: () => void;
}

const SECTIONS = {
  live: LivePanel,
  settings: EventSettings,
  types: TicketTypes,
  fields: InputFields,
  keys: ScanKeys,
  list: EmailList,
  orders: EventOrders,
  "waiting-list": WaitingList,
  exports: Exports,
} satisfies Record<string, (props: SectionProps) => unknown>;

type Section = keyof typeof SECTIONS;

const LABELS: Record<Section, keyof (typeof eventPageText)["en"]> = {
  live: "live",
  settings: "settings",
  types: "ticketTypes",
  fields: "inputFields",
  keys: "scanKeys",
  list: "emailList",
  orders: "orders",
  "waiting-list": "waitingList",
  exports: "exports",
};

/** An event's page (`#/events/<id>/<section>`): its name, its sections as a menu, and the open section. */
export function EventPage({ id, tab }: { id: string; tab: string }) {
  const t = useText(eventPageText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/events/{id}", { params: { path: { id } } })), [id]);
  const section: Section = tab in SECTIONS ? (tab as Section) : "live";
  const Open = SECTIONS[section];
  return (
    <Show loaded={loaded}>
      {(event) => (
        <>
          <Heading title={`${event.event_name} · ${t[LABELS[section]]}`}>{event.event_name}</Heading>
          <p class="event-links">
            <a href={`${location.origin}/ticketing/v1/shop/${event.id}`} target="_blank" rel="noopener">
              {t.shopPage}
            </a>
          </p>
          <nav class="tabs" aria-label={t.eventSections}>
            <ul>
              {(Object.keys(SECTIONS) as Section[]).map((s) => (
                <li>
                  <a href={href("/events", event.id, s)} aria-current={s === section ? "page" : undefined}>
                    {t[LABELS[s]]}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <section aria-label={t[LABELS[section]]}>
            <Open event={event} reload={loaded.reload} />
          </section>
        </>
      )}
    </Show>
  );
}

import { api, ok, type Schemas } from "../../api";
import { format, useText } from "../../i18n";
import { keysText } from "../../messages/keys";
import { href } from "../../router";
import { Show, useLoad } from "../../ui/load";
import { Heading } from "../../ui/page";
import { levelName } from "./levels";
import { QrImage } from "./qr-image";
import { listKeys } from "./scan-keys";

type ScanKey = Schemas["ScanKey"];

/** The keys by location, in the order the API lists them (decisions.md 6: one key per location, but any number shown). */
function byLocation(keys: readonly ScanKey[]): [string, ScanKey[]][] {
  const groups = new Map<string, ScanKey[]>();
  for (const k of keys) groups.set(k.location, [...(groups.get(k.location) ?? []), k]);
  return [...groups];
}

/**
 * `#/events/<id>/keys-sheet`: a sheet to print and hang at the doors, one block per location with its keys' QR codes
 * (docs/console.md). The menu, the buttons and the links are not printed (console.css, `.no-print`); the
 * warning is, since whoever finds the paper holds the keys.
 */
export function KeysSheet({ id }: { id: string }) {
  const t = useText(keysText);
  const loaded = useLoad(async () => {
    const event = await ok(api.GET("/ticketing/v1/admin/events/{id}", { params: { path: { id } } }));
    return { event, keys: await listKeys(event.id) };
  }, [id]);
  return (
    <Show loaded={loaded}>
      {({ event, keys }) => {
        const title = format(t.sheetTitle, { event: event.event_name });
        return (
          <article class="keys-sheet">
            <Heading title={title}>{title}</Heading>
            <p class="notice">{t.sheetWarning}</p>
            <div class="actions no-print">
              <button type="button" onClick={() => window.print()}>
                {t.print}
              </button>
              <a href={href("/events", event.id, "keys")}>{t.backToKeys}</a>
            </div>
            {keys.length === 0 && <p>{t.noKeys}</p>}
            {byLocation(keys).map(([location, group]) => (
              <section class="sheet-location" aria-label={location}>
                <h2>{location}</h2>
                {group.map((k) => (
                  <figure>
                    <QrImage eventId={event.id} scanKey={k.key} alt={format(t.qrAlt, { location })} />
                    <figcaption>
                      {levelName(t, k.level)}
                      {k.tickets !== "" && ` · ${k.tickets.split(",").join(", ")}`}
                    </figcaption>
                  </figure>
                ))}
              </section>
            ))}
          </article>
        );
      }}
    </Show>
  );
}

import { download } from "../../api";
import { useText } from "../../i18n";
import { ordersText } from "../../messages/orders";
import type { SectionProps } from "../event-page";
import { ActionButton } from "../../ui/page";

const FILES = ["orders", "tickets", "scans"] as const;

/**
 * The event page's exports (decisions.md 15, docs/exports.md): each file fetched with the session's CSRF header
 * and saved, since a plain link would carry the cookie without the header, which the service refuses.
 */
export function Exports({ event }: SectionProps) {
  const t = useText(ordersText);
  const about = { orders: t.exportOrders, tickets: t.exportTickets, scans: t.exportScans } as const;
  const label = { orders: t.downloadOrders, tickets: t.downloadTicketsCsv, scans: t.downloadScans } as const;
  return (
    <>
      <h2>{t.exportsTitle}</h2>
      <p>{t.exportsIntro}</p>
      <dl class="exports">
        {FILES.map((file) => {
          const filename = `event-${event.id}-${file}.csv`;
          return (
            <>
              <dt>
                <ActionButton
                  label={label[file]}
                  busyLabel={t.downloading}
                  onClick={async () => {
                    await download(`/ticketing/v1/admin/events/${event.id}/exports/${file}.csv`, filename);
                    return t.downloaded;
                  }}
                />
              </dt>
              <dd>{about[file]}</dd>
            </>
          );
        })}
      </dl>
    </>
  );
}

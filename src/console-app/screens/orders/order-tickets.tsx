import { api, ok } from "../../api";
import { format, useText } from "../../i18n";
import { commonText } from "../../messages/common";
import { ordersText } from "../../messages/orders";
import { Show, useLoad } from "../../ui/load";
import { ConfirmButton } from "../../ui/page";
import { announce } from "../../ui/status";
import { Table } from "../../ui/table";
import { ActionButton } from "../../ui/page";

/**
 * An order's tickets (GET /admin/tickets/<order_id>): each with its type (and seat) and scans, the customer's
 * download address as the API gives it, and deleting or issuing them again (spec: States and transitions).
 */
export function OrderTickets({ orderId }: { orderId: number }) {
  const t = useText(ordersText);
  const common = useText(commonText);
  const path = { params: { path: { id: String(orderId) } } };
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/tickets/{id}", path)), [orderId]);

  const reissue = async () => {
    await ok(api.POST("/ticketing/v1/admin/tickets/{id}", path));
    loaded.reload();
    return t.ticketsIssued;
  };
  const removeTickets = async () => {
    await ok(api.DELETE("/ticketing/v1/admin/tickets/{id}", path));
    loaded.reload();
    announce(t.ticketsDeleted);
  };

  return (
    <section aria-labelledby="order-tickets">
      <h2 id="order-tickets">{t.ticketsTitle}</h2>
      <Show loaded={loaded}>
        {(found) => {
          const download = found._links.download?.[0]?.href;
          return (
            <>
              {found.tickets.length === 0 ? (
                <p>{t.noTickets}</p>
              ) : (
                <Table
                  caption={t.ticketsTitle}
                  rows={found.tickets}
                  columns={[
                    { label: t.ticketId, cell: (ticket) => <code>{ticket.ticket_id}</code> },
                    { label: t.ticketType, cell: (ticket) => ticket.ticket_type },
                    { label: t.event, cell: (ticket) => ticket.event_name },
                    {
                      label: t.scans,
                      cell: (ticket) =>
                        ticket.scans.length === 0
                          ? t.notScanned
                          : ticket.scans.map((s) => format(t.scanLine, { date: s.date, location: s.location, level: s.level })).join("; "),
                    },
                  ]}
                />
              )}
              {download && found.tickets.length > 0 && (
                <p>
                  <a href={download} target="_blank" rel="noopener">
                    {t.downloadTickets}
                  </a>
                </p>
              )}
              <p class="actions no-print">
                {found.tickets.length === 0 ? (
                  <ActionButton label={t.reissueTickets} busyLabel={common.working} onClick={reissue} />
                ) : (
                  <ConfirmButton label={t.deleteTickets} question={t.confirmDeleteTickets} onConfirm={removeTickets} />
                )}
              </p>
            </>
          );
        }}
      </Show>
    </section>
  );
}

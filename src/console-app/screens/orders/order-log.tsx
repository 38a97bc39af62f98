import { api, ok } from "../../api";
import { useText } from "../../i18n";
import { ordersText } from "../../messages/orders";
import { Show, useLoad } from "../../ui/load";

/** The order's log entries (GET /admin/logs/order/<order_id>): a provider's message is shown as the text it is. */
export function OrderLog({ orderId }: { orderId: number }) {
  const t = useText(ordersText);
  const loaded = useLoad(() => ok(api.GET("/ticketing/v1/admin/logs/order/{id}", { params: { path: { id: String(orderId) } } })), [orderId]);
  return (
    <section aria-labelledby="order-log">
      <h2 id="order-log">{t.logTitle}</h2>
      <Show loaded={loaded}>
        {(entries) =>
          entries.length === 0 ? (
            <p>{t.noLog}</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption>{t.logTitle}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t.created}</th>
                    <th scope="col">{t.logType}</th>
                    <th scope="col">{t.logText}</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((e) => (
                    <tr>
                      <td>{e.created_at}</td>
                      <td>{e.log_type}</td>
                      <td class="log-text">{e.description}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </section>
  );
}

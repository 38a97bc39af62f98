import { Hono } from "hono";
import { consoleSession, requireApiKey, requireUser } from "./features/users/auth.middleware";
import { API_BASE, ConfigError } from "./config";
import type { AppEnv } from "./http/context";
import { internalError, noRoute } from "./domain/errors";
import { overloadOf, renderError, toApiError } from "./http/errors";
import { shopFrontCors } from "./http/ordering-key";
import { bodyLimits, requestContext } from "./http/request-context";
import { log } from "./lib/log";
import { metaRoutes } from "./features/meta/meta.routes";
import { confirmationsRoutes } from "./features/checkout/confirmations.routes";
import { bulkRoutes } from "./features/ordering/bulk.routes";
import { docsRoutes } from "./features/meta/docs.routes";
import { couponEmailsRoutes } from "./features/coupons/coupon-emails.routes";
import { couponsRoutes } from "./features/coupons/coupons.routes";
import { customerOrdersRoutes } from "./features/checkout/customer-orders.routes";
import { shopRoutes } from "./features/shop/shop.routes";
import { orderPageRoutes } from "./features/shop/order-page.routes";
import { emailListsRoutes } from "./features/files/email-lists.routes";
import { emailsRoutes } from "./features/messaging/emails.routes";
import { eventsRoutes } from "./features/catalogue/events.routes";
import { inputFieldsRoutes } from "./features/catalogue/input-fields.routes";
import { logsRoutes } from "./features/logs/logs.routes";
import { orderStatusRoutes } from "./features/checkout/order-status.routes";
import { orderTicketsRoutes } from "./features/ordering/order-tickets.routes";
import { ordersRoutes } from "./features/ordering/orders.routes";
import { pdfTemplatesRoutes } from "./features/files/pdf-templates.routes";
import { invoicesRoutes } from "./features/tickets/invoices.routes";
import { googleWalletRoutes } from "./features/tickets/google-wallet.routes";
import { personalisationRoutes } from "./features/tickets/personalisation.routes";
import { reportsRoutes } from "./features/reports/reports.routes";
import { scanKeySyncRoutes, scansRoutes } from "./features/scanning/scans.routes";
import { scanKeysRoutes } from "./features/catalogue/scan-keys.routes";
import { bulkRefundsRoutes, orderRefundRoutes } from "./features/payments/refunds.routes";
import { mollieWebhooksRoutes } from "./features/payments/mollie-webhooks.routes";
import { stripeWebhooksRoutes } from "./features/payments/stripe-webhooks.routes";
import { testPaymentsRoutes } from "./features/payments/test-payments.routes";
import { ticketDownloadsRoutes } from "./features/tickets/ticket-downloads.routes";
import { appleWalletRoutes } from "./features/tickets/apple-wallet.routes";
import { ticketTypesRoutes } from "./features/catalogue/ticket-types.routes";
import { applicationPasswordsRoutes } from "./features/users/application-passwords.routes";
import { usersRoutes } from "./features/users/users.routes";
import { consoleSessionRoutes } from "./features/users/console-session.routes";
import { webhooksRoutes } from "./features/messaging/webhooks.routes";
import { waitingListAdminRoutes, waitingListJoinRoutes } from "./features/waiting-list/waiting-list.routes";

/**
 * The HTTP surface. Registration order is the authentication policy: routes mounted before `requireApiKey`
 * answer without a key (decisions.md section 12); everything after it needs the key, and `/admin` also Basic auth.
 */
export function buildApp() {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext);
  app.use("*", bodyLimits);

  app.route(API_BASE, metaRoutes);
  app.route(API_BASE, docsRoutes(app));
  app.route(`${API_BASE}/orders/confirm`, confirmationsRoutes);
  // The shop's thank-you page polls the status from its own origin, as the shop front orders (decisions.md 13).
  app.use(`${API_BASE}/orders/:id/:uid/status`, shopFrontCors);
  app.route(`${API_BASE}/orders`, orderStatusRoutes);
  app.route(`${API_BASE}/pay/test`, testPaymentsRoutes);
  app.route(`${API_BASE}/tickets`, personalisationRoutes);
  app.route(`${API_BASE}/tickets`, ticketDownloadsRoutes);
  app.route(`${API_BASE}/tickets`, googleWalletRoutes);
  app.route(`${API_BASE}/tickets`, appleWalletRoutes);
  app.route(`${API_BASE}/invoices`, invoicesRoutes);
  app.route(`${API_BASE}/payments/stripe`, stripeWebhooksRoutes);
  app.route(`${API_BASE}/payments/mollie`, mollieWebhooksRoutes);
  // Scans carry a scan key, not the service key, in X-EVT-API-KEY (decisions.md 13).
  app.route(`${API_BASE}/scans`, scansRoutes);
  app.route(`${API_BASE}/scan-keys`, scanKeySyncRoutes);
  // Shop-front routes: CORS (preflights need no key), then the API key or the publishable ordering key.
  app.use(`${API_BASE}/events/*`, shopFrontCors);
  app.route(`${API_BASE}/events`, customerOrdersRoutes);
  app.route(`${API_BASE}/events`, waitingListJoinRoutes);
  // The box office (decisions.md 15): pages anyone may open, no key.
  app.route(`${API_BASE}/shop`, orderPageRoutes);
  app.route(`${API_BASE}/shop`, shopRoutes);
  // The console's sign-in (decisions.md 15): the application password is the credential, no key.
  app.route(`${API_BASE}/console/session`, consoleSessionRoutes);

  // A console session stands for the key and Basic credentials on /admin only: it runs before both (decisions.md 15).
  app.use(`${API_BASE}/admin/*`, consoleSession);
  app.use(`${API_BASE}/*`, requireApiKey);
  app.use(`${API_BASE}/admin/*`, requireUser);
  // Before the users routes and their administrator check: an organiser lists and revokes its own passwords here.
  app.route(`${API_BASE}/admin/users`, applicationPasswordsRoutes);
  app.route(`${API_BASE}/admin/users`, usersRoutes);
  app.route(`${API_BASE}/admin/events`, eventsRoutes);
  app.route(`${API_BASE}/admin/events`, reportsRoutes);
  app.route(`${API_BASE}/admin/events/:id/ticket-types`, ticketTypesRoutes);
  app.route(`${API_BASE}/admin/events/:id/input-fields`, inputFieldsRoutes);
  app.route(`${API_BASE}/admin/events/:id/scan-keys`, scanKeysRoutes);
  app.route(`${API_BASE}/admin/events/:id/waiting-list`, waitingListAdminRoutes);
  app.route(`${API_BASE}/admin/pdf-templates`, pdfTemplatesRoutes);
  app.route(`${API_BASE}/admin/emaillists`, emailListsRoutes);
  app.route(`${API_BASE}/admin/logs`, logsRoutes);
  app.route(`${API_BASE}/admin/orders`, ordersRoutes);
  app.route(`${API_BASE}/admin/orders`, orderRefundRoutes);
  app.route(`${API_BASE}/admin/tickets`, orderTicketsRoutes);
  app.route(`${API_BASE}/admin/coupons/bulk/emails`, couponEmailsRoutes);
  app.route(`${API_BASE}/admin/coupons`, couponsRoutes);
  app.route(`${API_BASE}/admin/bulk`, bulkRefundsRoutes);
  app.route(`${API_BASE}/admin/bulk`, bulkRoutes);
  app.route(`${API_BASE}/admin/webhooks`, webhooksRoutes);
  app.route(`${API_BASE}/admin/emails`, emailsRoutes);

  app.notFound(() => renderError(noRoute()));
  app.onError((err, c) => {
    const apiError = toApiError(err);
    const requestId = c.get("requestId");
    const busy = overloadOf(err);
    if (busy) log("warn", `${busy === "event" ? "event object" : "D1"} overloaded: answered 503`, { request_id: requestId, route: c.req.routePath });
    if (apiError) return renderError(apiError);
    if (err instanceof ConfigError) {
      log("error", "invalid configuration", { request_id: requestId, settings: err.settings });
    } else {
      log("error", "unhandled error", { request_id: requestId, error: String(err), stack: err.stack });
    }
    return renderError(internalError());
  });
  return app;
}

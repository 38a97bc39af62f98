import type { EventObject } from "./event-object/event.do";
import type { JobMessage } from "./platform/messages";

/** Bindings of wrangler.toml plus the vars and secrets the service reads (see src/config.ts). */
export interface Env {
  DB: D1Database;
  FILES: R2Bucket;
  EVENTS: DurableObjectNamespace<EventObject>;
  JOBS: Queue<JobMessage>;
  ORDER_LIMITER: RateLimit;
  SCAN_LIMITER: RateLimit;
  SCAN_SYNC_LIMITER: RateLimit;
  LOGIN_LIMITER: RateLimit;
  LOGIN_ADDRESS_LIMITER: RateLimit;
  /**
   * The door app's built files and the API reference's renderer (wrangler.toml [assets]): Cloudflare serves them
   * before the Worker runs; tests read them here.
   */
  ASSETS: Fetcher;

  API_KEY?: string;
  API_KEY_NEXT?: string;
  ADMIN_USERNAME?: string;
  ADMIN_PASSWORD?: string;
  ADMIN_EMAIL?: string;
  PASSWORD_PEPPER?: string;
  TIMEZONE?: string;
  LOG_RETENTION_DAYS?: string;
  ALLOW_HTTP_OUTBOUND?: string;
  OUTBOUND_DNS_URL?: string;
  CURRENCY?: string;
  PUBLIC_URL?: string;
  ORDER_HOLD_MINUTES?: string;
  WAITING_LIST_HOURS?: string;
  ORDERING_KEY?: string;
  CORS_ORIGINS?: string;
  PAYMENT_PROVIDER?: string;
  RECAPTCHA_VERIFY_URL?: string;
  STRIPE_API_URL?: string;
  STRIPE_SECRET_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  MOLLIE_API_URL?: string;
  MOLLIE_API_KEY?: string;
  RECAPTCHA_SECRET?: string;
  APPLE_PASS_CERT?: string;
  APPLE_PASS_KEY?: string;
  APPLE_WWDR_CERT?: string;
  APPLE_PASS_TYPE_ID?: string;
  APPLE_TEAM_ID?: string;
  RECAPTCHA_SITE_KEY?: string;
  TICKET_SIGNING_KEYS?: string;
  GOOGLE_WALLET_SERVICE_ACCOUNT?: string;
  GOOGLE_WALLET_ISSUER_ID?: string;
  BULK_BATCH_SIZE?: string;
  RATE_LIMITS?: string;
  EMAIL_PROVIDER?: string;
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  EMAIL_FROM?: string;
  EMAIL_FROM_NAME?: string;
}

type ServiceEnv = Env;

declare global {
  namespace Cloudflare {
    interface Env extends ServiceEnv {}
    interface GlobalProps {
      mainModule: typeof import("./index");
      durableNamespaces: "EventObject";
    }
  }
}

import { z } from "zod";
import type { Env } from "./env";
import { log } from "./lib/log";
import { type GoogleServiceAccount, readServiceAccount } from "./lib/google-wallet";
import type { SigningKeyJwk } from "./lib/ticket-codes";
import { isValidTimeZone } from "./lib/time";

/**
 * The vars and secrets of the service, validated once per isolate. A missing or malformed setting is a
 * deployment error: it is logged by name (never by value) and every call answers 500 until it is fixed. A missing
 * payment provider, or a deployment's missing PUBLIC_URL, is only incomplete: the service works, paid orders
 * aside, and links follow the request's host. Either way `/health` answers 503 with the names.
 */

/** Where the interface lives under the service's origin (ticketing-api.md). */
export const API_BASE = "/ticketing/v1";

const optionalSecret = z
  .string()
  .optional()
  .transform((s) => (s && s.trim() !== "" ? s : undefined));

const signingKey = z.strictObject({
  kid: z.string().regex(/^[A-Za-z0-9]{1,8}$/),
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  x: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  d: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .optional(),
});

/** JSON array of Ed25519 JWKs with `kid`: the first signs (needs `d`), all verify. Unset: tickets carry plain ids. */
const signingKeys = z
  .string()
  .optional()
  .transform((s, ctx) => {
    if (!s || s.trim() === "") return [];
    try {
      return JSON.parse(s) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(signingKey)
      .refine((keys) => keys.length === 0 || keys[0]!.d !== undefined, "the first key must hold its private part (d)")
      .refine((keys) => new Set(keys.map((k) => k.kid)).size === keys.length, "kids must differ"),
  );

const schema = z.object({
  TICKET_SIGNING_KEYS: signingKeys,
  API_KEY: z.string().min(8, "must be set (at least 8 characters)"),
  API_KEY_NEXT: optionalSecret,
  ADMIN_USERNAME: optionalSecret,
  ADMIN_PASSWORD: optionalSecret,
  ADMIN_EMAIL: z
    .string()
    .optional()
    .transform((s) => s?.trim() ?? ""),
  PASSWORD_PEPPER: z.string().min(16, "must be set (at least 16 characters)"),
  TIMEZONE: z.string().default("UTC").refine(isValidTimeZone, "must be an IANA time zone name"),
  ALLOW_HTTP_OUTBOUND: z
    .string()
    .optional()
    .transform((s) => s === "true"),
  // A DNS-over-HTTPS resolver (JSON form) that names in outbound URLs are resolved through (decisions.md 15).
  OUTBOUND_DNS_URL: z
    .string()
    .optional()
    .transform((s) => s?.trim() || null)
    .refine((s) => s === null || /^https?:\/\/[^\s/]+(\/\S*)?$/.test(s), "must be the URL of a DNS-over-HTTPS resolver, such as https://cloudflare-dns.com/dns-query"),
  PUBLIC_URL: z
    .string()
    .optional()
    .transform((s) => (s ? s.replace(/\/+$/, "") : ""))
    .refine((s) => s === "" || /^https?:\/\/[^/]+$/.test(s), "must be the service's origin, such as https://tickets.example.com"),
  EMAIL_PROVIDER: z.enum(["outbox", "resend"]).default("outbox"),
  EMAIL_API_URL: z.string().default("https://api.resend.com/emails"),
  EMAIL_API_KEY: optionalSecret,
  EMAIL_FROM: z.string().default("tickets@example.com"),
  EMAIL_FROM_NAME: z.string().default("Tickets"),
  // How long a waiting-list offer holds its units (decisions.md 15 "Selling like the peers"): an hour to 30 days.
  WAITING_LIST_HOURS: z
    .string()
    .default("24")
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1)
        .max(30 * 24),
    ),
  ORDER_HOLD_MINUTES: z
    .string()
    .default("15")
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1)
        .max(24 * 60),
    ),
  ORDERING_KEY: optionalSecret,
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((s) =>
      (s ?? "")
        .split(",")
        .map((o) => o.trim().replace(/\/+$/, ""))
        .filter(Boolean),
    ),
  // No default (decisions.md 14): a deployment that forgot its provider must not hand out paid tickets for free.
  PAYMENT_PROVIDER: z.preprocess((s) => (s === "" ? undefined : s), z.enum(["test", "stripe", "mollie"]).optional()),
  STRIPE_API_URL: z.string().default("https://api.stripe.com"),
  STRIPE_SECRET_KEY: optionalSecret,
  STRIPE_WEBHOOK_SECRET: optionalSecret,
  // Mollie's Payments API v2 (decisions.md 15 "Selling like the peers"): an API key of the website profile.
  MOLLIE_API_URL: z.string().default("https://api.mollie.com"),
  MOLLIE_API_KEY: optionalSecret.refine((s) => s === undefined || /^(test|live)_\w+$/.test(s), "must be a Mollie API key (test_... or live_...)"),
  // Apple Wallet passes (decisions.md 15 "Wallet passes"): all five or none; PEM texts, read when a pass is made.
  APPLE_PASS_CERT: optionalSecret.refine((s) => s === undefined || s.includes("-----BEGIN CERTIFICATE-----"), "must be a PEM certificate"),
  APPLE_PASS_KEY: optionalSecret.refine((s) => s === undefined || s.includes("-----BEGIN PRIVATE KEY-----"), "must be a PEM PKCS#8 private key (BEGIN PRIVATE KEY)"),
  APPLE_WWDR_CERT: optionalSecret.refine((s) => s === undefined || s.includes("-----BEGIN CERTIFICATE-----"), "must be a PEM certificate"),
  APPLE_PASS_TYPE_ID: optionalSecret,
  APPLE_TEAM_ID: optionalSecret,
  RECAPTCHA_VERIFY_URL: z.string().default("https://www.google.com/recaptcha/api/siteverify"),
  RECAPTCHA_SECRET: optionalSecret,
  // Public: the shop page's reCAPTCHA widget shows it (decisions.md 15 "The box office"); without it no widget.
  RECAPTCHA_SITE_KEY: z.string().trim().default(""),
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  BULK_BATCH_SIZE: z.string().default("25").transform(Number).pipe(z.number().int().min(1).max(100)),
  CURRENCY: z
    .string()
    .default("EUR")
    .refine((c) => /^[A-Z]{3}$/.test(c), "must be an ISO 4217 code such as EUR"),
  LOG_RETENTION_DAYS: z.string().default("90").transform(Number).pipe(z.number().int().min(1)),
  // Google Wallet passes (decisions.md 15 "Wallet passes"): the service account's JSON key and the issuer id, both or none.
  GOOGLE_WALLET_SERVICE_ACCOUNT: optionalSecret,
  GOOGLE_WALLET_ISSUER_ID: optionalSecret,
});

export interface Config {
  apiKeys: readonly string[];
  bootstrapAdmin: { username: string; password: string; email: string } | null;
  passwordPepper: string;
  timezone: string;
  logRetentionDays: number;
  /** Local development and tests only: outbound calls may use http and loopback hosts. */
  allowHttpOutbound: boolean;
  /**
   * A DNS-over-HTTPS resolver through which the names of user-supplied outbound URLs are resolved before each call
   * (lib/outbound-dns.ts); null: names are judged by their spelling only.
   */
  outboundDnsUrl: string | null;
  email: { provider: "outbox" | "resend"; apiUrl: string; apiKey: string; from: string; fromName: string };
  orderHoldMinutes: number;
  waitingListHours: number;
  /** The publishable key a browser shop front sends instead of the API key (order form and customer orders only). */
  orderingKey: string | null;
  corsOrigins: readonly string[];
  /** null: none configured, so orders that need payment are refused (503) and the readiness check says so. */
  paymentProvider: "test" | "stripe" | "mollie" | null;
  /** Settings a working deployment needs that are missing, by name: the service runs, but `/health` answers 503. */
  incomplete: readonly string[];
  stripe: { apiUrl: string; secretKey: string; webhookSecret: string };
  mollie: { apiUrl: string; apiKey: string };
  /** reCAPTCHA v2 or Turnstile (the same verify protocol): the verify URL picks which. */
  captcha: { verifyUrl: string; secret: string; siteKey: string };
  /** The service's own origin for every link in emails and pages (decisions.md 15); "" when not set. */
  publicUrl: string;
  /** ISO 4217, two-decimal currencies only. */
  currency: string;
  /** Whether the rate-limiting bindings are consulted (off for the tests and the benchmark). */
  rateLimits: boolean;
  /** The most ids one bulk send call takes (decisions.md 10). */
  bulkBatchSize: number;
  /** Ed25519 keys for signed ticket codes (the first signs); empty: QR codes carry the plain ticket id. */
  ticketSigningKeys: readonly SigningKeyJwk[];
  /** Google Wallet save links (decisions.md 15 "Wallet passes"); null: not configured, the route answers 404. */
  googleWallet: { issuerId: string; account: GoogleServiceAccount } | null;
  /** Apple Wallet passes (decisions.md 15 "Wallet passes"); null: not configured (or only partly, see `incomplete`). */
  appleWallet: AppleWalletConfig | null;
}

export interface AppleWalletConfig {
  certificatePem: string;
  keyPem: string;
  wwdrPem: string;
  passTypeId: string;
  teamId: string;
}

const APPLE_SETTINGS = ["APPLE_PASS_CERT", "APPLE_PASS_KEY", "APPLE_WWDR_CERT", "APPLE_PASS_TYPE_ID", "APPLE_TEAM_ID"] as const;

/**
 * The Apple Wallet settings when all are set; the names of the missing ones when only some are (a half-configured
 * wallet is a deployment mistake `/health` names, decisions.md 15 "Wallet passes"), else none.
 */
function appleWalletOf(v: Record<(typeof APPLE_SETTINGS)[number], string | undefined>): { config: AppleWalletConfig | null; missing: string[] } {
  const missing = APPLE_SETTINGS.filter((name) => v[name] === undefined);
  if (missing.length === APPLE_SETTINGS.length) return { config: null, missing: [] };
  if (missing.length > 0) return { config: null, missing };
  return {
    config: { certificatePem: v.APPLE_PASS_CERT!, keyPem: v.APPLE_PASS_KEY!, wwdrPem: v.APPLE_WWDR_CERT!, passTypeId: v.APPLE_PASS_TYPE_ID!, teamId: v.APPLE_TEAM_ID! },
    missing: [],
  };
}

/** The settings that keep this deployment from working fully, by name (never by value); empty when all is well. */
export function configurationProblems(env: Env): string[] {
  try {
    return [...loadConfig(env).incomplete];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    log("error", "invalid configuration", { settings: err.settings });
    return err.settings;
  }
}

export class ConfigError extends Error {
  constructor(readonly settings: string[]) {
    super(`invalid configuration: ${settings.join(", ")}`);
  }
}

const cache = new WeakMap<object, Config>();

export function loadConfig(env: Env): Config {
  const hit = cache.get(env);
  if (hit) return hit;
  const parsed = schema
    .refine((v) => v.EMAIL_PROVIDER !== "resend" || v.EMAIL_API_KEY !== undefined, { path: ["EMAIL_API_KEY"], message: "is required for the resend provider" })
    .refine((v) => v.PAYMENT_PROVIDER !== "stripe" || (v.STRIPE_SECRET_KEY !== undefined && v.STRIPE_WEBHOOK_SECRET !== undefined), {
      path: ["STRIPE_SECRET_KEY"],
      message: "and STRIPE_WEBHOOK_SECRET are required for the stripe provider",
    })
    .refine((v) => v.PAYMENT_PROVIDER !== "mollie" || v.MOLLIE_API_KEY !== undefined, { path: ["MOLLIE_API_KEY"], message: "is required for the mollie provider" })
    .superRefine(googleWalletProblems)
    .safeParse(env);
  if (!parsed.success) throw new ConfigError([...new Set(parsed.error.issues.map((i) => i.path.join(".")))]);
  const v = parsed.data;
  const apple = appleWalletOf(v);
  const config: Config = {
    apiKeys: v.API_KEY_NEXT ? [v.API_KEY, v.API_KEY_NEXT] : [v.API_KEY],
    bootstrapAdmin: v.ADMIN_USERNAME && v.ADMIN_PASSWORD ? { username: v.ADMIN_USERNAME, password: v.ADMIN_PASSWORD, email: v.ADMIN_EMAIL } : null,
    passwordPepper: v.PASSWORD_PEPPER,
    timezone: v.TIMEZONE,
    logRetentionDays: v.LOG_RETENTION_DAYS,
    allowHttpOutbound: v.ALLOW_HTTP_OUTBOUND,
    outboundDnsUrl: v.OUTBOUND_DNS_URL,
    currency: v.CURRENCY,
    email: { provider: v.EMAIL_PROVIDER, apiUrl: v.EMAIL_API_URL, apiKey: v.EMAIL_API_KEY ?? "", from: v.EMAIL_FROM, fromName: v.EMAIL_FROM_NAME },
    publicUrl: v.PUBLIC_URL,
    orderHoldMinutes: v.ORDER_HOLD_MINUTES,
    waitingListHours: v.WAITING_LIST_HOURS,
    orderingKey: v.ORDERING_KEY ?? null,
    corsOrigins: v.CORS_ORIGINS,
    paymentProvider: v.PAYMENT_PROVIDER ?? null,
    incomplete: [...incompleteSettings(v.PAYMENT_PROVIDER, v.PUBLIC_URL, v.ALLOW_HTTP_OUTBOUND), ...apple.missing],
    stripe: { apiUrl: v.STRIPE_API_URL.replace(/\/+$/, ""), secretKey: v.STRIPE_SECRET_KEY ?? "", webhookSecret: v.STRIPE_WEBHOOK_SECRET ?? "" },
    mollie: { apiUrl: v.MOLLIE_API_URL.replace(/\/+$/, ""), apiKey: v.MOLLIE_API_KEY ?? "" },
    captcha: { verifyUrl: v.RECAPTCHA_VERIFY_URL, secret: v.RECAPTCHA_SECRET ?? "", siteKey: v.RECAPTCHA_SITE_KEY },
    ticketSigningKeys: v.TICKET_SIGNING_KEYS,
    googleWallet: googleWallet(v.GOOGLE_WALLET_SERVICE_ACCOUNT, v.GOOGLE_WALLET_ISSUER_ID),
    appleWallet: apple.config,
    bulkBatchSize: v.BULK_BATCH_SIZE,
    rateLimits: v.RATE_LIMITS === "on",
  };
  cache.set(env, config);
  if (config.incomplete.length > 0) {
    log("error", "incomplete configuration: the service runs, but not fully, until these are set", { settings: config.incomplete });
  }
  return config;
}

/** A Google issuer id: digits, as the Google Pay & Wallet Console shows it. */
const ISSUER_ID = /^[0-9]{1,30}$/;

/**
 * Google Wallet is configured by both settings or neither (decisions.md 15 "Wallet passes"): one without the other,
 * a key that is not a service account's JSON key or an issuer id that is not one is a misconfiguration, named (never
 * shown) like any other.
 */
function googleWalletProblems(v: { GOOGLE_WALLET_SERVICE_ACCOUNT?: string; GOOGLE_WALLET_ISSUER_ID?: string }, ctx: z.RefinementCtx): void {
  const account = v.GOOGLE_WALLET_SERVICE_ACCOUNT;
  const issuer = v.GOOGLE_WALLET_ISSUER_ID;
  if (account === undefined && issuer === undefined) return;
  if (account === undefined || readServiceAccount(account) === null) {
    ctx.addIssue({ code: "custom", path: ["GOOGLE_WALLET_SERVICE_ACCOUNT"], message: "must be the service account's JSON key (client_email, a PKCS#8 private_key)" });
  }
  if (issuer === undefined || !ISSUER_ID.test(issuer.trim())) {
    ctx.addIssue({ code: "custom", path: ["GOOGLE_WALLET_ISSUER_ID"], message: "must be the Google Wallet issuer id (digits)" });
  }
}

function googleWallet(account: string | undefined, issuer: string | undefined): Config["googleWallet"] {
  const read = account === undefined ? null : readServiceAccount(account);
  return read && issuer ? { issuerId: issuer.trim(), account: read } : null;
}

/**
 * What a working deployment still lacks. Without a payment provider paid orders are refused (decisions.md 14).
 * Without PUBLIC_URL a deployment's links would follow each request's `Host` (decisions.md 15): only local
 * development and the tests may do without it, and they alone set ALLOW_HTTP_OUTBOUND (never a deployment:
 * it opens outbound calls to loopback), which is how a deployment is told apart from them.
 */
function incompleteSettings(paymentProvider: string | undefined, publicUrl: string, localDevelopment: boolean): string[] {
  const missing: string[] = [];
  if (paymentProvider === undefined) missing.push("PAYMENT_PROVIDER");
  if (publicUrl === "" && !localDevelopment) missing.push("PUBLIC_URL");
  return missing;
}

import { exchange, succeeded } from "../../lib/outbound";
import type { Config } from "../../config";

/** Where outgoing email goes (decisions.md 9). */

interface OutgoingEmail {
  to: string;
  bcc: string;
  fromName: string;
  fromEmail: string;
  subject: string;
  html: string;
  /** The same for every attempt of one email; a provider that takes one sends the email once. */
  idempotencyKey: string;
}

type SendResult = { ok: true } | { ok: false; error: string; retryable: boolean };

export interface EmailProvider {
  readonly name: string;
  send(email: OutgoingEmail): Promise<SendResult>;
}

/** The default: the outbox row is the message; nothing leaves (GET /admin/emails shows what would have). */
const outboxProvider: EmailProvider = {
  name: "outbox",
  send: async () => ({ ok: true }),
};

/**
 * `Display Name <address>`; a name holding RFC 5322 specials (commas, colons, brackets, quotes ...) is quoted, so
 * it stays one name and cannot add an address.
 */
function mailbox(name: string, address: string): string {
  const clean = name.replace(/[\r\n]+/g, " ").trim();
  if (!clean) return address;
  if (!/[()<>[\]:;@\\,."]/.test(clean)) return `${clean} <${address}>`;
  return `"${clean.replace(/(["\\])/g, "\\$1")}" <${address}>`;
}

/**
 * Resend's HTTP API (`POST /emails` with a bearer key and an `Idempotency-Key`). 429 and 5xx are worth retrying, and
 * a 409 for a request with the same key still in progress; other 4xx are not.
 */
function resendProvider(config: Pick<Config, "allowHttpOutbound" | "email">): EmailProvider {
  return {
    name: "resend",
    async send(email) {
      const from = mailbox(email.fromName, email.fromEmail);
      const body = JSON.stringify({ from, to: [email.to], subject: email.subject, html: email.html, ...(email.bcc ? { bcc: [email.bcc] } : {}) });
      const x = await exchange(
        config.email.apiUrl,
        {
          method: "POST",
          headers: { Authorization: `Bearer ${config.email.apiKey}`, "Content-Type": "application/json", "Idempotency-Key": email.idempotencyKey },
          body,
        },
        { allowHttp: config.allowHttpOutbound, timeoutMs: 10_000 },
      );
      if (succeeded(x)) return { ok: true };
      if (!x.response) return { ok: false, error: x.error ?? "no answer", retryable: true };
      const code = x.response.code;
      const inProgress = code === 409 && x.response.body.includes("concurrent_idempotent_requests");
      return { ok: false, error: `HTTP ${code}: ${x.response.body.slice(0, 300)}`, retryable: code === 429 || code >= 500 || inProgress };
    },
  };
}

export function emailProvider(config: Pick<Config, "allowHttpOutbound" | "email">): EmailProvider {
  return config.email.provider === "resend" ? resendProvider(config) : outboxProvider;
}

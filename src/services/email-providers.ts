import { exchange, succeeded } from "../lib/outbound";
import type { Config } from "../config";

/** Where outgoing email goes (decisions.md 9). */

export interface OutgoingEmail {
  to: string;
  bcc: string;
  fromName: string;
  fromEmail: string;
  subject: string;
  html: string;
}

export type SendResult = { ok: true } | { ok: false; error: string; retryable: boolean };

export interface EmailProvider {
  readonly name: string;
  send(email: OutgoingEmail): Promise<SendResult>;
}

/** The default: the outbox row is the message; nothing leaves (GET /admin/emails shows what would have). */
export const outboxProvider: EmailProvider = {
  name: "outbox",
  send: async () => ({ ok: true }),
};

/**
 * `Display Name <address>`; a name holding RFC 5322 specials (commas, colons, brackets, quotes ...) is quoted, so
 * it stays one name and cannot add an address.
 */
export function mailbox(name: string, address: string): string {
  const clean = name.replace(/[\r\n]+/g, " ").trim();
  if (!clean) return address;
  if (!/[()<>[\]:;@\\,."]/.test(clean)) return `${clean} <${address}>`;
  return `"${clean.replace(/(["\\])/g, "\\$1")}" <${address}>`;
}

/** Resend's HTTP API (`POST /emails` with a bearer key). 429 and 5xx are worth retrying; other 4xx are not. */
export function resendProvider(config: Pick<Config, "allowHttpOutbound" | "email">): EmailProvider {
  return {
    name: "resend",
    async send(email) {
      const from = mailbox(email.fromName, email.fromEmail);
      const body = JSON.stringify({ from, to: [email.to], subject: email.subject, html: email.html, ...(email.bcc ? { bcc: [email.bcc] } : {}) });
      const x = await exchange(
        config.email.apiUrl,
        { method: "POST", headers: { Authorization: `Bearer ${config.email.apiKey}`, "Content-Type": "application/json" }, body },
        { allowHttp: config.allowHttpOutbound, timeoutMs: 10_000 },
      );
      if (succeeded(x)) return { ok: true };
      if (!x.response) return { ok: false, error: x.error ?? "no answer", retryable: true };
      const code = x.response.code;
      return { ok: false, error: `HTTP ${code}: ${x.response.body.slice(0, 300)}`, retryable: code === 429 || code >= 500 };
    },
  };
}

export function emailProvider(config: Pick<Config, "allowHttpOutbound" | "email">): EmailProvider {
  return config.email.provider === "resend" ? resendProvider(config) : outboxProvider;
}

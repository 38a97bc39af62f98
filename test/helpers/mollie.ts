import { env } from "cloudflare:workers";
import { unique } from "./api";
import { stubUrl } from "./stubs";

/**
 * A Mollie test account on the local stub server (test/stubs/mollie-api.ts): the service's settings pointing at it,
 * its API as the service calls it, and the control a test uses to act as the customer or Mollie's dashboard.
 */

export const MOLLIE_KEY = "test_mollieStubKey123";

export interface MollieRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

type Json = Record<string, any>;

export interface MollieAccount {
  name: string;
  /** The deployment's settings with Mollie as the payment provider, its API this account. */
  env(overrides?: Record<string, unknown>): typeof env;
  /** Mollie's API as the service calls it (with the key), e.g. to read a payment or create another. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  /** As if the customer paid, cancelled, or Mollie expired or failed it (or the dashboard changed it). */
  setPayment(id: string, change: { status?: string; amount?: { currency: string; value: string }; amountRefunded?: { currency: string; value: string } }): Promise<void>;
  /** Every API call answers `status` (5xx) until `down(null)`. */
  down(status: number | null): Promise<void>;
  requests(): Promise<MollieRequest[]>;
}

export async function mollieAccount(): Promise<MollieAccount> {
  const name = unique("mollie-");
  const control = (path: string, method: string, body?: unknown) =>
    fetch(stubUrl(`/mollie-control/${name}${path}`), { method, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => {
      if (!r.ok) throw new Error(`mollie stub control ${method} ${path}: ${r.status} ${await r.text()}`);
      return r.json();
    });
  await control("", "PUT", { apiKey: MOLLIE_KEY });
  const apiUrl = stubUrl(`/mollie/${name}`);
  return {
    name,
    env: (overrides = {}) => ({ ...env, PAYMENT_PROVIDER: "mollie", MOLLIE_API_URL: apiUrl, MOLLIE_API_KEY: MOLLIE_KEY, ...overrides }) as typeof env,
    async api(method, path, body) {
      const res = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${MOLLIE_KEY}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    },
    async setPayment(id, change) {
      await control(`/payments/${id}`, "PATCH", change);
    },
    async down(status) {
      await control("", "PATCH", { down: status });
    },
    requests: () => control("/requests", "GET") as Promise<MollieRequest[]>,
  };
}

import { exports } from "cloudflare:workers";
import { expect, it } from "vitest";
import { call, expectError, expectJson } from "./api";
import { wallClockAt } from "./wall-clock";

/** Shared set-up of the bulk-action tests: orders paid on the test provider's page, statuses polled, criteria. */

export type Json = Record<string, any>;

export interface Shop {
  event: Json;
  types: Json[];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` until `done` holds; fails with `what` when it never does within the bound. */
export async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

/** The order's `tickets` for counts per type of the shop, in type order. */
export const lines = (s: Shop, counts: number[]) => s.types.map((t, i) => ({ [t.id]: counts[i] ?? 0 }));

/** Pays or cancels on the test provider's checkout page (a form post, answered 303). */
export function decide(checkoutUrl: string, action: "pay" | "cancel"): Promise<Response> {
  return exports.default.fetch(
    new Request(checkoutUrl, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `action=${action}` }),
  );
}

export async function statusOf(orderId: number): Promise<string> {
  return (await expectJson(call("GET", `/admin/orders/${orderId}`), 200)).payment_status;
}

/** List criteria around now (an hour either side), every bound open, for the given events. */
export function criteria(eventIds: number[] | string, extra: Json = {}): Json {
  return {
    date_from: wallClockAt(Date.now() - 3_600_000),
    date_to: wallClockAt(Date.now() + 3_600_000),
    event_ids: typeof eventIds === "string" ? eventIds : eventIds.join(","),
    tickets_minimum: 0,
    tickets_maximum: 1000,
    amount_minimum: 0,
    amount_maximum: 100_000,
    ...extra,
  };
}

/**
 * The criteria rules every bulk list call shares (decisions.md 10: all mandatory, each validated, min <= max), as
 * tests registered in the caller's describe block for its `list` call.
 */
export function listCriteriaValidation(list: (body: unknown) => Promise<Response>): void {
  const FIELDS = ["date_from", "date_to", "event_ids", "tickets_minimum", "tickets_maximum", "amount_minimum", "amount_maximum"];

  it.each(FIELDS)("without %s: 400 rest_missing_callback_param naming it", async (field) => {
    const body = criteria([1]);
    delete body[field];
    const err = await expectError(list(body), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params ?? {})).toEqual([field]);
  });

  it("an empty body names every criterion as missing", async () => {
    const err = await expectError(list({}), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params ?? {}).sort()).toEqual([...FIELDS].sort());
  });

  it.each([
    ["date_from", "2024-01-01"],
    ["date_from", "2024-01-01T10:00:00"],
    ["date_from", "2024-13-01 10:00:00"],
    ["date_from", ""],
    ["date_from", 20240101],
    ["date_to", "01-01-2024 10:00:00"],
    ["date_to", "2024-02-30 10:00:00"],
    ["date_to", "2024-01-01 25:00:00"],
    ["event_ids", "abc"],
    ["event_ids", "1;2"],
    ["event_ids", "1,,2"],
    ["event_ids", "-3"],
    ["event_ids", 5],
    ["event_ids", [1, 2]],
    ["tickets_minimum", -1],
    ["tickets_minimum", 1.5],
    ["tickets_minimum", "x"],
    ["tickets_minimum", null],
    ["tickets_maximum", -2],
    ["tickets_maximum", "2.5"],
    ["amount_minimum", -1],
    ["amount_minimum", 1.234],
    ["amount_minimum", "abc"],
    ["amount_maximum", "-5"],
    ["amount_maximum", "1.001"],
    ["amount_maximum", true],
  ])("%s = %j: 400 rest_invalid_param naming it", async (field, value) => {
    const err = await expectError(list(criteria([1], { [field]: value })), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain(field);
  });

  it("event_ids naming an event that does not exist: 400 naming it (decisions.md 12), not an empty selection", async () => {
    const err = await expectError(list(criteria("987654321")), 400, "rest_invalid_param");
    expect(err.data.params).toEqual({ event_ids: "names events that do not exist: 987654321" });
  });

  it.each([
    ["date_to", { date_from: "2024-05-02 00:00:00", date_to: "2024-05-01 23:59:59" }],
    ["tickets_maximum", { tickets_minimum: 5, tickets_maximum: 4 }],
    ["amount_maximum", { amount_minimum: 10.01, amount_maximum: 10 }],
  ])("a minimum above its maximum (%s): 400", async (field, extra) => {
    const err = await expectError(list(criteria([1], extra)), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params ?? {})).toContain(field);
  });
}

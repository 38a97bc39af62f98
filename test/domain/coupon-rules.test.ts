import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors";
import type { AuthUser } from "../../src/domain/authority";
import {
  checkCoupon,
  chooseCoupon,
  couponDiscountCents,
  couponOwnerOf,
  couponVisibleTo,
  coversNoneOf,
  type CouponLine,
  type CouponRow,
  type CouponUse,
} from "../../src/domain/coupon-rules";

/**
 * A coupon at checkout as plain rules (decisions.md 5.4, 5.5, 12 and 13 "Orders"): `checkCoupon` throws the first
 * rule a use breaks, in the decided order, with its code and text; `couponDiscountCents` is the discount in cents.
 */

const NOW = 1_900_000_000;

function coupon(over: Partial<CouponRow> = {}): CouponRow {
  return {
    id: 1,
    code: "SAVE",
    codeKey: "save",
    description: "",
    type: "percent",
    individualUse: false,
    amountHundredths: 1000,
    usageLimit: 0,
    usageLimitPerUser: 0,
    used: 0,
    lastUsed: null,
    startDate: null,
    endDate: null,
    events: [],
    tickets: [],
    minimumTickets: 0,
    maximumTickets: 0,
    minimumAmountCents: 0,
    maximumAmountCents: 0,
    email: "",
    emailKey: "",
    ownerId: 0,
    createdAt: NOW - 1000,
    modifiedAt: NOW - 1000,
    ...over,
  };
}

const REGULAR: CouponLine = { name: "Regular", count: 2, unitCents: 1000 };
const VIP: CouponLine = { name: "VIP", count: 1, unitCents: 2500 };

function use(over: Partial<CouponUse> = {}): CouponUse {
  return { now: NOW, eventIds: [7], ownerEvents: "all", emailKey: "ann@example.com", lines: [REGULAR, VIP], usesHeld: 0, usesHeldByOrderer: 0, ...over };
}

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error("expected an ApiError, nothing was thrown");
}

function expectRule(c: CouponRow, u: CouponUse, code: string, message: string) {
  const err = thrown(() => checkCoupon(c, u));
  expect({ status: err.status, code: err.code, message: err.message }).toEqual({ status: 400, code, message });
}

const passes = (c: CouponRow, u: CouponUse = use()) => expect(() => checkCoupon(c, u)).not.toThrow();

const USAGE = "The maximum number of times the discount code can be used has been reached";

describe("checkCoupon: each rule with its code and text", () => {
  it("a coupon without conditions passes", () => {
    passes(coupon());
    passes(coupon({ type: "fixed", amountHundredths: 500 }));
  });

  it("not active yet: coupon_not_active until start_date (the start itself is active)", () => {
    expectRule(coupon({ startDate: NOW + 1 }), use(), "coupon_not_active", "The discount code is not yet active");
    passes(coupon({ startDate: NOW }));
    passes(coupon({ startDate: NOW - 1 }));
  });

  it("expired: coupon_expired after end_date (the end itself still counts)", () => {
    expectRule(coupon({ endDate: NOW - 1 }), use(), "coupon_expired", "The discount code has expired");
    passes(coupon({ endDate: NOW }));
    passes(coupon({ endDate: NOW + 1 }));
    passes(coupon({ startDate: NOW, endDate: NOW }));
  });

  it("usage limit: coupon_usage_limit once the uses held reach it; 0 is no limit", () => {
    expectRule(coupon({ usageLimit: 3 }), use({ usesHeld: 3 }), "coupon_usage_limit", USAGE);
    expectRule(coupon({ usageLimit: 3 }), use({ usesHeld: 4 }), "coupon_usage_limit", USAGE);
    passes(coupon({ usageLimit: 3 }), use({ usesHeld: 2 }));
    passes(coupon({ usageLimit: 0 }), use({ usesHeld: 1000 }));
  });

  it("per-user limit: coupon_usage_limit once this orderer's live orders reach it; 0 is no limit", () => {
    expectRule(coupon({ usageLimitPerUser: 1 }), use({ usesHeldByOrderer: 1 }), "coupon_usage_limit", USAGE);
    expectRule(coupon({ usageLimitPerUser: 2 }), use({ usesHeldByOrderer: 2, usesHeld: 2 }), "coupon_usage_limit", USAGE);
    passes(coupon({ usageLimitPerUser: 2 }), use({ usesHeldByOrderer: 1, usesHeld: 50 }));
    passes(coupon({ usageLimitPerUser: 0 }), use({ usesHeldByOrderer: 50 }));
  });

  it("email tie: coupon_wrong_email for another address (the caller passes the address lowercased)", () => {
    const tied = coupon({ email: "Ann@Example.com", emailKey: "ann@example.com" });
    passes(tied, use({ emailKey: "ann@example.com" }));
    expectRule(tied, use({ emailKey: "bob@example.com" }), "coupon_wrong_email", "This discount code is linked to another email address");
  });

  it("events: coupon_wrong_event when one of a group's dates is not among the coupon's; none named is any event", () => {
    passes(coupon({ events: [7, 9] }));
    passes(coupon({ events: [] }), use({ eventIds: [123456] }));
    passes(coupon({ events: [7, 9] }), use({ eventIds: [7, 9] }));
    expectRule(coupon({ events: [7] }), use({ eventIds: [7, 9] }), "coupon_wrong_event", "This discount code is not linked to this event");
  });

  it("events: a coupon covering none of the order's events is told apart (to be answered as unknown), one covering some is not", () => {
    expect(coversNoneOf(coupon({ events: [8, 9] }), "all", [7])).toBe(true);
    expect(coversNoneOf(coupon({ events: [8] }), "all", [7, 9])).toBe(true);
    expect(coversNoneOf(coupon({ events: [7] }), "all", [7, 9])).toBe(false);
    expect(coversNoneOf(coupon({ events: [] }), "all", [123456])).toBe(false);
  });

  it("events: a coupon without events covers the events its owner may manage (decisions.md 15)", () => {
    // The administrators' (owner 0): every event; an organizer's: its authorised events.
    expect(coversNoneOf(coupon({ events: [] }), [7], [7])).toBe(false);
    expect(coversNoneOf(coupon({ events: [] }), [7], [8])).toBe(true);
    expect(coversNoneOf(coupon({ events: [] }), [], [8])).toBe(true);
    // Its events, when it names any, decide alone.
    expect(coversNoneOf(coupon({ events: [8] }), [7], [8])).toBe(false);
    passes(coupon({ events: [] }), use({ eventIds: [7], ownerEvents: [7, 9] }));
    expectRule(coupon({ events: [] }), use({ eventIds: [7, 9], ownerEvents: [7] }), "coupon_wrong_event", "This discount code is not linked to this event");
  });

  it("minimum tickets: counted over all lines when the coupon names no types, the message without types", () => {
    // 2 Regular + 1 VIP = 3 tickets.
    passes(coupon({ minimumTickets: 3 }));
    expectRule(coupon({ minimumTickets: 4 }), use(), "coupon_min_tickets", "This discount code requires a minimum of 4 tickets");
  });

  it("minimum tickets: counted over the coupon's types only, the message naming them joined by ', '", () => {
    passes(coupon({ tickets: ["Regular"], minimumTickets: 2 }));
    expectRule(coupon({ tickets: ["VIP"], minimumTickets: 2 }), use(), "coupon_min_tickets", "This discount code requires a minimum of 2 tickets VIP");
    expectRule(
      coupon({ tickets: ["VIP", "Balcony"], minimumTickets: 2 }),
      use(),
      "coupon_min_tickets",
      "This discount code requires a minimum of 2 tickets VIP, Balcony",
    );
    // A type the order does not have counts 0.
    expectRule(coupon({ tickets: ["Balcony"], minimumTickets: 1 }), use(), "coupon_min_tickets", "This discount code requires a minimum of 1 tickets Balcony");
  });

  it("maximum tickets: over all lines, or the coupon's types only", () => {
    passes(coupon({ maximumTickets: 3 }));
    expectRule(coupon({ maximumTickets: 2 }), use(), "coupon_max_tickets", "This discount code allows a maximum of 2 tickets");
    passes(coupon({ tickets: ["VIP"], maximumTickets: 1 }));
    expectRule(coupon({ tickets: ["Regular"], maximumTickets: 1 }), use(), "coupon_max_tickets", "This discount code allows a maximum of 1 tickets Regular");
    expectRule(coupon({ tickets: ["Regular", "VIP"], maximumTickets: 2 }), use(), "coupon_max_tickets", "This discount code allows a maximum of 2 tickets Regular, VIP");
  });

  it("minimum amount: at list prices, over all lines or the coupon's types; x with two decimals", () => {
    // All lines: 2 x 10.00 + 25.00 = 45.00; Regular alone 20.00; VIP alone 25.00.
    passes(coupon({ minimumAmountCents: 4500 }));
    expectRule(coupon({ minimumAmountCents: 4501 }), use(), "coupon_min_amount", "A minimum amount of 45.01 is required for this discount code");
    passes(coupon({ tickets: ["Regular"], minimumAmountCents: 2000 }));
    expectRule(
      coupon({ tickets: ["Regular"], minimumAmountCents: 2050 }),
      use(),
      "coupon_min_amount",
      "A minimum amount of 20.50 Regular is required for this discount code",
    );
    expectRule(coupon({ minimumAmountCents: 10000 }), use(), "coupon_min_amount", "A minimum amount of 100.00 is required for this discount code");
  });

  it("maximum amount: at list prices, over all lines or the coupon's types", () => {
    passes(coupon({ maximumAmountCents: 4500 }));
    expectRule(coupon({ maximumAmountCents: 4499 }), use(), "coupon_max_amount", "A maximum amount of 44.99 is allowed for this discount code");
    passes(coupon({ tickets: ["VIP"], maximumAmountCents: 2500 }));
    expectRule(
      coupon({ tickets: ["VIP", "Regular"], maximumAmountCents: 4000 }),
      use(),
      "coupon_max_amount",
      "A maximum amount of 40.00 VIP, Regular is allowed for this discount code",
    );
    expectRule(coupon({ maximumAmountCents: 10 }), use(), "coupon_max_amount", "A maximum amount of 0.10 is allowed for this discount code");
  });

  it("0 bounds are no bounds", () => {
    passes(
      coupon({ minimumTickets: 0, maximumTickets: 0, minimumAmountCents: 0, maximumAmountCents: 0 }),
      use({ lines: [{ name: "Regular", count: 0, unitCents: 1000 }] }),
    );
  });
});

describe("checkCoupon: the order of the rules", () => {
  // Every rule broken at once; fixing them one by one, in order, reveals the next.
  const allBroken: Partial<CouponRow> = {
    startDate: NOW + 100,
    endDate: NOW - 100,
    usageLimit: 1,
    usageLimitPerUser: 1,
    email: "bob@example.com",
    emailKey: "bob@example.com",
    events: [99],
    tickets: ["Regular"],
    minimumTickets: 5,
    maximumTickets: 1,
    minimumAmountCents: 9000,
    maximumAmountCents: 100,
  };
  const u = use({ usesHeld: 1, usesHeldByOrderer: 1 });
  const steps: [string, Partial<CouponRow>][] = [
    ["coupon_not_active", { startDate: null }],
    ["coupon_expired", { endDate: null }],
    ["coupon_usage_limit", { usageLimit: 0, usageLimitPerUser: 0 }],
    ["coupon_wrong_email", { email: "", emailKey: "" }],
    ["coupon_wrong_event", { events: [] }],
    ["coupon_min_tickets", { minimumTickets: 0 }],
    ["coupon_max_tickets", { maximumTickets: 0 }],
    ["coupon_min_amount", { minimumAmountCents: 0 }],
    ["coupon_max_amount", { maximumAmountCents: 0 }],
  ];

  it("answers not active, expired, usage limit, email, event, min tickets, max tickets, min amount, max amount", () => {
    let current: Partial<CouponRow> = { ...allBroken };
    for (const [code, fix] of steps) {
      expect(thrown(() => checkCoupon(coupon(current), u)).code).toBe(code);
      current = { ...current, ...fix };
    }
    passes(coupon(current), u);
  });

  it("the per-user limit alone is the same usage-limit answer, before the email tie", () => {
    const c = coupon({ usageLimitPerUser: 1, email: "bob@example.com", emailKey: "bob@example.com" });
    expect(thrown(() => checkCoupon(c, use({ usesHeldByOrderer: 1 }))).code).toBe("coupon_usage_limit");
  });
});

describe("couponDiscountCents", () => {
  it("percent of the whole total when the coupon names no types, rounded half up", () => {
    expect(couponDiscountCents(coupon({ amountHundredths: 1000 }), [REGULAR, VIP])).toBe(450); // 10% of 45.00
    expect(couponDiscountCents(coupon({ amountHundredths: 1250 }), [{ name: "Regular", count: 1, unitCents: 1000 }])).toBe(125); // 12.5% of 10.00
    // 12.5% of 0.20 = 2.5 cents: up to 3.
    expect(couponDiscountCents(coupon({ amountHundredths: 1250 }), [{ name: "Regular", count: 1, unitCents: 20 }])).toBe(3);
    // 12.5% of 0.12 = 1.5 cents: up to 2; 33.33% of 10.00 = 333.3: 333.
    expect(couponDiscountCents(coupon({ amountHundredths: 1250 }), [{ name: "Regular", count: 1, unitCents: 12 }])).toBe(2);
    expect(couponDiscountCents(coupon({ amountHundredths: 3333 }), [{ name: "Regular", count: 1, unitCents: 1000 }])).toBe(333);
    // 0.01% of 49.99 = 0.4999 cents: 0.
    expect(couponDiscountCents(coupon({ amountHundredths: 1 }), [{ name: "Regular", count: 1, unitCents: 4999 }])).toBe(0);
    // 0.01% of 50.00 = 0.5 cents: 1.
    expect(couponDiscountCents(coupon({ amountHundredths: 1 }), [{ name: "Regular", count: 1, unitCents: 5000 }])).toBe(1);
  });

  it("percent limited to ticket types takes its share of those lines only", () => {
    expect(couponDiscountCents(coupon({ amountHundredths: 5000, tickets: ["VIP"] }), [REGULAR, VIP])).toBe(1250);
    expect(couponDiscountCents(coupon({ amountHundredths: 1250, tickets: ["Regular"] }), [REGULAR, VIP])).toBe(250);
    expect(couponDiscountCents(coupon({ amountHundredths: 1000, tickets: ["Regular", "VIP"] }), [REGULAR, VIP])).toBe(450);
    // Names it does not find concern nothing.
    expect(couponDiscountCents(coupon({ amountHundredths: 5000, tickets: ["Balcony"] }), [REGULAR, VIP])).toBe(0);
  });

  it("100 percent takes everything it concerns, never more than the total", () => {
    expect(couponDiscountCents(coupon({ amountHundredths: 10_000 }), [REGULAR, VIP])).toBe(4500);
    expect(couponDiscountCents(coupon({ amountHundredths: 10_000, tickets: ["Regular"] }), [REGULAR, VIP])).toBe(2000);
  });

  it("fixed takes its amount off the whole total, whatever types it names", () => {
    expect(couponDiscountCents(coupon({ type: "fixed", amountHundredths: 500 }), [REGULAR, VIP])).toBe(500);
    expect(couponDiscountCents(coupon({ type: "fixed", amountHundredths: 1234 }), [REGULAR, VIP])).toBe(1234);
    expect(couponDiscountCents(coupon({ type: "fixed", amountHundredths: 3000, tickets: ["Regular"] }), [REGULAR, VIP])).toBe(3000);
  });

  it("fixed is capped at the total: never below 0", () => {
    expect(couponDiscountCents(coupon({ type: "fixed", amountHundredths: 4500 }), [REGULAR, VIP])).toBe(4500);
    expect(couponDiscountCents(coupon({ type: "fixed", amountHundredths: 10_000 }), [REGULAR, VIP])).toBe(4500);
    expect(couponDiscountCents(coupon({ type: "fixed", amountHundredths: 500 }), [{ name: "Free", count: 3, unitCents: 0 }])).toBe(0);
  });

  it("no lines or a zero coupon: no discount", () => {
    expect(couponDiscountCents(coupon({ amountHundredths: 5000 }), [])).toBe(0);
    expect(couponDiscountCents(coupon({ type: "fixed", amountHundredths: 500 }), [])).toBe(0);
    expect(couponDiscountCents(coupon({ type: "fixed", amountHundredths: 0 }), [REGULAR])).toBe(0);
    expect(couponDiscountCents(coupon({ amountHundredths: 0 }), [REGULAR])).toBe(0);
  });

  it("uses the lines' unit prices as given (volume prices are list prices)", () => {
    // 6 at a volume price of 8.00: 48.00; 25% = 12.00.
    expect(couponDiscountCents(coupon({ amountHundredths: 2500 }), [{ name: "Regular", count: 6, unitCents: 800 }])).toBe(1200);
  });
});

describe("coupons of several owners (decisions.md 15)", () => {
  const admin: AuthUser = { id: 1, username: "a", role: "administrator", authorisedEvents: [] };
  const otherAdmin: AuthUser = { id: 5, username: "b", role: "administrator", authorisedEvents: [7] };
  const ann: AuthUser = { id: 2, username: "ann", role: "organizer", authorisedEvents: [7, 8] };

  it("all administrators are one owner (0); an organizer owns its coupons by its id", () => {
    expect(couponOwnerOf(admin)).toBe(0);
    expect(couponOwnerOf(otherAdmin)).toBe(0);
    expect(couponOwnerOf(ann)).toBe(2);
  });

  it("an organizer sees its own coupons whose events lie within its events; an administrator every coupon", () => {
    expect(couponVisibleTo(ann, coupon({ ownerId: 2, events: [7] }))).toBe(true);
    expect(couponVisibleTo(ann, coupon({ ownerId: 2, events: [7, 8] }))).toBe(true);
    expect(couponVisibleTo(ann, coupon({ ownerId: 2, events: [7, 9] }))).toBe(false);
    expect(couponVisibleTo(ann, coupon({ ownerId: 2, events: [] }))).toBe(false);
    expect(couponVisibleTo(ann, coupon({ ownerId: 0, events: [7] }))).toBe(false);
    expect(couponVisibleTo(ann, coupon({ ownerId: 3, events: [7] }))).toBe(false);
    for (const c of [coupon({ ownerId: 2, events: [9] }), coupon({ ownerId: 0, events: [] }), coupon({ ownerId: 3, events: [7] })]) {
      expect(couponVisibleTo(admin, c)).toBe(true);
    }
  });

  it("chooseCoupon: of one code's coupons, one covering the order's events; none covering any is none", () => {
    const anns = { coupon: coupon({ id: 10, ownerId: 2, events: [7] }), ownerEvents: [7, 8] };
    const bobs = { coupon: coupon({ id: 11, ownerId: 3, events: [8] }), ownerEvents: [8] };
    const global = { coupon: coupon({ id: 3, ownerId: 0, events: [] }), ownerEvents: "all" as const };
    expect(chooseCoupon([anns, bobs], [7])).toBe(anns);
    expect(chooseCoupon([anns, bobs], [8])).toBe(bobs);
    expect(chooseCoupon([anns, bobs], [9])).toBeUndefined();
    expect(chooseCoupon([], [7])).toBeUndefined();
    // One that names the event goes before one without events; then one covering every date of a group.
    expect(chooseCoupon([global, anns], [7])).toBe(anns);
    expect(chooseCoupon([global, anns], [9])).toBe(global);
    const both = { coupon: coupon({ id: 12, ownerId: 3, events: [7, 8] }), ownerEvents: [7, 8] };
    expect(chooseCoupon([anns, both], [7, 8])).toBe(both);
    // One covering only some dates is still chosen, to be answered coupon_wrong_event.
    expect(chooseCoupon([anns, bobs], [7, 9])).toBe(anns);
    // Otherwise the oldest.
    const older = { coupon: coupon({ id: 4, ownerId: 5, events: [7] }), ownerEvents: [7] };
    expect(chooseCoupon([anns, older], [7])).toBe(older);
  });
});

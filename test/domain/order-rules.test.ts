import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors";
import {
  checkFieldAnswers,
  checkOrderer,
  checkOrderSize,
  checkSaleWindow,
  checkTicketLines,
  isOnSale,
  MAX_ORDER_TICKETS,
  readTicketCounts,
  waitingDeadline,
} from "../../src/domain/order-rules";
import type { EventRow, InputFieldRow, TicketTypeRow } from "../../src/db/rows";

/** The order rules of decisions.md 5.4 and 13 ("Orders"), as plain functions. */

/** Runs `fn` and answers the ApiError it throws (failing the test when it throws nothing or something else). */
function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error("expected an ApiError, nothing was thrown");
}

function expectRule(fn: () => unknown, status: number, code: string, message?: string): ApiError {
  const err = thrown(fn);
  expect({ status: err.status, code: err.code }).toEqual({ status, code });
  if (message !== undefined) expect(err.message).toBe(message);
  return err;
}

const NOW = 1_750_000_000; // a fixed instant, in epoch seconds
const HOUR = 3600;

function event(overrides: Partial<EventRow> = {}): EventRow {
  const empty = { sender_name: "", sender_email: "", bcc: "", subject: "", body: "" };
  return {
    id: 42,
    eventName: "Festival",
    searchName: "festival",
    timezone: "UTC",
    region: "",
    eventDate: null,
    eventDateFormat: "Y-m-d H:i",
    startDate: null,
    endDate: null,
    stock: 0,
    sold: 0,
    stockLink: 0,
    groupType: 0,
    eventGroup: "",
    redirect: "",
    orderSubmitText: "",
    terms: "",
    email: empty,
    emailConfirmation: { bcc: "", subject: "", body: "", redirect: "" },
    confirmationTimeout: 0,
    uniqueEventIds: [],
    userGroups: { group_type: 0, rest_url: "", rest_header: "" },
    seats: { number_of_seats: 0, seats_format: "", seats_config: "", linked_event: 0 },
    ticketPdf: { attachment_id: 0, x_position: 10, y_position: 10, rotation: 0, scale: 100, no_border: false },
    emailsNeeded: false,
    ticketsNeeded: false,
    invoiceNeeded: false,
    uniqueUsersNeeded: false,
    userGroupsNeeded: false,
    recaptchaNeeded: false,
    confirmationEmailsNeeded: false,
    addDashboardOrdersNeeded: true,
    testPaymentsNeeded: false,
    seatsNeeded: false,
    webhooksNeeded: false,
    reloadOnExitNeeded: false,
    couponsNeeded: false,
    waitingListNeeded: false,
    configVersion: 1,
    pushedVersion: 1,
    createdAt: NOW - 100 * HOUR,
    modifiedAt: NOW - 100 * HOUR,
    ...overrides,
  };
}

let typeSeq = 0;
function ticketType(overrides: Partial<TicketTypeRow> = {}): TicketTypeRow {
  typeSeq += 1;
  return {
    eventId: 42,
    id: `v${typeSeq.toString(16).padStart(5, "0")}`,
    position: typeSeq,
    name: `Type ${typeSeq}`,
    priceCents: 1000,
    volumePrice: [],
    vatHundredths: 2100,
    stockControl: false,
    stock: 0,
    sold: 0,
    minimumToOrder: 0,
    maximumToOrder: 10,
    isCounted: true,
    showRemaining: false,
    attachmentId: 0,
    personalise: [],
    layout: [],
    ...overrides,
  };
}

let fieldSeq = 0;
function field(overrides: Partial<InputFieldRow> = {}): InputFieldRow {
  fieldSeq += 1;
  return {
    eventId: 42,
    id: `vf${fieldSeq.toString(16).padStart(4, "0")}`,
    position: fieldSeq,
    name: `Field ${fieldSeq}`,
    type: "text",
    value: "",
    min: "",
    max: "",
    isRequired: false,
    isPersonalised: false,
    ...overrides,
  };
}

const answers = (entries: Record<string, string>) => new Map(Object.entries(entries));

describe("checkOrderer", () => {
  it("answers the name and email trimmed", () => {
    expect(checkOrderer("  Ann Smith ", " ann@example.com  ")).toEqual({ name: "Ann Smith", email: "ann@example.com" });
  });

  it.each([
    [undefined, "ann@example.com"],
    ["Ann", undefined],
    [undefined, undefined],
    ["", "ann@example.com"],
    ["Ann", ""],
    ["   ", "ann@example.com"],
    ["Ann", " \t "],
  ])("refuses a missing name or email (%j, %j)", (name, email) => {
    expectRule(() => checkOrderer(name, email), 400, "order_missing_input", "Mandatory input not available");
  });

  it.each(["ann", "ann@", "@example.com", "ann@example", "ann example@example.com", "ann@@example.com", "ann@exa mple.com"])("refuses the invalid email %j", (email) => {
    expectRule(() => checkOrderer("Ann", email), 400, "order_invalid_email", "Invalid emailaddress");
  });

  it("allows a name of 50 characters and refuses 51", () => {
    expect(checkOrderer("n".repeat(50), "ann@example.com").name).toHaveLength(50);
    expectRule(() => checkOrderer("n".repeat(51), "ann@example.com"), 400, "order_name_too_long", "Name is too long (Max 50 chars)");
    // Surrounding spaces do not count.
    expect(checkOrderer(` ${"n".repeat(50)} `, "ann@example.com").name).toHaveLength(50);
  });

  it("allows an email of 100 characters and refuses 101", () => {
    const local = (n: number) => `${"a".repeat(n - "@example.com".length)}@example.com`;
    expect(checkOrderer("Ann", local(100)).email).toHaveLength(100);
    expectRule(() => checkOrderer("Ann", local(101)), 400, "order_email_too_long", "Emailaddress is too long (Max 100 chars)");
  });

  it("checks in the decided order: missing, then email, then name length, then email length", () => {
    const longName = "n".repeat(51);
    const longEmail = `${"a".repeat(95)}@example.com`;
    expectRule(() => checkOrderer(longName, ""), 400, "order_missing_input");
    expectRule(() => checkOrderer(longName, "nope"), 400, "order_invalid_email");
    expectRule(() => checkOrderer(longName, longEmail), 400, "order_name_too_long");
    expectRule(() => checkOrderer("Ann", longEmail), 400, "order_email_too_long");
  });
});

describe("isOnSale / checkSaleWindow", () => {
  it("is always on sale without any date", () => {
    expect(isOnSale(event(), NOW)).toBe(true);
    expect(() => checkSaleWindow(event(), NOW)).not.toThrow();
  });

  it("starts at start_date, inclusive", () => {
    const e = event({ startDate: NOW });
    expect(isOnSale(e, NOW - 1)).toBe(false);
    expect(isOnSale(e, NOW)).toBe(true);
    expect(isOnSale(e, NOW + 100 * HOUR)).toBe(true);
  });

  it("ends at end_date, inclusive", () => {
    const e = event({ endDate: NOW });
    expect(isOnSale(e, NOW - 100 * HOUR)).toBe(true);
    expect(isOnSale(e, NOW)).toBe(true);
    expect(isOnSale(e, NOW + 1)).toBe(false);
  });

  it("ends at event_date when there is no end_date", () => {
    const e = event({ eventDate: NOW });
    expect(isOnSale(e, NOW)).toBe(true);
    expect(isOnSale(e, NOW + 1)).toBe(false);
  });

  it("uses end_date, not event_date, when both are set", () => {
    const later = event({ eventDate: NOW, endDate: NOW + HOUR });
    expect(isOnSale(later, NOW + 1)).toBe(true);
    const earlier = event({ eventDate: NOW + HOUR, endDate: NOW });
    expect(isOnSale(earlier, NOW + 1)).toBe(false);
  });

  it("needs both ends of a window", () => {
    const e = event({ startDate: NOW, endDate: NOW + HOUR });
    expect(isOnSale(e, NOW - 1)).toBe(false);
    expect(isOnSale(e, NOW + HOUR / 2)).toBe(true);
    expect(isOnSale(e, NOW + HOUR + 1)).toBe(false);
  });

  it("refuses outside the window with order_event_inactive naming the event", () => {
    expectRule(() => checkSaleWindow(event({ id: 7, startDate: NOW + 1 }), NOW), 400, "order_event_inactive", "Event 7 is not active");
    expectRule(() => checkSaleWindow(event({ id: 8, endDate: NOW - 1 }), NOW), 400, "order_event_inactive", "Event 8 is not active");
    expectRule(() => checkSaleWindow(event({ id: 9, eventDate: NOW - 1 }), NOW), 400, "order_event_inactive", "Event 9 is not active");
  });
});

describe("readTicketCounts", () => {
  it("reads one-entry objects into counts per type id, keeping zeros", () => {
    const counts = readTicketCounts([{ v00001: 2 }, { v00002: 0 }, { v00003: 5 }]);
    expect([...counts]).toEqual([
      ["v00001", 2],
      ["v00002", 0],
      ["v00003", 5],
    ]);
  });

  it("reads an empty list as no counts", () => {
    expect(readTicketCounts([]).size).toBe(0);
  });

  it("refuses a type id named twice, as an invalid tickets parameter", () => {
    const err = expectRule(() => readTicketCounts([{ v00001: 1 }, { v00001: 2 }]), 400, "rest_invalid_param");
    expect(Object.keys(err.params ?? {})).toEqual(["tickets"]);
    expect(err.params!.tickets).toContain("v00001");
  });
});

describe("checkTicketLines", () => {
  it("answers every type in the event's order, ordered or not", () => {
    const [a, b, c] = [ticketType(), ticketType(), ticketType()];
    const lines = checkTicketLines(
      [a!, b!, c!],
      new Map([
        [c!.id, 1],
        [a!.id, 0],
        [b!.id, 3],
      ]),
    );
    expect(lines.map((l) => [l.type.id, l.count])).toEqual([
      [a!.id, 0],
      [b!.id, 3],
      [c!.id, 1],
    ]);
  });

  it("names the first missing type in the event's order", () => {
    const types = [ticketType({ name: "Early bird" }), ticketType({ name: "Regular" }), ticketType({ name: "VIP" })];
    expectRule(() => checkTicketLines(types, new Map([[types[0]!.id, 1]])), 400, "order_missing_ticket_type", "Missing ticket type: Regular");
    expectRule(() => checkTicketLines(types, new Map()), 400, "order_missing_ticket_type", "Missing ticket type: Early bird");
    expectRule(
      () =>
        checkTicketLines(
          types,
          new Map([
            [types[0]!.id, 1],
            [types[1]!.id, 0],
          ]),
        ),
      400,
      "order_missing_ticket_type",
      "Missing ticket type: VIP",
    );
  });

  it("refuses an order of nothing", () => {
    const types = [ticketType(), ticketType()];
    expectRule(() => checkTicketLines(types, new Map(types.map((t) => [t.id, 0]))), 400, "order_no_tickets", "No tickets ordered");
  });

  it("checks missing types before the all-zero rule", () => {
    const types = [ticketType({ name: "A" }), ticketType({ name: "B" })];
    expectRule(() => checkTicketLines(types, new Map([[types[0]!.id, 0]])), 400, "order_missing_ticket_type", "Missing ticket type: B");
  });

  it("applies the minimum only when the count is above 0", () => {
    const min3 = ticketType({ name: "Group", minimumToOrder: 3 });
    const other = ticketType({ name: "Single" });
    expect(() =>
      checkTicketLines(
        [min3, other],
        new Map([
          [min3.id, 0],
          [other.id, 1],
        ]),
      ),
    ).not.toThrow();
    expect(() =>
      checkTicketLines(
        [min3, other],
        new Map([
          [min3.id, 3],
          [other.id, 0],
        ]),
      ),
    ).not.toThrow();
    expectRule(
      () =>
        checkTicketLines(
          [min3, other],
          new Map([
            [min3.id, 2],
            [other.id, 1],
          ]),
        ),
      400,
      "order_wrong_amount",
      "Wrong amount for this ticket type: Group",
    );
  });

  it("applies the maximum, with 0 meaning no maximum", () => {
    const max4 = ticketType({ name: "Limited", maximumToOrder: 4 });
    expect(() => checkTicketLines([max4], new Map([[max4.id, 4]]))).not.toThrow();
    expectRule(() => checkTicketLines([max4], new Map([[max4.id, 5]])), 400, "order_wrong_amount", "Wrong amount for this ticket type: Limited");
    const unlimited = ticketType({ name: "Unlimited", maximumToOrder: 0 });
    expect(checkTicketLines([unlimited], new Map([[unlimited.id, 10_000]]))[0]!.count).toBe(10_000);
  });

  it("names the first type in event order whose count is wrong", () => {
    const a = ticketType({ name: "A", maximumToOrder: 1 });
    const b = ticketType({ name: "B", maximumToOrder: 1 });
    expectRule(
      () =>
        checkTicketLines(
          [a, b],
          new Map([
            [b.id, 2],
            [a.id, 2],
          ]),
        ),
      400,
      "order_wrong_amount",
      "Wrong amount for this ticket type: A",
    );
  });

  it("refuses a type id that is not one of the event's, as an invalid tickets parameter", () => {
    const a = ticketType();
    const err = expectRule(
      () =>
        checkTicketLines(
          [a],
          new Map([
            [a.id, 1],
            ["vfffff", 1],
          ]),
        ),
      400,
      "rest_invalid_param",
    );
    expect(err.params!.tickets).toContain("vfffff");
    // Even with a count of 0, and before a missing type is reported.
    const b = ticketType();
    expectRule(
      () =>
        checkTicketLines(
          [a, b],
          new Map([
            [a.id, 1],
            ["nope", 0],
          ]),
        ),
      400,
      "rest_invalid_param",
    );
  });
});

describe("checkFieldAnswers", () => {
  it("answers every order-level field in the event's order, trimmed, with empty values for unanswered ones", () => {
    const [a, b, c] = [field({ name: "Company" }), field({ name: "Diet" }), field({ name: "Phone" })];
    const got = checkFieldAnswers([a!, b!, c!], answers({ [c!.id]: " 0612 ", [a!.id]: "ACME" }));
    expect(got.map((x) => [x.field.name, x.value])).toEqual([
      ["Company", "ACME"],
      ["Diet", ""],
      ["Phone", "0612"],
    ]);
  });

  it("answers nothing when the event has no fields", () => {
    expect(checkFieldAnswers([], new Map())).toEqual([]);
  });

  describe("required fields", () => {
    it("refuses a required field not sent, empty or blank", () => {
      const req = field({ isRequired: true });
      for (const sent of [answers({}), answers({ [req.id]: "" }), answers({ [req.id]: "   " })]) {
        expectRule(() => checkFieldAnswers([req], sent), 400, "order_required_fields", "Required extra input fields not available");
      }
      expect(checkFieldAnswers([req], answers({ [req.id]: "yes" }))[0]!.value).toBe("yes");
    });

    it("checks every required field before any value", () => {
      const short = field({ max: "2" });
      const req = field({ isRequired: true });
      expectRule(() => checkFieldAnswers([short, req], answers({ [short.id]: "too long" })), 400, "order_required_fields");
    });

    it("lets an optional field with bounds be left empty", () => {
      const bounded = field({ min: "3", max: "5" });
      expect(checkFieldAnswers([bounded], answers({}))[0]!.value).toBe("");
      expect(checkFieldAnswers([bounded], answers({ [bounded.id]: "" }))[0]!.value).toBe("");
    });
  });

  describe("select fields", () => {
    const select = field({ type: "select", value: "Small, Medium,Large" });

    it.each(["Small", "Medium", "Large", " Medium "])("accepts the listed choice %j", (value) => {
      expect(checkFieldAnswers([select], answers({ [select.id]: value }))[0]!.value).toBe(value.trim());
    });

    it.each(["small", "XL", "Small,Medium", "Medium ,Large", "Sma"])("refuses %j, which is not a listed choice", (value) => {
      expectRule(() => checkFieldAnswers([select], answers({ [select.id]: value })), 400, "order_illegal_field_value", "Illegal value extra input field");
    });
  });

  describe("text and password lengths", () => {
    it.each([
      ["text", "ab", false],
      ["text", "abc", true],
      ["text", "abcde", true],
      ["text", "abcdef", false],
      ["password", "ab", false],
      ["password", "abcd", true],
      ["password", "abcdef", false],
    ] as const)("a %s field of 3-5 characters %s %j", (type, value, ok) => {
      const f = field({ type, min: "3", max: "5" });
      const run = () => checkFieldAnswers([f], answers({ [f.id]: value }));
      if (ok) expect(run()[0]!.value).toBe(value);
      else expectRule(run, 400, "order_illegal_field_value", "Illegal value extra input field");
    });

    it("applies min alone and max alone", () => {
      const min = field({ min: "2" });
      expectRule(() => checkFieldAnswers([min], answers({ [min.id]: "a" })), 400, "order_illegal_field_value");
      expect(checkFieldAnswers([min], answers({ [min.id]: "a".repeat(50) }))[0]!.value).toHaveLength(50);
      const max = field({ max: "1" });
      expect(checkFieldAnswers([max], answers({ [max.id]: "a" }))[0]!.value).toBe("a");
      expectRule(() => checkFieldAnswers([max], answers({ [max.id]: "ab" })), 400, "order_illegal_field_value");
    });

    it("measures the trimmed value", () => {
      const f = field({ max: "3" });
      expect(checkFieldAnswers([f], answers({ [f.id]: "  abc  " }))[0]!.value).toBe("abc");
    });
  });

  describe("date fields", () => {
    const date = field({ type: "date", min: "2025-01-01", max: "2025-12-31" });

    it.each(["2025-01-01", "2025-06-15", "2025-12-31"])("accepts %j within the bounds", (value) => {
      expect(checkFieldAnswers([date], answers({ [date.id]: value }))[0]!.value).toBe(value);
    });

    it.each(["2024-12-31", "2026-01-01", "2025-02-30", "2025-13-01", "2025-6-15", "15-06-2025", "2025/06/15", "2025-06-15 10:00", "tomorrow"])("refuses %j", (value) => {
      expectRule(() => checkFieldAnswers([date], answers({ [date.id]: value })), 400, "order_illegal_field_value");
    });

    it("checks only the format without bounds", () => {
      const free = field({ type: "date" });
      expect(checkFieldAnswers([free], answers({ [free.id]: "1999-02-28" }))[0]!.value).toBe("1999-02-28");
      expectRule(() => checkFieldAnswers([free], answers({ [free.id]: "1999-02-29" })), 400, "order_illegal_field_value");
    });
  });

  describe("time fields", () => {
    const time = field({ type: "time", min: "09:00", max: "17:30" });

    it.each(["09:00", "12:15", "17:30"])("accepts %j within the bounds", (value) => {
      expect(checkFieldAnswers([time], answers({ [time.id]: value }))[0]!.value).toBe(value);
    });

    it.each(["08:59", "17:31", "9:00", "24:00", "12:60", "12:00:00", "noon"])("refuses %j", (value) => {
      expectRule(() => checkFieldAnswers([time], answers({ [time.id]: value })), 400, "order_illegal_field_value");
    });

    it("checks only the format without bounds", () => {
      const free = field({ type: "time" });
      expect(checkFieldAnswers([free], answers({ [free.id]: "23:59" }))[0]!.value).toBe("23:59");
      expect(checkFieldAnswers([free], answers({ [free.id]: "00:00" }))[0]!.value).toBe("00:00");
      expectRule(() => checkFieldAnswers([free], answers({ [free.id]: "7pm" })), 400, "order_illegal_field_value");
    });
  });

  it.each(["text", "password"] as const)("refuses a %s value over 50 characters even without a max", (type) => {
    const f = field({ type });
    expect(checkFieldAnswers([f], answers({ [f.id]: "x".repeat(50) }))[0]!.value).toHaveLength(50);
    expectRule(() => checkFieldAnswers([f], answers({ [f.id]: "x".repeat(51) })), 400, "order_illegal_field_value", "Illegal value extra input field");
  });

  it("refuses a value over 50 characters even when max allows more", () => {
    const f = field({ max: "200" });
    expectRule(() => checkFieldAnswers([f], answers({ [f.id]: "x".repeat(51) })), 400, "order_illegal_field_value");
  });

  describe("personalised fields", () => {
    it("never asks them, even when required", () => {
      const personal = field({ name: "Attendee", isPersonalised: true, isRequired: true });
      const company = field({ name: "Company" });
      const got = checkFieldAnswers([personal, company], answers({ [company.id]: "ACME" }));
      expect(got.map((a) => a.field.name)).toEqual(["Company"]);
    });

    it("refuses an order that names one", () => {
      const personal = field({ isPersonalised: true });
      expectRule(() => checkFieldAnswers([personal], answers({ [personal.id]: "Ann" })), 400, "order_illegal_field_value", "Illegal value extra input field");
      // Even with an empty value.
      expectRule(() => checkFieldAnswers([personal], answers({ [personal.id]: "" })), 400, "order_illegal_field_value");
    });
  });

  it("refuses an unknown field id", () => {
    const f = field();
    expectRule(() => checkFieldAnswers([f], answers({ [f.id]: "ok", vnope1: "x" })), 400, "order_illegal_field_value", "Illegal value extra input field");
    expectRule(() => checkFieldAnswers([], answers({ vnope1: "" })), 400, "order_illegal_field_value");
  });
});

describe("checkOrderSize (decisions.md 15)", () => {
  it("takes up to 1000 tickets and refuses more with rest_invalid_param naming tickets", () => {
    expect(MAX_ORDER_TICKETS).toBe(1000);
    for (const n of [1, 999, 1000]) expect(() => checkOrderSize(n)).not.toThrow();
    for (const n of [1001, 10_000 * 500, Number.POSITIVE_INFINITY]) {
      const err = expectRule(() => checkOrderSize(n), 400, "rest_invalid_param", "An order holds at most 1000 tickets");
      expect(err.params).toEqual({ tickets: "An order holds at most 1000 tickets" });
    }
  });
});

describe("waitingDeadline (decisions.md 5.7, 13 'Holds and takes')", () => {
  const placed = { open: false, expiresAt: null, awaitsConfirmation: false, createdAt: 1_800_000_000 };

  it("an open order waits until its payment deadline, in milliseconds", () => {
    expect(waitingDeadline({ ...placed, open: true, expiresAt: 1_800_000_900 }, 30)).toBe(1_800_000_900_000);
  });

  it("a booking awaiting confirmation waits confirmation_timeout minutes from its created_at", () => {
    expect(waitingDeadline({ ...placed, awaitsConfirmation: true }, 30)).toBe((1_800_000_000 + 1800) * 1000);
    expect(waitingDeadline({ ...placed, awaitsConfirmation: true }, 0)).toBeNull();
  });

  it("a final order waits for nothing", () => {
    expect(waitingDeadline(placed, 30)).toBeNull();
  });
});

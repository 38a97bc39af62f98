import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isEmailAddress } from "../../src/domain/email-address";

// The shop page's script checks an address by isEmailAddress; the order by the same function (decisions.md 5.4).
// It must say what zod's z.email() says, which the service used before the rule had a module of its own.
describe("isEmailAddress", () => {
  const samples = [
    "a@b.co",
    "first.last@example.org",
    "o'neil+tag@sub.example.nl",
    "a@b",
    "a@b.c",
    "@example.org",
    "a..b@example.org",
    "a b@example.org",
    "a@example.org ",
    "",
    "a@-x.org",
    "ä@example.org",
    "a@example.123",
  ];
  it("agrees with zod's z.email() on every sample", () => {
    for (const s of samples) expect(isEmailAddress(s), s).toBe(z.email().safeParse(s).success);
  });
  it("accepts a plain address and refuses one without a domain", () => {
    expect(isEmailAddress("buyer@example.org")).toBe(true);
    expect(isEmailAddress("buyer@localhost")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { EmailListError, parseEmailList } from "../../src/domain/email-list-csv";

/** The EmailListError message `text` is refused with (fails the test when it is accepted). */
function refusal(text: string): string {
  try {
    parseEmailList(text);
  } catch (err) {
    expect(err).toBeInstanceOf(EmailListError);
    return (err as Error).message;
  }
  throw new Error(`expected the upload to be refused: ${JSON.stringify(text)}`);
}

describe("parseEmailList: rows", () => {
  it("reads name, email and cap, keeping the address as written and a lowercased key", () => {
    expect(parseEmailList("Ann,Ann.Smith@Example.COM,3\nBob,bob@example.com\n")).toEqual([
      { name: "Ann", email: "Ann.Smith@Example.COM", emailKey: "ann.smith@example.com", maxTickets: 3 },
      { name: "Bob", email: "bob@example.com", emailKey: "bob@example.com", maxTickets: 0 },
    ]);
  });

  it("trims every field", () => {
    expect(parseEmailList("  Ann Smith , ann@example.com ,  4 \n")).toEqual([
      { name: "Ann Smith", email: "ann@example.com", emailKey: "ann@example.com", maxTickets: 4 },
    ]);
    expect(parseEmailList('" Quoted  "," q@example.com "," 2 "\n')[0]).toEqual({
      name: "Quoted",
      email: "q@example.com",
      emailKey: "q@example.com",
      maxTickets: 2,
    });
  });

  it("reads a semicolon file, quoted names, CRLF, blank lines and a BOM", () => {
    const text = '\uFEFFName;Email;Max\r\n\r\n"Doe; Jane";jane@example.com;2\r\nSmith, John;john@example.com;\r\n\r\n';
    expect(parseEmailList(text)).toEqual([
      { name: "Doe; Jane", email: "jane@example.com", emailKey: "jane@example.com", maxTickets: 2 },
      { name: "Smith, John", email: "john@example.com", emailKey: "john@example.com", maxTickets: 0 },
    ]);
  });
});

describe("parseEmailList: header", () => {
  it("treats a first row whose second column has no @ as a header", () => {
    expect(parseEmailList("name,email,max tickets\nAnn,ann@example.com,1\n")).toEqual([
      { name: "Ann", email: "ann@example.com", emailKey: "ann@example.com", maxTickets: 1 },
    ]);
  });

  it("keeps a first row whose second column has an @ as data", () => {
    const entries = parseEmailList("Ann,ann@example.com,1\nBob,bob@example.com,2\n");
    expect(entries.map((e) => e.email)).toEqual(["ann@example.com", "bob@example.com"]);
  });

  it("only looks at the first non-blank row: a later row without @ is an invalid address", () => {
    expect(refusal("Ann,ann@example.com\nname,email\n")).toMatch(/^line 2: "email" is not a valid email address$/);
  });

  it("finds the header after a BOM and leading blank lines, and numbers data lines from the file", () => {
    expect(refusal("\uFEFF\n\nname,email\nAnn,not-an-address\n")).toMatch(/^line 4: /);
  });
});

describe("parseEmailList: caps", () => {
  it.each([
    ["", 0],
    ["0", 0],
    ["1", 1],
    ["12", 12],
    ["007", 7],
    ["999999", 999999],
  ])("reads the cap %j as %i (empty and 0 mean no cap)", (cap, expected) => {
    expect(parseEmailList(`Ann,ann@example.com,${cap}\n`)[0]!.maxTickets).toBe(expected);
  });

  it("reads a missing third column as no cap", () => {
    expect(parseEmailList("Ann,ann@example.com\n")[0]!.maxTickets).toBe(0);
  });

  it.each(["-1", "1.5", "2.0", "abc", "1e3", "+3", "3 4", "0x10"])("refuses the cap %j, naming the line", (cap) => {
    const message = refusal(`Ann,ann@example.com,1\nBob,bob@example.com,${cap}\n`);
    expect(message).toMatch(/^line 2: /);
    expect(message).toContain("whole number");
  });
});

describe("parseEmailList: columns, addresses and names", () => {
  it.each([
    ["one column", "Ann,ann@example.com\nbob@example.com\n", 1],
    ["four columns", "Ann,ann@example.com\nBob,bob@example.com,1,extra\n", 4],
    ["four columns (trailing separator)", "Ann,ann@example.com\nBob,bob@example.com,1,\n", 4],
  ])("refuses %s, naming the line and the count", (_label, text, found) => {
    const message = refusal(text);
    expect(message).toMatch(/^line 2: /);
    expect(message).toContain(`found ${found} column(s)`);
  });

  it.each(["not-an-email", "ann@", "@example.com", "ann example@example.com", "ann@@example.com", ""])("refuses the address %j, naming the line", (address) => {
    const message = refusal(`name,email\nAnn,ann@example.com\n\nBob,${address},1\n`);
    expect(message).toMatch(/^line 4: /);
    expect(message).toContain("is not a valid email address");
  });

  it("refuses an address longer than 100 characters", () => {
    const long = `${"a".repeat(89)}@example.com`;
    expect(long).toHaveLength(101);
    expect(refusal(`Ann,${long}\n`)).toMatch(/^line 1: .*is not a valid email address/);
    const fits = `${"a".repeat(88)}@example.com`;
    expect(parseEmailList(`Ann,${fits}\n`)[0]!.email).toBe(fits);
  });

  it("accepts a name of 100 characters and refuses one of 101 (after trimming)", () => {
    expect(parseEmailList(`${"n".repeat(100)},ann@example.com\n`)[0]!.name).toHaveLength(100);
    expect(parseEmailList(`  ${"n".repeat(100)}  ,ann@example.com\n`)[0]!.name).toHaveLength(100);
    const message = refusal(`Ann,ann@example.com\n${"n".repeat(101)},bob@example.com\n`);
    expect(message).toBe("line 2: the name is longer than 100 characters");
  });

  it("refuses a CSV syntax error, naming the line", () => {
    expect(refusal('Ann,ann@example.com\nBob,"bob@example.com\n')).toBe("line 2: a quoted field is not closed");
    expect(refusal('Ann,ann@example.com\n\n"Bob"x,bob@example.com\n')).toBe("line 3: text follows a closing quote");
    expect(refusal('Ann,ann@example.com\nB"ob,bob@example.com\n')).toBe("line 2: a quote inside an unquoted field");
  });
});

describe("parseEmailList: duplicates", () => {
  it("compares addresses lowercased and names both lines", () => {
    const message = refusal("name,email\nAnn,ann@example.com,1\nBob,bob@example.com\n\nAnnie,ANN@Example.com,2\n");
    expect(message).toBe("line 5: ANN@Example.com is already on line 2");
  });

  it("compares addresses after trimming", () => {
    expect(refusal("Ann,ann@example.com\nAnn,  ann@example.com  \n")).toBe("line 2: ann@example.com is already on line 1");
  });

  it("names the real lines when a quoted field spans lines", () => {
    expect(refusal('"Ann\nSmith",ann@example.com\nBob,Ann@example.com\n')).toBe("line 3: Ann@example.com is already on line 1");
  });
});

describe("parseEmailList: empty uploads", () => {
  it.each([
    ["an empty file", ""],
    ["a file of blank lines", "\n\r\n  \n"],
    ["a BOM alone", "\uFEFF"],
    ["a header-only file", "name,email,cap\n"],
    ["a header-only file with a BOM and CRLF", "\uFEFFName;Email\r\n\r\n"],
  ])("refuses %s", (_label, text) => {
    expect(refusal(text)).toMatch(/no addresses/);
  });
});

describe("parseEmailList: size", () => {
  it("reads 100,000 rows", () => {
    const text = ["name,email,cap", ...Array.from({ length: 100_000 }, (_, i) => `P${i},p${i}@example.com,${i % 3}`)].join("\n");
    const entries = parseEmailList(text);
    expect(entries).toHaveLength(100_000);
    expect(entries[12_345]).toEqual({ name: "P12345", email: "p12345@example.com", emailKey: "p12345@example.com", maxTickets: 0 });
  });

  it("names the line of a bad row deep in a large file", () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => `P${i},p${i}@example.com`);
    rows[41_999] = "P41999,broken";
    expect(refusal(rows.join("\n"))).toBe('line 42000: "broken" is not a valid email address');
  });
});

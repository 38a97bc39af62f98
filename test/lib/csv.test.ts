import { describe, expect, it } from "vitest";
import { CsvSyntaxError, csvMoney, csvRow, detectSeparator, parseCsv } from "../../src/lib/csv";

/** The CsvSyntaxError `fn` throws (fails the test when it throws nothing or something else). */
function syntaxError(fn: () => unknown): CsvSyntaxError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CsvSyntaxError);
    return err as CsvSyntaxError;
  }
  throw new Error("expected a CsvSyntaxError, nothing was thrown");
}

describe("detectSeparator", () => {
  it("picks a comma for a comma file and a semicolon for a semicolon file", () => {
    expect(detectSeparator("name,email,cap\nAnn,ann@example.com,2\n")).toBe(",");
    expect(detectSeparator("name;email;cap\nAnn;ann@example.com;2\n")).toBe(";");
  });

  it("counts only the first line", () => {
    expect(detectSeparator("a;b;c\nx,y,z,w,v,u\n")).toBe(";");
    expect(detectSeparator("a,b\r\nx;y;z;w\r\n")).toBe(",");
  });

  it("ignores separators inside quotes, including quoted line breaks", () => {
    expect(detectSeparator('"Doe, Jane; Sr, Jr";jane@example.com;3\n')).toBe(";");
    expect(detectSeparator('"a;b;c;d\n;;;;",x,y\n')).toBe(",");
  });

  it("falls back to a comma when the counts tie or there are none", () => {
    expect(detectSeparator("a,b;c\n")).toBe(",");
    expect(detectSeparator("single\n")).toBe(",");
    expect(detectSeparator("")).toBe(",");
  });
});

describe("parseCsv", () => {
  it("parses a comma file with the starting line of each row", () => {
    expect(parseCsv("name,email,cap\nAnn,ann@example.com,2\nBob,bob@example.com,\n")).toEqual([
      { line: 1, fields: ["name", "email", "cap"] },
      { line: 2, fields: ["Ann", "ann@example.com", "2"] },
      { line: 3, fields: ["Bob", "bob@example.com", ""] },
    ]);
  });

  it("detects and parses a semicolon file (commas are then plain text)", () => {
    expect(parseCsv("name;email\nDoe, Jane;jane@example.com\n")).toEqual([
      { line: 1, fields: ["name", "email"] },
      { line: 2, fields: ["Doe, Jane", "jane@example.com"] },
    ]);
  });

  it("uses the separator it is given instead of detecting one", () => {
    expect(parseCsv("a;b,c\n", ",")).toEqual([{ line: 1, fields: ["a;b", "c"] }]);
    expect(parseCsv("a,b;c\n", ";")).toEqual([{ line: 1, fields: ["a,b", "c"] }]);
  });

  it("keeps separators inside quoted fields", () => {
    expect(parseCsv('"Doe, Jane",jane@example.com,"1"\n')).toEqual([{ line: 1, fields: ["Doe, Jane", "jane@example.com", "1"] }]);
    expect(parseCsv('"Doe; Jane";jane@example.com\n')).toEqual([{ line: 1, fields: ["Doe; Jane", "jane@example.com"] }]);
  });

  it("turns doubled quotes into one quote", () => {
    expect(parseCsv('"Jane ""JJ"" Doe",jane@example.com\n""""\n')).toEqual([
      { line: 1, fields: ['Jane "JJ" Doe', "jane@example.com"] },
      { line: 2, fields: ['"'] },
    ]);
  });

  it("keeps line breaks inside quoted fields and numbers later rows by their real line", () => {
    const text = 'a,b\n"two\nlines",x\n"three\r\nline\nfield",y\nlast,z\n';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["two\nlines", "x"] },
      { line: 4, fields: ["three\r\nline\nfield", "y"] },
      { line: 7, fields: ["last", "z"] },
    ]);
  });

  it("reads CRLF and LF line ends alike, with or without a final line end", () => {
    const expected = [
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["c", "d"] },
    ];
    expect(parseCsv("a,b\r\nc,d\r\n")).toEqual(expected);
    expect(parseCsv("a,b\nc,d\n")).toEqual(expected);
    expect(parseCsv("a,b\r\nc,d")).toEqual(expected);
    expect(parseCsv("a,b\nc,d\r\n")).toEqual(expected);
    expect(parseCsv('"a",b\r\n"c","d"')).toEqual(expected);
  });

  it("skips blank and whitespace-only lines but still counts them", () => {
    expect(parseCsv("\na,b\n\n   \r\n\r\nc,d\n\n")).toEqual([
      { line: 2, fields: ["a", "b"] },
      { line: 6, fields: ["c", "d"] },
    ]);
    expect(parseCsv("")).toEqual([]);
    expect(parseCsv("\n\r\n\n")).toEqual([]);
  });

  it("skips a leading UTF-8 BOM (and only a leading one)", () => {
    expect(parseCsv("\uFEFFname,email\nAnn,ann@example.com\n")).toEqual([
      { line: 1, fields: ["name", "email"] },
      { line: 2, fields: ["Ann", "ann@example.com"] },
    ]);
    expect(parseCsv('\uFEFF"quoted",x\n')).toEqual([{ line: 1, fields: ["quoted", "x"] }]);
    expect(parseCsv("\uFEFFa;b;c\n")).toEqual([{ line: 1, fields: ["a", "b", "c"] }]);
  });

  it("keeps empty fields, including a trailing one, and does not trim", () => {
    expect(parseCsv(",,\n a , b ,\n")).toEqual([
      { line: 1, fields: ["", "", ""] },
      { line: 2, fields: [" a ", " b ", ""] },
    ]);
  });

  it("refuses an unclosed quote, naming the line where the field starts", () => {
    const first = syntaxError(() => parseCsv('"never closed,x\n'));
    expect(first.line).toBe(1);
    expect(first.message).toMatch(/not closed/);
    const later = syntaxError(() => parseCsv('a,b\nc,d\n\ne,"open\nstill open\n'));
    expect(later.line).toBe(4);
    expect(later.message).toMatch(/not closed/);
  });

  it("refuses text after a closing quote, naming the line where the quote closes", () => {
    const simple = syntaxError(() => parseCsv('a,b\n"Jane"x,jane@example.com\n'));
    expect(simple.line).toBe(2);
    expect(simple.message).toMatch(/closing quote/);
    const multiLine = syntaxError(() => parseCsv('a,b\n"two\nlines" ,x\n'));
    expect(multiLine.line).toBe(3);
    expect(multiLine.message).toMatch(/closing quote/);
  });

  it("refuses a quote inside an unquoted field, naming its line", () => {
    const err = syntaxError(() => parseCsv('a,b\nc,d\nJa"ne,jane@example.com\n'));
    expect(err.line).toBe(3);
    expect(err.message).toMatch(/quote inside an unquoted field/);
    const afterQuotedBreak = syntaxError(() => parseCsv('"x\ny",z\nok,fine\nbad,va"lue\n'));
    expect(afterQuotedBreak.line).toBe(4);
  });

  it("parses 100,000 rows with the right line numbers", () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `Person ${i},p${i}@example.com,${i % 5}`).join("\r\n");
    const rows = parseCsv(text);
    expect(rows).toHaveLength(100_000);
    expect(rows[99_999]).toEqual({ line: 100_000, fields: ["Person 99999", "p99999@example.com", "4"] });
  });
});

describe("csvRow (the exports' writer, decisions.md 15 'The organiser console')", () => {
  it("ends with CRLF; quotes a cell holding a quote, comma or line break, doubling quotes", () => {
    expect(csvRow(["a", "b c", ""])).toBe("a,b c,\r\n");
    expect(csvRow(['say "hi"', "a,b", "two\nlines", "cr\rhere"])).toBe('"say ""hi""","a,b","two\nlines","cr\rhere"\r\n');
  });

  it("puts a ' before text starting with =, +, -, @, tab or CR, and only at the start", () => {
    expect(csvRow(["=1+1", "+31 20", "-x", "@SUM(A1)", "\tTab", "\rCR", "a=b", " =x"])).toBe("'=1+1,'+31 20,'-x,'@SUM(A1),'\tTab,\"'\rCR\",a=b, =x\r\n");
    expect(csvRow(['=HYPERLINK("x")'])).toBe('"\'=HYPERLINK(""x"")"\r\n');
  });

  it("writes numbers and money plainly with a dot, never prefixed, even when negative", () => {
    expect(csvRow([0, 42, -3, csvMoney(1250), csvMoney(5), csvMoney(0), csvMoney(-250)])).toBe("0,42,-3,12.50,0.05,0.00,-2.50\r\n");
  });

  it("reads back as it was written (after the prefix)", () => {
    const cells = ['Ann "A", Smith', "line\r\nbreak", "plain"];
    expect(parseCsv(csvRow(cells))[0]!.fields).toEqual(cells);
  });
});

import { describe, expect, it } from "vitest";
import { splitHtml } from "../../src/lib/html-parts";

/**
 * The cut between text and markup that email keywords rely on (decisions.md 14): what a browser reads as a tag,
 * an attribute, a comment or raw text is markup; only what it shows as text is text.
 */

/** The parts as `T:` text and `M:` markup, to compare whole cuts at a glance. */
const cut = (html: string) => splitHtml(html).map((p) => `${p.text ? "T" : "M"}:${p.source}`);

describe("splitHtml", () => {
  it("cuts tags from text, reading quoted values (a > inside one ends nothing) and unquoted ones", () => {
    expect(cut(`a<p title="x>y" class='b>c' id=z>b</p>c`)).toEqual(["T:a", `M:<p title="x>y" class='b>c' id=z>`, "T:b", "M:</p>", "T:c"]);
    expect(cut(`<a href = "u" / data-x="1"/>t`)).toEqual([`M:<a href = "u" / data-x="1"/>`, "T:t"]);
    expect(cut(`<a x"="y>z">t`)).toEqual([`M:<a x"="y>z">`, "T:t"]);
  });

  it("reads a < before anything but a letter, /, ! or ? as text", () => {
    expect(cut("1 < 2 <{%NAME%}> <3")).toEqual(["T:1 < 2 <{%NAME%}> <3"]);
  });

  it("reads comments, doctypes, processing instructions and bogus comments as markup, ending where browsers do", () => {
    expect(cut("<!-- a > b -->t")).toEqual(["M:<!-- a > b -->", "T:t"]);
    expect(cut("<!-->t<!--->u<!-- x --!>v")).toEqual(["M:<!-->", "T:t", "M:<!--->", "T:u", "M:<!-- x --!>", "T:v"]);
    expect(cut("<!DOCTYPE html><?xml x?></>t</ x>u")).toEqual(["M:<!DOCTYPE html>", "M:<?xml x?>", "M:</>", "T:t", "M:</ x>", "T:u"]);
  });

  it("keeps the content of raw-text elements as markup up to their own end tag, and <title> content as text", () => {
    expect(cut("<style>p{}</p><b></STYLE >t")).toEqual(["M:<style>", "M:p{}</p><b>", "M:</STYLE >", "T:t"]);
    expect(cut("<title><b>x</b></title>")).toEqual(["M:<title>", "T:<b>x</b>", "M:</title>"]);
    expect(cut("<plaintext>a</plaintext>b")).toEqual(["M:<plaintext>", "M:a</plaintext>b"]);
  });

  it("reads what is left open at the end as markup", () => {
    expect(cut(`t<a href="x`)).toEqual(["T:t", `M:<a href="x`]);
    expect(cut("t<!-- open")).toEqual(["T:t", "M:<!-- open"]);
    expect(cut("<style>p{")).toEqual(["M:<style>", "M:p{"]);
  });
});

import { describe, expect, it } from "vitest";
import { hasControlCharacter } from "../../src/lib/control-characters";

/** The control characters names and emails may not hold (decisions.md 14): exactly U+0000-U+001F and U+007F. */
describe("hasControlCharacter", () => {
  it("finds every character of U+0000-U+001F and U+007F, anywhere in the text", () => {
    for (let code = 0; code <= 0x1f; code++) expect(hasControlCharacter(`a${String.fromCharCode(code)}b`), `U+${code.toString(16)}`).toBe(true);
    expect(hasControlCharacter("\u007f")).toBe(true);
    expect(hasControlCharacter("Ann\r\nBcc: evil@x.com")).toBe(true);
  });

  it("lets everything else through: space, U+0080 and above, letters of any script, emoji", () => {
    for (const text of ["", " ", "Ann Smith", "\u0080\u009f", "Łukasz Żółć", "山田 太郎", "🎟", "a@b.example"]) {
      expect(hasControlCharacter(text), JSON.stringify(text)).toBe(false);
    }
  });
});

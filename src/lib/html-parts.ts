/**
 * A template cut where a browser's tokenizer would cut it: text, and markup (tags with their attributes, comments,
 * doctypes, and the content of raw-text elements such as <style>). Whoever fills values into a template needs the
 * difference: an escaped value in text stays text, while in markup it may become a URL, a style or an attribute.
 *
 * It follows the states of the HTML standard's tokenizer that decide the cut: a `<` starts markup only before a
 * letter, `/`, `!` or `?`; quoted attribute values hide `>`; raw-text elements end only at their own end tag. Where
 * it could disagree with a browser it reads markup, which its callers treat as the stricter place. Email bodies are
 * purified before they get here, so the elements whose parsing depends on scripting (noscript) never reach it.
 */

export interface HtmlPart {
  /** True for character data a browser shows as text (also the content of <title> and <textarea>). */
  text: boolean;
  source: string;
}

/** Elements whose content is not markup: raw text (markup for us) or escapable text (text for us). */
const RAW_TEXT = new Set(["style", "script", "xmp", "iframe", "noembed", "noframes", "noscript"]);
const ESCAPABLE_TEXT = new Set(["title", "textarea"]);

const SPACE = /[\t\n\f\r ]/;
const LETTER = /[A-Za-z]/;

export function splitHtml(html: string): HtmlPart[] {
  const parts: HtmlPart[] = [];
  const push = (text: boolean, from: number, to: number) => {
    if (to > from) parts.push({ text, source: html.slice(from, to) });
  };
  let textStart = 0;
  let i = html.indexOf("<");
  while (i !== -1) {
    const markup = markupAt(html, i);
    if (markup === null) {
      i = html.indexOf("<", i + 1);
      continue;
    }
    push(true, textStart, i);
    push(false, i, markup.end);
    textStart = markup.end;
    if (markup.startTag === "plaintext") {
      push(false, textStart, html.length);
      return parts;
    }
    if (markup.startTag !== null && (RAW_TEXT.has(markup.startTag) || ESCAPABLE_TEXT.has(markup.startTag))) {
      const close = endTagOf(html, markup.startTag, textStart);
      push(ESCAPABLE_TEXT.has(markup.startTag), textStart, close);
      textStart = close;
    }
    i = html.indexOf("<", textStart);
  }
  push(true, textStart, html.length);
  return parts;
}

/** The markup starting at the `<` at `at`, or null when that `<` is text. */
function markupAt(html: string, at: number): { end: number; startTag: string | null } | null {
  const next = html[at + 1] ?? "";
  if (html.startsWith("<!--", at)) return { end: commentEnd(html, at + 4), startTag: null };
  if (next === "!" || next === "?") return { end: afterGt(html, at + 2), startTag: null };
  if (next === "/") {
    const first = html[at + 2] ?? "";
    if (LETTER.test(first)) return { end: tagEnd(html, at + 2).end, startTag: null };
    // `</>` is dropped, `</` before anything else opens a bogus comment: markup either way.
    return { end: first === ">" ? at + 3 : afterGt(html, at + 2), startTag: null };
  }
  if (!LETTER.test(next)) return null;
  const tag = tagEnd(html, at + 1);
  return { end: tag.end, startTag: tag.name };
}

function afterGt(html: string, from: number): number {
  const gt = html.indexOf(">", from);
  return gt === -1 ? html.length : gt + 1;
}

/** `from` is just after `<!--`; `<!-->` and `<!--->` close at once, as browsers do. */
function commentEnd(html: string, from: number): number {
  if (html[from] === ">") return from + 1;
  if (html.startsWith("->", from)) return from + 2;
  const ends = [html.indexOf("-->", from), html.indexOf("--!>", from)].filter((e) => e !== -1);
  if (ends.length === 0) return html.length;
  const end = Math.min(...ends);
  return end + (html.startsWith("-->", end) ? 3 : 4);
}

/** A tag from its name at `from` to just after its `>`, reading attribute values as the tokenizer does. */
function tagEnd(html: string, from: number): { end: number; name: string } {
  const n = html.length;
  let j = from;
  while (j < n && !SPACE.test(html[j]!) && html[j] !== "/" && html[j] !== ">") j++;
  const name = html.slice(from, j).toLowerCase();
  const skipSpace = () => {
    while (j < n && SPACE.test(html[j]!)) j++;
  };
  for (;;) {
    while (j < n && (SPACE.test(html[j]!) || html[j] === "/")) j++;
    if (j >= n) return { end: n, name };
    if (html[j] === ">") return { end: j + 1, name };
    // An attribute name; its first character may be `=`.
    j++;
    while (j < n && !SPACE.test(html[j]!) && html[j] !== "/" && html[j] !== ">" && html[j] !== "=") j++;
    skipSpace();
    if (html[j] !== "=") continue;
    j++;
    skipSpace();
    const quote = html[j];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, j + 1);
      j = close === -1 ? n : close + 1;
    } else {
      while (j < n && !SPACE.test(html[j]!) && html[j] !== ">") j++;
    }
  }
}

/** Where the content of a raw-text or escapable-text element ends: at `</name` followed by space, `/` or `>`. */
function endTagOf(html: string, name: string, from: number): number {
  const endTag = new RegExp(`</${name}(?=[\\t\\n\\f\\r />]|$)`, "gi");
  endTag.lastIndex = from;
  return endTag.exec(html)?.index ?? html.length;
}

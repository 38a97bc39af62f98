/**
 * HTML sanitizing on the Workers runtime's built-in HTMLRewriter (lol-html, a streaming tokenizer).
 *
 * lol-html has no tree builder, so four of its traits shape what follows:
 * - It only ever tells us about start tags, matched end tags, text, comments and doctypes. Stray end tags and
 *   doctypes cannot be removed in place, so purifyTerms builds its own output from those events instead of
 *   keeping the rewritten stream.
 * - Removing a tag can join the text around it into new markup (`<<x></x>script>` becomes `<script>`). Every
 *   `<` in text is therefore written as `&lt;` (it reads the same in data and RCDATA text).
 * - Its idea of where foreign content (SVG, MathML) starts and ends can differ from a browser's. Both functions
 *   drop <svg>, <math> and any element lol-html places outside the HTML namespace, and purifyEmailHtml keeps a
 *   <style> text only when it holds no `<`, so what a browser reads as markup is what was checked here.
 * - A tag left open at the end of the input produces no event and is passed through as it was (see
 *   purifyEmailHtml for the end marker that closes it; purifyTerms never writes it).
 * Where lol-html refuses a document as ambiguous (`<select><style>`...) the result is the input as inert text.
 */

const HTML_NS = "http://www.w3.org/1999/xhtml";

/** Elements kept by purifyTerms. */
const TERMS_KEEP = new Set(["a", "b", "i", "u"]);
/** Elements purifyTerms removes with everything inside them. */
const TERMS_DROP = new Set(["script", "style", "iframe", "object", "embed", "template", "noscript", "svg", "math"]);

/**
 * Elements purifyEmailHtml removes with everything inside them: the listed ones, plus foreign content and the
 * raw-text elements whose content browsers may parse as markup where lol-html reads text (noscript without
 * scripting, noembed, noframes, xmp, plaintext).
 */
const EMAIL_DROP = new Set([
  "script",
  "iframe",
  "object",
  "embed",
  "form",
  "base",
  "meta",
  "link",
  "frame",
  "frameset",
  "applet",
  "svg",
  "math",
  "noscript",
  "noembed",
  "noframes",
  "xmp",
  "plaintext",
]);

/** Attributes holding a URL that a browser may load or navigate to. */
const URL_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "xlink:href", "background", "poster", "dynsrc", "lowsrc", "codebase", "data", "cite", "longdesc"]);

/** The named references that can spell URL or CSS syntax; anything else is refused where it matters. */
const NAMED_REFERENCES: Record<string, string> = {
  Tab: "\t",
  NewLine: "\n",
  nbsp: "\u00a0",
  excl: "!",
  quot: '"',
  QUOT: '"',
  num: "#",
  dollar: "$",
  percnt: "%",
  amp: "&",
  AMP: "&",
  apos: "'",
  lpar: "(",
  rpar: ")",
  ast: "*",
  midast: "*",
  plus: "+",
  comma: ",",
  period: ".",
  sol: "/",
  colon: ":",
  semi: ";",
  lt: "<",
  LT: "<",
  equals: "=",
  gt: ">",
  GT: ">",
  quest: "?",
  commat: "@",
  lsqb: "[",
  lbrack: "[",
  bsol: "\\",
  rsqb: "]",
  rbrack: "]",
  Hat: "^",
  lowbar: "_",
  UnderBar: "_",
  grave: "`",
  DiacriticalGrave: "`",
  lcub: "{",
  lbrace: "{",
  verbar: "|",
  vert: "|",
  VerticalLine: "|",
  rcub: "}",
  rbrace: "}",
};

const REFERENCE = /&(?:#[xX]([0-9a-fA-F]+);?|#([0-9]+);?|([A-Za-z][A-Za-z0-9]*);)/g;

/** Character references decoded once, as a browser does in an attribute value; only for checks, never output. */
function decodeReferences(value: string): string {
  return value.replace(REFERENCE, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED_REFERENCES[name] ?? whole;
    const code = hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? "", 10);
    if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
    return String.fromCodePoint(code);
  });
}

/** Whitespace and control characters, which browsers trim from URLs or skip inside them. */
const INVISIBLE = /[\s\u0000-\u001f\u007f-\u009f\u200b-\u200d\u2060\ufeff]/g;

/** Whether a URL attribute value would run code: javascript:, vbscript:, or data: other than data:image/. */
function isDangerousUrl(raw: string): boolean {
  const url = decodeReferences(raw).replace(INVISIBLE, "").toLowerCase();
  if (url.startsWith("javascript:") || url.startsWith("vbscript:")) return true;
  if (url.startsWith("data:") && !url.startsWith("data:image/")) return true;
  // A scheme still holding a reference after decoding is obfuscated in a way not understood here.
  const scheme = /^([^:/?#]*):/.exec(url);
  return scheme !== null && scheme[1]!.includes("&");
}

/** CSS escapes (`\6a`, `\j`) decoded, escaped newlines dropped. */
function decodeCssEscapes(css: string): string {
  return css.replace(/\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|(\r\n|[\n\r\f])|([\s\S]))/g, (_, hex, newline, char) => {
    if (hex !== undefined) {
      const code = parseInt(hex, 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? "\ufffd" : String.fromCodePoint(code);
    }
    if (newline !== undefined) return "";
    return char ?? "";
  });
}

/** Whether CSS could run code: expression(), url(javascript:...), vbscript:, -moz-binding, behavior. */
function isDangerousCss(css: string): boolean {
  const text = decodeCssEscapes(decodeReferences(css).replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ""))
    .replace(INVISIBLE, "")
    .toLowerCase();
  return ["expression(", "javascript:", "vbscript:", "-moz-binding", "behavior:", "behaviour:"].some((bad) => text.includes(bad));
}

/** Text that cannot be read as markup: every `<` becomes `&lt;`, entities are left as they are. */
function inertLt(text: string): string {
  return text.replaceAll("<", "&lt;");
}

/** The whole input as text, for what lol-html refuses to parse. */
function inertAll(html: string): string {
  return html.replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Registers an end-tag handler; false when the element has none (void or self-closing foreign element). */
function onEnd(el: Element, handler: () => void): boolean {
  try {
    el.onEndTag(handler);
    return true;
  } catch {
    return false;
  }
}

/** An href kept on a terms link: trimmed, literally absolute http(s) or mailto, no whitespace or controls. */
function safeTermsHref(raw: string): string | null {
  const href = raw.trim();
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(href)) return null;
  if (!/^(?:https?:\/\/[^/?#]|mailto:[^/?#])/i.test(href)) return null;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol === "mailto:") return href;
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "" ? href : null;
}

/**
 * Event terms shown next to a checkbox: only <a>, <b>, <i>, <u> are kept. Every other element is removed but its
 * text content kept, except <script>, <style>, <iframe>, <object>, <embed>, <template>, <noscript>, <svg>, <math>,
 * which go with all their content. Kept elements lose every attribute except `href` on <a>, and an href is kept only
 * when it is an absolute http: or https: URL or a mailto: address (after trimming; anything else, e.g.
 * javascript:, data:, vbscript:, relative, or obfuscated with entities/whitespace/control characters, is dropped).
 * Comments are removed. Text stays as it was (entities untouched).
 *
 * The result is rebuilt from the parsed document: kept tags are written as `<b>` or `<a href="...">`, every kept
 * element is closed (stray end tags and doctypes are dropped), and a `<` in text is written `&lt;`.
 */
export async function purifyTerms(html: string): Promise<string> {
  const out: string[] = [];
  /** Open kept elements, innermost last, to close the ones left open. */
  const open: { name: string; closed: boolean }[] = [];
  /** Elements being dropped with their content that enclose the current position. */
  let dropping = 0;

  const rewriter = new HTMLRewriter()
    .on("*", {
      element(el) {
        if (dropping > 0) return;
        const name = el.tagName;
        if (TERMS_DROP.has(name) || el.namespaceURI !== HTML_NS) {
          if (onEnd(el, () => void dropping--)) dropping++;
          return;
        }
        if (!TERMS_KEEP.has(name)) return;
        const href = name === "a" ? el.getAttribute("href") : null;
        const safe = href === null ? null : safeTermsHref(href);
        out.push(safe === null ? `<${name}>` : `<a href="${safe.replaceAll('"', "&quot;")}">`);
        const entry = { name, closed: false };
        open.push(entry);
        onEnd(el, () => {
          entry.closed = true;
          out.push(`</${name}>`);
        });
      },
    })
    .onDocument({
      text(text) {
        if (dropping === 0 && text.text !== "") out.push(inertLt(text.text));
      },
    });

  try {
    await rewriter.transform(new Response(html)).arrayBuffer();
  } catch {
    return inertAll(html);
  }
  for (const entry of open.reverse()) {
    if (!entry.closed) out.push(`</${entry.name}>`);
  }
  return out.join("");
}

/**
 * Email bodies written by administrators: keeps ordinary formatting HTML but removes what can run code:
 * <script>, <iframe>, <object>, <embed>, <form>, <base>, <meta>, <link>, <frame>, <frameset>, <applet> with their
 * content (<style> stays: emails need it); every `on*` event-handler attribute;
 * `href`/`src`/`action`/`formaction`/`xlink:href`/`background` attributes whose value (trimmed, case-insensitive,
 * ignoring embedded whitespace and control characters) starts with `javascript:`, `vbscript:` or `data:` other than
 * `data:image/`; `style` attributes containing `expression(` or `url(javascript:`; comments. Everything else
 * (tables, inline styles, images with https src, links, `{%KEYWORD%}` placeholders, URL-escaped `%7B%25NAME%25%7D`
 * inside href) is kept byte for byte.
 *
 * For safety, beyond that list: <svg>, <math>, <noscript>, <noembed>, <noframes>, <xmp> and <plaintext> go with
 * their content too; the URL check also covers poster, dynsrc, lowsrc, codebase, data, cite and longdesc, and
 * decodes character references (`jav&#x09;ascript:`); `srcdoc` attributes go; style attributes and <style> texts
 * are read with CSS comments and escapes undone, and also lose javascript:/vbscript:/-moz-binding/behavior. A
 * <style> text loses its `<!--`/`-->` wrappers and is emptied if it still holds a `<`, and a `<` in other text is
 * written `&lt;` (it reads the same).
 */
export async function purifyEmailHtml(html: string): Promise<string> {
  // lol-html passes a tag left open at the end (`ok <img src=x onerror=alert(1)//`) through untouched, where a
  // browser drops it, and it would come alive once the body is followed by more markup. A comment closing every
  // tag state is appended: an element that swallowed it is the unfinished one and is removed; as a comment or at
  // the end of a text it is taken out again; in a doctype or an end tag it is replaced by `"'>`.
  const nonce = `purify-${crypto.randomUUID()}`;
  const sentinel = `<!--${nonce}"'-->`;
  /** Whether the text being read is inside a kept <style>. */
  let inStyle = false;
  /** Chunks of the text node being read, kept back until its last chunk. */
  let pending = "";

  const rewriter = new HTMLRewriter()
    .on("*", {
      element(el) {
        const name = el.tagName;
        const attributes = [...el.attributes];
        if (
          EMAIL_DROP.has(name) ||
          el.namespaceURI !== HTML_NS ||
          name.includes(nonce) ||
          attributes.some(([attribute, value]) => attribute?.includes(nonce) || value?.includes(nonce))
        ) {
          el.remove();
          return;
        }
        for (const [attribute, value] of attributes) {
          if (attribute === undefined || value === undefined) continue;
          if (
            attribute.startsWith("on") ||
            attribute === "srcdoc" ||
            (URL_ATTRIBUTES.has(attribute) && isDangerousUrl(value)) ||
            (attribute === "style" && isDangerousCss(value))
          ) {
            el.removeAttribute(attribute);
          }
        }
        if (name === "style") {
          inStyle = true;
          onEnd(el, () => {
            inStyle = false;
          });
        }
      },
    })
    .onDocument({
      comments(comment) {
        comment.remove();
      },
      text(text) {
        pending += text.text;
        if (!text.lastInTextNode) {
          text.remove();
          return;
        }
        let content = pending;
        pending = "";
        if (content.endsWith(sentinel)) content = content.slice(0, -sentinel.length);
        if (inStyle) {
          content = content.replaceAll("<!--", "").replaceAll("-->", "");
          if (content.includes("<") || isDangerousCss(content)) content = "";
        } else {
          content = inertLt(content);
        }
        text.replace(content, { html: true });
      },
    });

  let out: string;
  try {
    out = await rewriter.transform(new Response(html + sentinel)).text();
  } catch {
    return inertAll(html);
  }
  out = out.replace(sentinel, `"'>`);
  return out.includes(nonce) ? inertAll(html) : out;
}

/** Text for an HTML text node or quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
}

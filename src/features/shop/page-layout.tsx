import type { Child } from "hono/jsx";
import type { Context } from "hono";
import { raw } from "hono/html";
import { API_BASE } from "../../config";
import { depsOf } from "../../http/deps";
import { LANGUAGES, type Lang, messagesFor } from "../../domain/messages";
import { ShopScriptMessages } from "./script-messages";

/** Where the shop's static files are served (scripts/build-door-app.mjs builds them from src/shop-app). */
const SHOP_ASSETS = `${API_BASE}/shop/assets`;

/** Which page the one shop script is on: it reads `<body data-page>` and runs that page's part. */
type ShopPageKind = "shop" | "order";

interface LayoutProps {
  lang: Lang;
  page: ShopPageKind;
  title: string;
  /** The page's own address without `lang`, for the language links. */
  path: string;
  head?: Child;
  /** Seconds after which the page's script looks again (order page, while something is pending); none: never. */
  refresh?: number;
  children?: Child;
}

/**
 * The frame every box-office page shares (decisions.md 15 "The box office"): `<html lang>` naming the page's
 * language, the stylesheet and the one script from the service's own assets (never inline: the pages' CSP allows
 * scripts from 'self' only), and links to the same page in each language.
 */
export function ShopLayout({ lang, page, title, path, head, refresh, children }: LayoutProps) {
  const words = messagesFor(lang);
  return (
    <>
      {raw("<!doctype html>")}
      <html lang={lang}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{title}</title>
          <link rel="stylesheet" href={`${SHOP_ASSETS}/shop.css`} />
          <script type="module" src={`${SHOP_ASSETS}/shop.js`} />
          {page === "shop" ? <ShopScriptMessages lang={lang} /> : null}
          {head}
        </head>
        <body data-page={page}>
          <main id="main" data-refresh={refresh}>
            {children}
          </main>
          <footer>
            <nav aria-label={words.common.languageName}>
              <ul class="languages">
                {LANGUAGES.map((l) => (
                  <li>
                    <a href={`${path}?lang=${l}`} hreflang={l} lang={l} aria-current={l === lang ? "page" : undefined}>
                      {messagesFor(l).common.languageName}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          </footer>
        </body>
      </html>
    </>
  );
}

/** Where reCAPTCHA v2's script and frame come from. */
const RECAPTCHA_SOURCES = ["https://www.google.com/recaptcha/", "https://www.gstatic.com/recaptcha/"];

/**
 * The headers of every box-office page: scripts from 'self' only, framed only by the service itself and the
 * organiser's `CORS_ORIGINS` (decisions.md 15 "Embedding"), and never sniffed.
 */
export function setShopHeaders(c: Context, options: { recaptcha?: boolean } = {}): void {
  const ancestors = ["'self'", ...depsOf(c).config.corsOrigins].join(" ");
  // A page showing reCAPTCHA loads Google's widget script and its frame (docs/ordering.md "How the shop page orders").
  const recaptcha = options.recaptcha ? RECAPTCHA_SOURCES : [];
  const csp = [
    "default-src 'self'",
    ["script-src 'self'", ...recaptcha].join(" "),
    ...(options.recaptcha ? [`frame-src ${RECAPTCHA_SOURCES.join(" ")}`] : []),
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `frame-ancestors ${ancestors}`,
  ].join("; ");
  c.header("Content-Security-Policy", csp);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "strict-origin-when-cross-origin");
}

import { useEffect, useState } from "hono/jsx/dom";
import { signOut, whenSignedOut } from "./api";
import { format, initialLanguage, LANGUAGES, LangContext, type Lang, rememberLanguage, useLang, useText } from "./i18n";
import { commonText } from "./messages/common";
import { href, matchRoute, usePath } from "./router";
import { menu, routes } from "./routes";
import { SignIn } from "./screens/sign-in";
import { isAdministrator, type Session, storedSession, storeSession } from "./session";
import { Heading } from "./ui/page";
import { StatusRegion } from "./ui/status";

const LANGUAGE_NAMES: Record<Lang, string> = { en: "English", nl: "Nederlands", de: "Deutsch", fr: "Français", es: "Español" };

/** The console: the sign-in form, or the menu and the screen the fragment names. */
export function App() {
  const [lang, setLang] = useState<Lang>(initialLanguage());
  const [session, setSession] = useState<Session | null>(storedSession());
  const [notice, setNotice] = useState<"signedOut" | "sessionEnded" | undefined>(undefined);

  useEffect(() => rememberLanguage(lang), [lang]);
  useEffect(() => {
    whenSignedOut(() => {
      storeSession(null);
      setSession(null);
      setNotice("sessionEnded");
    });
    // Another tab signed in (as someone else, maybe) or out: every tab follows (session.ts).
    const followOtherTabs = () => setSession(storedSession());
    addEventListener("storage", followOtherTabs);
    return () => removeEventListener("storage", followOtherTabs);
  }, []);

  const signedIn = (next: Session) => {
    storeSession(next);
    setNotice(undefined);
    setSession(next);
  };
  const leave = async () => {
    await signOut().catch(() => undefined);
    storeSession(null);
    setSession(null);
    setNotice("signedOut");
  };

  return (
    <LangContext.Provider value={lang}>
      {session ? <Shell session={session} onSignOut={leave} onLang={setLang} /> : <SignedOut notice={notice} onSignedIn={signedIn} onLang={setLang} />}
      <StatusRegion />
    </LangContext.Provider>
  );
}

function SignedOut({ notice, onSignedIn, onLang }: { notice: "signedOut" | "sessionEnded" | undefined; onSignedIn: (s: Session) => void; onLang: (l: Lang) => void }) {
  const t = useText(commonText);
  return (
    <>
      <header class="top">
        <span class="brand">{t.console}</span>
        <LanguagePicker onLang={onLang} />
      </header>
      <SignIn onSignedIn={onSignedIn} notice={notice && t[notice]} />
    </>
  );
}

function LanguagePicker({ onLang }: { onLang: (l: Lang) => void }) {
  const t = useText(commonText);
  const lang = useLang();
  return (
    <div class="language">
      <label for="console-language">{t.language}</label>
      <select id="console-language" value={lang} onChange={(e: Event) => onLang((e.currentTarget as HTMLSelectElement).value as Lang)}>
        {LANGUAGES.map((l) => (
          <option value={l} lang={l} selected={l === lang}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}

function Shell({ session, onSignOut, onLang }: { session: Session; onSignOut: () => void; onLang: (l: Lang) => void }) {
  const t = useText(commonText);
  const path = usePath();
  const admin = isAdministrator(session.user);
  const visible = routes.filter((r) => admin || !r.adminOnly);
  const found = matchRoute(visible, path === "/" ? "/events" : path);
  const current = `/${path.split("?")[0]?.split("/")[1] ?? ""}`;
  return (
    <>
      <button type="button" class="skip" onClick={skipToMain}>
        {t.skipToContent}
      </button>
      <header class="top">
        <span class="brand">{t.console}</span>
        <nav aria-label={t.mainMenu}>
          <ul>
            {menu
              .filter((m) => admin || !m.adminOnly)
              .map((m) => (
                <li>
                  <a href={href(m.path)} aria-current={current === m.path || (current === "/" && m.path === "/events") ? "page" : undefined}>
                    {t[m.label]}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
        <div class="who">
          <span>{format(t.signedInAs, { name: session.user.name || session.user.username })}</span>
          <button type="button" onClick={onSignOut}>
            {t.signOut}
          </button>
        </div>
        <LanguagePicker onLang={onLang} />
      </header>
      <main id="main">{found ? found.route.screen(found.params) : <NotFound />}</main>
    </>
  );
}

// A button, not a link to #main: the fragment is the screen's address (router.ts).
function skipToMain() {
  const heading = document.querySelector<HTMLElement>("#main h1");
  heading?.focus();
}

function NotFound() {
  const t = useText(commonText);
  return (
    <>
      <Heading title={t.notFound}>{t.notFound}</Heading>
      <p>
        <a href={href("/events")}>{t.events}</a>
      </p>
    </>
  );
}

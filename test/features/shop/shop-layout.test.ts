import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";
import { createEvent } from "../../helpers/catalogue";

/** The frame every box-office page shares (decisions.md 15 "The box office"). */
describe("the box-office page frame", () => {
  it("names its language, loads only the service's own stylesheet and script, and may be framed by CORS_ORIGINS only", async () => {
    const event = await createEvent({ event_name: "Frame <test>" });
    const res = await call("GET", `/shop/${event.id}?lang=nl`, { key: null, auth: null });
    const html = await res.text();
    expect(res.status, html).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(html).toMatch(/<html lang="nl">/);
    expect(html).toContain("Frame &lt;test&gt;");
    expect(html).toMatch(/<script type="module" src="\/ticketing\/v1\/shop\/assets\/shop\.js">/);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toMatch(/frame-ancestors 'self'/);
  });
});

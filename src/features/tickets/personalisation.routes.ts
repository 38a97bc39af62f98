import { Hono } from "hono";
import type { AppEnv } from "../../http/context";
import { describeRoute } from "../../http/route-docs";
import { API_BASE } from "../../config";
import { depsOf } from "../../http/deps";
import { ok } from "../../http/respond";
import { createBody, keyParam, pathParams } from "../../http/validate";
import { escapeHtml } from "../../lib/html";
import { MAX_CUSTOMER_INPUT } from "../../domain/input-field-rules";
import { personaliseBody, ticketsApi } from "./personalisation.schema";
import { orderByUid, personalisationNeeds, personalise, presentPersonalisation } from "./personalisation.service";
import { walletConfigured } from "./wallet-links";

const params = pathParams({ uid: keyParam("order") });

type PresentedField = ReturnType<typeof presentPersonalisation>["tickets"][number]["fields"][number];

/** The form control of one field: a list for a select field, else an input of its type, bounded like the rules. */
function control(f: PresentedField & { options?: string[] }, saved: boolean): string {
  const common = `name="${escapeHtml(f.id)}"${saved ? " disabled" : ""}${f.required ? " required" : ""}`;
  if (f.options) {
    const options = [`<option value=""></option>`, ...f.options.map((o) => `<option${o === f.value ? " selected" : ""}>${escapeHtml(o)}</option>`)];
    return `<select ${common}>${options.join("")}</select>`;
  }
  const type = f.type === "date" || f.type === "time" ? f.type : "text";
  return `<input ${common} type="${type}" value="${escapeHtml(f.value)}" maxlength="${MAX_CUSTOMER_INPUT}">`;
}

/**
 * The small page of decisions.md 7: one form per ticket, saved through the JSON route below. Once every ticket is
 * personalised it points to the order's page, where the download and the wallet passes are (decisions.md 15 "Wallet
 * passes"): the email sent with the order could not carry them yet.
 */
function page(uid: string, view: ReturnType<typeof presentPersonalisation>, wallets: boolean): string {
  const done = view.tickets.every((t) => t.personalised);
  const words = wallets ? "Your tickets are ready: download them, or add them to your phone's wallet" : "Your tickets are ready: download them";
  const ready = `<p id="ready"${done ? "" : " hidden"}><a href="${API_BASE}/shop/orders/${uid}">${words}</a></p>`;
  const forms = view.tickets
    .filter((t) => t.fields.length > 0)
    .map((t) => {
      const inputs = t.fields.map((f) => `<label>${escapeHtml(f.name)}${f.required ? " *" : ""}<br>${control(f, t.personalised)}</label>`).join("<br>");
      return `<form data-ticket="${escapeHtml(t.ticket_id)}"><h2>${escapeHtml(t.ticket_type)} <small>${escapeHtml(t.ticket_id)}</small></h2>${inputs}<br>${t.personalised ? "<p>Saved.</p>" : '<button type="submit">Save</button>'}<p class="result" role="status"></p></form>`;
    })
    .join("");
  const script = `document.querySelectorAll("form[data-ticket]").forEach(function (form) {
  form.addEventListener("submit", async function (e) {
    e.preventDefault();
    var fields = {};
    new FormData(form).forEach(function (v, k) { fields[k] = String(v); });
    var res = await fetch(${JSON.stringify(`${API_BASE}/tickets/${uid}/personalisation`)}, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ tickets: [{ ticket_id: form.dataset.ticket, fields: fields }] }) });
    var out = form.querySelector(".result");
    if (res.ok) {
      out.textContent = "Saved.";
      form.querySelectorAll("input,button").forEach(function (el) { el.disabled = true; });
      var view = await res.json();
      if (view.tickets.every(function (t) { return t.personalised; })) document.getElementById("ready").hidden = false;
    }
    else { var body = await res.json().catch(function () { return {}; }); out.textContent = body.message || "Could not save."; }
  });
});`;
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Personalise your tickets</title></head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem"><h1>Personalise your tickets</h1>${forms || "<p>Nothing to personalise.</p>"}${ready}<script>${script}</script></body></html>`;
}

/** `/tickets/<uid>/personalisation` and `/personalise` (decisions.md 7, 13): no key, the uid is the capability. */
export const personalisationRoutes = new Hono<AppEnv>()
  .get("/:uid/personalisation", describeRoute(ticketsApi.personalisation), params, async (c) => {
    const deps = depsOf(c);
    const order = await orderByUid(deps, c.req.valid("param").uid);
    return ok(c, presentPersonalisation(await personalisationNeeds(deps, order)));
  })

  .put("/:uid/personalisation", describeRoute(ticketsApi.personalise), params, createBody(personaliseBody), async (c) => {
    const deps = depsOf(c);
    const order = await orderByUid(deps, c.req.valid("param").uid);
    await personalise(deps, order, c.req.valid("json"));
    return ok(c, presentPersonalisation(await personalisationNeeds(deps, order)));
  })

  .get("/:uid/personalise", describeRoute(ticketsApi.personalisePage), params, async (c) => {
    const deps = depsOf(c);
    const order = await orderByUid(deps, c.req.valid("param").uid);
    return c.html(page(order.uid, presentPersonalisation(await personalisationNeeds(deps, order)), walletConfigured(deps)));
  });

import { exchange } from "../../lib/outbound";
import type { Deps } from "../../platform/deps";
import { writeLog } from "../logs/logs.service";
import { fail } from "../../domain/errors";

/**
 * reCAPTCHA v2 and Cloudflare Turnstile share one verify protocol (decisions.md 13): POST `secret`, `response` and
 * `remoteip` as a form to the verify URL; the answer's `success` decides. A verifier that cannot be reached fails
 * the order (and is logged): an unverified token is never accepted.
 */
export async function verifyCaptcha(deps: Deps, eventId: number, token: string | undefined, remoteIp: string): Promise<void> {
  const wrong = () => fail.order_captcha_failed();
  if (!token) throw wrong();
  const form = new URLSearchParams({ secret: deps.config.captcha.secret, response: token });
  if (remoteIp) form.set("remoteip", remoteIp);
  const x = await exchange(
    deps.config.captcha.verifyUrl,
    { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: form.toString() },
    { allowHttp: deps.config.allowHttpOutbound, timeoutMs: 5000 },
  );
  if (x.response?.code !== 200) {
    await writeLog(deps, { eventId, logType: "Captcha", description: `Captcha verification failed: ${x.error ?? `HTTP ${x.response?.code}`}` });
    throw wrong();
  }
  let success = false;
  try {
    success = (JSON.parse(x.response.body) as { success?: unknown }).success === true;
  } catch {
    success = false;
  }
  if (!success) throw wrong();
}

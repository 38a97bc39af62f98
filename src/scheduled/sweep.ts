import type { Env } from "../env";
import { log } from "../lib/log";
import { depsFromEnv } from "../services/deps";
import { repairEventConfigs } from "../services/event-config.service";
import { purgeIdempotencyKeys } from "../services/idempotency.service";
import { resendStalledEmails } from "../services/emails.service";
import { purgeExpiredLogs } from "../services/logs.service";
import { reconcileObjects } from "../services/object-sync.service";
import { pruneDeliveryLog, resendStalledDeliveries } from "../services/webhook-deliveries.service";

/** The cron sweep: retention and backstops only; per-event deadlines belong to the event objects' alarms. */
export async function sweep(env: Env): Promise<void> {
  const deps = depsFromEnv(env);
  const logsPurged = await purgeExpiredLogs(deps);
  const keysPurged = await purgeIdempotencyKeys(deps);
  const configsRepaired = await repairEventConfigs(deps);
  const deliveriesResent = await resendStalledDeliveries(deps);
  const emailsResent = await resendStalledEmails(deps);
  const objectsSynced = await reconcileObjects(deps);
  await pruneDeliveryLog(deps);
  log("info", "sweep", {
    logs_purged: logsPurged,
    idempotency_keys_purged: keysPurged,
    event_configs_repaired: configsRepaired,
    webhook_deliveries_resent: deliveriesResent,
    emails_resent: emailsResent,
    object_syncs_redriven: objectsSynced,
  });
}

import { log } from "./lib/log";
import type { Deps } from "./platform/deps";
import { repairEventConfigs } from "./features/catalogue/event-config.service";
import { purgeIdempotencyKeys } from "./platform/idempotency-store";
import { purgeDailyQuotas } from "./platform/daily-quota";
import { resendStalledEmails } from "./features/messaging/emails.service";
import { purgeExpiredLogs } from "./features/logs/logs.service";
import { reconcileObjects } from "./features/ordering/object-sync.service";
import { pruneDeliveryLog, resendStalledDeliveries } from "./features/messaging/webhook-deliveries.service";
import { purgeStaleTicketParts } from "./features/tickets/ticket-pdf-parts.service";
import { resyncWaitingList } from "./features/waiting-list/waiting-list.service";

/** Retention needs no hurry: it runs on every tenth minute's sweep only. */
const RETENTION_EVERY_MINUTES = 10;

function isRetentionMinute(scheduledTime: number): boolean {
  return Math.floor(scheduledTime / 60_000) % RETENTION_EVERY_MINUTES === 0;
}

/**
 * The cron sweep, every minute (wrangler.toml): it re-drives what should have followed a commit and did not (queue
 * messages lost after the commit, event objects that missed an order change or a catalogue push) within about a minute; retention only
 * on every tenth minute. Per-event deadlines belong to the event objects' alarms.
 */
export async function sweep(deps: Deps, scheduledTime: number): Promise<void> {
  const redriven = {
    webhook_deliveries_resent: await resendStalledDeliveries(deps),
    emails_resent: await resendStalledEmails(deps),
    event_configs_repaired: await repairEventConfigs(deps),
    object_syncs_redriven: await reconcileObjects(deps),
    waiting_list_resynced: await resyncWaitingList(deps),
  };
  if (!isRetentionMinute(scheduledTime)) {
    log("info", "sweep", redriven);
    return;
  }
  const logsPurged = await purgeExpiredLogs(deps);
  const keysPurged = await purgeIdempotencyKeys(deps);
  const quotasPurged = await purgeDailyQuotas(deps);
  await pruneDeliveryLog(deps);
  const partsPurged = await purgeStaleTicketParts(deps);
  log("info", "sweep", {
    ...redriven,
    logs_purged: logsPurged,
    idempotency_keys_purged: keysPurged,
    daily_quotas_purged: quotasPurged,
    ticket_parts_purged: partsPurged,
  });
}

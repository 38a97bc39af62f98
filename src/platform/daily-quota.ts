import { lt, sql } from "drizzle-orm";
import { dailyQuotas } from "../db/schema";
import { calendarDay } from "../lib/time";
import type { Deps } from "./deps";

export type QuotaAnswer = { allowed: true; used: number } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one `action` of `userId` against `limit` a calendar day in the service's time zone. One statement both
 * counts and refuses (an upsert whose update applies only below the limit), so requests at once, in any isolate,
 * never together pass the limit: a refused one writes nothing and gets the seconds until the day turns.
 */
export async function takeDailyQuota({ db, now, config }: Deps, action: string, userId: number, limit: number): Promise<QuotaAnswer> {
  const t = now();
  const { day, nextStartsAt } = calendarDay(t, config.timezone);
  const counted = await db
    .insert(dailyQuotas)
    .values({ action, userId, day, used: 1 })
    .onConflictDoUpdate({
      target: [dailyQuotas.action, dailyQuotas.userId, dailyQuotas.day],
      set: { used: sql`${dailyQuotas.used} + 1` },
      setWhere: lt(dailyQuotas.used, limit),
    })
    .returning({ used: dailyQuotas.used });
  const used = counted[0]?.used;
  return used !== undefined && used <= limit ? { allowed: true, used } : { allowed: false, retryAfterSeconds: Math.max(1, nextStartsAt - t) };
}

/** The sweep: the counts of past days go (only today's is ever read). */
export async function purgeDailyQuotas({ db, now, config }: Deps): Promise<number> {
  const { day } = calendarDay(now(), config.timezone);
  const removed = await db.delete(dailyQuotas).where(lt(dailyQuotas.day, day)).returning({ day: dailyQuotas.day });
  return removed.length;
}

import { recordScans } from "./scan-records.service";
import { scansRecordJob } from "../../platform/messages";
import { parseJob, type JobHandler } from "../../platform/parse-job";

/**
 * `scans.record`: scans an event object decided, to D1 and `scan.created`; then the object is told D1 has them, so
 * it stops sending them again. Every seq of the message is acknowledged, also those written by an earlier copy or
 * superseded by a reset. A failed acknowledgement fails the job: its retry writes nothing new and acknowledges again.
 */
export const recordObjectScans: JobHandler = async (deps, _env, job) => {
  const message = parseJob(scansRecordJob, job);
  await recordScans(deps, message);
  await deps.eventObjects.get(message.eventId).scansRecorded(message.scans.map((s) => s.seq));
};

import { recordScans } from "../services/scans.service";
import type { JobHandler } from "./jobs.consumer";
import { scansRecordJob } from "./messages";
import { parseJob } from "./parse-job";

/** `scans.record`: scans an event object decided, to D1 and `scan.created`. */
export const recordObjectScans: JobHandler = async (deps, _env, job) => {
  await recordScans(deps, parseJob(scansRecordJob, job));
};

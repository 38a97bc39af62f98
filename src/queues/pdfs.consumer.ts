import { purgeTicketPdfs } from "../services/ticket-pdfs.service";
import type { JobHandler } from "./jobs.consumer";
import { pdfPurgeJob } from "./messages";
import { parseJob } from "./parse-job";

/** `pdf.purge`: something a cached ticket PDF shows changed. */
export const purgePdfs: JobHandler = async (deps, _env, job) => {
  await purgeTicketPdfs(deps, parseJob(pdfPurgeJob, job));
};

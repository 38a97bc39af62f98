import { purgeTicketPdfs } from "./ticket-pdfs.service";
import { pdfPurgeJob } from "../../platform/messages";
import { parseJob, type JobHandler } from "../../platform/parse-job";

/** `pdf.purge`: something a cached ticket PDF shows changed. */
export const purgePdfs: JobHandler = async (deps, _env, job) => {
  await purgeTicketPdfs(deps, parseJob(pdfPurgeJob, job));
};

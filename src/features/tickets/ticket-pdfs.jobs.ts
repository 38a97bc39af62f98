import { announceDownload, purgeTicketPdfs } from "./ticket-pdfs.service";
import type { JobHandler } from "../../queue";
import { pdfPurgeJob, ticketsDownloadedJob } from "../../platform/messages";
import { parseJob } from "../../platform/parse-job";

/** `pdf.purge`: something a cached ticket PDF shows changed. */
export const purgePdfs: JobHandler = async (deps, _env, job) => {
  await purgeTicketPdfs(deps, parseJob(pdfPurgeJob, job));
};

/** `tickets.downloaded`: a download happened; the topic fires from the queue, not the download. */
export const announceTicketsDownloaded: JobHandler = async (deps, _env, job) => {
  const { uid, at } = parseJob(ticketsDownloadedJob, job);
  await announceDownload(deps, uid, at);
};

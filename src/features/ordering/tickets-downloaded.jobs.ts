import { announceDownload } from "./order-topics";
import { ticketsDownloadedJob } from "../../platform/messages";
import { parseJob, type JobHandler } from "../../platform/parse-job";

/** `tickets.downloaded`: a download happened; the topic fires from the queue, not the download. */
export const announceTicketsDownloaded: JobHandler = async (deps, _env, job) => {
  const { uid, at } = parseJob(ticketsDownloadedJob, job);
  await announceDownload(deps, uid, at);
};

import { purgeTicketPdfs } from "./ticket-pdfs.service";
import { renderNextPart } from "./ticket-pdf-parts.service";
import { pdfPurgeJob, pdfRenderJob } from "../../platform/messages";
import { parseJob, type JobHandler } from "../../platform/parse-job";

/** `pdf.purge`: something a cached ticket PDF shows changed. */
export const purgePdfs: JobHandler = async (deps, _env, job) => {
  await purgeTicketPdfs(deps, parseJob(pdfPurgeJob, job));
};

/** `pdf.render`: the next part of a large download, or its assembly (decisions.md 15). */
export const renderPdfPart: JobHandler = async (deps, _env, job) => {
  await renderNextPart(deps, parseJob(pdfRenderJob, job));
};

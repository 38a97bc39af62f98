import { z } from "zod";
import { selfAndCollection, type LinkBase } from "../../http/links";
import { filePart } from "../../http/validate";
import type { EmailListSummary } from "./email-lists.service";
import { answers, named, type RouteDoc } from "../../http/route-docs";
import { deletedView, linksView } from "../../http/view-types";

export const uploadEmailListForm = z.strictObject({ file: filePart });

/** An email list as the API shows it (spec: Email list): addressed by its event's id. */
const emailListView = named("EmailList", z.object({ event_id: z.number().int(), total: z.number().int().describe("How many addresses it holds."), _links: linksView }));

/** The routes of `/admin/emaillists` (spec: Email lists). */
export const emailListsApi = {
  list: {
    operationId: "listEmailLists",
    summary: "List email lists",
    description: "The lists of the events the user may see, on one page.",
    success: answers.collection(emailListView),
  },
  get: { operationId: "getEmailList", summary: "Get an event's email list", description: "`_fields` narrows the answer.", success: answers.ok(emailListView) },
  upload: {
    operationId: "uploadEmailList",
    summary: "Upload an event's email list",
    description: "A multipart upload: `file`, a CSV of `name,email,count` lines. `201` when the event had no list, `200` when the addresses were merged into its list.",
    success: answers.created(emailListView, "Created: the event's new list, its address in `Location`."),
    alsoSuccess: answers.ok(emailListView, "The addresses were merged into the event's list."),
  },
  delete: {
    operationId: "deleteEmailList",
    summary: "Delete an event's email list",
    description: "Removes every address of the list.",
    success: answers.ok(deletedView()),
  },
} satisfies Record<string, RouteDoc>;

export function presentEmailList(c: LinkBase, list: EmailListSummary) {
  return {
    event_id: list.eventId,
    total: list.total,
    _links: selfAndCollection(c, `/admin/emaillists/${list.eventId}`, "/admin/emaillists"),
  } satisfies z.infer<typeof emailListView>;
}

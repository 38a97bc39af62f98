import { parseJob, type JobHandler } from "../../platform/parse-job";
import { waitingListUpdateJob } from "../../platform/messages";
import { recordWaitingListUpdates } from "./offers.service";

/** `waiting-list.update`: what an event object decided about its waiting entries, written to D1. */
export const recordWaitingList: JobHandler = (deps, _env, message) => recordWaitingListUpdates(deps, parseJob(waitingListUpdateJob, message));

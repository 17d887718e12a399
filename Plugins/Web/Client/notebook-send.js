// @ts-check
/**
 * AR Notebook's changes to the notebook open (screen-notebook.js's BookScreen.change): sent at
 * once when the phone is online and nothing of the notebook waits before it (placement, clamping
 * and refusals are the server's answer), else kept in the outbox and sent in order when the
 * network returns. Either way the screen shows it at once.
 */
import { ApiError } from "./api.js";
import { wrote } from "./notebook-overwrites.js";
import { isLocal, newKey } from "./outbox.js";

/** @typedef {import("./screen-notebook.js").BookScreen} BookScreen */

/**
 * A change of this notebook: sent now when the phone is online and nothing of this notebook
 * waits before it (a refusal said beside the controls, with `again`), else kept in the outbox
 * and sent in order when the network returns. Either way the screen shows it at once. Answers
 * the server's answer, `null` when it waits, `undefined` when refused.
 * @param {BookScreen} screen @param {Omit<import("./outbox.js").Write, "key" | "attempts">} write
 * @param {[string, () => void] | ((error: unknown) => [string, () => void])} [again] the way on after a refusal (or, given the error, which)
 * @param {() => void} [held] called the moment the change is safe (the server answered, or it is in
 *   the outbox's journal), before the pull that shows it: a draft of it is forgotten then, so a
 *   reload during the pull does not give the text back as well
 * @returns {Promise<any>}
 */
export async function sendChange(screen, write, again, held) {
  const sync = screen.ctx.sync;
  const key = newKey();
  const queued = queues(screen, write.path);
  screen.say(null);
  if (!queued) {
    try {
      /** @type {Record<string, string>} */
      const headers = { "Idempotency-Key": key };
      if (write.baseVersion) headers["If-Match"] = `"${write.baseVersion}"`;
      const answer = await screen.ctx.api.request(write.method, write.path, { body: write.body, contentType: write.contentType, headers });
      wrote(write, answer.body);
      held?.();
      await sync.pull();
      return answer.body ?? {};
    } catch (error) {
      if (!(error instanceof ApiError && error.offline)) {
        screen.refused(error, typeof again === "function" ? again(error) : again);
        return undefined;
      }
    }
  }
  wrote(write, null);
  // Kept the moment it is asked for (sync's journal): answered without waiting for IndexedDB, so
  // the caller forgets its draft now and a reload straight after does not give the text back as
  // well. An enqueue that fails leaves it in the journal, for the next start to queue.
  sync.write({ ...write, key }).catch(() => {});
  held?.();
  screen.waitingCount = screen.waiting().length;
  return null;
}

/**
 * Whether a change to `path` waits in the outbox rather than going now: offline, or behind
 * another change of this notebook still waiting (it must not overtake it).
 * @param {BookScreen} screen @param {string} path
 */
export function queues(screen, path) {
  return !navigator.onLine || screen.ctx.sync.state === "offline" || screen.waiting().length > 0 || isLocal(screen.nid) || path.includes("local:");
}

// @ts-check
/**
 * AR Notebook's changes to the notebook open (screen-notebook.js's BookScreen.change): sent at
 * once when the phone is online and nothing of the notebook waits before it (placement, clamping
 * and refusals are the server's answer), else kept in the outbox and sent in order when the
 * network returns. Either way the screen shows it at once.
 */
import { ApiError } from "./api.js";
import { keepFromServer, N, writeOf } from "./notebook-model.js";
import { wrote } from "./notebook-overwrites.js";
import { isLocal, newKey } from "./outbox.js";
import { PHONE, whileSending } from "./ui.js";
import { draftsOf, dropDraft } from "./notebook-drafts.js";

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
    // A text on its way is journaled until answered: a reload that cuts it off sends it again from
    // the outbox with the same key (the server makes it once), rather than leaving nothing waiting.
    const journaled = journal(write, key);
    try {
      /** @type {Record<string, string>} */
      const headers = { "Idempotency-Key": key };
      if (write.baseVersion) headers["If-Match"] = `"${write.baseVersion}"`;
      const answer = await whileSending(screen.ctx.api.request(write.method, write.path, { body: write.body, contentType: write.contentType, headers }))
        .finally(() => { if (journaled) unjournal(key); });
      wrote(write, answer.body);
      rememberMine(sync, write, answer.body);
      held?.();
      await sync.pull();
      // Another's notebook (found near its pin) is not in this user's feed: read again from the
      // server, or the finder's own text and new page never showed (walk12).
      if (screen.content && screen.content.notebook.access !== "owner" && !isLocal(screen.nid)) {
        await screen.ctx.api.get(`${N}/notebooks/${encodeURIComponent(screen.nid)}`)
          .then((content) => keepFromServer(sync, content)).catch(() => {});
      }
      return answer.body ?? {};
    } catch (error) {
      if (!(error instanceof ApiError && error.offline)) {
        screen.refused(error, typeof again === "function" ? again(error) : again);
        return undefined;
      }
    }
  }
  wrote(write, null);
  rememberMine(sync, write, null);
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

/** Texts sent straight to the server and not answered yet, by key (signing out forgets them). */
const SENDING = `${PHONE}nb.sending`;

/** @returns {Record<string, any>} */
function journaled() {
  try {
    const kept = JSON.parse(localStorage.getItem(SENDING) ?? "{}");
    return kept && typeof kept === "object" && !Array.isArray(kept) ? kept : {};
  } catch {
    return {};
  }
}

/**
 * Journals a text's insert or change (JSON, the ones a draft stands for) while it is on its way;
 * answers whether it did. @param {Omit<import("./outbox.js").Write, "key" | "attempts">} write @param {string} key
 */
function journal(write, key) {
  const text = typeof write.body?.text === "string";
  if (!text || write.contentType || !/\/items(\/[^/]+)?$/.test(write.path) || !["POST", "PATCH"].includes(write.method)) return false;
  try {
    localStorage.setItem(SENDING, JSON.stringify({ ...journaled(), [key]: { ...write, key } }));
    return true;
  } catch {
    return false; // storage full: the draft still stands for it
  }
}

/** @param {string} key */
function unjournal(key) {
  const kept = journaled();
  delete kept[key];
  if (Object.keys(kept).length) localStorage.setItem(SENDING, JSON.stringify(kept));
  else localStorage.removeItem(SENDING);
}

/**
 * The texts a reload (or a crash) cut off on their way: into the outbox, with the key they were
 * sent with, so the server makes each once whether or not the first request reached it (walk11: a
 * reload right after Add left nothing waiting, only the dialog given back). Their drafts are not
 * given back to be added a second time (the draft of the same text, page or item is dropped).
 * @param {import("./sync.js").Sync} sync @param {string} account
 */
export async function resendCutOff(sync, account) {
  for (const [key, write] of Object.entries(journaled())) {
    const notebook = /\/notebooks\/([^/]+)\/(?:pages|items)\//.exec(write.path)?.[1] ?? "";
    for (const draft of draftsOf(account, [notebook, sync.resolve(notebook)])) {
      const same = draft.item ? write.path.endsWith(`/items/${draft.item}`) : write.method === "POST" && write.path.includes(`/pages/${draft.page}/items`);
      if (same && draft.text === write.body.text) dropDraft(account, draft);
    }
    await sync.write(write).catch(() => {});
    unjournal(key);
  }
}

/** Where this phone keeps, by notebook, the item it added or changed last: its Undo names it. */
const LAST_MINE = `${PHONE}nb.lastMine.`;

/**
 * Remembers the item `write` added or changed (what this phone's Undo takes back); a delete or an
 * undo leaves nothing of this phone's to undo.
 * @param {import("./sync.js").Sync} sync @param {{method: string, path: string, id: string}} write @param {any} answer
 */
function rememberMine(sync, write, answer) {
  const what = writeOf(/** @type {any} */ (write));
  if (!what) return;
  const key = `${LAST_MINE}${sync.resolve(what.notebook)}`;
  const item = what.what === "insert" ? answer?.item?.id ?? write.id : what.what === "item" ? what.target : undefined;
  if (item) localStorage.setItem(key, item);
  else if (write.method === "DELETE" || what.what === "undo") localStorage.setItem(key, "");
}

/**
 * The item this phone added or changed last in `notebook` ("" when it did nothing there since its
 * last undo or delete, or ever): Undo sends it, so it never takes back what another phone did. An
 * item still waiting to be made is named by its local id, which the outbox turns into the server's.
 * @param {import("./sync.js").Sync} sync @param {string} notebook
 */
export function lastMine(sync, notebook) {
  const kept = localStorage.getItem(`${LAST_MINE}${sync.resolve(notebook)}`);
  return kept ? sync.resolve(kept) : "";
}

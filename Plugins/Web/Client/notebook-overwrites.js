// @ts-check
/**
 * AR Notebook: a text this phone wrote that another device then replaced (issue 39). The phone
 * that saved later is told by the server's answer ("Changed on another device meanwhile…", in
 * notebook-edits.js); this is the other phone: it follows the sync poke, finds its item's text is
 * no longer what it wrote, and says so with "Bring back mine" (its text, written again on top of
 * the item as it is now; the server keeps the replaced one in its history).
 *
 * Each text this phone changed is remembered (in memory, for this page) with the version the
 * server gave it (null while it waits in the outbox); `overwrites` (pure, unit-tested in
 * Tests/WebClient/notebook-overwrites.test.mjs) compares it with the items as the feed has them.
 */
import { ITEM, N } from "./notebook-model.js";

/** @typedef {{text: string, version: number | null}} Mine what this phone wrote and the version the server answered */
/** @typedef {{id: string, text?: string, version?: number, pending?: boolean}} Seen an item as the phone has it now */

/** This phone's texts, by item id. @type {Map<string, Mine>} */
export const mine = new Map();

/**
 * What the phone's own texts became: the items another device has changed since this phone wrote
 * them (to be told; forgotten here once told), and what is left to follow. An item gone is
 * forgotten; one still waiting in the outbox is not judged yet; one that still reads this phone's
 * text follows its new version (a move of the item changes the version, not the text).
 * @param {ReadonlyMap<string, Mine>} kept @param {readonly Seen[]} items
 * @returns {{told: Array<{id: string, mine: string, now: string}>, left: Map<string, Mine>}}
 */
export function overwrites(kept, items) {
  const byId = new Map(items.map((item) => [item.id, item]));
  /** @type {Array<{id: string, mine: string, now: string}>} */
  const told = [];
  /** @type {Map<string, Mine>} */
  const left = new Map();
  for (const [id, wrote] of kept) {
    const item = byId.get(id);
    if (!item) continue;
    if (item.pending) {
      left.set(id, wrote);
    } else if ((item.text ?? "") === wrote.text) {
      left.set(id, { text: wrote.text, version: item.version ?? wrote.version });
    } else if (wrote.version === null || (item.version ?? 0) > wrote.version) {
      told.push({ id, mine: wrote.text, now: item.text ?? "" });
    } else {
      left.set(id, wrote); // the feed has not brought this phone's own change yet
    }
  }
  return { told, left };
}

/**
 * A change this phone made to the notebook, as `screen.change` sent it (or queued it: `answer`
 * null): a text written is remembered; an undo may put back any text, so nothing is followed past it.
 * @param {{method: string, path: string, body?: any, id: string}} write @param {any} answer
 */
export function wrote(write, answer) {
  if (write.path.endsWith("/undo")) {
    mine.clear();
    return;
  }
  if (write.method !== "PATCH" || !/\/items\/[^/]+$/.test(write.path) || typeof write.body?.text !== "string") return;
  const version = typeof answer?.version === "number" ? answer.version : typeof answer?.item?.version === "number" ? answer.item.version : null;
  mine.set(write.id, { text: write.body.text, version });
}

/**
 * After the notebook was drawn again from the feed: a text of this phone's that another device
 * replaced is said, with "Bring back mine" (written on top of the item as it is now).
 * @param {import("./screen-notebook.js").BookScreen} screen
 */
export function tellOverwrites(screen) {
  // A change of this phone's the server refused (sent from the outbox: too long, say) is not
  // another device's doing: its words are kept with the server's message (kept-refused.js), and
  // "Bring back mine" would only send them to be refused again.
  for (const kept of screen.ctx.sync.keeping.kept) if (kept.kind === ITEM && kept.refused) mine.delete(kept.recordId);
  const items = (screen.content?.pages ?? []).flatMap((page) => page.items);
  const { told, left } = overwrites(mine, items);
  mine.clear();
  for (const [id, kept] of left) mine.set(id, kept);
  const last = told.at(-1);
  if (last) return tell(screen, last);
  // What was told still shown: it follows the text (brought back on the other phone, or changed again).
  const shown = toldNow;
  if (!shown || screen.said?.text !== shown.sentence) return;
  const item = items.find((i) => i.id === shown.id);
  if (!item || item.pending || (item.text ?? "") === shown.now) return;
  if ((item.text ?? "") === shown.mine) {
    toldNow = null;
    mine.set(item.id, { text: shown.mine, version: item.version ?? null });
    return screen.say("Your text is back: it was brought back on the other device.", { alert: false });
  }
  tell(screen, { ...shown, now: item.text ?? "" });
}

/** The sentence told last (while the screen still says it, it follows the item). @type {{id: string, mine: string, now: string, sentence: string} | null} */
let toldNow = null;

/**
 * Says that another device replaced `last.mine`, with "Bring back mine".
 * @param {import("./screen-notebook.js").BookScreen} screen @param {{id: string, mine: string, now: string}} last
 */
function tell(screen, last) {
  const short = (/** @type {string} */ text) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);
  const sentence = `Your text was changed on another device: “${short(last.mine)}” now reads “${short(last.now)}”.`;
  toldNow = { id: last.id, mine: last.mine, now: last.now, sentence };
  screen.say(sentence, {
    alert: false,
    action: ["Bring back mine", async () => {
      const item = (screen.content?.pages ?? []).flatMap((page) => page.items).find((i) => i.id === last.id);
      if (!item) return screen.say("That text was removed on another device; nothing to bring back to.");
      const write = { method: /** @type {const} */ ("PATCH"), path: `${N}/notebooks/${screen.nid}/items/${item.id}`,
        body: { text: last.mine }, kind: ITEM, id: item.id, baseVersion: item.version || undefined };
      const answer = await screen.change(write, ["Bring back mine", () => tellAgain(screen, last)]);
      if (answer === undefined) return;
      screen.reload();
      screen.say("Your text is back.", { alert: false });
    }],
  });
}

/** After a refusal: offered once more. @param {import("./screen-notebook.js").BookScreen} screen @param {{id: string, mine: string}} last */
function tellAgain(screen, last) {
  mine.set(last.id, { text: last.mine, version: -1 });
  tellOverwrites(screen);
}

// @ts-check
/**
 * What a person does to an AR Notebook page (the notebook screen's editing, as functions of the
 * screen): a new page from a template in a palette colour, a page's colour, where on a page an
 * insert goes (a template's free slot; a full page says so), inserts typed, pasted or from the
 * gallery, an item's text changed or the item removed, undo, a page deleted after confirming, share,
 * and text being typed kept as a draft (`notebook-drafts.js`). Each change goes through the
 * screen's `change` (at once online, else the outbox).
 */
import { confirmedDelete, chooseDialog, textDialog } from "./notebook-element.js";
import { draftsOf, dropDraft, keepDraft } from "./notebook-drafts.js";
import { BOTH_TEXTS, bothTexts, freeSlots, ITEM, N, NOTEBOOK, PAGE, placed, writeOf } from "./notebook-model.js";
import { ApiError } from "./api.js";
import { changeOf, isLocal, localId } from "./outbox.js";
import { lastMine } from "./notebook-send.js";
import { linkFor, shareLink } from "./share.js";
import { BOUNDS, pictureURL } from "./picture-cache.js";
import { announce, askText, cancelButton, confirmAction, h, showDialog } from "./ui.js";

/**
 * A confirmation said to screen readers (announce) and shown for a few seconds, like the other
 * apps' bars ("Undone: …", "Removed."): over the foot of the notebook's page where it is in sight
 * (what changed), else under the app's header. At the foot of the screen it covered New page and
 * Write, the buttons a person taps next. @param {string} text
 */
export function say(text) {
  announce(text);
  document.querySelector("body > .toast")?.remove();
  const toast = h("div", { class: "toast", "aria-hidden": "true" }, text);
  document.body.append(toast);
  // Placed again as the person scrolls (to the buttons, say): placed once, it stayed where the
  // page's foot had been, over New page and Write.
  const place = () => placeToast(toast);
  place();
  window.addEventListener("scroll", place, { passive: true });
  window.addEventListener("resize", place);
  window.setTimeout(() => {
    toast.remove();
    window.removeEventListener("scroll", place);
    window.removeEventListener("resize", place);
  }, 4000);
}

/** The toast goes as the page turns: what it said was of the page left, and it stayed over the next one. */
export function dismissToast() {
  document.querySelector("body > .toast")?.remove();
}

/** Where the toast shows: the visible part of the notebook's page, else under the header. @param {HTMLElement} toast */
function placeToast(toast) {
  const header = document.querySelector("header.bar")?.getBoundingClientRect();
  const top = header && header.bottom > 0 ? header.bottom : 0;
  const stage = document.querySelector(".screen.notebook .stage")?.getBoundingClientRect();
  const room = toast.offsetHeight + 24;
  const bottom = stage ? Math.min(stage.bottom, window.innerHeight) : 0;
  toast.style.bottom = "auto";
  toast.style.top = `${stage && bottom - Math.max(stage.top, top) >= room ? bottom - room + 12 : top + 12}px`;
}

/** @typedef {import("./screen-notebook.js").BookScreen} BookScreen */
/** @typedef {import("./notebook-model.js").Item} Item */
/** @typedef {import("./notebook-model.js").Page} Page */
/** @typedef {import("./notebook-model.js").Notebook} Notebook */

/**
 * A new page's choices, in words: its layout (the catalog's templates) and its colour (the palette).
 * The New page dialog and the room's overlay (`notebook-room.js`) both ask with these.
 * @param {any} cat @returns {Array<{name: string, label: string, options: Array<[string, string]>, swatches?: any[]}>}
 */
export function pageChoices(cat) {
  return [
    { name: "template", label: "Layout", options: cat.templates.map((/** @type {any} */ t) => [t.id, ({ blank: "Blank", "one-slot": "One box: one text or picture", "two-slots": "Two boxes: top and bottom" })[/** @type {"blank"} */ (t.id)] ?? t.id]) },
    { name: "background", label: "Colour", options: cat.palette.map((/** @type {any} */ s) => [s.id, s.id[0].toUpperCase() + s.id.slice(1)]), swatches: cat.palette },
  ];
}

/**
 * The New page dialog, then the page made. Answers as `newPage` does (undefined when cancelled or refused).
 * @param {BookScreen} screen
 */
export async function addPage(screen) {
  const choice = await chooseDialog("New page", pageChoices(screen.catalog));
  if (!choice) return undefined;
  return newPage(screen, { template: choice.template, background: choice.background });
}

/**
 * A page from `choice.template` in `choice.background`, after the page showing, then shown (at
 * once online, else through the outbox). Answers as `screen.change` does.
 * @param {BookScreen} screen @param {{template: string, background: string}} choice
 */
export async function newPage(screen, choice) {
  screen.currentPage();
  const after = screen.index;
  const answer = await screen.change({ method: "POST", path: `${N}/notebooks/${screen.nid}/pages`,
    body: { template: choice.template, background: choice.background, after }, kind: PAGE, id: localId(), recordAt: "page" });
  if (answer === undefined) return;
  screen.reload(answer?.number ?? after + 1);
  say(`Page ${screen.index} added.`);
  if (answer === null) screen.say(`No network: page ${screen.index} is kept on this phone and made on the server when the phone is online.`, { alert: false });
  return answer;
}

/** @param {BookScreen} screen */
export async function colour(screen) {
  const page = screen.currentPage();
  if (!page) return;
  const cat = screen.catalog;
  const choice = await chooseDialog("Page colour", [
    { name: "background", label: "Colour", options: cat.palette.map((/** @type {any} */ s) => [s.id, s.id[0].toUpperCase() + s.id.slice(1)]), swatches: cat.palette, value: page.background },
  ]);
  if (!choice) return;
  await recolour(screen, page, choice.background);
}

/**
 * `page` in the palette's `background` (at once online, else the outbox), shown. Answers as
 * `screen.change` does.
 * @param {BookScreen} screen @param {Page} page @param {string} background
 */
export async function recolour(screen, page, background) {
  const answer = await screen.change({ method: "PATCH", path: `${N}/notebooks/${screen.nid}/pages/${page.id}`, body: { background }, kind: PAGE, id: page.id });
  if (answer !== undefined) screen.reload();
  return answer;
}

/**
 * Where on the page an insert goes (FR3.2.6–7): a page from a template asks which free slot
 * when more than one is free; a full page says so (nothing is stacked over its slots), with New
 * page, which then does `retry` on the page made (the paste, text or picture asked for is not
 * lost to the detour). Answers the slot, null for a blank page (centred), or undefined when there
 * is nowhere (or cancelled).
 * @param {Page} page
 * @returns {Promise<number | null | undefined>}
 * @param {BookScreen} screen @param {() => unknown} [retry] what was asked, done again on the new page
 */
export async function whereOnPage(screen, page, retry) {
  if (!page.slots.length) return null;
  const free = freeSlots(page);
  if (!free.length) {
    // FR3.2.15: a template's boxes take any item, text or picture, one each.
    screen.say(`Page ${screen.numberOf(page)} is full: ${page.slots.length === 1 ? "its box holds one item" : `its ${page.slots.length} boxes hold one item each`}, text or picture. `
      + "Add a page, or remove an item first (tap it).", { action: ["New page", async () => {
      if ((await addPage(screen)) !== undefined) await retry?.();
    }] });
    return undefined;
  }
  if (free.length === 1) return free[0];
  const names = page.slots.length === 2 ? ["Top", "Bottom"] : page.slots.map((_, n) => `Slot ${n + 1}`);
  const choice = await chooseDialog("Where on the page", [{ name: "slot", label: "Slot", options: free.map((n) => [String(n), names[n]]) }]);
  return choice ? Number(choice.slot) : undefined;
}

/**
 * Puts text or a picture on the page showing, in `slot`. Offline, it waits in the outbox (drawn
 * on the page as waiting) and goes on that page when the network returns; nothing the user typed
 * is thrown away. A refusal is said beside the controls, with `again` to change what was typed.
 * Answers the server's answer, null when it waits in the outbox, undefined when nothing was added.
 * @param {any} body @param {number | null} slot @param {[string, () => void]} [again]
 * @param {() => void} [held] called the moment the text is safe (screen.change's `held`)
 * @returns {Promise<any>}
 * @param {BookScreen} screen
 * @param {ReturnType<BookScreen["currentPage"]>} [page] the page it goes on: the one showing when its dialog opened
 */
export async function insert(screen, body, slot, again, held, page = screen.currentPage()) {
  if (!page) return;
  const picture = body instanceof Blob;
  // Kept for later, it would be refused only then, out of sight: the server's rule, said now.
  if (!picture && body.kind === "clipboard" && [...body.text].length > (screen.catalog.clipboardMaxCharacters ?? 140) && screen.queues(`${N}/notebooks/${screen.nid}`)) {
    const max = screen.catalog.clipboardMaxCharacters ?? 140;
    screen.say(`Clipboard text is at most ${max} characters; this is ${[...body.text].length}. Copy a shorter passage or type it as keyboard text.`, { action: again });
    return;
  }
  const aspect = picture ? await aspectOf(body) : undefined;
  const slots = page.slots;
  // Off the items already there, as the server will place it: shown where it will stay.
  const frame = placed(screen.catalog, slot === null ? undefined : slots[slot], aspect, page.items.map((item) => item.frame));
  const path = `${N}/notebooks/${screen.nid}/pages/${page.id}/items${picture && slot !== null ? `?slot=${slot}` : ""}`;
  const sent = picture ? body : { ...body, ...(slot === null ? {} : { slot }) };
  const answer = await screen.change({ method: "POST", path, body: sent, contentType: picture ? body.type : undefined, kind: ITEM, id: localId(),
    recordAt: "item", local: { kind: picture ? "image" : body.kind, text: picture ? undefined : body.text, slot, frame } }, again, held);
  if (answer === undefined) return undefined;
  screen.reload();
  if (answer === null) {
    screen.say(`No network: ${picture ? "the picture is" : "your text is"} kept on this phone and goes on page ${screen.numberOf(page)} when the phone is online.`, { alert: false });
  } else {
    // Answered after the person turned away: said with its page, not as if of the page in view.
    const away = screen.turning || screen.content?.pages[screen.index - 1]?.id !== page.id;
    say(`${picture ? "Picture added" : "Added"}${away ? ` to page ${screen.numberOf(page)}` : ""}.`);
  }
  return answer;
}

/**
 * The changes waiting for the network, in words, one line per change as the header counts them
 * (outbox.js changeOf): a text written and then changed offline is one line with its last words
 * (it was two, "New text …" for the change, beside the header's "1 waiting"; walk9).
 * @param {BookScreen} screen @param {import("./outbox.js").Write[]} writes
 */
export function waitingLines(screen, writes) {
  /** @type {Map<string, import("./outbox.js").Write[]>} */
  const changes = new Map();
  for (const write of writes) changes.set(changeOf(write), [...(changes.get(changeOf(write)) ?? []), write]);
  return [...changes.values()].map((group) => {
    const text = group.map((write) => write.body?.text).filter((t) => typeof t === "string").pop();
    const [first] = group;
    return waitingWhat(screen, text === undefined || first.body instanceof Blob ? first : { ...first, body: { ...first.body, text } });
  });
}

/** A change waiting for the network, in words. @param {import("./outbox.js").Write} write @param {BookScreen} screen */
export function waitingWhat(screen, write) {
  const what = writeOf(write);
  const pageOf = (/** @type {string | undefined} */ id) => {
    const found = screen.content?.pages.findIndex((page) => page.id === id || page.id === screen.ctx.sync.resolve(id ?? "")) ?? -1;
    return found >= 0 ? `page ${found + 1}` : "its page";
  };
  const item = (/** @type {string | undefined} */ id) => screen.content?.pages.flatMap((p) => p.items).find((i) => i.id === id);
  const said = (/** @type {Item | undefined} */ it) => it?.kind === "image" ? "a picture" : `“${it?.text ?? ""}”`;
  switch (what?.what) {
    case "create": return `This notebook, “${write.body?.name ?? ""}”`;
    case "rename": return "Its new name";
    case "page": return "A new page";
    case "background": return `A colour for ${pageOf(what.target)}`;
    case "insert": return `${write.body instanceof Blob ? "A picture" : `“${write.body?.text ?? ""}”`} · ${pageOf(what.target)}`;
    case "item": return write.body?.text !== undefined ? `Text changed to “${write.body.text}”` : `${said(item(what.target))} moved`;
    case "remove": return "An item removed";
    case "undo": return "Undo";
    default: return "A change";
  }
}

/**
 * Text typed on this notebook's page and not saved when the phone last showed it (a reload, the
 * browser closing the tab): the page turned to, and the dialog opened again with the text. Its page
 * deleted, or the text it changed removed (maybe on another phone), it is never dropped unseen: it
 * comes back to add as a new text (on the last page when its own is gone).
 * @param {BookScreen} screen
 */
export async function giveBackDraft(screen) {
  const opened = screen.content;
  if (!opened || !screen.editable) return;
  const ids = [screen.notebookId, screen.nid, opened.notebook.id];
  if (!draftsOf(screen.account, ids)[0]) return;
  // The phone's copy may not know yet that the draft's page or text went on another phone: asked
  // of the server first (online), so the dialog says so rather than opening on a page gone.
  if (navigator.onLine) {
    await screen.ctx.sync.pull().catch(() => {});
    screen.reload();
  }
  const content = screen.content;
  const draft = draftsOf(screen.account, ids)[0];
  if (!content || !draft || !screen.isConnected) return;

  const found = content.pages.findIndex((p) => p.id === draft.page || p.id === screen.ctx.sync.resolve(draft.page));
  const at = found >= 0 ? found : content.pages.length - 1;
  if (at < 0) return say("What you were writing is kept on this phone: add a page and it comes back.");
  if (screen.index !== at + 1) {
    screen.index = screen.target = at + 1;
    screen.render();
  }
  const page = content.pages[at];
  const item = found < 0 || !draft.item ? undefined : page.items.find((i) => i.id === draft.item || i.id === screen.ctx.sync.resolve(draft.item ?? ""));
  if (item) {
    if (!draft.why) say("What you were writing is back.");
    return void editItem(screen, item, draft.text, draft, draft.why);
  }
  const why = found < 0 ? `The page you were writing on was deleted, maybe on another phone. What you typed is kept: ${addItTo(screen, page)}, or Cancel to throw it away.`
    : draft.item ? "The text you were changing was removed, maybe on another phone. What you typed is kept: add it as a new text, or Cancel to throw it away." : "";
  if (!why && !draft.why) say("What you were writing is back.");
  void write(screen, draft.text, why ? null : draft.slot, draft, why || draft.why || undefined);
}

/**
 * Asks where on the page (if it has slots), then the text, kept as a draft while it is typed.
 * @param {string} [typed] what was typed before (refused by the server, or a draft given back)
 * @param {number | null} [slotWas] the slot it was for, asked again only when no longer free
 * @param {import("./notebook-drafts.js").Draft} [was] the draft given back, forgotten once this one is kept
 * @param {string} [hint] why the dialog opened by itself (the draft's page or text gone)
 * @param {BookScreen} screen
 */
export async function write(screen, typed = "", slotWas, was, hint) {
  const page = screen.currentPage();
  if (!page) return;
  const free = slotWas !== undefined && (slotWas === null ? !page.slots.length : freeSlots(page).includes(slotWas));
  // Text given back (a draft, a refusal) is not turned away by a full page: Add puts it on a new page.
  const full = slotWas !== undefined && isFull(page);
  const slot = free ? slotWas : full ? null : await whereOnPage(screen, page, () => write(screen, typed, undefined, was, hint));
  if (slot === undefined) return;
  const where = { notebook: screen.nid, page: page.id, slot };
  const asked = askText({ title: "Write on the page", label: "Your text", id: "nb-text", action: "Add", multiline: true,
    required: "Type something first, or tap Cancel.", value: typed, hint });
  if (was) dropDraft(screen.account, was);
  keepDraft(screen.account, hint ? { ...where, why: hint } : where, "nb-text"); // a reload gives back the why too
  const text = await asked;
  if (!text) return dropDraft(screen.account, where);
  // The page deleted on another phone while the dialog was open: the text never goes to the page
  // now at its number. It is asked again for the page in view (no page left: kept as a draft).
  const sync = screen.ctx.sync;
  if (!screen.content?.pages.some((p) => p.id === page.id || p.id === sync.resolve(page.id))) {
    const now = screen.currentPage();
    if (!now) return say("The page you were writing on was deleted, maybe on another phone. What you typed is kept on this phone: add a page and it comes back.");
    return write(screen, text, null, { ...where, text }, `The page you were writing on was deleted, maybe on another phone. What you typed is kept: ${addItTo(screen, now)}, or Cancel to throw it away.`);
  }
  if (full) {
    // Never centred on the full page, under its item (a newcomer's walk found it there): a new page,
    // its first box. Cancelled, the text stays kept on this phone as its draft.
    if ((await addPage(screen)) === undefined) return say("What you typed is kept on this phone: add a page and it comes back.");
    const fresh = screen.currentPage();
    if (!fresh) return;
    const box = fresh.slots.length ? freeSlots(fresh)[0] ?? null : null;
    await insert(screen, { kind: "text", text }, box, ["Change the text", () => write(screen, text, box)], () => dropDraft(screen.account, where), fresh);
    return;
  }
  // The draft goes the moment the server (or the outbox) holds the text, not after the pull.
  await insert(screen, { kind: "text", text }, slot, ["Change the text", () => write(screen, text, slot)], () => dropDraft(screen.account, where), page);
}

/** Whether every box of `page`'s template holds an item (a blank page is never full). @param {Page} page */
function isFull(page) {
  return page.slots.length > 0 && !freeSlots(page).length;
}

/**
 * Where text given back goes, said in its dialog: the page's number, or a new page when it is full.
 * @param {BookScreen} screen @param {Page} page
 */
function addItTo(screen, page) {
  return isFull(page) ? `add it on a new page (page ${screen.numberOf(page)} is full)` : `add it to page ${screen.numberOf(page)}`;
}

/** What was copied goes on the page; the server refuses more than its clipboard limit, in words. @param {BookScreen} screen */
export async function paste(screen) {
  const page = screen.currentPage();
  if (!page) return;
  let text = "";
  try {
    text = await navigator.clipboard.readText();
  } catch {
    const typed = await textDialog("Paste", "Paste here (the browser did not let the app read the clipboard)");
    if (!typed) return;
    text = typed;
  }
  // Too long is said first: on a full page it was said only after "New page" had made an empty one (walk11).
  const max = screen.catalog.clipboardMaxCharacters ?? 140;
  if ([...text].length > max) {
    screen.say(`Clipboard text is at most ${max} characters; this is ${[...text].length}. Copy a shorter passage or type it as keyboard text.`,
      { action: ["Write it instead", () => write(screen, text)] });
    return;
  }
  const slot = await whereOnPage(screen, page, () => paste(screen));
  if (slot === undefined) return;
  await insert(screen, { kind: "clipboard", text }, slot, ["Write it instead", () => write(screen, text)]);
}

/** @param {BookScreen} screen */
export function picturePicker(screen) {
  /** @type {number | null} */
  let slot = null;
  const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", hidden: true,
    onchange: () => { const file = input.files?.[0]; input.value = ""; if (file) insert(screen, file, slot); } }));
  const choose = async () => {
    const page = screen.currentPage();
    if (!page) return;
    const where = await whereOnPage(screen, page, choose);
    if (where === undefined) return;
    slot = where;
    input.click();
  };
  return h("span", { class: "picker" }, h("button", { type: "button", class: "secondary", onclick: choose }, "Picture"), input);
}

/** @param {BookScreen} screen */
export async function undo(screen) {
  const now = screen.currentPage();
  const here = now ? screen.numberOf(now) : undefined;
  /** @type {Map<string, import("./notebook-model.js").Item>} */
  const shown = new Map((screen.content?.pages ?? []).flatMap((p) => p.items.map((item) => /** @type {[string, any]} */ ([item.id, item]))));
  // What this phone did last: the server undoes it only while nothing was done since on another phone.
  const path = `${N}/notebooks/${screen.nid}/undo`;
  const mine = lastMine(screen.ctx.sync, screen.nid);
  // An item never made (its insert refused) is nothing of this phone's to undo; one still waiting
  // is named by its local id, which the outbox turns into the server's before the undo goes.
  const item = isLocal(mine) && !screen.queues(path) ? "" : mine;
  const answer = await screen.change({ method: "POST", path, body: { item }, kind: NOTEBOOK, id: screen.nid });
  if (answer === undefined) return;
  // The page undo changed is shown (it may not be the one in view), and said.
  /** @type {number | undefined} */
  const page = typeof answer?.page === "number" ? answer.page : here;
  screen.reload(page);
  const restored = answer?.restored;
  const was = restored ? shown.get(restored.id) : undefined;
  // A move or resize undone puts the item back where it was; a change of text, its text.
  const placed = was && restored.frame && JSON.stringify(was.frame) !== JSON.stringify(restored.frame) && was.text === restored.text;
  const what = restored ? (placed ? `the ${restored.kind === "image" ? "picture" : "text"} is back where it was` : "the text is back to what it was")
    : answer?.removed ? `the last ${answer.removed.kind === "image" ? "picture" : "text"} added is removed` : "";
  say(what ? `Undone: ${what}${page ? ` on page ${page}` : ""}.` : "Undone.");
}

/**
 * UC-6: an item's choices, on a tap (or Enter): change its text, or remove it after confirming.
 * @param {Item} item
 * @param {BookScreen} screen
 */
export async function itemMenu(screen, item) {
  if (!screen.editable) return;
  const choice = await chooseDialog(item.kind === "image" ? "A picture" : "Text on the page", [{ name: "action", label: "What to do",
    options: [...(item.kind === "image" ? [] : [["edit", "Change the text"]]), ["remove", "Remove it"]].map((o) => /** @type {[string, string]} */ (o)) }]);
  if (!choice) return;
  if (choice.action === "edit") return editItem(screen, item);
  if (!(await confirmAction(removeQuestion(screen, item), "Remove"))) return;
  await removeItem(screen, item);
}

/** What removing `item` asks first (the item menu's dialog, the room's overlay). @param {BookScreen} screen @param {Item} item */
export function removeQuestion(screen, item) {
  return `Remove ${itemWords(item)} from page ${screen.index}? Undo cannot bring it back.`;
}

/** An item in a few words: “its text” (cut at 40 characters), or “this picture”. @param {Item} item */
export function itemWords(item) {
  return item.kind === "image" ? "this picture" : `“${(item.text ?? "").length > 40 ? `${(item.text ?? "").slice(0, 39)}…` : item.text}”`;
}

/**
 * Removes `item` (asked first by the caller): at once online, else through the outbox. Answers as
 * `screen.change` does (undefined when refused, said).
 * @param {BookScreen} screen @param {Item} item
 */
export async function removeItem(screen, item) {
  const answer = await screen.change({ method: "DELETE", path: `${N}/notebooks/${screen.nid}/items/${item.id}`, kind: ITEM, id: item.id });
  if (answer === undefined) return undefined;
  screen.reload();
  say("Removed.");
  return answer;
}

/**
 * “Change the text”: the dialog with `typed` (else the item's text), kept as a draft while it is typed.
 * @param {Item} item @param {string} [typed] @param {import("./notebook-drafts.js").Draft} [was] a draft given back @param {BookScreen} screen
 * @param {string} [hint] why it opened with these words (the server refused them: its message, said in the dialog)
 */
export async function editItem(screen, item, typed, was, hint) {
  const page = screen.currentPage();
  const where = { notebook: screen.nid, page: page?.id ?? "", item: item.id };
  const asked = askText({ title: "Change the text", label: "Its text", id: "nb-text", action: "Save", multiline: true,
    required: "Type something first, or tap Cancel.", value: typed ?? item.text ?? "", hint });
  if (was) dropDraft(screen.account, was);
  if (page) keepDraft(screen.account, hint ? { ...where, why: hint } : where, "nb-text"); // a reload gives back the why too
  const text = await asked;
  if (!text || text === item.text) return dropDraft(screen.account, where);
  await changeText(screen, item, text, () => dropDraft(screen.account, where));
}

/**
 * `item`'s text becomes `text` (at once online, else the outbox), and the page shows it; when
 * another device had changed it meanwhile, what this replaced is said, with a way back. Answers
 * as `screen.change` does (undefined when refused, said with a way to try again).
 * @param {BookScreen} screen @param {Item} item @param {string} text
 * @param {() => void} [held] called the moment the change is safe (screen.change's `held`)
 */
export async function changeText(screen, item, text, held) {
  const answer = await screen.change({ method: "PATCH", path: `${N}/notebooks/${screen.nid}/items/${item.id}`, body: { text }, kind: ITEM, id: item.id,
    baseVersion: item.version || undefined }, (error) => error instanceof ApiError && error.status === 404
    // Removed meanwhile (maybe on another phone): what was typed is not lost, it can go on the page as a new text.
    ? ["Keep my text as a new text", () => write(screen, text, null, { notebook: screen.nid, page: screen.currentPage()?.id ?? "", item: item.id, text })]
    // Refused (too long, say): the words back in the dialog, with the server's reason in it.
    : ["Change the text", () => editItem(screen, item, text, undefined, refusedWhy(error))], held);
  if (answer === undefined) return undefined;
  screen.reload();
  // The server merged this change into the item as it is; when another device had changed the
  // same text since this phone read it, it answers what it replaced: said, with a way back.
  const theirs = answer?.replaced?.text;
  if (typeof theirs === "string" && theirs !== text) {
    const short = theirs.length > 60 ? `${theirs.slice(0, 59)}…` : theirs;
    const now = () => screen.content?.pages.flatMap((p) => p.items).find((i) => i.id === item.id) ?? item;
    screen.say(`Changed on another device meanwhile: your text replaced “${short}”.`,
      { action: ["Bring back theirs", () => editItem(screen, now(), bothTexts(theirs, text), undefined, BOTH_TEXTS)] });
    return answer;
  }
  // Waiting in the outbox, it is not changed on the server yet (and may still be refused there).
  if (answer === null) screen.say("No network: the change is kept on this phone and saved when the phone is online.", { alert: false });
  else say("Changed.");
  return answer;
}

/** What the dialog opened again after a refusal says: the server's sentence, and what to do. @param {unknown} error */
function refusedWhy(error) {
  return `Not saved: ${error instanceof ApiError ? error.message : "the server refused it."} Change it and save again, or Cancel to throw it away.`;
}

/**
 * The page showing deleted, once the person confirms the server's question (asked with `ask`: a
 * dialog, or the room's overlay). Resolves whether it was deleted.
 * @param {BookScreen} screen @param {(question: string, action: string) => Promise<boolean>} [ask]
 */
export async function deletePage(screen, ask) {
  const page = screen.currentPage();
  if (!page) return false;
  screen.say(null);
  const number = screen.numberOf(page);
  // A page made offline may still be drawn by its local id once the server has made it: its id there.
  const id = screen.ctx.sync.resolve(page.id);
  if (!(await confirmedDelete(screen, `${N}/notebooks/${screen.ctx.sync.resolve(screen.nid)}/pages/${id}`, ask))) return false;
  await screen.ctx.sync.pull();
  screen.reload(number); // the page that took its place, or the new last page
  say("Page deleted.");
  return true;
}

/** @param {BookScreen} screen */
export function share(screen) {
  const notebook = /** @type {Notebook} */ (screen.content?.notebook);
  return shareLink(screen.ctx.api, `${N}/notebooks/${notebook.id}/share`, {}, notebook.name, acceptLink);
}

/**
 * A read-only link to the notebook, for the room's overlay (which shows it, with Copy, in place of
 * the share sheet): `{link}`, or `{error}` in words (offline: sharing needs the network).
 * @param {BookScreen} screen @returns {Promise<{link?: string, error?: string}>}
 */
export function shareAddress(screen) {
  const notebook = /** @type {Notebook} */ (screen.content?.notebook);
  return linkFor(screen.ctx.api, `${N}/notebooks/${notebook.id}/share`, {}, notebook.name, acceptLink);
}

/** The link opens the app, which opens the notebook read-only for whoever signs in with it. @param {any} answer */
function acceptLink(answer) {
  return `${location.origin}/#/accept/${encodeURIComponent(answer.token)}`;
}

/**
 * FR3.2.3: the notebook's name, its cover's style (from the catalog) and the cover's text, in one
 * dialog on the cover; only what changed is sent (at once online, else through the outbox, drawn
 * at once either way). A refusal (a cover text over 60 characters) is said with “Change the cover”.
 * @param {BookScreen} screen @param {{name?: string, cover?: string, coverText?: string, coverItem?: string}} [typed] what was typed before a refusal
 */
export async function editCover(screen, typed = {}) {
  const notebook = /** @type {Notebook} */ (screen.content?.notebook);
  const covers = /** @type {Array<{id: string, summary: string}>} */ (screen.catalog.covers);
  const name = /** @type {HTMLInputElement} */ (h("input", { id: "nb-cover-name", value: typed.name ?? notebook.name, autocomplete: "off", maxlength: "80" }));
  const text = /** @type {HTMLInputElement} */ (h("input", { id: "nb-cover-text", value: typed.coverText ?? notebook.coverText ?? "", autocomplete: "off",
    maxlength: "60", "aria-describedby": "nb-cover-text-hint" }));
  const style = typed.cover ?? notebook.cover;
  // FR3.2.3's image cover: one of the notebook's own pictures (kept by the server; none, the style's colours).
  const pictures = (screen.content?.pages ?? []).flatMap((page, n) => page.items.filter((i) => i.kind === "image" && !i.pending).map((item) => ({ item, number: n + 1 })));
  const pictureNow = typed.coverItem ?? notebook.coverItem ?? "";
  const error = h("p", { class: "error", role: "alert", id: "nb-cover-error" });
  const form = /** @type {HTMLFormElement} */ (h("form", { method: "dialog", class: "stack", novalidate: true, onsubmit: (/** @type {SubmitEvent} */ event) => {
    if (event.submitter?.getAttribute("value") === "cancel" || name.value.trim()) return;
    event.preventDefault();
    error.textContent = "The notebook needs a name; type one, or tap Cancel.";
    name.focus();
  } },
  h("h2", { id: "nb-cover-title" }, "Cover and name"),
  h("label", { for: "nb-cover-name" }, "Name"), name,
  h("fieldset", { class: "choices" }, h("legend", {}, "Cover"),
    ...covers.map((c) => h("label", { class: "choice" }, h("input", { type: "radio", name: "cover", value: c.id, checked: c.id === style }), c.summary))),
  pictures.length ? h("fieldset", { class: "choices" }, h("legend", {}, "Picture on the cover"),
    h("label", { class: "choice" }, h("input", { type: "radio", name: "coverItem", value: "", checked: !pictureNow }), "None: the style's colours"),
    ...pictures.map(({ item, number }) => {
      const thumb = h("img", { alt: "", class: "cover-choice" });
      if (item.image) pictureURL(screen.ctx, item.image, BOUNDS.ar).then((url) => thumb.setAttribute("src", url)).catch(() => {});
      return h("label", { class: "choice" }, h("input", { type: "radio", name: "coverItem", value: item.id, checked: item.id === pictureNow }), thumb, `The picture on page ${number}`);
    })) : null,
  h("label", { for: "nb-cover-text" }, "Text on the cover"), text,
  h("p", { class: "hint", id: "nb-cover-text-hint" }, "One line, up to 60 characters; empty shows the name."),
  error,
  h("div", { class: "row" }, cancelButton(),
    h("button", { type: "submit", value: "ok" }, "Save"))));
  const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm", "aria-labelledby": "nb-cover-title" }, form));
  const chosen = await new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (dialog.returnValue !== "ok") return resolve(null);
      const data = new FormData(form);
      resolve({ name: name.value.trim(), cover: String(data.get("cover") ?? style), coverText: text.value.trim(), coverItem: String(data.get("coverItem") ?? pictureNow) });
    });
    showDialog(dialog);
    name.focus();
  });
  if (!chosen) return;
  /** @type {Record<string, string | null>} */
  const body = {};
  if (chosen.name !== notebook.name) body.name = chosen.name;
  if (chosen.cover !== notebook.cover) body.cover = chosen.cover;
  if (chosen.coverText !== (notebook.coverText ?? "")) body.coverText = chosen.coverText || null;
  if (chosen.coverItem !== (notebook.coverItem ?? "")) body.coverItem = chosen.coverItem || null;
  if (chosen.coverItem && chosen.cover !== "image") body.cover = "image"; // a picture chosen is shown: the image cover
  if (!Object.keys(body).length) return;
  const answer = await screen.change({ method: "PATCH", path: `${N}/notebooks/${screen.nid}`, body, kind: NOTEBOOK, id: screen.nid },
    ["Change the cover", () => editCover(screen, chosen)]);
  if (answer === undefined) return;
  screen.reload();
  say(answer === null ? "The cover is changed on this phone; it goes to the server when the phone is online." : "Cover changed.");
}

/** @type {WeakMap<Blob, string>} */
const blobURLs = new WeakMap();

/** An object URL for a picture waiting in the outbox (one per picture, however often it is drawn). @param {Blob} blob */
export function blobURL(blob) {
  let url = blobURLs.get(blob);
  if (!url) {
    url = URL.createObjectURL(blob);
    blobURLs.set(blob, url);
  }
  return url;
}

/** A picture's width ÷ height, to draw it where the server will put it; undefined when it cannot be read. @param {Blob} blob */
async function aspectOf(blob) {
  try {
    const bitmap = await createImageBitmap(blob);
    const aspect = bitmap.width / Math.max(1, bitmap.height);
    bitmap.close();
    return aspect;
  } catch {
    return undefined;
  }
}

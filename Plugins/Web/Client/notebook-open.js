// @ts-check
/**
 * AR Notebook's notebook screen opening its notebook (UC-3: the one opened last, or a new default
 * one; offline the one this phone opened last, or one made here and sent later). Functions of the
 * screen (screen-notebook.js's BookScreen.load), which draws it.
 */
import { ApiError } from "./api.js";
import { catalogOf } from "./notebook-element.js";
import { giveBackDraft } from "./notebook-edits.js";
import { keepFromServer, localNotebooks, N, NOTEBOOK } from "./notebook-model.js";
import { BOUNDS, keepPictures } from "./picture-cache.js";
import { resendCutOff } from "./notebook-send.js";
import { isLocal, localId } from "./outbox.js";
import { h } from "./ui.js";

/** @typedef {import("./screen-notebook.js").BookScreen} BookScreen */

/**
 * Opens the screen's notebook: the phone's synced copy (a notebook made here may be named by the
 * id it had before the server gave it one), else the server's, kept with the feed's (a notebook
 * shared with this user, or not here yet); then drawn, a draft typed before given back, and (online)
 * its pictures kept on the phone. Not on the phone and no network: said, and opened once online.
 * @param {BookScreen} screen
 */
export async function openBook(screen) {
  screen.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Notebook"), h("p", { class: "hint", role: "status" }, "Opening…")));
  const sync = screen.ctx.sync;
  try {
    // Texts a reload cut off on their way to the server: into the outbox, sent again with their keys.
    await resendCutOff(sync, screen.account);
    screen.catalog = await catalogOf(screen.ctx);
    // A notebook made on this phone may be named by the id it had before the server gave it one.
    let id = screen.id_ ? sync.resolve(screen.id_) : "";
    if (!id) id = await openLast(screen);
    screen.notebookId = id;
    const local = screen.current();
    if (!local || local.notebook.access !== "owner") {
      // Not here yet, or another's (shared with this user, or found near its pin): the server's copy,
      // kept with the feed's (another's pages never come through this user's feed: a finder opened
      // the owner's notebook as it was when first found, its new pages missing; walk11).
      if (navigator.onLine) await sync.pull();
      if (!isLocal(screen.nid)) {
        try {
          const content = await screen.ctx.api.get(`${N}/notebooks/${encodeURIComponent(screen.nid)}`);
          screen.fallback = content;
          await keepFromServer(sync, content);
        } catch (error) {
          if (!local || !(error instanceof ApiError && error.offline)) throw error;
        }
      }
    }
    screen.content = screen.current();
    if (!screen.content) throw new ApiError("This notebook is not on this phone, and the server does not know it.", 404);
    localStorage.setItem("quire.ar.last", screen.content.notebook.id);
    const wanted = Number(sessionStorage.getItem(`quire.ar.page.${screen.content.notebook.id}`) ?? "0");
    screen.index = screen.target = Math.min(wanted, screen.content.pages.length);
    screen.render();
    void giveBackDraft(screen);
    // Opened online: its pictures kept on the phone, to show offline later.
    if (navigator.onLine) void keepPictures(screen.ctx, screen.content.pages.flatMap((p) => p.items).flatMap((i) => (i.kind === "image" && i.image ? [i.image] : [])), BOUNDS.ar);
  } catch (error) {
    // Not on the phone and no network: said as it is (nothing of the user's waits), and opened
    // as soon as the network is back.
    const offline = error instanceof ApiError && error.offline;
    if (offline) screen.whenOnline(() => screen.load());
    screen.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Notebook"),
      offline ? h("p", { class: "warning", role: "status" }, `${screen.id_ ? "This notebook" : "Your notebook"} is not on this phone yet; it opens when the phone is online.`)
        : h("p", { class: "error", role: "alert" }, error instanceof ApiError ? error.message : "The notebook could not be opened; try again."),
      h("a", { href: "#/notebooks", class: "button secondary" }, "My notebooks")));
  }
}

/**
 * UC-3: the notebook opened last, or a new default one. Online the server says which (and keeps
 * when it was opened); offline, the one this phone opened last, or one made here and sent later.
 * @param {BookScreen} screen @returns {Promise<string>}
 */
async function openLast(screen) {
  const sync = screen.ctx.sync;
  try {
    const answer = await screen.ctx.api.request("POST", `${N}/open`, { body: {} });
    screen.fallback = answer.body;
    return answer.body.notebook.id;
  } catch (error) {
    if (!(error instanceof ApiError && error.offline)) throw error;
  }
  const last = sync.resolve(localStorage.getItem("quire.ar.last") ?? "");
  const { mine, shared } = localNotebooks(sync);
  const found = [...mine, ...shared].find((n) => n.id === last) ?? mine[0];
  if (found) return found.id;
  if (!sync.db) throw new ApiError("offline", null);
  const id = localId();
  await sync.write({ method: "POST", path: `${N}/notebooks`, body: { name: "My notebook", cover: "colors" }, kind: NOTEBOOK, id });
  return id;
}

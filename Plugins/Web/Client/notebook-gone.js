// @ts-check
/**
 * The notebook on screen was deleted on another device (or its share link taken back). What was
 * being written in it and not added yet ("Write on the page", "Change the text": drafts,
 * notebook-drafts.js) is not left behind unseen: the dialog being typed in goes (its Add went
 * nowhere, silently) and the text is shown here, with "Copy the text" and Discard. It stayed in
 * localStorage under a notebook that never opens again.
 */
import { draftsOf, dropDraft } from "./notebook-drafts.js";
import { announce, confirmAction, h } from "./ui.js";

/**
 * The screen saying the notebook is gone, with the texts being written in it.
 * @param {{account: string, ctx: {sync: import("./sync.js").Sync}}} screen @param {string} nid
 */
export function goneScreen(screen, nid) {
  for (const dialog of document.querySelectorAll("body > dialog[open]")) if (dialog.querySelector("#nb-text")) dialog.remove();
  const drafts = draftsOf(screen.account, [nid, screen.ctx.sync.resolve(nid)]);
  const kept = drafts.map((draft) => {
    const row = h("li", { class: "nb-said" }, h("p", {}, `“${draft.text}”`),
      h("div", { class: "row" },
        h("button", { type: "button", onclick: async () => {
          try {
            await navigator.clipboard.writeText(draft.text);
            announce("Copied: paste it where you want to keep it.");
          } catch {
            announce("This phone did not let the text be copied: select it above and copy it.");
          }
        } }, "Copy the text"),
        h("button", { type: "button", class: "secondary", onclick: async () => {
          if (!(await confirmAction("Discard what you wrote? It cannot be brought back.", "Discard"))) return;
          dropDraft(screen.account, draft);
          row.remove();
          announce("Discarded.");
        } }, "Discard")));
    return row;
  });
  return h("main", { class: "screen" }, h("h1", {}, "Notebook"),
    h("p", { class: "warning", role: "status" }, "This notebook is no longer here: it was deleted, or its link was taken back."),
    kept.length ? h("p", {}, "What you were writing in it is kept on this phone:") : null,
    kept.length ? h("ul", { class: "rows", "aria-label": "What you were writing" }, ...kept) : null,
    h("a", { href: "#/notebooks", class: "button secondary" }, "My notebooks"));
}

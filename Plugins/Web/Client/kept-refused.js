// @ts-check
/**
 * What a person wrote offline that the server then refused for what it carries (422 too long, a
 * character it does not take; 413 too large; 409 that is not a version conflict), its target still
 * there: the words are kept on this phone (kept.js, `refused`) with the server's message, never
 * resent as they are. The header's notice says what went wrong and what to do, with "Edit and send
 * again" (the app's `edit`: the words back in the form they were typed in, to fix) and "Discard".
 */
import { keptKind, quoted, refusedWhy } from "./kept.js";
import { announce, confirmAction, h } from "./ui.js";

/** Refused words given back to a form: kept id → the route they were given back on. @type {Map<string, string>} */
const editing = new Map();

/** Whether the kept record's words are in the form showing now (its notice not said again meanwhile). @param {string} id */
export function beingEdited(id) {
  const at = editing.get(id);
  if (at === undefined) return false;
  if (at === location.hash) return true;
  editing.delete(id);
  return false;
}

/** The sentence: what the server said went wrong, and what is kept. @param {import("./kept.js").Kept} kept */
export function describeRefused(kept) {
  const how = keptKind(kept.kind);
  let what = "Your change";
  try {
    what = how?.name?.(kept) ?? what;
  } catch {
    // The app's words failed: the plain ones.
  }
  // The longest of what was typed (a note's text rather than its title; never a kind's name).
  const text = Object.values(kept.fields).filter((v) => typeof v === "string" && v.trim())
    .sort((x, y) => y.length - x.length)[0];
  const why = refusedWhy(kept);
  // Nothing typed (a picture's crop): "it is kept", not "what you typed".
  return `${what} could not be saved: ${why} ${text ? `What you typed is kept on this phone: ${quoted(text)}` : "It is kept on this phone"}. `
    + "Edit it and send it again, or discard it.";
}

/**
 * The header's notice for refused words (app.js keptNotice), first in `notices`.
 * @param {import("./sync.js").Sync} sync @param {import("./kept.js").Kept} kept @param {HTMLElement} notices
 * @param {(hash: string) => void} go
 */
export function refusedNotice(sync, kept, notices, go) {
  const how = keptKind(kept.kind);
  notices.querySelector(`[data-kept="${CSS.escape(kept.id)}"]`)?.remove();
  if (!how || beingEdited(kept.id)) return;
  const text = describeRefused(kept);
  const bar = h("div", { class: "notice kept refused", role: "alert", "data-kept": kept.id }, h("p", {}, text),
    h("div", { class: "row" },
      how.edit ? h("button", { type: "button", onclick: async () => {
        try {
          const hash = await /** @type {NonNullable<typeof how.edit>} */ (how.edit)(kept, sync, sync.api.session?.accountId ?? "");
          bar.remove();
          if (sync.kept.some((k) => k.id === kept.id)) editing.set(kept.id, hash);
          go(hash);
        } catch {
          const p = bar.querySelector("p");
          if (p) p.textContent = `${text} That did not work on this phone; try again, or copy the text from here.`;
        }
      } }, "Edit and send again") : null,
      h("button", { type: "button", class: "secondary", onclick: async () => {
        if (!(await confirmAction("Discard what you wrote? It cannot be brought back.", "Discard"))) return;
        bar.remove();
        await sync.dropKept(kept.id);
        announce("Discarded.");
      } }, "Discard")));
  const discard = /** @type {HTMLElement | null} */ (bar.querySelector(".row button.secondary"));
  if (discard) Object.assign(discard.style, { whiteSpace: "nowrap", flex: "none" });
  notices.prepend(bar);
  bar.scrollIntoView({ block: "nearest" });
}

/**
 * A form over record `keys` (`kind/id`, its local and server ids) opened by "Edit and send again":
 * the refused words back in its fields (held, not sent until the person changes them), the
 * server's message above them with Discard. Once typed in, what is typed is sent as any edit and
 * the kept record goes.
 * @param {import("./sync.js").Sync} sync @param {import("./follow.js").FollowedForm} form @param {string[]} keys
 * @param {HTMLElement | null} after where the message goes (after it)
 */
export function giveBackRefused(sync, form, keys, after) {
  const kept = sync.kept.find((k) => k.refused && keys.includes(k.id) && editing.has(k.id));
  if (!kept || !after) return;
  const names = Object.keys(kept.fields).filter((name) => typeof kept.fields[name] === "string" && form.fields.has(name));
  for (const name of names) form.refill(name, kept.fields[name]);
  const message = kept.refused?.message ?? "the server refused it.";
  // Over a length limit: how long it is now, so the person knows how much to take out.
  const longest = Math.max(0, ...names.map((name) => [...String(kept.fields[name])].length));
  const length = /at most [\d,.]+ characters/.test(message) && !/this is \d/.test(message) ? ` Yours is ${longest.toLocaleString("en")} characters.` : "";
  const line = h("div", { class: "notice refused-back", role: "alert", id: "refused-back" },
    h("p", {}, `Not saved: ${message}${length} What you typed is back below: change it, and it is sent again.`),
    h("button", { type: "button", class: "secondary", onclick: async () => {
      if (!(await confirmAction("Discard what you wrote? It cannot be brought back.", "Discard"))) return;
      done();
      form.unfill();
      announce("Discarded.");
    } }, "Discard"));
  const done = () => {
    line.remove();
    editing.delete(kept.id);
    void sync.dropKept(kept.id);
    for (const name of names) form.fields.get(name)?.input.removeEventListener("input", done);
  };
  for (const name of names) form.fields.get(name)?.input.addEventListener("input", done);
  after.after(line);
}

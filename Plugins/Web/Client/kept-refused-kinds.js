// @ts-check
/**
 * Each app's part of kept-refused.js: for a write the server refused for what it carries (too
 * long, a character it does not take…), what of it is kept, how the thing is named, and where
 * "Edit and send again" puts the words back: the form they were typed in, as that form's own draft
 * where it keeps one (a word's Save form, an AR page's Write dialog), or held in the note's fields.
 */
import { keptKind, pickFields, quoted, refusedWhy } from "./kept.js";
import { putDraft } from "./notebook-drafts.js";
import { keepEditDraft } from "./photo-edit-draft.js";
import { BOTH_TEXTS, bothTexts } from "./notebook-model.js";

/** Adds the refused-words hooks to a kind kept-kinds.js registered. @param {string} kind @param {Partial<import("./kept.js").KeptKind>} hooks */
function add(kind, hooks) {
  const how = keptKind(kind);
  if (how) Object.assign(how, hooks);
}

// Napkin Notes: the note's fields, held in its editor until the person changes them.
add("notes.note", {
  pickRefused: (write) => pickFields(write.body, ["title", "text", "date", "category"]),
  name: (kept) => {
    const title = kept.seen?.title || kept.fields.title;
    return title ? `Your change to the note ${quoted(title, 40)}` : "Your change to a note";
  },
  edit: async (kept) => `#/notes/${encodeURIComponent(kept.recordId)}`,
});

// Foreign Note: the word's form, given its draft (a word's Save sends it; nothing goes by itself).
const TEXTS = ["word", "definitions", "languages", "example", "note"];
add("vocabulary.entry", {
  pickRefused: (write) => (write.method === "PATCH" || (write.method === "POST" && write.path.endsWith("/entries"))
    ? pickFields(write.body, [...TEXTS, "collection"]) : null),
  name: (kept) => {
    const word = kept.seen?.word || kept.fields.word;
    return word ? `The word ${quoted(word, 40)}` : "Your word";
  },
  edit: async (kept, sync) => {
    /** @type {Record<string, string>} */
    const texts = {};
    for (const name of TEXTS) {
      const value = kept.fields[name];
      if (value === undefined || value === null) continue;
      texts[name] = Array.isArray(value) ? value.join(name === "definitions" ? "\n" : ", ") : String(value);
    }
    const id = sync.resolve(kept.recordId);
    const editing = kept.path.split("?")[0].split("/").includes(kept.recordId) && sync.one("vocabulary.entry", id);
    const key = editing ? `vocabulary.entry/${id}` : `vocabulary.new/${sync.resolve(String(kept.fields.collection ?? ""))}`;
    // The form's own draft, with why it was refused (not a field: the form says it, then lets it go).
    localStorage.setItem(`quire.draft.${key}`, JSON.stringify({ ...texts, refused: kept.refused?.message ?? "" }));
    await sync.dropKept(kept.id);
    return editing ? `#/edit/${encodeURIComponent(id)}` : `#/new/${encodeURIComponent(key.slice(key.indexOf("/") + 1))}`;
  },
});

// iRemember: a photo's notes, held in its Mark up screen until the person changes them.
// Its Edit picture (crop, turn, straighten) refused, the picture edited on another phone meanwhile:
// the same edit back in Edit picture, on the picture as it is now, to check and save again.
const pictureEdit = (/** @type {{path: string}} */ kept) => kept.path.split("?")[0].endsWith("/edit");
add("album.photo", {
  pickRefused: (write) => (pictureEdit(write) ? pickFields(write.body, ["rotate", "straighten", "crop"])
    : write.method === "PATCH" ? pickFields(write.body, ["notes"]) : null),
  name: (kept) => {
    const caption = kept.seen?.caption ? quoted(kept.seen.caption, 40) : "";
    if (pictureEdit(kept)) return caption ? `Your edit of the picture ${caption}` : "Your edit of a picture";
    return caption ? `Your notes for the photo ${caption}` : "Your notes for a photo";
  },
  why: (kept) => (pictureEdit(kept) && kept.refused?.status === 409 ? "it was edited on another phone meanwhile, so yours was not made." : undefined),
  edit: async (kept, sync) => {
    const id = sync.resolve(kept.recordId);
    if (!pictureEdit(kept)) return `#/photo/${encodeURIComponent(id)}/markup`;
    const photo = sync.one("album.photo", id);
    if (photo) {
      keepEditDraft(id, kept.fields, photo, "Your edit is back on the picture as it is now (it was edited on another phone meanwhile): "
        + "check it, then Save, or Start over.");
    }
    await sync.dropKept(kept.id);
    return `#/photo/${encodeURIComponent(id)}/edit`;
  },
});

// AR Notebook: the text, back in the page's Write (or Change the text) dialog, as its draft.
add("notebooks.item", {
  pickRefused: (write) => {
    const picked = pickFields(write.body, ["kind", "text", "slot"]);
    return picked?.text ? picked : null;
  },
  name: (kept) => (kept.path.split("?")[0].endsWith("/items") ? "Your text" : "Your change of a text"),
  // The box chosen was filled meanwhile (on the other phone): said in the screen's words, not the
  // API's ("Slot 0 … leave 'slot' out").
  why: (kept) => (kept.refused?.status === 409 && typeof kept.fields.slot === "number"
    ? "the box you chose on that page was filled meanwhile, on another phone; choose where it goes now." : undefined),
  edit: async (kept, sync, account) => {
    const { notebook, page, item } = notebookPlace(kept.path, sync);
    const slot = typeof kept.fields.slot === "number" ? kept.fields.slot : null;
    putDraft(account, { notebook, page, ...(item ? { item } : { slot }), text: String(kept.fields.text ?? ""),
      why: `Not saved: ${refusedWhy(kept)} Change it and ${item ? "save" : "add"} it again, or Cancel to throw it away.` });
    await sync.dropKept(kept.id);
    return `#/n/${encodeURIComponent(notebook)}`;
  },
  // A text changed here that replaced the other phone's: both in Change the text, theirs first, as
  // the online answer offers them (notebook-edits.js changeText); saved from there like any change,
  // so this phone never takes it for another device's afterwards (notebook-overwrites.js).
  bringBackTheirs: (replaced) => (typeof replaced.text !== "string" ? undefined : (write, sync, account) => {
    const { notebook, page, item } = notebookPlace(write.path, sync);
    const now = String((item && sync.one("notebooks.item", item)?.text) ?? "");
    putDraft(account, { notebook, page, item, text: bothTexts(replaced.text, now), why: BOTH_TEXTS });
    return `#/n/${encodeURIComponent(notebook)}`;
  }),
});

/**
 * The notebook, page and item an AR write's path names (`…/notebooks/{n}/items/{i}` or
 * `…/notebooks/{n}/pages/{p}/items`), as this phone knows them now.
 * @param {string} path @param {import("./sync.js").Sync} sync
 */
function notebookPlace(path, sync) {
  const parts = path.split("?")[0].split("/").map((s) => decodeURIComponent(s));
  const notebook = sync.resolve(parts[parts.indexOf("notebooks", 4) + 1] ?? "");
  const itemAt = parts.indexOf("items");
  const item = itemAt >= 0 && parts[itemAt + 1] ? sync.resolve(parts[itemAt + 1]) : undefined;
  const page = item ? String(sync.one("notebooks.item", item)?.page ?? "") : sync.resolve(parts[parts.indexOf("pages") + 1] ?? "");
  return { notebook, page, item };
}

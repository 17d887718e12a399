// @ts-check
/**
 * Each app's part of `kept.js`: for its record kinds, what of a write refused because its target was
 * deleted on another device is kept, the sentence naming it (by its title, word, caption or page —
 * never an id), and the same way back the app offers when it sees the deletion online.
 */
import { localId } from "./outbox.js";
import { pickFields, quoted, registerKept, registerRemember } from "./kept.js";

const today = () => new Date().toISOString().slice(0, 10);

// Napkin Notes: a note's title and text, and the drawing on its back.
const NOTE_FIELDS = ["title", "text", "date", "category"];
/** A drawing with something on it. @param {any} drawing */
const drawn = (drawing) => Boolean(drawing && typeof drawing === "object" && (drawing.strokes?.length || drawing.texts?.length));
registerKept("notes.note", {
  // The back's drawing too (walk10: drawn offline, it was lost with the note; the way back kept the text only).
  pick: (write) => (write.method === "PATCH" ? pickFields(write.body, NOTE_FIELDS)
    : write.method === "PUT" && write.path.endsWith("/drawing") && drawn(write.body) ? { drawing: write.body } : null),
  pickRefused: (write) => (write.method === "PATCH" ? pickFields(write.body, NOTE_FIELDS) : null),
  describe: (kept) => {
    const title = kept.seen?.title || kept.fields.title;
    const typed = ["title", "text"].some((name) => kept.fields[name]);
    const what = typed && drawn(kept.fields.drawing) ? "What you typed and drew is" : typed ? "What you typed is" : "What you drew on its back is";
    return `The note ${title ? quoted(title) : "you changed offline"} was deleted on another phone, so your changes could not be saved with it. `
      + `${what} kept on this phone${kept.fields.text ? `: ${quoted(kept.fields.text)}` : ""}.`;
  },
  action: (kept) => (["title", "text"].some((name) => kept.fields[name]) || !drawn(kept.fields.drawing) ? "Keep my text as a new note" : "Keep my drawing as a new note"),
  recover: async (kept, sync) => {
    const seen = kept.seen ?? {};
    const f = kept.fields;
    const category = f.category ?? seen.category;
    const id = localId();
    await sync.write({ method: "POST", path: "/api/v1/notes", kind: "notes.note", id,
      body: { title: f.title ?? seen.title ?? "", text: f.text ?? seen.text ?? "", date: f.date || seen.date || today(), ...(category ? { category } : {}) } });
    // Its back: sent once the note is made (the outbox gives the write the note's id then).
    if (drawn(f.drawing)) await sync.write({ method: "PUT", path: `/api/v1/notes/${id}/drawing`, body: f.drawing, kind: "notes.note", id });
    return { text: "Kept as a new note.", route: `#/notes/${encodeURIComponent(id)}` };
  },
});

// Foreign Note: a word's fields.
const WORD_FIELDS = ["word", "definitions", "languages", "example", "note", "tags", "collection"];
registerKept("vocabulary.entry", {
  pick: (write) => (write.method === "PATCH" ? pickFields(write.body, WORD_FIELDS) : null),
  describe: (kept, sync) => {
    const word = kept.seen?.word || kept.fields.word;
    // Deleted with its collection (the other phone deleted the collection), not on its own: said so.
    const collection = String(kept.fields.collection ?? kept.seen?.collection ?? "");
    const withIt = Boolean(sync && collection && !sync.one("vocabulary.collection", sync.resolve(collection)));
    return `The word ${word ? quoted(word) : "you changed offline"} was deleted on another device${withIt ? ", with its collection" : ""}, `
      + "so your changes could not be saved with it. What you typed is kept on this phone: add it again as a new word"
      + `${withIt ? " (it goes in your first collection)" : ""}, or discard it.`;
  },
  action: "Add it again as a new word",
  recover: async (kept, sync) => {
    const seen = kept.seen ?? {};
    /** @type {Record<string, any>} */
    const body = {};
    for (const name of WORD_FIELDS) {
      const value = kept.fields[name] !== undefined ? kept.fields[name] : seen[name];
      if (value !== undefined) body[name] = value;
    }
    // Its collection deleted too: the first one left.
    const collections = sync.view("vocabulary.collection");
    if (!collections.some((c) => c.id === body.collection) && collections[0]) body.collection = collections[0].id;
    const id = localId();
    await sync.write({ method: "POST", path: "/api/v1/vocabulary/entries", kind: "vocabulary.entry", id, body });
    return { text: `${body.word ?? "The word"} added again.`, route: `#/e/${encodeURIComponent(id)}` };
  },
});

/** A day as people say it ("20 July 2026"). @param {unknown} when */
function day(when) {
  const date = new Date(String(when));
  return Number.isNaN(date.getTime()) ? String(when).slice(0, 10)
    : date.toLocaleDateString(undefined, { day: "numeric", month: "long", year: "numeric" });
}

// iRemember: a photo's notes (the photo itself cannot come back: its notes are copied for the person).
/** What of a photo's change is the person's writing: its caption, notes and tags (a time or place is not kept). */
const PHOTO_WRITTEN = ["caption", "notes", "tags"];
/** The kept writing of a photo in words, one part each: caption, notes, tags. @param {Record<string, any>} fields */
function photoWriting(fields) {
  return [
    fields.caption ? `the caption ${quoted(fields.caption, 120)}` : "",
    fields.notes ? `the notes ${quoted(fields.notes, 200)}` : "",
    Array.isArray(fields.tags) && fields.tags.length ? `the tag${fields.tags.length === 1 ? "" : "s"} ${fields.tags.map((t) => quoted(t, 40)).join(", ")}` : "",
  ].filter(Boolean);
}
registerKept("album.photo", {
  // A tags change carries the phone's whole list (added to the server's when sent): kept whole.
  pick: (write) => {
    const fields = write.method === "PATCH" ? pickFields(write.body, PHOTO_WRITTEN) : null;
    if (fields && Array.isArray(fields.tags) && !fields.tags.length) delete fields.tags;
    return fields && Object.keys(fields).length ? fields : null;
  },
  describe: (kept) => {
    const seen = kept.seen ?? {};
    const named = seen.caption ? `the photo ${quoted(seen.caption)}` : seen.notes ? `the photo with the notes ${quoted(seen.notes, 40)}`
      : seen.takenAt ? `the photo taken on ${day(seen.takenAt)}` : "a photo";
    const parts = photoWriting(kept.fields);
    if (parts.length === 1 && kept.fields.notes) {
      return `Your notes for ${named} could not be saved: the photo was deleted on another phone. `
        + `Your notes are kept on this phone: ${quoted(kept.fields.notes, 200)}. Copy them to keep them.`;
    }
    return `What you wrote for ${named} could not be saved: the photo was deleted on another phone. `
      + `It is kept on this phone: ${parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}` : parts[0]}. Copy it to keep it.`;
  },
  action: (kept) => (photoWriting(kept.fields).length === 1 && kept.fields.notes ? "Copy my notes" : "Copy what I wrote"),
  recover: async (kept) => {
    const { caption, notes, tags } = kept.fields;
    const only = photoWriting(kept.fields).length === 1 && notes;
    await navigator.clipboard.writeText(only ? String(notes) : [
      caption ? `Caption: ${caption}` : "", notes ? `Notes: ${notes}` : "", Array.isArray(tags) && tags.length ? `Tags: ${tags.join(", ")}` : "",
    ].filter(Boolean).join("\n"));
    return only ? "Your notes are copied: paste them where you want to keep them." : "What you wrote is copied: paste it where you want to keep it.";
  },
});

// AR Notebook: a text written on a page deleted on another phone (or a text changed that was removed).
const N = "/api/v1/notebooks";
// A page's number is its place in its notebook's order (the notebook record's `pages`).
registerRemember("notebooks.page", (page, records) => {
  const order = records.get(`notebooks.notebook/${page.notebook}`)?.pages;
  const at = Array.isArray(order) ? order.indexOf(page.id) : -1;
  return at >= 0 ? { ...page, number: at + 1 } : page;
});
registerKept("notebooks.item", {
  pick: (write) => {
    if (write.method === "POST" && write.path.endsWith("/items")) return pickFields(write.body, ["kind", "text"])?.text ? pickFields(write.body, ["kind", "text"]) : null;
    if (write.method === "PATCH") return pickFields(write.body, ["text"]);
    return null;
  },
  describe: (kept) => {
    const page = Object.entries(kept.around ?? {}).find(([key]) => key.startsWith("notebooks.page/"))?.[1];
    const text = quoted(kept.fields.text);
    return page
      ? `Your text ${text} could not go on ${typeof page.number === "number" ? `page ${page.number}` : "its page"}: that page was deleted on another phone. It is kept on this phone: keep it on another page, or discard it.`
      : `Your text ${text} could not be saved: it was removed on another phone. It is kept on this phone: keep it as a new text, or discard it.`;
  },
  action: "Keep my text as a new text",
  recover: async (kept, sync) => {
    const parts = kept.path.split("?")[0].split("/");
    const notebook = parts[parts.indexOf("notebooks", 4) + 1];
    const gone = Object.entries(kept.around ?? {}).find(([key]) => key.startsWith("notebooks.page/"))?.[1];
    const order = sync.one("notebooks.notebook", notebook)?.pages;
    const ids = Array.isArray(order) ? order : [];
    // The page before the one deleted (now at its place minus one), else the last; none: a new page.
    const at = typeof gone?.number === "number" ? Math.min(gone.number - 2, ids.length - 1) : ids.length - 1;
    const chosen = ids[Math.max(0, at)];
    const page = chosen ? { id: chosen, number: ids.indexOf(chosen) + 1 } : undefined;
    let pageId = page?.id;
    if (!pageId) {
      pageId = localId();
      await sync.write({ method: "POST", path: `${N}/notebooks/${notebook}/pages`, kind: "notebooks.page", id: pageId, recordAt: "page",
        body: { template: "blank", background: "white", after: 0 } });
    }
    // A change of a text kept only its text: it goes back as typed text (the server's kinds are "text" and "clipboard").
    const body = { kind: kept.fields.kind ?? "text", text: kept.fields.text };
    const id = localId();
    await sync.write({ method: "POST", path: `${N}/notebooks/${notebook}/pages/${pageId}/items`, kind: "notebooks.item", id,
      recordAt: "item", body, local: { kind: body.kind, text: body.text, slot: null } });
    const where = page ? `page ${page.number}` : "a new page";
    // Said only once the server has it: offline (or not answered yet) it waits on this phone.
    if (navigator.onLine && sync.state !== "offline") await sync.settled(10_000);
    if (sync.resolved.has(id)) return `Your text is on ${where}.`;
    if (sync.writes.some((w) => w.id === id)) {
      return `Your text is kept on this phone and goes on ${where} ${navigator.onLine && sync.state !== "offline" ? "as soon as the server has it" : "when the phone is online"}.`;
    }
    return ""; // refused: its own notice says why
  },
});

// @ts-check
/**
 * Foreign Note: a word added offline to a collection that another device deleted meanwhile. The
 * server refuses its create (404: the collection is gone); without this the word and everything
 * typed with it were dropped ("This word is not there any more."). It is kept like a word changed
 * offline and deleted elsewhere (kept-kinds.js): said by its word, with "Add it again as a new word"
 * (into a collection that is left, else a new one) and Discard.
 */
import "./kept-kinds.js";
import { localId } from "./outbox.js";
import { keptKind, pickFields, quoted, registerKept } from "./kept.js";

const FIELDS = ["word", "definitions", "languages", "example", "note", "tags", "collection"];
const ENTRIES = "/api/v1/vocabulary/entries";

/** Whether a write makes a new word. @param {{method: string, path: string}} write */
export function isWordCreate(write) {
  return write.method === "POST" && write.path.split("?")[0] === ENTRIES;
}

/** Whether what is kept came from a new word's create (its path is the entries' own). @param {import("./kept.js").Kept} kept */
function fromCreate(kept) {
  return kept.path.split("?")[0] === ENTRIES;
}

const base = keptKind("vocabulary.entry");
if (base) {
  registerKept("vocabulary.entry", {
    ...base,
    pick: (write) => (isWordCreate(write) ? pickFields(write.body, FIELDS) : base.pick(write)),
    describe: (kept, sync) => (fromCreate(kept)
      ? `Your new word ${quoted(kept.fields.word ?? "")} could not be added: its collection was deleted on another device. `
        + "What you typed is kept on this phone: add it again as a new word (in another collection), or discard it."
      : base.describe(kept, sync)),
    recover: async (kept, sync) => {
      if (!fromCreate(kept)) return base.recover(kept, sync);
      /** @type {Record<string, any>} */
      const body = {};
      for (const name of FIELDS) if (kept.fields[name] !== undefined) body[name] = kept.fields[name];
      const collections = sync.view("vocabulary.collection");
      let into = collections.find((c) => c.id === body.collection) ?? collections[0];
      if (!into) {
        // No collection left at all: one to hold it (a name taken meanwhile becomes that one, sync.js).
        into = { id: localId(), name: "Kept words" };
        await sync.write({ method: "POST", path: "/api/v1/vocabulary/collections", kind: "vocabulary.collection", id: into.id,
          body: { name: into.name } });
      }
      body.collection = into.id;
      await sync.write({ method: "POST", path: ENTRIES, kind: "vocabulary.entry", id: localId(), body });
      return `${quoted(body.word ?? "")} added again, to ${quoted(into.name ?? "")}.`;
    },
  });
}

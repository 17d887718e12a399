// @ts-check
/**
 * Foreign Note, as its use cases describe: collections (a required name, rename, delete with
 * confirmation), entries (word, definitions, languages, note, example, tags, related and
 * alternative entries as chips that open them), tags; a deleted entry comes back from the
 * "Deleted · Undo" bar within the server's window; search as you type over everything, with the
 * server's highlights online and the device's copy offline (`vocab.js`); import a CSV or an Anki
 * package with progress; export either as a download; review the words that are due (FSRS-6 on
 * the server; offline, the device's copy of the cards, the ratings queued like any write); help,
 * and a first-use tip for each task (`vocab-help.js`).
 */
import { keptUndo, EntryForm, EntryScreen } from "./vocab-entry.js";
import { followSaved } from "./vocab-overwrites.js";
import { FilesScreen } from "./vocab-files.js";
import { HelpScreen } from "./vocab-help.js";
import { CollectionScreen, CollectionsScreen, TagsScreen } from "./vocab-lists.js";
import { ReviewScreen } from "./vocab-review.js";
import { StatsScreen } from "./vocab-stats.js";
import { SearchScreen } from "./vocab-search.js";

export { spoken } from "./vocab-review.js";
export { CollectionScreen, CollectionsScreen, EntryForm, EntryScreen, FilesScreen, HelpScreen, ReviewScreen, SearchScreen, TagsScreen };

/** @typedef {import("./vocab-parts.js").Context} Context */

/**
 * The screen for a route: `parts` is the path after `#/`, `query` what follows `?`.
 * @param {Context} context @param {string[]} parts @param {string} query @returns {HTMLElement}
 */
export function vocabScreen(context, parts, query) {
  followSaved(context.sync); // a word's field this phone saved, replaced on another device: said on any screen, after a reload too
  const [first, id] = parts;
  /** @type {import("./vocab-parts.js").VocabElement} */
  let screen;
  if (first === "c" && id) screen = new CollectionScreen();
  else if (first === "e" && id) screen = new EntryScreen();
  else if (first === "new" && id) screen = new EntryForm();
  else if (first === "edit" && id) screen = new EntryForm();
  else if (first === "search") screen = new SearchScreen();
  else if (first === "tags") screen = new TagsScreen();
  else if (first === "files") screen = new FilesScreen();
  else if (first === "review") screen = new ReviewScreen();
  else if (first === "stats") screen = new StatsScreen();
  else if (first === "help") screen = new HelpScreen();
  else screen = new CollectionsScreen();
  screen.attach(context, first ?? "", id ?? "", new URLSearchParams(query));
  keptUndo(context);
  return screen;
}

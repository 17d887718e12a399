// @ts-check
/** Napkin Notes, as its manual describes: the list in the user's own order (drag, or the arrow
 * keys on a note's handle), a new note with today's date and "Title", editing, a photo from the
 * camera or the library, the original full screen with pinch-zoom, and the back to draw on. The
 * module the app loads; each screen is its own (defining its element): the list in notes-list.js,
 * the front in note-editor.js, the back in note-back.js, what they share in notes-parts.js. */
export { NotesList } from "./notes-list.js";
export { NoteEditor } from "./note-editor.js";
export { NoteBack } from "./note-back.js";

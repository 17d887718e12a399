// @ts-check
/**
 * Foreign Note's recorded pronunciation (needs `audio:` in the app's YAML): on a word, "Record the
 * pronunciation" (yours, a teacher's, a friend's), through the one recorder every app uses
 * (`voice-note.js`: the microphone asked for only on the tap, kept as Ogg Opus by the server's audio
 * plugin, queued when offline); a big Play button under the word, beside the speaker button. An
 * `.apkg` export carries it as Anki's `[sound:…]`, and an import brings it back.
 */
import { BOUNDS } from "./picture-cache.js";
import { ENTRY, V } from "./vocab-parts.js";
import "./voice-note.js";

/** @typedef {import("./vocab-parts.js").Context} Context */

/** Kept on the phone within Napkin's size of picture cache (recordings are small). @type {import("./voice-note.js").VoiceOptions} */
export const PRONUNCIATION = { kind: ENTRY, path: (id) => `${V}/entries/${id}/pronunciation`, field: "pronunciation", bound: BOUNDS.napkin,
  name: "Recorded pronunciation", record: "Record the pronunciation", play: "Play the recorded pronunciation" };

/** The word's recorder, kept while the word's screen is drawn again (a sync mid-recording keeps it recording). */
let kept = /** @type {{id: string, element: import("./voice-note.js").RecordedVoice} | null} */ (null);

/**
 * The word screen's part, or null when the app records no pronunciations.
 * @param {Context} context @param {string} id the entry's id @param {() => any} entry the entry as it is now
 */
export function pronunciation(context, id, entry) {
  if (!(/** @type {any} */ (context).features?.has("plugin:audio"))) return null;
  if (kept?.id !== id) {
    const element = /** @type {import("./voice-note.js").RecordedVoice} */ (document.createElement("recorded-voice"));
    element.classList.add("pronunciation");
    element.attach(/** @type {any} */ (context), entry, undefined, PRONUNCIATION);
    kept = { id, element };
  } else {
    kept.element.update(entry());
  }
  return kept.element;
}

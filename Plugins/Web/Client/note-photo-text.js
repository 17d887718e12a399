// @ts-check
/**
 * The text in a note's photo (apps with `notes: { photo_text: true }`): the server reads it with
 * Tesseract once the photo is uploaded, and the note says how that went (`photoTextState`:
 * reading, read, failed). Shown under the photo as "Text in this photo", collapsible; kept as it
 * is while the note changes around it (an open or closed fold stays so).
 */
import { h } from "./ui.js";
import { photoTextView } from "./capture-rules.js";

/**
 * Fills `box` (the editor's `.photo-text`) for `note`; nothing is redrawn when nothing changed.
 * @param {Element | null} box
 * @param {any} note
 */
export function showPhotoText(box, note) {
  if (!box) return;
  const view = photoTextView(note);
  const key = `${note.photo ?? ""}|${view.kind}|${view.text ?? ""}`;
  if (box.getAttribute("data-key") === key) return;
  box.setAttribute("data-key", key);
  switch (view.kind) {
    case "waiting":
      box.replaceChildren(h("p", { class: "hint" }, "The text in this photo is read once it has uploaded."));
      break;
    case "reading":
      box.replaceChildren(h("p", { class: "hint", role: "status" }, "Reading the text in this photo…"));
      break;
    case "read":
      box.replaceChildren(h("details", { class: "photo-text-found", open: "" },
        h("summary", {}, "Text in this photo"),
        h("p", {}, view.text ?? "")));
      break;
    case "empty":
      box.replaceChildren(h("p", { class: "hint" }, "No text was found in this photo."));
      break;
    case "failed":
      box.replaceChildren(h("p", { class: "hint" }, "The text in this photo could not be read; the photo is kept. A clearer or smaller photo may work."));
      break;
    default:
      box.replaceChildren();
  }
}

// @ts-check
/**
 * iRemember's Edit picture: crop, straighten, turn, back to the original (photo-editor.js), an
 * unsaved edit kept on the phone until Save or Cancel. The photo and its mark-up are album-photo.js.
 */
import { AlbumElement, KIND, PHOTOS, back, describe, loadMarkup, picture } from "./album-base.js";
import { isLocal } from "./outbox.js";
import { announce, confirmAction, h } from "./ui.js";
import { editBody, editedPicture, editMap, followEdit, keptState, stateOf } from "./photo-edit.js";
import { forgetEditDraft, keepEditDraft, keptEditDraft } from "./photo-edit-draft.js";
import "./photo-editor.js";

/** @typedef {import("./album-base.js").Photo} Photo */

// Edit picture ------------------------------------------------------------------------------------

/**
 * Crop, straighten, turn, or back to the original (photo-editor.js): the edit is a write of the
 * outbox, made on the server by libvips (the original kept), the mark-up moved with the picture.
 */
export class PhotoEditScreen extends AlbumElement {
  /** The editor stays while sync changes arrive (a drag is not interrupted). */
  changed() {
    if (!this.querySelector("photo-editor")) this.render();
  }

  render() {
    const photo = this.photo();
    if (!photo) {
      this.replaceChildren(h("main", { class: "screen" }, h("h1", {}, "Edit picture"), h("p", { class: "empty" }, "This photo is not in your album."), back("#/album", "Album")));
      return;
    }
    const hash = `#/photo/${encodeURIComponent(photo.id)}`;
    if (isLocal(photo.id)) {
      this.replaceChildren(h("main", { class: "screen" }, h("div", { class: "toolbar" }, back(hash, "Photo"), h("h1", {}, "Edit picture")),
        h("p", { class: "empty" }, "This photo is still waiting to upload. Edit the picture once this phone is online and the photo is saved.")));
      return;
    }
    const editor = /** @type {import("./photo-editor.js").PhotoEditor} */ (h("photo-editor"));
    this.editor = editor;
    // Every move of the frame, turn and straightening is kept on the phone until Save or Cancel:
    // a reload (the browser dropped the page) gives it back instead of losing it.
    let keeping = false;
    const draft = readDraft(photo);
    editor.setup({ label: `${describe(photo)}, as it will look`, edited: Boolean(photo.edited),
      onSave: (body) => this.save(body), onRevert: () => this.revert(), onCancel: () => { forgetEditDraft(photo.id); this.ctx.go(hash); },
      onChange: (state) => {
        if (!keeping) return;
        if (editBody(state)) keepEditDraft(photo.id, state, photo, draft?.why);
        else forgetEditDraft(photo.id);
      } });
    if (draft) editor.restore(draft.state);
    keeping = true;
    this.replaceChildren(h("main", { class: "screen photo-edit" },
      h("div", { class: "toolbar" }, back(hash, "Photo"), h("h1", {}, "Edit picture")),
      draft ? h("p", { class: "notice info", role: "status" }, draft.why || "Your changes from before are back, not saved yet: Save them, or Start over.") : null,
      h("p", { class: "hint" }, "Drag the corners of the frame to crop. Move the slider to straighten. Your drawing moves with the picture."),
      editor));
    picture(this.ctx, photo, "display").then(async (url) => {
      const img = new Image();
      img.src = url;
      await img.decode();
      const drawing = await loadMarkup(this.ctx, photo, this.id_ ?? "").catch(() => null);
      editor.show(img, img.naturalWidth, img.naturalHeight, drawing);
    }).catch(() => editor.prepend(h("p", { class: "empty" }, "The picture shows when this phone is online.")));
  }

  /** @param {{straighten?: number, rotate?: number, crop?: import("./photo-edit.js").Crop}} body */
  async save(body) {
    const photo = this.photo();
    if (!photo) return;
    forgetEditDraft(photo.id);
    // Until the server has made it, the phone shows the edit as it made it, and moves its copy of
    // the mark-up as the server will (so what is drawn next lands on the picture as edited).
    /** @type {Record<string, any>} */
    const local = { edited: true };
    const editor = /** @type {import("./photo-editor.js").PhotoEditor | undefined} */ (this.editor);
    const db = /** @type {import("./db.js").Database} */ (this.ctx.sync.db);
    if (editor?.source) {
      const width = photo.width ?? editor.sourceWidth, height = photo.height ?? editor.sourceHeight;
      const after = editMap(body, width, height);
      const made = await editedPicture(editor.source, editor.sourceWidth, editor.sourceHeight, body).catch(() => null);
      if (made) Object.assign(local, { pendingEdit: made, width: Math.round(after.width), height: Math.round(after.height) });
      if (editor.drawing) {
        const moved = followEdit(editor.drawing, body, width, height);
        await db.setMeta(`markup:${photo.id}`, moved);
        local.hasMarkup = moved.strokes.length + moved.texts.length > 0;
      }
    }
    await this.ctx.sync.write({ method: "POST", path: `${PHOTOS}/${photo.id}/edit`, body, kind: KIND, id: photo.id,
      baseVersion: photo.version, local });
    announce(navigator.onLine ? "Picture saved." : "Saved on this phone: the picture changes when the phone is online.");
    this.ctx.go(`#/photo/${encodeURIComponent(photo.id)}`, { top: true }); // the new picture, not the link it was left at
  }

  async revert() {
    const photo = this.photo();
    if (!photo) return;
    if (!(await confirmAction("Go back to the picture as it was added? Every crop, turn and straightening is undone; your drawing moves back with it.", "Back to the original"))) return;
    forgetEditDraft(photo.id);
    // Where the server moves the mark-up back to is known once it has: the phone's copy goes.
    await /** @type {import("./db.js").Database} */ (this.ctx.sync.db).setMeta(`markup:${photo.id}`, null);
    await this.ctx.sync.write({ method: "POST", path: `${PHOTOS}/${photo.id}/revert`, kind: KIND, id: photo.id,
      baseVersion: photo.version, local: { edited: false } });
    announce(navigator.onLine ? "The original picture is back." : "Saved on this phone: the original comes back when the phone is online.");
    this.ctx.go(`#/photo/${encodeURIComponent(photo.id)}`, { top: true }); // the new picture, not the link it was left at
  }
}
customElements.define("album-photo-edit", PhotoEditScreen);

/**
 * The edit kept for this photo (photo-edit-draft.js), if made on the picture as it is now, and why
 * it was given back when the server refused it. @param {Photo} photo
 */
function readDraft(photo) {
  const kept = keptEditDraft(photo.id, photo);
  const state = kept && keptState(stateOf(kept));
  return state && editBody(state) ? { state, why: typeof kept?.why === "string" ? kept.why : "" } : null;
}

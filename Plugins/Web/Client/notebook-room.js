// @ts-check
/**
 * The notebook in the room: over the camera's image, or, where the browser offers WebXR
 * `immersive-ar`, laid on a detected table or floor (`xr-room.js`); a camera frame judged for light
 * first (device-monitor's verdict said under the notebook).
 */
import { changeText, deletePage, editCover, insert, itemWords, newPage, pageChoices, recolour, removeItem, removeQuestion, shareAddress, undo } from "./notebook-edits.js";
import { freeSlots } from "./notebook-model.js";
import { coverPicture as coverOf, pagePicture } from "./notebook-pictures.js";
import { announce, h, hostDialogs } from "./ui.js";
import { pin } from "./notebook-pins.js";
import { copyButton } from "./share.js";
import { arSupported, RoomView } from "./xr-room.js";

const DM = "/api/v1/device-monitor";

/** @typedef {import("./screen-notebook.js").BookScreen} BookScreen */
/** @typedef {import("./notebook-model.js").Notebook} Notebook */

/**
 * The notebook in the room. Where the browser offers WebXR `immersive-ar`, it is placed on a
 * detected table or floor (`xr-room.js`); elsewhere it shows over the camera's image. Either way
 * a camera frame is judged for light first: too dark or too warm warns.
 * @param {BookScreen} screen
 */
export async function inRoom(screen) {
  const stage = /** @type {HTMLElement} */ (screen.stage);
  if (stage.classList.contains("over-camera")) {
    // Back to the notebook on the screen: what was said of the camera's light goes with it.
    screen.lightSaid?.remove();
    screen.lightSaid = undefined;
    return leaveRoom(screen);
  }
  if (screen.room) return;
  if (await arSupported()) return placeInRoom(screen);
  const video = await openCamera(screen);
  if (!video) return;
  screen.camera = video;
  screen.stage?.prepend(video);
  screen.stage?.classList.add("over-camera");
  await judgeLight(screen, video);
}

/** The back camera, playing, or null (said why). @returns {Promise<HTMLVideoElement | null>} @param {BookScreen} screen */
export async function openCamera(screen) {
  if (!navigator.mediaDevices?.getUserMedia) {
    screen.say("This browser cannot show the camera; the notebook stays in 3D on the screen.");
    return null;
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
  } catch {
    screen.say("The camera is needed to show the notebook in your room; allow it, then try again.");
    return null;
  }
  const video = /** @type {HTMLVideoElement} */ (h("video", { class: "camera", autoplay: true, muted: true, playsinline: true, "aria-hidden": "true" }));
  video.srcObject = stream;
  screen.stream = stream;
  await video.play().catch(() => {});
  await new Promise((resolve) => (video.readyState >= 2 ? resolve(null) : video.addEventListener("loadeddata", resolve, { once: true })));
  return video;
}

/** WebXR: the light judged from one camera frame, then the room session, with its hint and Done over it. @param {BookScreen} screen */
export async function placeInRoom(screen) {
  const video = await openCamera(screen);
  if (video) {
    await judgeLight(screen, video);
    leaveRoom(screen); // the session needs the camera to itself
  }
  const hint = h("p", { class: "xr-hint", role: "status" });
  const done = h("button", { type: "button", onclick: () => room.end() }, "Done");
  const controls = roomControls(screen, (text) => { hint.textContent = text; });
  const overlay = h("div", { class: "xr-overlay" }, hint, controls.element, done);
  document.body.append(overlay);
  hostDialogs(overlay); // the cover's and the pin's dialogs show in the room (modal ones would not)
  shown.set(screen, controls);
  const room = new RoomView({ page: picture(screen), cover: coverPicture(screen), overlay,
    say: (text) => { hint.textContent = text; } });
  room.addEventListener("end", () => {
    hostDialogs(null);
    shown.delete(screen);
    overlay.remove();
    screen.room = undefined;
    announce("Back to the notebook on the screen.");
  });
  try {
    await room.start();
    screen.room = room;
  } catch {
    hostDialogs(null);
    overlay.remove();
    screen.say("The room view could not start on this phone; the notebook stays in 3D on the screen.");
  }
}

/** What the notebook shows in the room: the open page (its colour, words and pictures), or the cover. @param {BookScreen} screen */
export function picture(screen) {
  const page = screen.index > 0 ? screen.content?.pages[screen.index - 1] ?? null : null;
  return pagePicture(screen.catalog, page, /** @type {Notebook} */ (screen.content?.notebook), screen);
}

/** @param {BookScreen} screen */
export function coverPicture(screen) {
  return coverOf(screen.catalog, /** @type {Notebook} */ (screen.content?.notebook));
}

/** @param {BookScreen} screen */
export function leaveRoom(screen) {
  screen.stream?.getTracks().forEach((track) => track.stop());
  screen.stream = undefined;
  screen.camera = undefined;
  screen.stage?.querySelector("video.camera")?.remove();
  screen.stage?.classList.remove("over-camera");
}

/** @param {HTMLVideoElement} video @param {BookScreen} screen */
export async function judgeLight(screen, video) {
  const canvas = document.createElement("canvas");
  canvas.width = 160;
  canvas.height = Math.round((160 * (video.videoHeight || 120)) / (video.videoWidth || 160));
  /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d")).drawImage(video, 0, 0, canvas.width, canvas.height);
  const frame = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.8));
  if (!(frame instanceof Blob)) return;
  try {
    const verdict = (await screen.ctx.api.request("POST", `${DM}/lighting`, { body: frame, contentType: "image/jpeg" })).body;
    const said = h("p", { class: verdict.warnings.length ? "warning light" : "hint light", role: "status" }, verdict.message);
    screen.querySelector(".light")?.remove();
    screen.lightSaid = said;
    screen.stage?.after(said);
  } catch (error) {
    screen.refused(error);
  }
}

/** @type {WeakMap<BookScreen, {element: HTMLElement, update: () => void}>} */
const shown = new WeakMap();

/**
 * The single view (design 2.1.3): controls over the room, in the DOM overlay, so that pages turn
 * and text is written, pasted and undone without leaving AR. Dialogs cannot show over the camera:
 * text is typed in the overlay, and goes in the page's first free slot (a full page says so).
 * @param {BookScreen} screen @param {(text: string) => void} say
 * @returns {{element: HTMLElement, update: () => void}}
 */
export function roomControls(screen, say) {
  const where = h("span", { class: "where", role: "status" });
  const back = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary", "aria-label": "Previous page", onclick: () => screen.turn(-1) }, "‹"));
  const forward = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary", "aria-label": "Next page", onclick: () => screen.turn(1) }, "›"));
  const text = /** @type {HTMLTextAreaElement} */ (h("textarea", { id: "xr-text", rows: "2", "aria-label": "Write on the page" }));
  /** The page's first free slot (null on a blank page), or undefined when full (said). @param {import("./notebook-model.js").Page} page */
  const slotOf = (page) => {
    if (!page.slots.length) return null;
    const free = freeSlots(page);
    if (!free.length) say(`Page ${screen.numberOf(page)} is full; turn to another page, or add one on the screen.`);
    return free.length ? free[0] : undefined;
  };
  /** @param {any} body */
  const put = async (body) => {
    const page = screen.currentPage();
    if (!page) return say("Turn to a page first: the cover takes no text.");
    const slot = slotOf(page);
    if (slot === undefined) return undefined;
    const answer = await insert(screen, body, slot);
    if (screen.said) say(screen.said.text);
    return answer;
  };
  const write = /** @type {HTMLFormElement} */ (h("form", { class: "xr-write", onsubmit: async (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    if (!text.value.trim()) return say("Type something first.");
    const answer = await put({ kind: "text", text: text.value });
    if (answer !== undefined) {
      text.value = "";
      say("Written on the page.");
    }
  } }, text, h("button", { type: "submit" }, "Write")));
  const paste = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary", onclick: async () => {
    let copied = "";
    try {
      copied = await navigator.clipboard.readText();
    } catch {
      return say("The browser did not let the app read what you copied; type it instead.");
    }
    if (copied) await put({ kind: "clipboard", text: copied });
  } }, "Paste"));
  const undoButton = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary", onclick: async () => {
    await undo(screen);
    say(screen.said ? screen.said.text : "Undone.");
  } }, "Undo"));
  const more = roomActions(screen, say, put);
  const element = h("div", { class: "xr-controls" }, more.panel, h("div", { class: "row xr-turn" }, back, where, forward), write,
    h("div", { class: "row" }, paste, undoButton), more.element);
  const update = () => {
    more.update();
    const count = screen.content?.pages.length ?? 0;
    where.textContent = screen.index === 0 ? `Cover · ${count} page${count === 1 ? "" : "s"}` : `Page ${screen.index} of ${count}`;
    back.disabled = screen.index === 0;
    forward.disabled = screen.index >= count;
    const editable = screen.editable;
    write.hidden = !editable || screen.index === 0;
    paste.hidden = !editable || screen.index === 0;
    undoButton.hidden = !editable;
    undoButton.disabled = !screen.content?.notebook.canUndo;
  };
  update();
  return { element, update };
}

/** The notebook was drawn again (a page turned, an item added): the room shows it too. @param {BookScreen} screen */
export function refreshRoom(screen) {
  const controls = shown.get(screen);
  if (!controls || !screen.room) return;
  screen.room.showPage(picture(screen));
  controls.update();
}

/**
 * The rest of the single view (design 2.1.3), in the overlay: a new page (its layout and colour
 * chosen there), a picture (a file input: the camera or the gallery, which a DOM overlay allows),
 * an item's text changed, an item removed or the page deleted after a question asked there, the
 * page's colour, and a read-only link shown there with Copy. The changes are notebook-edits.js's
 * own (at once online, else the outbox, as on the screen); only the asking is the overlay's, since
 * modal dialogs do not show over the camera. The notebook's cover and name and its pin keep their
 * own dialogs, shown inside the overlay (`hostDialogs`).
 * @param {BookScreen} screen @param {(text: string) => void} say
 * @param {(body: any) => Promise<any>} put  puts text or a picture in the page's first free slot
 * @returns {{element: HTMLElement, panel: HTMLElement, update: () => void}}
 */
export function roomActions(screen, say, put) {
  const panel = h("div", { class: "xr-panel", hidden: true });
  /** @type {number | undefined} the page the panel was opened on */
  let openedAt;
  /** @type {((yes: boolean) => void) | undefined} a question waiting for its answer */
  let waiting;
  /** @param {...(HTMLElement | string)} children */
  const open = (...children) => {
    waiting?.(false);
    waiting = undefined;
    panel.replaceChildren(...children);
    panel.hidden = false;
    openedAt = screen.index;
  };
  const close = () => {
    waiting?.(false);
    waiting = undefined;
    panel.replaceChildren();
    panel.hidden = true;
    openedAt = undefined;
  };
  const cancel = (label = "Cancel") => h("button", { type: "button", class: "secondary", onclick: close }, label);
  /** A question before what cannot be undone, asked in the overlay (as `confirmAction` asks in a dialog). @param {string} question @param {string} action */
  const ask = (question, action) => new Promise((resolve) => {
    open(h("p", { class: "xr-question", role: "alert" }, question),
      h("div", { class: "row" }, cancel("Keep it"), h("button", { type: "button", class: "danger", onclick: () => {
        waiting = undefined;
        close();
        resolve(true);
      } }, action)));
    waiting = resolve;
  });
  /** Radio groups as the dialogs have them (`pageChoices`). @param {ReturnType<typeof pageChoices>} groups @param {Record<string, string>} [now] */
  const choices = (groups, now = {}) => groups.map((group) => h("fieldset", { class: "choices" }, h("legend", {}, group.label),
    ...group.options.map(([value, label], index) => h("label", { class: "choice" },
      h("input", { type: "radio", name: group.name, value, checked: now[group.name] ? now[group.name] === value : index === 0 }), label))));
  /** The page's items to choose from, each by its words. @param {string} title @param {(item: import("./notebook-model.js").Item) => boolean} which @param {(item: import("./notebook-model.js").Item) => void} then */
  const pick = (title, which, then) => {
    const page = screen.currentPage();
    if (!page) return say("Turn to a page first.");
    const items = page.items.filter(which);
    if (!items.length) return say(`Page ${screen.numberOf(page)} has nothing on it for that.`);
    open(h("h2", {}, title), ...items.map((item) => h("button", { type: "button", class: "secondary xr-item", onclick: () => then(item) }, itemWords(item))),
      h("div", { class: "row" }, cancel()));
  };
  /** What a change answered, said in the overlay. @param {any} answer @param {string} done */
  const told = (answer, done) => say(screen.said?.text ?? (answer === undefined ? "Nothing was changed." : done));

  const addPage = () => {
    const form = /** @type {HTMLFormElement} */ (h("form", { class: "xr-new-page", onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      const data = new FormData(form);
      close();
      const answer = await newPage(screen, { template: String(data.get("template") ?? ""), background: String(data.get("background") ?? "") });
      told(answer, `Page ${screen.index} added.`);
    } }, ...choices(pageChoices(screen.catalog)), h("div", { class: "row" }, cancel(), h("button", { type: "submit" }, "Add page"))));
    open(h("h2", {}, "New page"), form);
  };

  const input = /** @type {HTMLInputElement} */ (h("input", { type: "file", accept: "image/*", hidden: true, "aria-label": "A picture for the page",
    onchange: async () => {
      const file = input.files?.[0];
      input.value = "";
      if (!file) return;
      const answer = await put(file);
      if (answer !== undefined) say(screen.said?.text ?? "The picture is on the page.");
    } }));
  const picture = () => {
    if (!screen.currentPage()) return say("Turn to a page first: the cover takes no picture.");
    input.click();
  };

  const changeTextOf = () => pick("Change which text?", (item) => item.kind !== "image", (item) => {
    const field = /** @type {HTMLTextAreaElement} */ (h("textarea", { id: "xr-change", rows: "3", "aria-label": "Its text" }));
    field.value = item.text ?? "";
    const form = /** @type {HTMLFormElement} */ (h("form", { class: "xr-change", onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      const text = field.value;
      if (!text.trim()) return say("Type something first, or tap Cancel.");
      close();
      if (text === item.text) return;
      told(await changeText(screen, item, text), "Changed.");
    } }, field, h("div", { class: "row" }, cancel(), h("button", { type: "submit" }, "Save"))));
    open(h("h2", {}, "Change the text"), form);
  });

  const remove = () => pick("Remove which?", () => true, async (item) => {
    if (!(await ask(removeQuestion(screen, item), "Remove"))) return;
    const answer = await removeItem(screen, item);
    told(answer, answer === null ? "Removed on this phone; the server hears of it when the phone is online." : "Removed.");
  });

  const recolourPage = () => {
    const page = screen.currentPage();
    if (!page) return;
    const form = /** @type {HTMLFormElement} */ (h("form", { class: "xr-colour", onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      const background = String(new FormData(form).get("background") ?? "");
      close();
      if (background === page.background) return;
      told(await recolour(screen, page, background), "The page's colour is changed.");
    } }, ...choices(pageChoices(screen.catalog).filter((g) => g.name === "background"), { background: page.background }),
    h("div", { class: "row" }, cancel(), h("button", { type: "submit" }, "Save colour"))));
    open(h("h2", {}, "Page colour"), form);
  };

  const deleteThisPage = async () => {
    if (await deletePage(screen, ask)) say(`Page deleted; ${screen.index ? `page ${screen.index}` : "the cover"} shows.`);
    else if (screen.said) say(screen.said.text);
  };

  const share = async () => {
    open(h("p", { role: "status" }, "Asking for a link…"));
    const { link, error } = await shareAddress(screen);
    if (!link) return open(h("p", { class: "xr-question", role: "alert" }, error ?? ""), h("div", { class: "row" }, cancel("Close")));
    const field = /** @type {HTMLInputElement} */ (h("input", { id: "xr-share-link", readonly: true, value: link, "aria-label": "The link" }));
    const copied = h("p", { class: "hint", role: "status" }, "Anyone with this link can see the notebook, but not change it.");
    open(h("h2", {}, "Share this link"), field, copied, h("div", { class: "row" }, copyButton(link, field, copied), cancel("Close")));
  };

  const button = (/** @type {string} */ label, /** @type {() => void} */ onclick, danger = false) =>
    /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: danger ? "danger" : "secondary", onclick }, label));
  const buttons = {
    newPage: button("New page", addPage),
    picture: button("Picture", picture),
    change: button("Change text…", changeTextOf),
    remove: button("Remove…", remove),
    colour: button("Colour", recolourPage),
    share: button("Share", share),
    delete: button("Delete page", deleteThisPage, true),
    // The notebook's own: its dialogs show in the overlay (`hostDialogs`).
    cover: button("Cover and name", () => { close(); void editCover(screen); }),
    pin: button("Pin…", () => { close(); void pin(screen); }),
  };
  const element = h("div", { class: "row xr-more" }, ...Object.values(buttons), input);
  const update = () => {
    const editable = screen.editable;
    const page = screen.index > 0 ? screen.content?.pages[screen.index - 1] : undefined;
    buttons.newPage.hidden = !editable;
    for (const b of [buttons.picture, buttons.change, buttons.remove, buttons.colour]) b.hidden = !editable || !page;
    buttons.remove.disabled = !page?.items.length;
    buttons.change.disabled = !page?.items.some((item) => item.kind !== "image");
    const notebook = screen.content?.notebook;
    // A page's delete cannot be undone: its owner's alone (someone near a pin changes texts, not pages).
    buttons.delete.hidden = notebook?.access !== "owner" || !page;
    buttons.share.hidden = notebook?.access !== "owner";
    buttons.cover.hidden = notebook?.access !== "owner" || Boolean(page);
    buttons.pin.hidden = !(notebook?.access === "owner" || (notebook?.access === "edit" && notebook.pin));
    // What the panel offered was for the page it opened on.
    if (openedAt !== undefined && openedAt !== screen.index) close();
  };
  return { element, panel, update };
}

// @ts-check
/** Small helpers every screen uses: building elements (text is always text, never HTML), a live
 * region for screen readers and a confirmation dialog (pictures fetched with the user's token: picture-cache.js). */

/**
 * An element with attributes, properties (`on…` are listeners) and children.
 * @param {string} tag
 * @param {Record<string, any>} [props]
 * @param {Array<Node | string | null | undefined | false>} children
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (name in element && typeof value !== "string") /** @type {any} */ (element)[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/** Says something to screen-reader users without moving focus. @param {string} text */
/**
 * What this account's phone remembers of what it did (not drafts): kept under one prefix, which
 * signing out forgets (app.js). Foreign Note's saved fields, Napkin's new notes, AR's last item.
 */
export const PHONE = "quire.phone.";

/**
 * The JSON kept at `key` in localStorage, or `fallback` when there is none or it cannot be read.
 * @template T @param {string} key @param {T} fallback @returns {T | any}
 */
export function storedJSON(key, fallback) {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(key) ?? "null") ?? fallback;
  } catch {
    return fallback;
  }
}

export function announce(text) {
  let region = document.getElementById("announcer");
  if (!region) {
    region = h("div", { id: "announcer", class: "visually-hidden", "aria-live": "polite", role: "status" });
    document.body.append(region);
  }
  region.textContent = "";
  window.setTimeout(() => { /** @type {HTMLElement} */ (region).textContent = text; }, 50);
}

/** @type {HTMLElement | null} */
let dialogHost = null;

/**
 * Where dialogs show from now on: `host` (the WebXR room's DOM overlay: the page's top layer does
 * not show over the camera), not modal; null, the page's top layer again (modal).
 * @param {HTMLElement | null} host
 */
export function hostDialogs(host) {
  dialogHost = host;
}

/** Shows `dialog`: modal on the page, or inside the room's overlay while there is one. @param {HTMLDialogElement} dialog */
export function showDialog(dialog) {
  if (dialogHost?.isConnected) {
    dialogHost.append(dialog);
    dialog.show();
    return;
  }
  document.body.append(dialog);
  dialog.showModal();
}

/**
 * Asks before something that cannot be undone; resolves true when confirmed.
 * @param {string} question
 * @param {string} action  the confirming button's label ("Delete")
 * @param {string} [keep]  the other button's label ("Keep editing"; "Cancel" by default)
 * @returns {Promise<boolean>}
 */
export function confirmAction(question, action, keep = "Cancel") {
  return new Promise((resolve) => {
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm", "aria-labelledby": "confirm-question" },
      h("p", { id: "confirm-question" }, question),
      h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => dialog.close("cancel") }, keep),
        h("button", { type: "button", class: "danger", onclick: () => dialog.close("ok") }, action))));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "ok");
    });
    showDialog(dialog);
  });
}

/**
 * A dialog's Cancel: closes it as cancelled. Not a submit button, so that Enter in a field (the
 * phone keyboard's Go) submits the dialog's action: as the form's first submit button, Cancel took
 * Enter and threw the typing away (walk10: a new collection's name).
 */
export function cancelButton() {
  return h("button", { type: "button", value: "cancel", class: "secondary",
    onclick: (/** @type {Event} */ event) => /** @type {HTMLElement} */ (event.currentTarget).closest("dialog")?.close("cancel") }, "Cancel");
}

/**
 * Asks for a text in a small dialog; a blank answer is refused with `required`, said under the
 * field. Resolves the text (trimmed unless `multiline`), or null when cancelled. `hint`: a sentence
 * under the title (why the dialog opened by itself, say).
 * @param {{title: string, label: string, id: string, action: string, required: string, value?: string, multiline?: boolean, maxlength?: number, hint?: string}} options
 * @returns {Promise<string | null>}
 */
export function askText({ title, label, id, action, required, value = "", multiline = false, maxlength, hint }) {
  return new Promise((resolve) => {
    const input = /** @type {HTMLInputElement | HTMLTextAreaElement} */ (multiline
      ? h("textarea", { id, rows: "4", "aria-describedby": `${id}-error` })
      : h("input", { id, value, maxlength: maxlength ? String(maxlength) : undefined, autocomplete: "off", "aria-describedby": `${id}-error` }));
    if (multiline) input.value = value;
    const error = h("p", { class: "error", role: "alert", id: `${id}-error` });
    const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm", "aria-labelledby": `${id}-title`, "aria-describedby": hint ? `${id}-hint` : undefined },
      h("form", { class: "stack", method: "dialog", novalidate: true, onsubmit: (/** @type {SubmitEvent} */ event) => {
        if (event.submitter?.getAttribute("value") === "cancel" || input.value.trim()) return;
        event.preventDefault();
        error.textContent = required;
        input.focus();
      } },
      h("h2", { id: `${id}-title` }, title),
      hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null,
      h("label", { for: id }, label), input, error,
      h("div", { class: "row" },
        cancelButton(),
        h("button", { type: "submit", value: "ok" }, action)))));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "ok" ? (multiline ? input.value : input.value.trim()) : null);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
}

/**
 * Where the phone is, if it says within a few seconds; null when the person said no or it does
 * not know. A position up to `maximumAge` ms old will do.
 * @param {number} maximumAge
 * @returns {Promise<GeolocationCoordinates | null>}
 */
export function whereAmI(maximumAge) {
  if (!("geolocation" in navigator)) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = window.setTimeout(() => resolve(null), 6000);
    navigator.geolocation.getCurrentPosition((position) => { clearTimeout(timer); resolve(position.coords); },
      () => { clearTimeout(timer); resolve(null); }, { maximumAge, timeout: 5000, enableHighAccuracy: false });
  });
}

/** Today as YYYY-MM-DD in the user's own time zone. */
export function today() {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
}

/** "23 Nov 2026" for a YYYY-MM-DD date. @param {string} date */
export function readableDate(date) {
  const [y, m, d] = date.split("-").map(Number);
  if (!y || !m || !d) return date;
  return new Date(y, m - 1, d).toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" });
}

/** An instant as a person reads it: "Nov 26, 2026, 9:30 AM" in the device's language (no seconds). @param {string | number | Date} instant */
export function readableTime(instant) {
  return new Date(instant).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** Changes kept outside the outbox (a caregiver's captions for someone else's album): how many wait. */
let waitingElsewhere = () => 0;

/**
 * Counts writes kept outside the outbox among the indicator's "waiting"; fire `quire:waiting` on
 * `window` when the count changes. @param {() => number} count
 */
export function countWaiting(count) {
  waitingElsewhere = count;
  window.dispatchEvent(new Event("quire:waiting"));
}

/** Changes sent straight to the server, not through the outbox (AR Notebook's, online), on their way. */
let sendingNow = 0;

/**
 * Counts a change sent straight to the server among the indicator's "Saving…" until it is answered
 * (walk11: on a slow network the header said "Saved" for the 2.5 s an AR text was on its way).
 * @template T @param {Promise<T>} sent @returns {Promise<T>}
 */
export function whileSending(sent) {
  sendingNow += 1;
  window.dispatchEvent(new Event("quire:waiting"));
  const done = () => {
    sendingNow -= 1;
    window.dispatchEvent(new Event("quire:waiting"));
  };
  sent.then(done, done);
  return sent;
}

/** The quiet sync indicator: offline, syncing, or how many changes wait. */
export class QuireStatus extends HTMLElement {
  /** @param {import("./sync.js").Sync} sync */
  attach(sync) {
    this.setAttribute("role", "status");
    this.setAttribute("aria-live", "polite");
    const render = () => {
      const waiting = sync.pending + waitingElsewhere() + sendingNow;
      // Words the server refused, kept to edit and send again (kept-refused.js): not saved until then.
      const refused = sync.refused || sync.kept.some((k) => k.refused);
      const text = sync.state === "offline"
        ? (waiting ? `Offline · ${waiting} waiting` : "Offline")
        : waiting ? `Saving ${waiting} change${waiting === 1 ? "" : "s"}…` : sync.state === "syncing" ? "Syncing…"
          : refused ? "Not saved" : "Saved";
      this.textContent = text;
      this.dataset.state = sync.state === "offline" ? "offline" : waiting ? "waiting" : refused ? "refused" : sync.state;
    };
    sync.addEventListener("state", render);
    sync.addEventListener("change", render);
    this.render = render;
    render();
  }

  connectedCallback() {
    window.addEventListener("quire:waiting", this.onWaiting);
    // A screen built after attach (before this was in the page) may have counted its kept writes.
    this.render();
  }

  disconnectedCallback() {
    window.removeEventListener("quire:waiting", this.onWaiting);
  }

  /** @type {() => void} */
  render = () => {};
  onWaiting = () => this.render();
}
customElements.define("quire-status", QuireStatus);

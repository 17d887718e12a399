// @ts-check
/**
 * AR Notebook's watch on the phone's surroundings, once per session: the battery (Battery Status
 * API, where the browser has it) reported to device-monitor, with the blocking alert at 5 %, "I am
 * charging" and "Sign out and close" (FR3.2.18, UC-14), decided by the phone's own reading while
 * device-monitor cannot be asked (offline); without the API, the alert follows the
 * level device-monitor holds for the account, or the screen says it cannot know; where the phone is (`watchPosition`) reported as it moves,
 * with a banner for a notebook pinned near (UC-13), also when sync's live connection says so.
 */
import { ApiError } from "./api.js";
import { N } from "./notebook-model.js";
import { h } from "./ui.js";

const DM = "/api/v1/device-monitor";

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync}} Context */

let watching = false;

/**
 * Once per session: the battery (where the browser tells it) reported to device-monitor, with the
 * blocking alert when it answers so; and where the phone is, reported as it moves, with a banner
 * for a notebook pinned near.
 * @param {Context} context
 */
export function watchSurroundings(context) {
  if (watching) return;
  watching = true;
  const battery = /** @type {any} */ (navigator).getBattery;
  if (typeof battery === "function") {
    battery.call(navigator).then((/** @type {any} */ state) => {
      const report = () => reportBattery(context, state);
      state.addEventListener?.("levelchange", report);
      state.addEventListener?.("chargingchange", report);
      window.addEventListener("online", report); // what changed offline, told to device-monitor
      report();
    }).catch(() => askBattery(context));
  } else {
    askBattery(context);
  }
  if ("geolocation" in navigator) {
    let last = 0;
    navigator.geolocation.watchPosition((where) => {
      if (Date.now() - last < 20_000) return;
      last = Date.now();
      context.api.request("POST", `${N}/nearby`, { body: { latitude: where.coords.latitude, longitude: where.coords.longitude } })
        .then((answer) => { if (answer.body.items.length) nearbyBanner(answer.body.items[0]); }).catch(() => {});
    }, () => {}, { maximumAge: 30_000 });
  }
  context.sync.addEventListener("alert", (event) => {
    const message = /** @type {CustomEvent} */ (event).detail;
    if (message.kind === "notebooks.nearby" && message.data?.notebooks?.length) {
      const first = message.data.notebooks[0];
      nearbyBanner({ notebook: { id: first.id, name: first.name }, distanceMeters: first.distanceMeters });
    }
  });
}

/** @param {{notebook: {id: string, name: string}, distanceMeters: number}} hit */
function nearbyBanner(hit) {
  document.querySelector(".nearby-bar")?.remove();
  const bar = h("div", { class: "undo-bar nearby-bar", role: "status" },
    h("span", {}, `“${hit.notebook.name}” is pinned ${Math.round(hit.distanceMeters)} m from you`),
    h("a", { href: `#/n/${encodeURIComponent(hit.notebook.id)}`, class: "button", onclick: () => bar.remove() }, "Open"),
    h("button", { type: "button", class: "link", "aria-label": "Dismiss", onclick: () => bar.remove() }, "×"));
  document.body.append(bar);
}

/** The phone's own battery (Battery Status API), when the browser tells it: offline, the alert is decided with it. @type {{level: number, charging: boolean} | null} */
let ownBattery = null;
/** The level at or below which AR stops (percent): device-monitor's, as its last answer said. */
let critical = 5;

/**
 * The alert as the phone's own reading says, when device-monitor cannot be asked (offline): the
 * phone knows its battery, so the alert does not wait for the network (FR3.2.18), and it closes
 * once the phone is charging or above the level.
 * @param {{level: number, charging: boolean}} state
 */
function ownStatus(state) {
  const percent = Math.round(state.level * 100);
  const low = !state.charging && state.level * 100 <= critical;
  return { alert: low, message: low ? `Battery at ${percent} %: AR needs more than ${critical} %. Plug in your phone, or close the app.` : `Battery at ${percent} %.` };
}

/** @param {Context} context @param {{level: number, charging: boolean}} state */
async function reportBattery(context, state) {
  ownBattery = state;
  try {
    const status = (await context.api.request("POST", `${DM}/battery`,
      { body: { level: state.level, unit: "fraction", state: state.charging ? "charging" : "discharging" } })).body;
    if (typeof status?.threshold === "number") critical = status.threshold;
    showBattery(context, status);
  } catch (error) {
    // Not told by device-monitor (no network, or a refusal): the phone's own reading decides.
    if (!(error instanceof ApiError) || error.offline || (error.status ?? 0) >= 500) showBattery(context, ownStatus(state));
  }
}

/** How often a browser without the Battery Status API asks device-monitor (and when the app comes back into view). */
const ASK_EVERY_MS = 60_000;

/**
 * A browser without the Battery Status API (Safari, Firefox): the alert follows the level
 * device-monitor holds for this account (reported by the app where the platform gives it, such as
 * the same user's native app or a browser that tells it), asked now, every minute and whenever
 * the app comes back into view. With no level known, the screen says once that it cannot know.
 * @param {Context} context
 */
function askBattery(context) {
  let said = false;
  const ask = async () => {
    if (document.visibilityState === "hidden" || !context.api.session) return;
    try {
      const status = await context.api.get(`${DM}/battery`);
      const known = status && typeof status.level === "number";
      if (!known && !said) {
        said = true;
        window.dispatchEvent(new CustomEvent("quire:notice", { detail: "This browser does not tell the app your battery level, so AR Notebook cannot warn you "
          + "when it runs low (at 5 % and below). Keep an eye on your phone's battery, or open AR Notebook in a browser that shares it." }));
      }
      if (known) showBattery(context, status);
    } catch {
      // No network: asked again in a minute.
    }
  };
  ask();
  window.setInterval(ask, ASK_EVERY_MS);
  document.addEventListener("visibilitychange", ask);
}

/** The alert shown, or closed, as device-monitor's status says. @param {Context} context @param {{alert: boolean, message: string}} status */
function showBattery(context, status) {
  const open = /** @type {HTMLDialogElement | null} */ (document.querySelector("dialog.battery"));
  if (status.alert && !open) batteryAlert(context, status.message);
  if (!status.alert && open) open.close();
}

/**
 * UC-14's other way out: sign out and close the app (the browser closes the tab where it lets a
 * page do so; otherwise the sign-in screen stays, with nothing of the account left open).
 */
function signOutAndClose() {
  const closeWhenOut = (/** @type {Event} */ event) => {
    if (/** @type {CustomEvent} */ (event).detail) return;
    window.removeEventListener("quire:session", closeWhenOut);
    window.close();
  };
  window.addEventListener("quire:session", closeWhenOut);
  document.querySelector("quire-app")?.dispatchEvent(new Event("quire:sign-out"));
}

/** FR3.2.18: the alert that stays until the phone is charging. @param {Context} context @param {string} message */
function batteryAlert(context, message) {
  const said = h("p", { class: "error", role: "alert" });
  const dialog = /** @type {HTMLDialogElement} */ (h("dialog", { class: "confirm battery", role: "alertdialog", "aria-labelledby": "battery-title",
    "aria-describedby": "battery-message" },
  h("h2", { id: "battery-title" }, "Battery low"),
  h("p", { id: "battery-message" }, message),
  said,
  h("div", { class: "row" }, h("button", { type: "button", onclick: async () => {
    try {
      await context.api.request("POST", `${DM}/battery/charging`);
      dialog.close();
    } catch (error) {
      // Offline, the phone's own reading verifies it, as device-monitor would.
      if (error instanceof ApiError && error.offline && ownBattery) {
        if (!ownStatus(ownBattery).alert) return dialog.close();
        said.textContent = `Your phone does not report charging yet (${Math.round(ownBattery.level * 100)} %); plug it in and try again.`;
        return;
      }
      said.textContent = error instanceof ApiError ? error.message : "Try again.";
    }
  } }, "I am charging"),
  h("button", { type: "button", class: "secondary", onclick: () => { dialog.close(); signOutAndClose(); } }, "Sign out and close"))));
  dialog.addEventListener("cancel", (event) => event.preventDefault()); // Escape does not close it
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

// @ts-check
/**
 * "Notify me on this phone" (the push plugin, issue 41): Web Push, so reminders, pinned notebooks
 * nearby and iRemember's daily "On this day" reach this phone when the app is closed. The browser
 * asks for permission only when the button is tapped; the phone then subscribes with the server's
 * VAPID key and hands the subscription to the server, which encrypts each notification for it.
 * The service worker (sw.js) shows what arrives. Shown where the app has `push: {}` in its YAML.
 */
import { ApiError } from "./api.js";
import { announce, h } from "./ui.js";

const BASE = "/api/v1/push";

/** @typedef {{api: import("./api.js").Api}} PushContext */

/**
 * Whether the app switched push on (its YAML has `push:`), or another feature with it.
 * @param {object} context @param {string} [feature]
 */
export function hasPush(context, feature = "plugin:push") {
  const features = /** @type {any} */ (context).features;
  return Boolean(features && typeof features.has === "function" && features.has("plugin:push") && features.has(feature));
}

/** Whether this browser can get a push at all. */
export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** The VAPID key (base64url) as the bytes `subscribe` takes. @param {string} text */
export function keyBytes(text) {
  const base = text.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(base + "=".repeat((4 - (base.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/** A short name for this phone, for the server's list ("Android phone"). */
export function deviceName(agent = navigator.userAgent) {
  if (/iPhone|iPad/.test(agent)) return "iPhone or iPad";
  if (/Android/.test(agent)) return "Android phone";
  if (/Mac OS X/.test(agent)) return "Mac";
  if (/Windows/.test(agent)) return "Windows computer";
  return "This browser";
}

/** This phone's subscription, if it has one. @returns {Promise<PushSubscription | null>} */
async function current() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

/**
 * What this app pushes, in words. @param {object} context @param {{onThisDay?: boolean}} options
 */
function whatIsSent(context, options) {
  const what = [];
  if (hasPush(context, "plugin:reminders")) what.push("when a reminder is due");
  if (hasPush(context, "plugin:notebooks")) what.push("when you come near a notebook someone pinned there");
  if (options.onThisDay) what.push("once a day, when you have photos from this day in earlier years");
  return what.length ? what.join(", and ") : "when something needs you";
}

/**
 * The settings section: the state in words, one button that turns it on or off, and (iRemember)
 * the hour of the daily "On this day" alert.
 * @param {PushContext} context @param {{onThisDay?: boolean}} [options]
 * @returns {HTMLElement}
 */
export function pushSection(context, options = {}) {
  const state = h("p", { class: "hint", id: "push-state", role: "status" }, "Looking at this phone's notifications…");
  const button = /** @type {HTMLButtonElement} */ (h("button", { type: "button", id: "push-toggle", "aria-describedby": "push-state" },
    "Notify me on this phone"));
  const section = h("section", { class: "stack push-settings", "aria-labelledby": "push-title" },
    h("h2", { id: "push-title" }, "Notifications"),
    h("p", { class: "hint" }, `When the app is closed, this phone can still tell you ${whatIsSent(context, options)}.`),
    button, state);

  /** @param {string} text @param {"on" | "off" | "blocked" | "unsupported" | "busy"} mode */
  const show = (text, mode) => {
    state.textContent = text;
    section.dataset.state = mode;
    button.disabled = mode === "busy" || mode === "unsupported" || mode === "blocked";
    // While busy the button keeps its words (greyed): it said "Notify me" mid-way through turning
    // notifications off, before the server had let go of this phone.
    if (mode !== "busy") button.textContent = mode === "on" ? "Stop notifying this phone" : "Notify me on this phone";
    button.classList.toggle("secondary", mode === "on");
    button.hidden = mode === "unsupported";
  };

  const refresh = async () => {
    if (!pushSupported()) {
      show("This browser cannot show notifications while the app is closed. On an iPhone, add the app to the Home Screen first, then open it from there.", "unsupported");
      return;
    }
    if (Notification.permission === "denied") {
      show("Notifications are blocked for this app in the browser's settings. Allow them there (the lock by the address, then Notifications), then come back.", "blocked");
      return;
    }
    const subscription = await current().catch(() => null);
    if (subscription && Notification.permission === "granted") show("On: this phone tells you even when the app is closed.", "on");
    else show("Off: this phone tells you only while the app is open.", "off");
  };

  button.addEventListener("click", async () => {
    const on = section.dataset.state === "on";
    show(on ? "Turning notifications off…" : "Asking this phone…", "busy");
    try {
      if (on) await unsubscribe(context);
      else await subscribe(context);
      await refresh();
      announce(state.textContent ?? "");
    } catch (error) {
      await refresh();
      const message = error instanceof Error ? error.message : String(error);
      show(message, section.dataset.state === "on" ? "on" : Notification.permission === "denied" ? "blocked" : "off");
      announce(message);
    }
  });
  refresh();
  if (options.onThisDay) section.append(dailyChoice(context));
  return section;
}

/**
 * Asks for permission (this tap's), subscribes with the server's key and saves the subscription.
 * @param {PushContext} context
 */
export async function subscribe(context) {
  const permission = await Notification.requestPermission();
  if (permission === "denied") throw new Error("Notifications were not allowed. To change that, allow them in the browser's settings for this app.");
  if (permission !== "granted") throw new Error("Notifications were not allowed this time; tap again to be asked again.");
  const registration = await navigator.serviceWorker.ready;
  /** @type {{publicKey: string}} */
  const { publicKey } = await context.api.get(`${BASE}/key`);
  let subscription;
  try {
    subscription = await registration.pushManager.getSubscription()
      ?? await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
  } catch (error) {
    throw new Error(`This browser could not sign up with its push service (${error instanceof Error ? error.message : String(error)}). `
      + "Check that the phone is online and try again; some browsers (private windows) have no push service.");
  }
  const json = subscription.toJSON();
  try {
    await context.api.request("PUT", `${BASE}/subscriptions`, { body: { endpoint: json.endpoint, keys: json.keys, device: deviceName() } });
  } catch (error) {
    await subscription.unsubscribe().catch(() => {});
    throw error instanceof ApiError ? new Error(`The server did not take this phone: ${error.message}`) : error;
  }
}

/** Stops this phone's notifications, on the server and in the browser. @param {PushContext} context */
export async function unsubscribe(context) {
  const subscription = await current();
  if (!subscription) return;
  await context.api.request("DELETE", `${BASE}/subscriptions?endpoint=${encodeURIComponent(subscription.endpoint)}`);
  await subscription.unsubscribe();
}

/** iRemember: the hour of the daily "On this day" alert, or off. @param {PushContext} context */
function dailyChoice(context) {
  const hint = h("p", { class: "hint", id: "daily-hint" }, "Once a day, at this time, when photos were taken on this day in earlier years: "
    + "“3 years ago today: …”. Nothing on the other days.");
  const select = /** @type {HTMLSelectElement} */ (h("select", { id: "daily-hour", "aria-describedby": "daily-hint" },
    h("option", { value: "" }, "Off"),
    ...Array.from({ length: 24 }, (_, hour) => h("option", { value: String(hour) }, `${String(hour).padStart(2, "0")}:00`))));
  context.api.get(`${BASE}/on-this-day`).then((/** @type {{hour: number}} */ choice) => { select.value = String(choice.hour); })
    .catch(() => { select.value = ""; });
  select.addEventListener("change", async () => {
    try {
      if (select.value === "") {
        await context.api.request("DELETE", `${BASE}/on-this-day`);
        announce("The daily On this day alert is off.");
      } else {
        const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
        await context.api.request("PUT", `${BASE}/on-this-day`, { body: { hour: Number(select.value), timeZone } });
        announce(`The daily On this day alert comes at ${select.selectedOptions[0]?.textContent ?? ""}.`);
      }
    } catch (error) {
      announce(error instanceof Error ? error.message : String(error));
    }
  });
  return h("div", { class: "stack" }, h("label", { for: "daily-hour" }, "Daily “On this day” alert"), select, hint);
}

/**
 * The screen of its own (Napkin Notes, AR Notebook: they have no settings screen otherwise).
 * @param {PushContext} context @returns {HTMLElement}
 */
export function pushScreen(context) {
  return h("main", { class: "screen settings" },
    h("div", { class: "toolbar" }, h("a", { href: "#/", class: "button secondary" }, "‹ Back"), h("h1", {}, "Settings")),
    pushSection(context));
}

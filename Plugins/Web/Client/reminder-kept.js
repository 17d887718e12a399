// @ts-check
/**
 * A reminder set (or cleared) while the phone is offline, kept on the phone and sent once it is
 * online: a reminder is asked of the server at once, not through the outbox, and offline it was
 * lost (the block said "kept and sent", then "No reminder." after a reload). Kept under
 * "quire.draft." so signing out forgets it (app.js).
 */
import { ApiError } from "./api.js";

const PREFIX = "quire.draft.reminder.";

/** @typedef {{subject: string, at: string | null, title: string}} KeptReminder  `at` null: cleared */

/** The reminder kept for a subject, if any. @param {string} subject @returns {KeptReminder | null} */
export function keptReminder(subject) {
  try {
    return JSON.parse(localStorage.getItem(PREFIX + subject) ?? "null");
  } catch {
    return null;
  }
}

/** @param {KeptReminder} reminder */
export function keepReminder(reminder) {
  localStorage.setItem(PREFIX + reminder.subject, JSON.stringify(reminder));
}

/** @param {string} subject */
export function forgetReminder(subject) {
  localStorage.removeItem(PREFIX + subject);
}

/**
 * Asks the server for one reminder: set at `at`, or cleared.
 * @param {import("./api.js").Api} api @param {KeptReminder} reminder
 */
export async function sendReminder(api, reminder) {
  if (reminder.at === null) {
    await api.request("DELETE", `/api/v1/reminders?subject=${encodeURIComponent(reminder.subject)}`);
  } else {
    await api.request("PUT", "/api/v1/reminders", { body: { subject: reminder.subject, at: reminder.at, title: reminder.title } });
  }
}

let sending = false;
/**
 * Sends every kept reminder; each leaves the phone once the server took it (or refused it: a note
 * deleted meanwhile). Offline, they stay. Answers how many were sent.
 * @param {import("./api.js").Api} api @returns {Promise<number>}
 */
export async function sendKeptReminders(api) {
  if (sending || !api.session) return 0;
  sending = true;
  let sent = 0;
  try {
    for (const key of Object.keys(localStorage).filter((k) => k.startsWith(PREFIX))) {
      const reminder = keptReminder(key.slice(PREFIX.length));
      if (!reminder) continue;
      try {
        await sendReminder(api, reminder);
        sent += 1;
      } catch (error) {
        // Only a refusal (a note deleted meanwhile) lets it go; offline, a failed sign-in refresh,
        // or a server error keeps it for the next time.
        const refused = error instanceof ApiError && error.status !== null && error.status >= 400 && error.status < 500
          && ![401, 403, 408, 429].includes(error.status);
        if (!refused) break;
      }
      forgetReminder(reminder.subject);
    }
  } finally {
    sending = false;
  }
  return sent;
}

/** Once per page: kept reminders go when the phone comes online. @param {import("./api.js").Api} api @param {() => void} sent */
let watching = false;
export function watchKeptReminders(api, sent) {
  if (watching) return;
  watching = true;
  window.addEventListener("online", () => { sendKeptReminders(api).then((n) => { if (n) sent(); }); });
}

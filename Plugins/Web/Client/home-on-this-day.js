// @ts-check
/**
 * iRemember's home screen "On this day" section (on-this-day.js chooses the photos): for each
 * earlier year with photos taken on today's month and day, "3 years ago today", each photo large
 * with its caption (its notes) and, where the app has read aloud, a button that speaks them.
 * Nothing at all when there are none, and nothing when the app did not switch it on
 * (album: { on_this_day: true }). From the phone's copy of the album: offline too.
 */
import * as Album from "./album.js";
import { describe, picture } from "./album-base.js";
import { onThisDay } from "./on-this-day.js";
import { readAloud, switchedOn, userLanguage } from "./speak.js";
import { h } from "./ui.js";

/** @typedef {import("./album-base.js").Photo} Photo */

/**
 * The section, or null when there is nothing to show.
 * @param {import("./album-base.js").Context} context @param {readonly Photo[]} photos @param {Date} [now]
 * @returns {HTMLElement | null}
 */
export function onThisDaySection(context, photos, now = new Date()) {
  if (!switchedOn(context, "on-this-day")) return null;
  const days = onThisDay(photos, Album.localTime(now).slice(0, 10));
  if (!days.length) return null;
  return h("section", { class: "on-this-day", "aria-labelledby": "on-this-day-title", "data-key": keyOf(days) },
    h("h2", { id: "on-this-day-title" }, "On this day"),
    ...days.map((day) => h("div", { class: "years-ago" },
      h("h3", {}, day.label),
      h("ul", { class: "memories" }, ...day.photos.map((photo) => {
        const link = h("a", { href: `#/photo/${encodeURIComponent(photo.id)}`, class: "memory" });
        picture(context, photo, "thumb").then((url) => link.prepend(h("img", { src: url, alt: describe(photo) })))
          .catch(() => link.prepend(h("span", { class: "no-picture" }, "The picture shows when this phone is online.")));
        const caption = photo.notes ? photo.notes : describe(photo);
        link.append(h("span", { class: "caption" }, caption));
        return h("li", {}, link, readAloud(context, `${day.label}: ${caption}`, userLanguage, `the caption, ${day.label}`));
      })))));
}

/** What the section shows, to tell whether a sync changed it. @param {{years: number, photos: Photo[]}[]} days */
function keyOf(days) {
  return days.map((day) => `${day.years}:${day.photos.map((p) => `${p.id}@${p.version}`).join(",")}`).join(";");
}

/**
 * After a sync: the section drawn again only when what it shows changed (a picture does not
 * flicker, a focused button keeps its focus), put after `lead`.
 * @param {HTMLElement} home @param {import("./album-base.js").Context} context @param {readonly Photo[]} photos @param {Element | null} lead
 */
export function updateOnThisDay(home, context, photos, lead) {
  const old = home.querySelector("section.on-this-day");
  const fresh = onThisDaySection(context, photos);
  if (old && fresh && /** @type {HTMLElement} */ (old).dataset.key === fresh.dataset.key) return;
  old?.remove();
  if (fresh) lead?.after(fresh);
}

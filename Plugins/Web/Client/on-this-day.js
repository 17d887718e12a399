// @ts-check
/**
 * iRemember's "On this day" (issue 41): photos taken on this month and day in earlier years, from
 * their taken dates (EXIF, else the phone's clock when added; never the upload time), out of the
 * phone's copy of the album, so it works offline. A photo taken on 29 February shows on
 * 28 February in the years that have no 29th. Pure: node:test runs it.
 */

/**
 * @template {{takenAt: string}} P
 * @typedef {object} YearsAgo
 * @property {number} years how many years ago (1 or more)
 * @property {string} label "1 year ago today", "3 years ago today"
 * @property {P[]} photos taken that day, earliest first
 */

/** @param {number} year */
function leap(year) {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** @param {number} years */
export function yearsAgoLabel(years) {
  return `${years} year${years === 1 ? "" : "s"} ago today`;
}

/**
 * The photos of this day in earlier years, the nearest year first; empty when there are none.
 * `today` is the phone's local date, `YYYY-MM-DD`; a photo's `takenAt` is its local wall-clock time.
 * @template {{takenAt: string}} P
 * @param {readonly P[]} photos @param {string} today @returns {YearsAgo<P>[]}
 */
export function onThisDay(photos, today) {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(today);
  if (!match) return [];
  const year = Number(match[1]);
  const monthDay = `${match[2]}-${match[3]}`;
  // 28 February in a year without a 29th also shows the photos of 29 February.
  const days = monthDay === "02-28" && !leap(year) ? ["02-28", "02-29"] : [monthDay];
  /** @type {Map<number, P[]>} */
  const byYear = new Map();
  for (const photo of photos) {
    const taken = /^(\d{4})-(\d{2}-\d{2})/.exec(photo.takenAt ?? "");
    if (!taken || !days.includes(taken[2])) continue;
    const years = year - Number(taken[1]);
    if (years < 1) continue;
    byYear.set(years, [...(byYear.get(years) ?? []), photo]);
  }
  return [...byYear.entries()].sort((a, b) => a[0] - b[0]).map(([years, list]) => ({
    years, label: yearsAgoLabel(years), photos: list.sort((a, b) => (a.takenAt < b.takenAt ? -1 : a.takenAt > b.takenAt ? 1 : 0)),
  }));
}

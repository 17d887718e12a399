// @ts-check
/**
 * What Foreign Note's statistics screen draws, from the server's `review/statistics`: pure
 * functions (no DOM), tested in Tests/WebClient/vocab-stats-data.test.mjs.
 */

/**
 * @typedef {{day: string, reviews: number}} DayCount
 * @typedef {{label: string, reviewed: number, recalled: number}} Retention
 * @typedef {{parameters: number[], fittedAt: string, reviews: number, logLoss: number, logLossDefault: number}} Fitted
 * @typedef {{today: string, heatmap: DayCount[], reviewsInYear: number, retentionByDay: Retention[],
 *   retentionByInterval: Retention[], forecast: DayCount[], fitted?: Fitted | null}} Statistics
 */

/** Days since 1970-01-01 of a `YYYY-MM-DD`. @param {string} day */
export function dayNumber(day) {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
}

/** `YYYY-MM-DD` of a day number. @param {number} number */
export function dayOf(number) {
  return new Date(number * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The year's heatmap: 53 weeks as columns (Monday on top), each day with its count and a level
 * 0–4 (0: none; then quarters of the busiest day).
 * @param {Statistics} stats
 * @returns {{week: number, weekday: number, day: string, reviews: number, level: number}[]}
 */
export function heatmapCells(stats) {
  const today = dayNumber(stats.today);
  const counts = new Map(stats.heatmap.map((d) => [d.day, d.reviews]));
  const most = Math.max(1, ...stats.heatmap.map((d) => d.reviews));
  // 1970-01-01 was a Thursday: weekday 0 is Monday.
  const weekday = (/** @type {number} */ n) => (n + 3) % 7;
  const start = today - 364;
  const first = start - weekday(start);
  const cells = [];
  for (let n = start; n <= today; n++) {
    const reviews = counts.get(dayOf(n)) ?? 0;
    cells.push({ week: Math.floor((n - first) / 7), weekday: weekday(n), day: dayOf(n), reviews,
      level: reviews === 0 ? 0 : Math.min(4, Math.ceil((reviews / most) * 4)) });
  }
  return cells;
}

/** "85 %" of recalled/reviewed, or "–" with none. @param {{reviewed: number, recalled: number}} r */
export function percent(r) {
  return r.reviewed ? `${Math.round((100 * r.recalled) / r.reviewed)} %` : "–";
}

/**
 * Sentences for screen readers and the walk: the year, retention, the forecast.
 * @param {Statistics} stats
 */
export function summaries(stats) {
  const days = stats.heatmap.length;
  const busiest = stats.heatmap.reduce((a, b) => (b.reviews > (a?.reviews ?? 0) ? b : a), /** @type {DayCount | null} */ (null));
  const month = stats.retentionByDay.reduce((sum, r) => ({ label: "", reviewed: sum.reviewed + r.reviewed, recalled: sum.recalled + r.recalled }),
    { label: "", reviewed: 0, recalled: 0 });
  const due = stats.forecast.map((d) => d.reviews);
  const sum = (/** @type {number[]} */ list) => list.reduce((a, b) => a + b, 0);
  return {
    year: `${stats.reviewsInYear} review${stats.reviewsInYear === 1 ? "" : "s"} on ${days} day${days === 1 ? "" : "s"} in the last year`
      + (busiest ? `; the most, ${busiest.reviews}, on ${busiest.day}` : ""),
    retention: month.reviewed
      ? `True retention over 30 days: ${percent(month)} (${month.recalled} of ${month.reviewed} reviews of learned words remembered)`
      : "No reviews of learned words in the last 30 days yet",
    forecast: `Due today ${due[0] ?? 0}, tomorrow ${due[1] ?? 0}, in the next 7 days ${sum(due.slice(0, 7))}, in the next 30 days ${sum(due)}`,
    month,
  };
}

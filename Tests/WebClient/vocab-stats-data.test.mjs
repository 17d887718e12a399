// Foreign Note's statistics, what the screen draws (Plugins/Web/Client/vocab-stats-data.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { dayNumber, dayOf, heatmapCells, percent, summaries } from "../../Plugins/Web/Client/vocab-stats-data.js";

/** @returns {import("../../Plugins/Web/Client/vocab-stats-data.js").Statistics} */
function stats() {
  return {
    today: "2026-11-26",
    heatmap: [{ day: "2026-10-29", reviews: 40 }, { day: "2026-11-21", reviews: 10 }, { day: "2026-11-26", reviews: 5 }],
    reviewsInYear: 55,
    retentionByDay: [{ label: "2026-11-25", reviewed: 4, recalled: 3 }, { label: "2026-11-26", reviewed: 6, recalled: 6 }],
    retentionByInterval: [{ label: "1 day", reviewed: 0, recalled: 0 }],
    forecast: [3, 2, 0, 0, 1, 0, 0, 4, ...Array(22).fill(0)].map((reviews, i) => ({ day: dayOf(dayNumber("2026-11-26") + i), reviews })),
  };
}

test("the heatmap: 365 squares, today last, Monday on top, the busiest day at level 4", () => {
  const cells = heatmapCells(stats());
  assert.equal(cells.length, 365);
  assert.equal(cells.at(-1)?.day, "2026-11-26");
  assert.equal(cells.at(-1)?.weekday, 3, "26 November 2026 is a Thursday");
  assert.deepEqual(cells.filter((c) => c.reviews).map((c) => [c.day, c.reviews, c.level]),
    [["2026-10-29", 40, 4], ["2026-11-21", 10, 1], ["2026-11-26", 5, 1]]);
  assert.ok(cells.every((c, i) => i === 0 || c.week > cells[i - 1].week || (c.week === cells[i - 1].week && c.weekday === cells[i - 1].weekday + 1)));
});

test("summaries: the year, true retention, the forecast", () => {
  const said = summaries(stats());
  assert.equal(said.year, "55 reviews on 3 days in the last year; the most, 40, on 2026-10-29");
  assert.equal(said.retention, "True retention over 30 days: 90 % (9 of 10 reviews of learned words remembered)");
  assert.equal(said.forecast, "Due today 3, tomorrow 2, in the next 7 days 6, in the next 30 days 10");
  assert.equal(percent({ reviewed: 0, recalled: 0 }), "–");
});

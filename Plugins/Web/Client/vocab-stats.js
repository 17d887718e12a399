// @ts-check
/**
 * Foreign Note's statistics (`#/stats`): a year of reviews per day as a heatmap, true retention by
 * day and by interval, the cards due on each of the next 30 days — computed on the server from the
 * review log, drawn here with plain SVG and HTML; offline, the last copy fetched. Below them, the
 * review settings' "Your parameters": "Fit my parameters" runs the FSRS-6 optimizer on the server
 * as a background job (its progress shown), "Back to default" forgets the fitted ones.
 */
import { ApiError } from "./api.js";
import { announce, h, readableTime } from "./ui.js";
import { V, VocabElement, back } from "./vocab-parts.js";
import { heatmapCells, percent, summaries } from "./vocab-stats-data.js";

/** @typedef {import("./vocab-stats-data.js").Statistics} Statistics */

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element. @param {string} tag @param {Record<string, string | number>} attributes @param {Node[]} children */
function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/** A chart: an SVG image whose label says what it shows. @param {string} label @param {number} width @param {number} height @param {Node[]} children */
function chart(label, width, height, children) {
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "chart", preserveAspectRatio: "xMinYMin meet" }, ...children);
}

/** Where the last statistics fetched are kept, per account. @param {import("./vocab-parts.js").Context} ctx */
function storeKey(ctx) {
  return `quire-foreign-note-stats-${ctx.api.session?.accountId ?? "anonymous"}`;
}

/** @param {string} day e.g. "2026-11-26" → "26 Nov" */
function short(day) {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { day: "numeric", month: "short", timeZone: "UTC" });
}

export class StatsScreen extends VocabElement {
  render() {
    if (this.stats === undefined) {
      this.stats = /** @type {Statistics | null} */ (null);
      this.fetchedAt = /** @type {string | null} */ (null);
      this.offline = false;
      this.fitting = /** @type {{progress: number} | null} */ (null);
      this.message = "";
      this.error = "";
      this.load();
    }
    const stats = this.stats;
    this.replaceChildren(h("main", { class: "screen vocab stats" },
      h("div", { class: "toolbar" }, back("#/", "Collections"), h("h1", {}, "Statistics")),
      this.offline && this.fetchedAt ? h("p", { class: "muted", role: "status", id: "stats-offline" },
        `Offline: the statistics as of ${readableTime(this.fetchedAt)}.`) : null,
      stats ? this.charts(stats) : h("p", { class: "empty", role: "status" }, this.offline ? "Offline, and no statistics kept on this phone yet." : "Counting your reviews…"),
      this.parameters(stats)));
  }

  changed() {} // drawn from the server's answer, not the synced records

  async load() {
    try {
      const { body } = await this.ctx.api.request("GET", `${V}/review/statistics?tzOffset=${-new Date().getTimezoneOffset()}`);
      this.stats = body;
      this.fetchedAt = new Date().toISOString();
      this.offline = false;
      try { localStorage.setItem(storeKey(this.ctx), JSON.stringify({ stats: body, fetchedAt: this.fetchedAt })); } catch { /* a full store keeps the older copy */ }
    } catch (error) {
      if (!(error instanceof ApiError) || !error.offline) throw error;
      this.offline = true;
      const kept = localStorage.getItem(storeKey(this.ctx));
      if (kept) ({ stats: this.stats, fetchedAt: this.fetchedAt } = JSON.parse(kept));
    }
    this.render();
  }

  /** @param {Statistics} stats */
  charts(stats) {
    const said = summaries(stats);
    return h("div", { class: "stats-charts" },
      h("section", { "aria-labelledby": "stats-year" },
        h("h2", { id: "stats-year" }, "Reviews in the last year"),
        this.heatmap(stats, said.year),
        h("p", { id: "stats-year-summary" }, said.year)),
      h("section", { "aria-labelledby": "stats-forecast" },
        h("h2", { id: "stats-forecast" }, "Due in the next 30 days"),
        this.bars(stats.forecast.map((d) => ({ label: short(d.day), value: d.reviews })), said.forecast, "due"),
        h("p", { id: "stats-forecast-summary" }, said.forecast)),
      h("section", { "aria-labelledby": "stats-retention" },
        h("h2", { id: "stats-retention" }, "True retention"),
        h("p", { id: "stats-retention-summary" }, said.retention),
        this.bars(stats.retentionByDay.map((r) => ({ label: short(r.label), value: r.reviewed ? Math.round((100 * r.recalled) / r.reviewed) : 0 })),
          `Share of learned words remembered, each of the last 30 days: ${said.retention}`, "retention", 100),
        h("table", { class: "stats-table", id: "retention-by-interval" },
          h("caption", {}, "By days since the word's review before"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Interval"), h("th", { scope: "col" }, "Reviews"), h("th", { scope: "col" }, "Remembered"))),
          h("tbody", {}, ...stats.retentionByInterval.map((r) =>
            h("tr", {}, h("th", { scope: "row" }, r.label), h("td", {}, String(r.reviewed)), h("td", {}, percent(r))))))));
  }

  /** @param {Statistics} stats @param {string} label */
  heatmap(stats, label) {
    const cells = heatmapCells(stats);
    const size = 7, gap = 1;
    const weeks = (cells.at(-1)?.week ?? 0) + 1;
    return chart(`Reviews per day over the last year, a square a day: ${label}.`, weeks * (size + gap), 7 * (size + gap),
      cells.map((c) => svg("rect", { x: c.week * (size + gap), y: c.weekday * (size + gap), width: size, height: size, rx: 1.5,
        class: `heat heat-${c.level}`, "data-day": c.day, "data-reviews": c.reviews }, svg("title", {}, document.createTextNode(`${c.day}: ${c.reviews}`)))));
  }

  /**
   * Columns, one per item, with the first and last labels under them.
   * @param {{label: string, value: number}[]} items @param {string} label @param {string} kind @param {number} [top]
   */
  bars(items, label, kind, top) {
    const width = 300, height = 90, base = 76;
    const most = top ?? Math.max(1, ...items.map((i) => i.value));
    const step = width / Math.max(1, items.length);
    return chart(label, width, height, [
      svg("line", { x1: 0, x2: width, y1: base, y2: base, class: "axis" }),
      ...items.map((item, index) => {
        const tall = Math.round((item.value / most) * (base - 4));
        return svg("rect", { x: index * step + 1, y: base - tall, width: Math.max(1, step - 2), height: tall, class: `bar ${kind}`, "data-value": item.value },
          svg("title", {}, document.createTextNode(`${item.label}: ${item.value}${top === 100 ? " %" : ""}`)));
      }),
      svg("text", { x: 0, y: height - 2, class: "tick" }, document.createTextNode(items[0]?.label ?? "")),
      svg("text", { x: width, y: height - 2, class: "tick", "text-anchor": "end" }, document.createTextNode(items.at(-1)?.label ?? "")),
    ]);
  }

  /** "Your parameters": fit them, see the progress, back to default. @param {Statistics | null} stats */
  parameters(stats) {
    const fitted = stats?.fitted;
    const status = fitted
      ? `Fitted on ${new Date(fitted.fittedAt).toLocaleDateString()} to ${fitted.reviews} of your reviews: they predicted your recall with a log loss of ${fitted.logLoss.toFixed(3)}, the defaults ${fitted.logLossDefault.toFixed(3)}.`
      : "FSRS-6's default parameters schedule your reviews. Fit them to your own reviews once you have made a few hundred.";
    return h("section", { class: "settings", "aria-labelledby": "stats-parameters" },
      h("h2", { id: "stats-parameters" }, "Settings: your parameters"),
      h("p", { id: "parameters-status" }, status),
      this.fitting ? h("progress", { id: "fit-progress", max: "1", value: String(this.fitting.progress), "aria-label": "Fitting your parameters" }) : null,
      h("p", { role: "status", id: "fit-said" }, this.message),
      h("p", { role: "alert", class: "error", id: "fit-error" }, this.error),
      h("div", { class: "actions" },
        h("button", { type: "button", id: "fit", disabled: Boolean(this.fitting || this.offline), onclick: () => this.fit() }, "Fit my parameters"),
        fitted ? h("button", { type: "button", class: "secondary", id: "fit-reset", disabled: this.offline, onclick: () => this.reset() }, "Back to default") : null));
  }

  async fit() {
    this.fitting = { progress: 0 };
    this.message = "Fitting your parameters to your reviews…";
    this.error = "";
    this.render();
    try {
      let { body: job } = await this.ctx.api.request("POST", `${V}/review/parameters/fit?tzOffset=${-new Date().getTimezoneOffset()}`);
      while (job.state === "running") {
        this.fitting = { progress: job.progress ?? 0 };
        this.message = job.queued ? "Waiting for the server…" : `Fitting your parameters: ${Math.round((job.progress ?? 0) * 100)} %`;
        this.render();
        await new Promise((done) => setTimeout(done, 300));
        ({ body: job } = await this.ctx.api.request("GET", `${V}/review/parameters/fit/${encodeURIComponent(job.id)}`));
      }
      this.fitting = null;
      if (job.state === "succeeded") {
        this.message = "Done: your own parameters schedule your reviews from now on.";
        announce(this.message);
        await this.load();
        return;
      }
      this.error = job.failure ?? "The fit failed; try again.";
    } catch (error) {
      this.fitting = null;
      this.message = "";
      this.error = error instanceof ApiError ? (error.offline ? "Offline: fitting needs the server. Try again when you are online." : error.message) : String(error);
    }
    this.render();
  }

  async reset() {
    try {
      await this.ctx.api.request("DELETE", `${V}/review/parameters`);
      this.message = "Back to the default parameters.";
      this.error = "";
      announce(this.message);
      await this.load();
    } catch (error) {
      this.error = error instanceof ApiError ? error.message : String(error);
      this.render();
    }
  }
}
customElements.define("vocab-stats", StatsScreen);

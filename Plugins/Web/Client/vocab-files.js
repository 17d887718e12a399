// @ts-check
/**
 * Importing a CSV or an Anki package (with the job's progress and the rows it could not take) and
 * exporting either as a download.
 */
import { ApiError } from "./api.js";
import { localId } from "./outbox.js";
import { h } from "./ui.js";
import { tip } from "./vocab-help.js";
import { V, VocabElement, back } from "./vocab-parts.js";


// Import and export --------------------------------------------------------------------------------

export class FilesScreen extends VocabElement {
  changed() {}

  render() {
    const progress = /** @type {HTMLProgressElement} */ (h("progress", { id: "import-progress", max: "1", value: "0", hidden: true }));
    const said = h("p", { role: "status", id: "import-status" });
    const errors = h("ul", { class: "import-errors", "aria-label": "Rows not imported" });
    const file = /** @type {HTMLInputElement} */ (h("input", { type: "file", id: "import-file", accept: ".csv,.apkg,text/csv,application/zip",
      onchange: () => { const chosen = file.files?.[0]; if (chosen) this.import(chosen, progress, said, errors); } }));
    /** @param {"apkg" | "csv"} format @param {string} label */
    const exporter = (format, label) => h("button", { type: "button", class: "secondary", onclick: () => this.export(format, said) }, label);
    this.replaceChildren(h("main", { class: "screen vocab" },
      h("div", { class: "toolbar" }, back("#/", "Collections"), h("h1", {}, "Import and export")),
      h("h2", {}, "Import"),
      h("p", { class: "hint" }, "A CSV (word, definition, tags, collection…) or an Anki package (.apkg)."),
      h("label", { for: "import-file", class: "button" }, "Choose a file to import"), file,
      progress, said, errors,
      h("h2", {}, "Export"),
      h("p", { class: "hint" }, "Everything, as an Anki package or a CSV you can open in a spreadsheet."),
      h("div", { class: "row" }, exporter("apkg", "Export for Anki (.apkg)"), exporter("csv", "Export as CSV")),
      tip(this, ["files"])));
    file.classList.add("visually-hidden");
  }

  /**
   * Sends the file, then follows the job until it ends, showing its progress.
   * @param {File} file @param {HTMLProgressElement} progress @param {HTMLElement} said @param {HTMLElement} errors
   */
  async import(file, progress, said, errors) {
    const apkg = /\.apkg$/i.test(file.name);
    errors.replaceChildren();
    progress.hidden = false;
    progress.removeAttribute("value");
    said.textContent = `Sending ${file.name}…`;
    try {
      const answer = await this.ctx.api.request("POST", `${V}/imports?format=${apkg ? "apkg" : "csv"}`, { body: file,
        contentType: apkg ? "application/zip" : "text/csv", headers: { "Idempotency-Key": localId().slice(6) } });
      let job = answer.body;
      while (job.state === "running") {
        if (job.rowsTotal) {
          progress.max = job.rowsTotal;
          progress.value = job.rowsRead;
        }
        said.textContent = job.rowsTotal ? `Importing: ${job.rowsRead} of ${job.rowsTotal} rows…` : `Importing: ${job.rowsRead} rows…`;
        await new Promise((resolve) => window.setTimeout(resolve, 400));
        job = await this.ctx.api.get(`${V}/imports/${job.id}`);
      }
      progress.max = 1;
      progress.value = job.state === "succeeded" ? 1 : 0;
      const updated = job.updated ? `, ${job.updated} updated (already here)` : "";
      said.textContent = job.state === "succeeded"
        ? `Imported ${job.imported} word${job.imported === 1 ? "" : "s"}${updated}${job.errorCount ? `; ${job.errorCount} row${job.errorCount === 1 ? "" : "s"} could not be` : ""}.`
        : `Nothing was imported: ${job.failure ?? "the file could not be read"}`;
      errors.replaceChildren(...(job.errors ?? []).slice(0, 20).map((/** @type {any} */ e) => h("li", {}, `Row ${e.row}: ${e.message}`)));
      await this.ctx.sync.pull();
    } catch (error) {
      progress.hidden = true;
      said.textContent = error instanceof ApiError ? (error.offline ? "Importing needs the network. Try again when you are online." : error.message)
        : "Something went wrong; try again.";
    }
  }

  /** A download of the whole vocabulary. @param {"apkg" | "csv"} format @param {HTMLElement} said */
  async export(format, said) {
    said.textContent = "Preparing the file…";
    try {
      const answer = await this.ctx.api.request("GET", `${V}/export?format=${format}`);
      const url = URL.createObjectURL(answer.body);
      const link = h("a", { href: url, download: `foreign-note.${format}` });
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
      said.textContent = `Saved foreign-note.${format}.`;
    } catch (error) {
      said.textContent = error instanceof ApiError ? (error.offline ? "Exporting needs the network. Try again when you are online." : error.message)
        : "Something went wrong; try again.";
    }
  }
}
customElements.define("vocab-files", FilesScreen);

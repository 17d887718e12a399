// @ts-check
/**
 * The operator's screen (`#/admin`): accounts (search, disable, enable, delete), what the server
 * stores, jobs (imports, and deletions of vocabulary collections' entries) running, failed and
 * finished, health, the last warnings and errors with their request ids, and backups (status,
 * "Back up now" with its progress and result, the restore points with the command that restores
 * each). Only operators reach it: the app shows the link when `GET /api/v1/auth/me` says
 * `operator: true`, and every admin route is a 404 for anyone else.
 */
import { ApiError } from "./api.js";
import { announce, confirmAction, h } from "./ui.js";
import { backupRunText, jobText, parseSize, plural, size, usageText, when } from "./admin-text.js";

export { size };

/** @typedef {{accountId: string, username: string | null, kind: string, createdAt: string, operator: boolean, disabled: boolean, storedBytes: number | null, maxStoredBytes?: number | null}} AdminUser */
/** @typedef {import("./admin-text.js").AdminJob} AdminJob */
/** @typedef {import("./admin-text.js").BackupRun} BackupRun */
/** @typedef {import("./admin-text.js").BackupFailure} BackupFailure */
/** @typedef {import("./admin-text.js").RestorePoint} RestorePoint */

/** Whether the signed-in account is an operator (the probe the app's header uses): auth's `me`
 * says so to everyone signed in; the admin routes are a 404 (an error in the console) to anyone else.
 * @param {import("./api.js").Api} api */
export async function isOperator(api) {
  try {
    const answer = await api.request("GET", "/api/v1/auth/me");
    return answer.status === 200 && answer.body?.operator === true;
  } catch {
    return false;
  }
}

/** @param {AdminUser} user */
function userName(user) {
  return user.username ?? (user.kind === "device" ? "Device account" : "Account without a name");
}

class QuireAdmin extends HTMLElement {
  /** @param {{api: import("./api.js").Api}} context */
  attach(context) {
    this.api = context.api;
    this.query = "";
    this.className = "screen admin";
    this.status = h("p", { class: "error", role: "alert" });
    this.users = h("ul", { class: "admin-list", "aria-label": "Users" });
    this.more = h("div");
    this.storage = h("div", { class: "admin-facts" }, h("p", {}, "Measuring…"));
    this.jobs = h("div", {}, h("p", {}, "Loading…"));
    this.health = h("div", {}, h("p", {}, "Checking…"));
    this.logs = h("div", {}, h("p", {}, "Loading…"));
    this.backups = h("div", {}, h("p", {}, "Loading…"));
    this.restorePoints = h("div", { class: "admin-points" }, h("p", {}, "Loading…"));
    /** @type {number | undefined} */ this.jobsTimer = undefined;
    /** @type {number | undefined} */ this.backupTimer = undefined;
    /** @type {string | undefined} */ this.shownRun = undefined;
    this.pointsLoaded = false;
    /** Whether a running backup is being followed (its end is announced). */
    this.watching = false;
    const search = /** @type {HTMLInputElement} */ (h("input", { id: "admin-search", type: "search", autocomplete: "off", autocapitalize: "none",
      spellcheck: false, placeholder: "Username or acc_…" }));
    const nav = h("nav", { "aria-label": "Sections", class: "admin-nav" },
      ...[["admin-users", "Users"], ["admin-storage", "Storage"], ["admin-jobs", "Jobs"], ["admin-health", "Health"],
        ["admin-logs", "Problems"], ["admin-backups", "Backups"]].map(([id, label]) =>
        h("button", { type: "button", class: "secondary", onclick: () => this.querySelector(`#${id}`)?.scrollIntoView({ block: "start" }) }, label)));
    this.replaceChildren(
      h("h1", {}, "Operator"),
      nav,
      this.status,
      h("section", { "aria-labelledby": "admin-users" }, h("h2", { id: "admin-users" }, "Users"),
        h("form", { class: "row admin-search", role: "search", onsubmit: (/** @type {Event} */ event) => {
          event.preventDefault();
          this.query = search.value.trim();
          this.loadUsers();
        } }, h("label", { for: "admin-search", class: "visually-hidden" }, "Search users"), search, h("button", { type: "submit" }, "Search")),
        this.users, this.more),
      h("section", { "aria-labelledby": "admin-storage" }, h("h2", { id: "admin-storage" }, "Storage"), this.storage),
      h("section", { "aria-labelledby": "admin-jobs" }, h("h2", { id: "admin-jobs" }, "Imports and deletions"), this.jobs),
      h("section", { "aria-labelledby": "admin-health" }, h("h2", { id: "admin-health" }, "Health"), this.health),
      h("section", { "aria-labelledby": "admin-logs" }, h("h2", { id: "admin-logs" }, "Recent warnings and errors"), this.logs),
      h("section", { "aria-labelledby": "admin-backups" }, h("h2", { id: "admin-backups" }, "Backups"), this.backups));
    this.refresh();
  }

  refresh() {
    this.loadUsers();
    this.loadStorage();
    this.loadJobs();
    this.loadHealth();
    this.loadLogs();
    this.loadBackups();
  }

  /** @param {string} path */
  async get(path) {
    const api = /** @type {import("./api.js").Api} */ (this.api);
    return (await api.request("GET", path)).body;
  }

  /** @param {unknown} error @param {HTMLElement} where @param {string} what */
  failed(error, where, what) {
    const reason = error instanceof ApiError ? error.message : "Something went wrong.";
    where.replaceChildren(h("p", { class: "error" }, `${what} could not be loaded: ${reason} Reload the page to try again.`));
  }

  /** @param {string} [cursor] */
  async loadUsers(cursor) {
    const params = new URLSearchParams({ limit: "20" });
    if (this.query) params.set("q", this.query);
    if (cursor) params.set("cursor", cursor);
    const users = /** @type {HTMLElement} */ (this.users);
    const more = /** @type {HTMLElement} */ (this.more);
    try {
      const page = await this.get(`/api/v1/admin/users?${params}`);
      if (!cursor) users.replaceChildren();
      for (const user of page.items) users.append(this.userRow(user));
      if (!users.childElementCount) users.append(h("li", {}, this.query ? `No user's name starts with “${this.query}”.` : "No users yet."));
      more.replaceChildren(page.nextCursor
        ? h("button", { type: "button", class: "secondary", onclick: () => this.loadUsers(page.nextCursor) }, "More users") : "");
    } catch (error) {
      this.failed(error, users, "The users");
    }
  }

  /** @param {AdminUser} user */
  userRow(user) {
    const name = userName(user);
    const badges = [user.operator ? "operator" : "", user.disabled ? "disabled" : ""].filter(Boolean);
    const row = h("li", { class: user.disabled ? "admin-user disabled" : "admin-user", "data-account": user.accountId },
      h("div", { class: "admin-user-name" }, h("strong", {}, name),
        badges.length ? h("span", { class: "badges" }, ...badges.map((badge) => h("span", { class: `badge ${badge}` }, badge))) : null),
      h("p", { class: "admin-meta" }, `${user.accountId} · ${user.kind} · since ${when(user.createdAt)}`),
      h("p", { class: "admin-meta admin-usage" }, usageText(user.storedBytes, user.maxStoredBytes)),
      typeof user.maxStoredBytes === "number" ? this.usageBar(user, name) : null,
      typeof user.maxStoredBytes === "number" ? this.quotaForm(user, name) : null,
      user.operator ? null : h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", "aria-label": `${user.disabled ? "Enable" : "Disable"} ${name}`,
          onclick: () => this.setDisabled(user, !user.disabled) }, user.disabled ? "Enable" : "Disable"),
        h("button", { type: "button", class: "danger", "aria-label": `Delete ${name}`, onclick: () => this.deleteUser(user) }, "Delete")));
    return row;
  }

  /** What a user stores against their quota, as a bar. @param {AdminUser} user @param {string} name */
  usageBar(user, name) {
    const limit = user.maxStoredBytes ?? 0;
    const stored = user.storedBytes ?? 0;
    const share = limit > 0 ? Math.min(1, stored / limit) : 0;
    return h("meter", { class: "admin-usage-bar", min: "0", max: String(limit), value: String(Math.min(stored, limit)), low: String(limit * 0.8),
      high: String(limit * 0.95), optimum: "0", "aria-label": `${name}'s storage: ${size(stored)} of ${size(limit)} (${Math.round(share * 100)}%)` });
  }

  /** The quota, changed in place: a size such as 5 GB; a bad one is said under the field.
   * @param {AdminUser} user @param {string} name */
  quotaForm(user, name) {
    const id = `quota-${user.accountId}`;
    const input = /** @type {HTMLInputElement} */ (h("input", { id, type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: false,
      value: size(user.maxStoredBytes), "aria-describedby": `${id}-help ${id}-error` }));
    const error = h("p", { id: `${id}-error`, class: "error", role: "alert" });
    const form = h("form", { class: "admin-quota", hidden: "", onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault();
      this.setQuota(user, name, input.value, error);
    } },
    h("label", { for: id }, `Storage quota for ${name}`), input,
    h("p", { id: `${id}-help`, class: "admin-meta" }, "A size such as 5 GB or 500 MB."), error,
    h("div", { class: "row" }, h("button", { type: "submit" }, "Save quota"),
      h("button", { type: "button", class: "secondary", onclick: () => { form.hidden = true; toggle.hidden = false; error.textContent = ""; } }, "Cancel")));
    const toggle = h("button", { type: "button", class: "secondary", "aria-label": `Change the storage quota of ${name}`,
      onclick: () => { form.hidden = false; toggle.hidden = true; input.focus(); input.select(); } }, "Change quota");
    return h("div", { class: "admin-quota-wrap" }, toggle, form);
  }

  /** @param {AdminUser} user @param {string} name @param {string} text @param {HTMLElement} error */
  async setQuota(user, name, text, error) {
    const bytes = parseSize(text);
    if (bytes === null) {
      error.textContent = `“${text.trim()}” is not a size. Write a number and a unit, such as 5 GB or 500 MB (more than 0, at most 1 TB).`;
      return;
    }
    if (bytes > 1024 ** 4) {
      error.textContent = `${size(bytes)} is more than the largest quota, 1 TB. Write 1 TB or less.`;
      return;
    }
    const api = /** @type {import("./api.js").Api} */ (this.api);
    try {
      const quota = (await api.request("PUT", `/api/v1/admin/users/${encodeURIComponent(user.accountId)}/quota`, { body: { maxStoredBytes: bytes } })).body;
      const changed = { ...user, storedBytes: quota.storedBytes, maxStoredBytes: quota.maxStoredBytes };
      this.querySelector(`[data-account="${user.accountId}"]`)?.replaceWith(this.userRow(changed));
      announce(`${name} may now store ${size(quota.maxStoredBytes)}.`);
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : "The quota could not be saved; try again.";
    }
  }

  /** @param {AdminUser} user @param {boolean} disabled */
  async setDisabled(user, disabled) {
    const api = /** @type {import("./api.js").Api} */ (this.api);
    const name = userName(user);
    if (disabled && !(await confirmAction(`Disable ${name}? They are signed out on every device at once and cannot sign in until you enable them again. Nothing they stored is deleted.`, "Disable"))) return;
    try {
      const changed = (await api.request("POST", `/api/v1/admin/users/${encodeURIComponent(user.accountId)}/${disabled ? "disable" : "enable"}`)).body;
      this.querySelector(`[data-account="${user.accountId}"]`)?.replaceWith(this.userRow(changed));
      announce(disabled ? `${name} is disabled and signed out.` : `${name} may sign in again.`);
      /** @type {HTMLElement} */ (this.status).textContent = "";
    } catch (error) {
      /** @type {HTMLElement} */ (this.status).textContent = error instanceof ApiError ? error.message : "That did not work; try again.";
    }
  }

  /** @param {AdminUser} user */
  async deleteUser(user) {
    const api = /** @type {import("./api.js").Api} */ (this.api);
    const name = userName(user);
    const question = `Delete ${name} for good? Their account and everything they stored — ${size(user.storedBytes)} of notes, words, photos, drawings and other records — are deleted, and they are signed out everywhere. This cannot be undone; take a backup first if you might need it.`;
    if (!(await confirmAction(question, "Delete user"))) return;
    try {
      const done = (await api.request("DELETE", `/api/v1/admin/users/${encodeURIComponent(user.accountId)}`)).body;
      this.querySelector(`[data-account="${user.accountId}"]`)?.remove();
      announce(`${name} deleted, with ${done.records} record${done.records === 1 ? "" : "s"}.`);
      /** @type {HTMLElement} */ (this.status).textContent = "";
      this.loadStorage();
    } catch (error) {
      /** @type {HTMLElement} */ (this.status).textContent = error instanceof ApiError ? error.message : "That did not work; try again.";
    }
  }

  async loadStorage() {
    const where = /** @type {HTMLElement} */ (this.storage);
    try {
      const storage = await this.get("/api/v1/admin/storage");
      const facts = [
        ["In all", size(storage.totalBytes)],
        ["Database", storage.databaseBytes === null ? `${storage.backend} (size not measured)` : `${size(storage.databaseBytes)} (${storage.backend})`],
        ["Files", `${size(storage.blobBytes)} in ${storage.blobCount} file${storage.blobCount === 1 ? "" : "s"}`],
        ["Disk free", storage.diskFreeBytes === null ? "not on disk" : `${size(storage.diskFreeBytes)} of ${size(storage.diskTotalBytes)}`],
      ];
      where.replaceChildren(h("dl", {}, ...facts.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])),
        storage.dataFolder ? h("p", { class: "admin-meta" }, `Photos and files are kept in ${storage.dataFolder}; the disk free is that folder's disk.`) : "",
        h("p", { class: "admin-meta" }, "What each user stores is in the list of users."));
    } catch (error) {
      this.failed(error, where, "Storage");
    }
  }

  /** @param {AdminJob} job */
  jobRow(job) {
    const text = jobText(job);
    return h("li", { class: `admin-job ${job.state} ${job.kind.replace(".", "-")}`, "data-job": job.id },
      h("div", { class: "admin-user-name" }, h("strong", {}, text.title), h("span", { class: `badge ${job.state}` }, job.state)),
      h("p", { class: "admin-meta" }, text.meta),
      job.failure ? h("p", { class: "admin-failure" }, job.failure) : null);
  }

  /** Imports and deletions running and failed, then those finished lately; while one runs, read again every few seconds. */
  async loadJobs() {
    const where = /** @type {HTMLElement} */ (this.jobs);
    window.clearTimeout(this.jobsTimer);
    try {
      const [page, done] = await Promise.all([this.get("/api/v1/admin/jobs?limit=50"), this.get("/api/v1/admin/jobs?state=succeeded&limit=10")]);
      /** @type {AdminJob[]} */ const current = page.items;
      /** @type {AdminJob[]} */ const finished = done.items;
      where.replaceChildren(
        current.length
          ? h("ul", { class: "admin-list", "aria-label": "Running and failed" }, ...current.map((job) => this.jobRow(job)))
          : h("p", {}, "No import or deletion is running, and none failed."),
        finished.length ? h("h3", { class: "admin-subhead" }, "Finished lately") : "",
        finished.length ? h("ul", { class: "admin-list", "aria-label": "Finished lately" }, ...finished.map((job) => this.jobRow(job))) : "");
      if (current.some((job) => job.state === "running")) {
        this.jobsTimer = window.setTimeout(() => { if (this.isConnected) this.loadJobs(); }, 3000);
      }
    } catch (error) {
      this.failed(error, where, "The jobs");
    }
  }

  async loadHealth() {
    const where = /** @type {HTMLElement} */ (this.health);
    try {
      const health = await this.get("/api/v1/admin/health");
      const names = /** @type {Record<string, string>} */ ({ database: "Database", bus: "Bus", nats: "NATS", postgresql: "PostgreSQL", disk: "Disk" });
      const words = /** @type {Record<string, string>} */ ({ ok: "OK", failing: "Failing", "not-configured": "Not configured" });
      where.replaceChildren(
        h("p", { class: `admin-overall ${health.status}` }, health.status === "ok" ? "Everything answers." : "Something needs you: see below."),
        h("ul", { class: "admin-list", "aria-label": "Checks" }, ...health.checks.map((/** @type {any} */ check) =>
          h("li", { class: `admin-check ${check.status}` },
            h("div", { class: "admin-user-name" }, h("strong", {}, names[check.name] ?? check.name),
              h("span", { class: `badge ${check.status}` }, words[check.status] ?? check.status)),
            h("p", { class: "admin-meta" }, check.detail + (typeof check.milliseconds === "number" ? ` (${check.milliseconds} ms)` : ""))))));
    } catch (error) {
      this.failed(error, where, "Health");
    }
  }

  async loadLogs() {
    const where = /** @type {HTMLElement} */ (this.logs);
    try {
      const page = await this.get("/api/v1/admin/logs?limit=100");
      if (!page.items.length) { where.replaceChildren(h("p", {}, "No warning or error since the server started.")); return; }
      where.replaceChildren(h("ul", { class: "admin-list", "aria-label": "Warnings and errors" }, ...page.items.map((/** @type {any} */ entry) =>
        h("li", { class: `admin-log ${entry.level}` },
          h("div", { class: "admin-user-name" }, h("strong", {}, entry.message), h("span", { class: `badge ${entry.level}` }, entry.level)),
          h("p", { class: "admin-meta" }, when(entry.at), entry.requestId ? " · request " : "", entry.requestId ? h("code", {}, entry.requestId) : null),
          Object.keys(entry.fields).length ? h("p", { class: "admin-meta admin-fields" },
            Object.entries(entry.fields).map(([key, value]) => `${key}=${value}`).join(" ")) : null))));
    } catch (error) {
      this.failed(error, where, "The warnings and errors");
    }
  }

  /** The backups' status, "Back up now" and the last backup's progress or result; then the restore points. */
  async loadBackups() {
    const where = /** @type {HTMLElement} */ (this.backups);
    window.clearTimeout(this.backupTimer);
    try {
      const backups = await this.get("/api/v1/admin/backups");
      const words = /** @type {Record<string, string>} */ ({ ok: "OK", failing: "Failing", "not-configured": "Not configured" });
      const configured = backups.status !== "not-configured";
      /** @type {BackupRun | undefined} */ const run = backups.lastRun;
      const button = h("button", { type: "button", class: "admin-backup-now", disabled: backups.running === true, "aria-describedby": "admin-backup-run",
        onclick: () => this.backUpNow() }, backups.running ? "Backing up…" : "Back up now");
      where.replaceChildren(h("p", {}, h("span", { class: `badge ${backups.status}` }, words[backups.status] ?? backups.status)),
        h("p", {}, backups.detail),
        backups.lastSuccessAt ? h("p", { class: "admin-meta" }, `Last backup: ${when(backups.lastSuccessAt)}`) : "",
        backups.nextAt ? h("p", { class: "admin-meta" }, `Next: ${when(backups.nextAt)}`) : "",
        configured ? h("div", { class: "row" }, button) : "",
        h("div", { id: "admin-backup-run" }, run ? this.runCard(run) : ""),
        configured ? h("h3", { class: "admin-subhead", id: "admin-restore-points" }, "Restore points") : "",
        configured ? /** @type {HTMLElement} */ (this.restorePoints) : "");
      // Said once when it ends (the card is redrawn every second while it runs: not a live region).
      if (this.watching && run && run.state !== "running") announce(backupRunText(run));
      this.watching = backups.running === true;
      if (backups.running) {
        // Read again while it runs: the step it is at, then what it wrote or what failed.
        this.backupTimer = window.setTimeout(() => { if (this.isConnected) this.loadBackups(); }, 1000);
      } else if (configured && (this.shownRun !== run?.finishedAt || !this.pointsLoaded)) {
        this.shownRun = run?.finishedAt;
        this.loadRestorePoints();
      }
    } catch (error) {
      this.failed(error, where, "Backups");
    }
  }

  /** @param {BackupRun} run */
  runCard(run) {
    const words = /** @type {Record<string, string>} */ ({ running: "running", succeeded: "done", failed: "failed" });
    const by = run.trigger === "operator" ? "started here" : "scheduled";
    return h("ul", { class: "admin-list", "aria-label": "Last backup" }, h("li", { class: `admin-run ${run.state}`, "data-name": run.name },
      h("div", { class: "admin-user-name" }, h("strong", {}, run.state === "running" ? "Backing up now" : `Last backup (${by})`),
        h("span", { class: `badge ${run.state}` }, words[run.state] ?? run.state)),
      h("p", { class: "admin-run-text" }, backupRunText(run)),
      h("p", { class: "admin-meta" }, `Started ${when(run.startedAt)}${run.finishedAt ? ` · finished ${when(run.finishedAt)}` : ""}`),
      ...run.failures.map((failure) => h("p", { class: "admin-failure" }, failure.reason))));
  }

  async backUpNow() {
    const api = /** @type {import("./api.js").Api} */ (this.api);
    try {
      await api.request("POST", "/api/v1/admin/backups");
      announce("Backing up now.");
      /** @type {HTMLElement} */ (this.status).textContent = "";
    } catch (error) {
      /** @type {HTMLElement} */ (this.status).textContent = error instanceof ApiError ? error.message : "The backup could not be started; try again.";
    }
    this.loadBackups();
  }

  async loadRestorePoints() {
    const where = /** @type {HTMLElement} */ (this.restorePoints);
    this.pointsLoaded = true;
    try {
      const page = await this.get("/api/v1/admin/backups/restore-points?limit=50");
      /** @type {RestorePoint[]} */ const points = page.items;
      /** @type {BackupFailure[]} */ const unreadable = page.unreadable ?? [];
      where.replaceChildren(
        points.length ? h("p", { class: "admin-meta" },
          `To go back to one: stop the server, then run its command${page.workingDirectory ? ` in ${page.workingDirectory}` : ""}, where and as the server runs (with its environment). Every file is checked first; a damaged backup is refused and nothing is changed.`)
          : h("p", {}, "No backup is kept yet: Back up now takes the first."),
        points.length ? h("ul", { class: "admin-list", "aria-label": "Restore points" }, ...points.map((point) => this.pointRow(point))) : "",
        ...unreadable.map((item) => h("p", { class: "admin-failure" }, `${item.to}: ${item.reason}`)),
        page.nextCursor ? h("p", { class: "admin-meta" }, "Older ones are in GET /api/v1/admin/backups/restore-points.") : "");
    } catch (error) {
      this.failed(error, where, "The restore points");
    }
  }

  /** @param {RestorePoint} point */
  pointRow(point) {
    const command = h("p", { class: "admin-meta admin-fields admin-command" }, point.restoreCommand);
    const copy = h("button", { type: "button", class: "secondary", "aria-label": `Copy the command that restores ${point.name}`, onclick: async () => {
      try {
        await navigator.clipboard.writeText(point.restoreCommand);
        announce("Command copied.");
      } catch {
        const range = document.createRange();
        range.selectNodeContents(command);
        window.getSelection()?.removeAllRanges();
        window.getSelection()?.addRange(range);
        announce("Command selected: copy it with your keyboard or menu.");
      }
    } }, "Copy command");
    const where = point.kind === "rclone" ? "remote" : "folder";
    return h("li", { class: `admin-point ${point.verified ? "verified" : "unverified"}`, "data-point": point.location },
      h("div", { class: "admin-user-name" }, h("strong", {}, when(point.takenAt)),
        h("span", { class: `badge ${point.verified ? "ok" : "warning"}` }, point.verified ? "verified" : "not verified")),
      h("p", { class: "admin-meta" }, `${point.bytes === undefined ? "size unknown" : size(point.bytes)}${point.files === undefined ? "" : ` in ${plural(point.files, "file")}`} · ${where} ${point.to}`),
      h("p", { class: "admin-meta" }, point.verified ? `Every file read back and matched its checksum${point.verifiedAt ? ` (${when(point.verifiedAt)})` : ""}.`
        : "Not checked since it was written (taken before Quire checked backups); quire restore checks every file before it changes anything."),
      h("p", { class: "admin-meta" }, "Restore with:"), command, h("div", { class: "row" }, copy));
  }
}
customElements.define("quire-admin", QuireAdmin);

/** @param {{api: import("./api.js").Api}} context */
export function adminScreen(context) {
  const screen = /** @type {QuireAdmin} */ (document.createElement("quire-admin"));
  screen.attach(context);
  return screen;
}

// @ts-check
/**
 * The operator's screen (`#/admin`): accounts (search, disable, enable, delete), what the server
 * stores, imports running and failed, health, the last warnings and errors with their request
 * ids, and backups. Only operators reach it: the app shows the link when `GET /api/v1/admin/me`
 * answers 200, and every admin route is a 404 for anyone else.
 */
import { ApiError } from "./api.js";
import { announce, confirmAction, h } from "./ui.js";

/** @param {number | null | undefined} bytes */
export function size(bytes) {
  if (bytes === null || bytes === undefined) return "unknown";
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return unit === 0 ? `${bytes} ${bytes === 1 ? "byte" : "bytes"}` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** @param {string | null | undefined} iso */
function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** @typedef {{accountId: string, username: string | null, kind: string, createdAt: string, operator: boolean, disabled: boolean, storedBytes: number | null}} AdminUser */

/** Whether the signed-in account is an operator (the probe the app's header uses). @param {import("./api.js").Api} api */
export async function isOperator(api) {
  try {
    const answer = await api.request("GET", "/api/v1/admin/me");
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
      h("section", { "aria-labelledby": "admin-jobs" }, h("h2", { id: "admin-jobs" }, "Imports running and failed"), this.jobs),
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
      h("p", { class: "admin-meta" }, `Stores ${size(user.storedBytes)}`),
      user.operator ? null : h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", "aria-label": `${user.disabled ? "Enable" : "Disable"} ${name}`,
          onclick: () => this.setDisabled(user, !user.disabled) }, user.disabled ? "Enable" : "Disable"),
        h("button", { type: "button", class: "danger", "aria-label": `Delete ${name}`, onclick: () => this.deleteUser(user) }, "Delete")));
    return row;
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
        storage.dataFolder ? h("p", { class: "admin-meta" }, `Data folder: ${storage.dataFolder}`) : "",
        h("p", { class: "admin-meta" }, "What each user stores is in the list of users."));
    } catch (error) {
      this.failed(error, where, "Storage");
    }
  }

  async loadJobs() {
    const where = /** @type {HTMLElement} */ (this.jobs);
    try {
      const page = await this.get("/api/v1/admin/jobs?limit=50");
      if (!page.items.length) { where.replaceChildren(h("p", {}, "No import is running, and none failed.")); return; }
      where.replaceChildren(h("ul", { class: "admin-list", "aria-label": "Imports" }, ...page.items.map((/** @type {any} */ job) =>
        h("li", { class: `admin-job ${job.state}` },
          h("div", { class: "admin-user-name" }, h("strong", {}, `${job.kind === "notes.import" ? "Notes" : "Words"} import (${job.format})`),
            h("span", { class: `badge ${job.state}` }, job.state)),
          h("p", { class: "admin-meta" }, `${job.owner} · started ${when(job.startedAt)} · ${job.imported} imported of ${job.read} read`),
          job.failure ? h("p", { class: "admin-failure" }, job.failure) : null))));
    } catch (error) {
      this.failed(error, where, "The imports");
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

  async loadBackups() {
    const where = /** @type {HTMLElement} */ (this.backups);
    try {
      const backups = await this.get("/api/v1/admin/backups");
      const words = /** @type {Record<string, string>} */ ({ ok: "OK", failing: "Failing", "not-configured": "Not configured" });
      where.replaceChildren(h("p", {}, h("span", { class: `badge ${backups.status}` }, words[backups.status] ?? backups.status)),
        h("p", {}, backups.detail),
        backups.lastSuccessAt ? h("p", { class: "admin-meta" }, `Last backup: ${when(backups.lastSuccessAt)}`) : "",
        backups.nextAt ? h("p", { class: "admin-meta" }, `Next: ${when(backups.nextAt)}`) : "");
    } catch (error) {
      this.failed(error, where, "Backups");
    }
  }
}
customElements.define("quire-admin", QuireAdmin);

/** @param {{api: import("./api.js").Api}} context */
export function adminScreen(context) {
  const screen = /** @type {QuireAdmin} */ (document.createElement("quire-admin"));
  screen.attach(context);
  return screen;
}

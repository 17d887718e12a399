// @ts-check
/**
 * What the operator's screen (screen-admin.js) says of sizes, times, jobs and backups: pure
 * functions, unit-tested by node (Tests/WebClient/admin.test.mjs).
 */

/** @typedef {{kind: string, id: string, owner: string, state: string, format?: string, startedAt: string, finishedAt?: string, failure?: string, read?: number, imported?: number, problems?: number, collection?: string, deleted?: number}} AdminJob */
/** @typedef {{to: string, reason: string}} BackupFailure */
/** @typedef {{name: string, trigger: string, state: string, startedAt: string, finishedAt?: string, step?: string, bytes?: number, files?: number, newBytes?: number, written: string[], failures: BackupFailure[]}} BackupRun */
/** @typedef {{name: string, takenAt: string, to: string, kind: string, location: string, bytes?: number, files?: number, verified: boolean, verifiedAt?: string, restoreCommand: string}} RestorePoint */

/** A byte count as a person reads it. @param {number | null | undefined} bytes */
export function size(bytes) {
  if (bytes === null || bytes === undefined) return "unknown";
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return unit === 0 ? `${bytes} ${bytes === 1 ? "byte" : "bytes"}` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** A size the operator typed ("5 GB", "500 MB", "1.5 TB", "2 g"; a bare number is GB), in bytes as size()
 * reads them (1 GB = 1024 MB); null when it is not one, or is zero.
 * @param {string} text */
export function parseSize(text) {
  const match = /^\s*(\d+(?:[.,]\d+)?)\s*(bytes?|b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?\s*$/i.exec(text);
  if (!match) return null;
  const value = Number(match[1].replace(",", "."));
  const unit = (match[2] ?? "gb").toLowerCase()[0];
  const power = { b: 0, k: 1, m: 2, g: 3, t: 4 }[unit] ?? 3;
  const bytes = Math.round(value * 1024 ** power);
  return bytes >= 1 && Number.isSafeInteger(bytes) ? bytes : null;
}

/** "1.2 MB of 5 GB", or what is known. @param {number | null | undefined} stored @param {number | null | undefined} limit */
export function usageText(stored, limit) {
  return limit === null || limit === undefined ? `Stores ${size(stored)}` : `Stores ${size(stored)} of ${size(limit)}`;
}

/** A time as the operator reads it. @param {string | null | undefined} iso */
export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** @param {number} count @param {string} one @param {string} [many] */
export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : (many ?? `${one}s`)}`;
}

/** What a job row says: its title and the line under it. @param {AdminJob} job @returns {{title: string, meta: string}} */
export function jobText(job) {
  if (job.kind === "vocabulary.purge") {
    const deleted = job.deleted ?? 0;
    const progress = job.state === "succeeded" ? `${plural(deleted, "entry", "entries")} deleted`
      : job.state === "running" ? `${plural(deleted, "entry", "entries")} deleted so far`
      : `stopped after ${plural(deleted, "entry", "entries")}`;
    const name = `“${job.collection || job.id}”`;
    const title = job.state === "succeeded" ? `Deleted the collection ${name}` : `Deleting the collection ${name}`;
    return { title, meta: `${job.owner} · asked ${when(job.startedAt)}${job.finishedAt ? ` · finished ${when(job.finishedAt)}` : ""} · ${progress}` };
  }
  const what = job.kind === "notes.import" ? "Notes" : "Words";
  return { title: `${what} import (${job.format})`,
    meta: `${job.owner} · started ${when(job.startedAt)} · ${job.imported ?? 0} imported of ${job.read ?? 0} read` };
}

/** The sentence a finished or running backup gets in the panel. @param {BackupRun} run */
export function backupRunText(run) {
  if (run.state === "running") return `Backup ${run.name} is being taken: ${run.step ?? "starting"}…`;
  const amount = run.bytes === undefined ? "" : ` ${size(run.bytes)} in ${plural(run.files ?? 0, "file")}`
    + (run.newBytes !== undefined && run.newBytes !== run.bytes ? ` (${size(run.newBytes)} new; the rest is shared with the backup before)` : "");
  const where = run.written.length ? ` written to ${run.written.join(", ")}` : "";
  if (run.state === "succeeded") return `Backup ${run.name}:${amount}${where}.`;
  return run.written.length ? `Backup ${run.name} reached only some destinations:${amount}${where}.`
    : `Backup ${run.name} failed: it reached no destination.`;
}

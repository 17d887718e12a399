// What the operator's screen says of jobs and backups (Plugins/Web/Client/admin-text.js), run by `node --test Tests/WebClient`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { backupRunText, jobText, parseSize, plural, size, usageText } from "../../Plugins/Web/Client/admin-text.js";

test("sizes and counts read as a person says them", () => {
  assert.equal(size(1), "1 byte");
  assert.equal(size(2048), "2.0 KB");
  assert.equal(size(5 * 1024 * 1024 * 1024), "5.0 GB");
  assert.equal(size(undefined), "unknown");
  assert.equal(plural(1, "entry", "entries"), "1 entry");
  assert.equal(plural(3, "entry", "entries"), "3 entries");
  assert.equal(plural(0, "file"), "0 files");
});

test("a collection's purge says which collection and how far it got, by state", () => {
  const purge = { kind: "vocabulary.purge", id: "col_1", owner: "acc_ada", state: "running", startedAt: "2026-11-25T10:00:00Z", collection: "French", deleted: 400 };
  assert.equal(jobText(purge).title, "Deleting the collection “French”");
  assert.match(jobText(purge).meta, /^acc_ada · asked .* · 400 entries deleted so far$/);
  const done = jobText({ ...purge, state: "succeeded", deleted: 1, finishedAt: "2026-11-25T10:01:00Z" });
  assert.equal(done.title, "Deleted the collection “French”");
  assert.match(done.meta, / · finished .* · 1 entry deleted$/);
  assert.match(jobText({ ...purge, state: "failed", deleted: 200 }).meta, /stopped after 200 entries$/);
  assert.equal(jobText({ ...purge, collection: "" }).title, "Deleting the collection “col_1”", "a purge without its name shows the id");
});

test("an import keeps its words", () => {
  const job = { kind: "notes.import", id: "imp_1", owner: "acc_bob", state: "failed", format: "enex", startedAt: "2026-11-25T10:00:00Z", read: 2, imported: 0 };
  assert.equal(jobText(job).title, "Notes import (enex)");
  assert.match(jobText(job).meta, /· 0 imported of 2 read$/);
  assert.equal(jobText({ ...job, kind: "vocabulary.import", format: "csv" }).title, "Words import (csv)");
});

test("a backup's run says what it is doing, then what it wrote where and how big, or that it reached nothing", () => {
  const run = { name: "2026-11-25T100000Z", trigger: "operator", state: "running", startedAt: "2026-11-25T10:00:00Z", step: "blobs: 120 copied", written: [], failures: [] };
  assert.equal(backupRunText(run), "Backup 2026-11-25T100000Z is being taken: blobs: 120 copied…");
  const done = { ...run, state: "succeeded", step: undefined, bytes: 3 * 1024 * 1024, files: 40, newBytes: 1024, written: ["/srv/backups/2026-11-25T100000Z", "rclone:s3:b/q/2026-11-25T100000Z"] };
  assert.equal(backupRunText(done), "Backup 2026-11-25T100000Z: 3.0 MB in 40 files (1.0 KB new; the rest is shared with the backup before) written to /srv/backups/2026-11-25T100000Z, rclone:s3:b/q/2026-11-25T100000Z.");
  assert.equal(backupRunText({ ...done, newBytes: done.bytes, written: ["/srv/backups/x"] }), "Backup 2026-11-25T100000Z: 3.0 MB in 40 files written to /srv/backups/x.");
  const partly = { ...done, state: "failed", written: ["/srv/backups/x"], failures: [{ to: "rclone:s3:b/q", reason: "…" }] };
  assert.match(backupRunText(partly), /reached only some destinations: 3\.0 MB in 40 files .* written to \/srv\/backups\/x\.$/);
  assert.equal(backupRunText({ ...partly, written: [], bytes: undefined }), "Backup 2026-11-25T100000Z failed: it reached no destination.");
});

test("a quota the operator types is read as size() writes it; what is not a size is null", () => {
  assert.equal(parseSize("5 GB"), 5 * 1024 ** 3);
  assert.equal(parseSize("500mb"), 500 * 1024 ** 2);
  assert.equal(parseSize(" 1,5 TB "), 1.5 * 1024 ** 4);
  assert.equal(parseSize("100 KB"), 102400);
  assert.equal(parseSize("2"), 2 * 1024 ** 3, "a bare number is GB");
  assert.equal(parseSize(size(5 * 1024 ** 3)), 5 * 1024 ** 3, "what the field shows reads back");
  for (const bad of ["", "lots", "0", "0 GB", "-5 GB", "5 PB", "5 GB 3", "1e3"]) assert.equal(parseSize(bad), null, bad);
  assert.equal(usageText(1024, 5 * 1024 ** 3), "Stores 1.0 KB of 5.0 GB");
  assert.equal(usageText(1024, undefined), "Stores 1.0 KB");
});

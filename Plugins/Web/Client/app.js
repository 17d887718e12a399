// @ts-check
/**
 * The app: reads the server's manifest and shows the screens of the plugins this app has. One
 * client for every app; the YAML decides which screens exist. Routes are the URL's hash, so the
 * back button and reloads work offline too.
 */
import { Api, ApiError } from "./api.js";
import { Sync } from "./sync.js";
import { backSentence, keptKind, keptRecordBack, putBack } from "./kept.js";
import "./kept-kinds.js";
import "./kept-refused-kinds.js";
import { refusedNotice } from "./kept-refused.js";
import { announce, confirmAction, h, PHONE } from "./ui.js";
import { draftsSentence, unsavedDrafts } from "./drafts-unsaved.js";
import { pending as pendingSignIn, readCallback } from "./oidc.js";
import "./screen-signin.js";
import { restoreToken } from "./album-restore.js";

/** @typedef {{app: string, plugins: Array<{id: string, features: string[]}>}} Manifest */

class QuireApp extends HTMLElement {
  constructor() {
    super();
    this.api = new Api();
    /** @type {Manifest | null} */
    this.manifest = null;
    /** @type {Sync | null} */
    this.sync = null;
    this.name = document.title;
    /** @type {string | undefined} what stopped a provider's sign-in, said once on the sign-in screen */
    this.signInError = undefined;
    /** Why signing up this phone's account with a provider did not finish, for the sign-up screen. @type {string | undefined} */
    this.signUpError = undefined;
    /** Sentences waiting for the user's OK: kept across screens, shown in the sticky header so
     * they are in view wherever the page is scrolled. */
    this.notices = h("div", { class: "notices" });
    // Notices past the header's half of the screen scroll inside it: "More below" says so until the
    // last one is in view (a second notice's buttons were below the fold with nothing to show it).
    const moreBelow = () => {
      const box = this.notices;
      box.classList.toggle("more-below", box.scrollHeight - box.scrollTop - box.clientHeight > 4);
    };
    this.notices.addEventListener("scroll", moreBelow, { passive: true });
    new MutationObserver(moreBelow).observe(this.notices, { childList: true, subtree: true, characterData: true });
    new ResizeObserver(moreBelow).observe(this.notices);
    /** Where each screen was scrolled, so coming back to a list finds the row the user left. @type {Map<string, number>} */
    this.scrolls = new Map();
    this.shownHash = "";
    /** Whether the signed-in account is the server's operator (GET /api/v1/auth/me said operator: true): the header links Admin. */
    this.operator = false;
    /** How many routes were asked for: a route that finds a newer one asked since draws nothing. */
    this.routeAsked = 0;
  }

  async connectedCallback() {
    const theme = document.querySelector('meta[name="theme-color"]')?.getAttribute("content");
    if (theme) document.documentElement.style.setProperty("--accent", theme);
    this.manifest = await this.loadManifest();
    window.addEventListener("hashchange", () => this.route());
    window.addEventListener("quire:session", () => this.sessionChanged());
    this.addEventListener("quire:sign-out", () => this.signOut());
    // A sentence, or {text, kind, action} (a screen's way back beside OK).
    window.addEventListener("quire:notice", (event) => {
      const said = /** @type {CustomEvent} */ (event).detail;
      if (said && typeof said === "object") this.notice(String(said.text), said.kind, said.action, said.dismissed);
      else this.notice(String(said));
    });
    if (/^#(.*&)?(id_token|error|session)=/.test(location.hash)) await this.finishProviderSignIn();
    else await this.sessionChanged();
  }

  /** Back from an OpenID Connect provider: its ID token signs in, its refusal is said on the sign-in screen. */
  async finishProviderSignIn() {
    const answer = readCallback(location.hash, pendingSignIn());
    // Back where the sign-in began: a shared notebook's link (#/accept/…) opens once signed in.
    const returnTo = answer && "pending" in answer ? answer.pending.returnTo ?? "" : "";
    history.replaceState(null, "", location.pathname + location.search + returnTo);
    if (answer && "session" in answer) {
      this.api.keep(this.api.sessionFrom(answer.session)); // signed in by the server's callback (form_post)
      return;
    } else if (answer && "idToken" in answer && answer.pending.carryOver && this.api.session?.deviceSecret) {
      // This phone's account (sign-in skipped) signing up with the provider: its notebooks stay its own.
      const { provider, nonce } = answer.pending;
      try {
        this.api.keep(await this.api.signUpDevice({ provider, idToken: answer.idToken, nonce }));
        return;
      } catch (failure) {
        history.replaceState(null, "", location.pathname + location.search + "#/sign-up");
        this.signUpError = failure instanceof ApiError ? failure.message : "Signing up did not finish; try again.";
      }
    } else if (answer && "idToken" in answer) {
      try {
        await this.api.signInWith(answer.pending.provider, answer.idToken, answer.pending.nonce);
        return; // keep() announced the session: sessionChanged runs from its event
      } catch (failure) {
        this.signInError = failure instanceof ApiError ? failure.message : "Signing in did not finish; try again.";
      }
    } else if (answer) {
      this.signInError = answer.error;
    }
    await this.sessionChanged();
  }

  /** The manifest from the server, or the last one seen when offline. @returns {Promise<Manifest>} */
  async loadManifest() {
    try {
      // Public, asked for without the token: the page's preload of it is then the same request.
      const manifest = (await this.api.request("GET", "/api/v1/manifest", { auth: false })).body;
      localStorage.setItem("quire.manifest", JSON.stringify(manifest));
      return manifest;
    } catch {
      const kept = localStorage.getItem("quire.manifest");
      return kept ? JSON.parse(kept) : { app: document.body.dataset.app ?? "", plugins: [] };
    }
  }

  /** @param {string} id */
  plugin(id) {
    return this.manifest?.plugins.find((p) => p.id === id);
  }

  async sessionChanged() {
    this.sync?.stop();
    this.sync = null;
    if (!this.api.session) {
      // A caregiver's restore link on a new or wiped phone (album-restore.js): one tap signs it in.
      const restore = this.plugin("album")?.features.includes("caregivers") ? restoreToken(location.hash) : null;
      if (restore) {
        const screen = /** @type {import("./album-restore.js").RestoreScreen} */ (h("album-restore"));
        this.replaceChildren(screen);
        screen.show(this.api, restore, this.name);
        return;
      }
      const auth = this.plugin("auth");
      const features = auth?.features ?? [];
      const signIn = /** @type {import("./screen-signin.js").QuireSignIn} */ (h("quire-signin"));
      const error = this.signInError;
      this.signInError = undefined;
      this.replaceChildren(signIn);
      signIn.show(this.api, { name: this.name, password: features.includes("sign-in:password") || features.length === 0,
        moveCode: this.plugin("album") ? location.hash : undefined,
        device: features.includes("sign-in:device"),
        providers: features.includes("sign-in:oidc"),
        error,
        // A shared notebook's link (#/accept/…): the sign-in says why it is asked for.
        shared: /^#\/accept\/./.test(location.hash),
        // An iRemember caregiver invitation (#/help/…): the sign-in says why it is asked for.
        helping: /^#\/help\/./.test(location.hash),
        // AR Notebook (UI5.1.1): "Skip for now" makes a device account, signed up later.
        skip: features.includes("sign-in:device") && Boolean(this.plugin("notebooks")),
        onboarding: features.find((f) => f.startsWith("onboarding:"))?.split(":")[1] ?? "password" });
      return;
    }
    this.sync = new Sync(this.api, this.manifest?.app ?? "quire");
    const sync = this.sync;
    this.sync.addEventListener("refused", (event) => this.notice(/** @type {CustomEvent} */ (event).detail, undefined, undefined,
      () => sync.acknowledgeRefusals()));
    this.sync.addEventListener("kept", (event) => this.keptNotice(/** @type {CustomEvent} */ (event).detail));
    // Answered, or offered by the screen showing the record: the header's notice goes; that screen
    // left without an answer, the header offers it again.
    if (!this.keptRouteWatch) {
      this.keptRouteWatch = true;
      window.addEventListener("hashchange", () => this.keptAgain());
    }
    this.sync.addEventListener("kept-gone", (event) => this.notices.querySelector(`[data-kept="${CSS.escape(/** @type {CustomEvent} */ (event).detail)}"]`)?.remove());
    this.sync.addEventListener("merged", (event) => this.notice(/** @type {CustomEvent} */ (event).detail, "info"));
    this.sync.addEventListener("replaced", (event) => this.replacedNotice(/** @type {CustomEvent} */ (event).detail));
    this.sync.addEventListener("change", () => {
      this.dropReplacedOfDeleted();
      // A kept change whose record came back (its deletion undone elsewhere): said anew, with the way back onto it.
      for (const kept of sync.kept) {
        const shown = this.notices.querySelector(`[data-kept="${CSS.escape(kept.id)}"]`);
        if (shown && !shown.hasAttribute("data-back") && keptRecordBack(kept, sync)) this.keptNotice(kept);
      }
    });
    // A reminder's time has come (the reminders plugin): a system notification when allowed, and
    // the notice bar either way. Web Push would reach a closed app; it needs a push service.
    this.sync.addEventListener("alert", (event) => {
      const message = /** @type {CustomEvent} */ (event).detail;
      if (message.kind !== "reminders.due") return;
      const title = String(message.data?.title ?? "Reminder");
      if ("Notification" in window && Notification.permission === "granted") new Notification(title, { tag: String(message.data?.subject ?? "") });
      this.notice(`Reminder: ${title}`, "reminder");
    });
    await this.sync.start();
    // What was replaced is said until the user answers, across reloads: the way back stays.
    for (const kept of this.keptReplaced()) this.replacedNotice(kept, false);
    // What was written to something deleted on another device (kept.js): said until recovered or discarded.
    for (const kept of this.sync.kept) this.keptNotice(kept);
    if (this.plugin("admin")) {
      const { isOperator } = await import("./screen-admin.js");
      this.operator = await isOperator(this.api);
    } else this.operator = false;
    this.route();
  }

  /**
   * Shows a sentence until dismissed: a write the server refused, or (`kind` "reminder") a
   * reminder whose time has come, which is news, not an error. `action` adds a button beside OK.
   * `dismissed` runs when the user said OK.
   * @param {string} text @param {string} [kind] @param {{label: string, run: () => void}} [action] @param {() => void} [dismissed]
   * @returns {HTMLElement}
   */
  notice(text, kind, action, dismissed) {
    const bar = h("div", { class: kind ? `notice ${kind}` : "notice", role: "alert" }, h("p", {}, text),
      h("div", { class: "row" },
        action ? h("button", { type: "button", onclick: () => { bar.remove(); action.run(); } }, action.label) : null,
        h("button", { type: "button", class: "secondary", onclick: () => { bar.remove(); dismissed?.(); } }, "OK")));
    // The newest three: older sentences go first, so the header never fills the screen (what is
    // kept of a person's text stays: it is their only way back to it).
    for (const old of [...this.notices.querySelectorAll(":scope > :not(.kept)")].slice(0, Math.max(0, this.notices.childElementCount - 2))) old.remove();
    this.notices.append(bar);
    bar.scrollIntoView({ block: "nearest" });
    return bar;
  }

  /**
   * A notice about one record raised while its screen shows (the address names its id) belongs to
   * that screen: hidden while another record or the list shows, shown again on coming back
   * (scopeNotices, on every route). Its "Bring it back" never acts on another screen's record.
   * @param {HTMLElement} bar @param {string} id
   */
  belongsTo(bar, id) {
    const mark = encodeURIComponent(id);
    if (location.hash.split(/[/?]/).includes(mark)) bar.dataset.record = mark;
  }

  scopeNotices() {
    const shown = location.hash.split(/[/?]/);
    for (const bar of /** @type {HTMLElement[]} */ ([...this.notices.querySelectorAll("[data-record]")])) {
      bar.style.display = shown.includes(bar.dataset.record ?? "") ? "" : "none";
    }
  }

  /** A screen that offered its own way back was left unanswered: the header offers what is kept again. */
  keptAgain() {
    const sync = this.sync;
    if (!sync) return;
    sync.claimed.clear();
    for (const kept of sync.kept) if (!this.notices.querySelector(`[data-kept="${CSS.escape(kept.id)}"]`)) this.keptNotice(kept);
  }

  /**
   * What the person wrote to a record deleted on another device, kept on this phone (kept.js):
   * the app's sentence naming it, its way back (as the app offers online) and Discard. One notice
   * a record; "kept on this phone… goes on page 3" boxes it made stale are cleared.
   * @param {import("./kept.js").Kept} kept
   */
  keptNotice(kept) {
    const sync = this.sync;
    const how = keptKind(kept.kind);
    if (!sync || !how) return;
    this.notices.querySelector(`[data-kept="${CSS.escape(kept.id)}"]`)?.remove();
    // A screen's own "No network: … kept on this phone and goes on page 3" is stale now.
    for (const el of /** @type {any[]} */ ([...this.querySelectorAll("*")])) {
      if (typeof el.say === "function" && el.said && el.said.alert === false && /kept on this phone/.test(el.said.text ?? "")) el.say(null);
    }
    // Refused for what it carries (too long…): its own notice, to edit and send again (kept-refused.js).
    if (kept.refused) return refusedNotice(sync, kept, this.notices, (hash) => this.go(hash));
    // Its deletion undone meanwhile: the words go back on it (a copy would make it twice).
    if (keptRecordBack(kept, sync)) {
      this.keptBar(kept, backSentence(kept), "Put my changes back", async (bar) => {
        bar.remove();
        await putBack(kept, sync);
        await sync.dropKept(kept.id);
        announce("Your changes are back on it.");
      }).dataset.back = "true";
      return;
    }
    let text = kept.fields.text ?? "";
    try {
      text = how.describe(kept, sync);
    } catch {
      text = "Something you wrote could not be saved: it was deleted on another device. It is kept on this phone.";
    }
    this.keptBar(kept, text, typeof how.action === "function" ? how.action(kept) : how.action, async (bar) => {
      try {
        const said = await sync.recoverKept(kept.id);
        bar.remove();
        // Said where it shows, with the way to what it made; on the deleted record's own screen
        // (it went on saying "deleted" after the way back was taken; walk10), opened at once.
        if (typeof said === "object") {
          if (location.hash.includes(kept.recordId)) this.go(said.route);
          else this.notice(said.text, "info", { label: "Open it", run: () => this.go(said.route) });
          announce(said.text);
        } else if (said) announce(said);
      } catch {
        const p = bar.querySelector("p");
        if (p) p.textContent = `${text} That did not work on this phone; try again, or copy the text from here.`;
      }
    });
  }

  /**
   * A kept record's notice: what was kept, its way back (`label`, `run`) and Discard (after a
   * confirmation), first in the header and in view: it holds what the person wrote, which nothing
   * else does. @param {import("./kept.js").Kept} kept @param {string} text @param {string} label
   * @param {(bar: HTMLElement) => Promise<void>} run @returns {HTMLElement}
   */
  keptBar(kept, text, label, run) {
    const sync = /** @type {Sync} */ (this.sync);
    const bar = h("div", { class: "notice kept", role: "alert", "data-kept": kept.id }, h("p", {}, text),
      h("div", { class: "row" },
        h("button", { type: "button", onclick: () => run(bar) }, label),
        h("button", { type: "button", class: "secondary", onclick: async () => {
          if (!(await confirmAction("Discard what you wrote? It cannot be brought back.", "Discard"))) return;
          bar.remove();
          await sync.dropKept(kept.id);
          announce("Discarded.");
        } }, "Discard")));
    // One word, never broken beside a long way back ("Disc-ard"); CSSOM, which the CSP allows.
    const discard = /** @type {HTMLElement | null} */ (bar.querySelector(".row button.secondary"));
    if (discard) Object.assign(discard.style, { whiteSpace: "nowrap", flex: "none" });
    // First, whole in view: it holds what the person wrote, which nothing else does.
    this.notices.prepend(bar);
    bar.scrollIntoView({ block: "nearest" });
    return bar;
  }

  /**
   * An edit of this device was merged into another device's newer one and replaced what that one
   * had written: say what, and offer to bring it back in one tap (an edit like any other, so it
   * works offline too; the server keeps both in the record's history).
   * Kept in `localStorage` until answered, so a reload does not take the way back away.
   * @param {{write: {method: string, path: string, kind: string, id: string}, replaced: Record<string, any>, record: any, by?: string, seen?: boolean}} detail  `by`: the family member who wrote what was replaced; `seen`: its record was seen on this phone since (dropReplacedOfDeleted)
   * @param {boolean} [keep]  false when shown again from what was kept
   */
  replacedNotice({ write, replaced, record, by, seen }, keep = true) {
    const kept = { write: { method: write.method, path: write.path, kind: write.kind, id: write.id }, replaced, by,
      record: { version: record?.version }, key: `${write.path} ${JSON.stringify(replaced)}`, seen };
    if (keep) this.keepReplaced([...this.keptReplaced(), kept].slice(-5));
    const answered = () => this.keepReplaced(this.keptReplaced().filter((k) => k.key !== kept.key));
    const names = { title: "title", text: "text", date: "date", category: "category", word: "word", definition: "definition",
      definitions: "definitions", example: "example", note: "note", notes: "notes", tags: "tags", name: "name", takenAt: "time taken",
      languages: "languages" };
    const said = Object.entries(replaced).map(([field, value]) => {
      const shown = typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : value === null ? "nothing" : JSON.stringify(value);
      return `the ${/** @type {Record<string, string>} */ (names)[field] ?? field} “${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown}”`;
    });
    // Named when it was someone who helps with the album ("Anna"), not one of the user's devices.
    const text = `${by ? `${by} had changed this meanwhile` : "Another device had changed this too"}; your edit replaced ${said.join(" and ")}.`;
    const sync = this.sync;
    // Where the kind offers both in its form (AR's text), "Bring back theirs" opens it with both.
    const both = write.method === "PATCH" && sync ? keptKind(write.kind)?.bringBackTheirs?.(replaced) : undefined;
    const bar = this.notice(text, "replaced", both && sync ? { label: "Bring back theirs", run: () => {
      answered();
      this.go(both(write, sync, sync.api.session?.accountId ?? ""));
    } } : write.method === "PATCH" && sync ? { label: "Bring it back", run: async () => {
      // Changed again since (on any device): bringing it back would replace that too, so ask.
      const now = sync.one(write.kind, write.id)?.version;
      const stale = typeof now === "number" && typeof record?.version === "number" && now > record.version;
      if (stale && !(await confirmAction("This was changed again since. Bringing the old text back replaces the newer one too "
        + "(it stays in the history). Bring it back anyway?", "Bring it back"))) {
        this.replacedNotice({ write, replaced, record, by, seen: Boolean(bar.dataset.replacedSeen) }, false);
        return;
      }
      answered();
      // Based on the version as it is now: a plain edit, not a merge that blames another device.
      sync.write({ method: "PATCH", path: write.path, body: replaced, kind: write.kind, id: write.id,
        baseVersion: typeof now === "number" ? now : typeof record?.version === "number" ? record.version : undefined });
      announce("Brought back.");
    } } : undefined, answered);
    this.belongsTo(bar, write.id);
    Object.assign(bar.dataset, { replacedKind: write.kind, replacedId: write.id, replacedKey: kept.key }, seen ? { replacedSeen: "true" } : {});
    this.dropReplacedOfDeleted();
  }

  /**
   * A "… had changed this too" notice whose record was then deleted (on another device, or here)
   * goes, with what was kept of it: its way back had nothing left to act on. Only once the record
   * was seen here (also before a reload), so a kind this phone does not hold is never taken for deleted.
   */
  dropReplacedOfDeleted() {
    const sync = this.sync;
    if (!sync || !this.notices) return;
    for (const bar of /** @type {HTMLElement[]} */ ([...this.notices.querySelectorAll(".notice.replaced[data-replaced-kind]")])) {
      const { replacedKind = "", replacedId = "", replacedKey = "" } = bar.dataset;
      if (sync.one(replacedKind, sync.resolve(replacedId))) {
        if (bar.dataset.replacedSeen) continue;
        bar.dataset.replacedSeen = "true";  // remembered across a reload, with the notice
        this.keepReplaced(this.keptReplaced().map((k) => (k.key === replacedKey ? { ...k, seen: true } : k)));
      } else if (bar.dataset.replacedSeen) {
        bar.remove();
        this.keepReplaced(this.keptReplaced().filter((k) => k.key !== replacedKey));
      }
    }
  }

  /** Replaced values not yet answered, for this account. @returns {Array<any>} */
  keptReplaced() {
    try {
      const all = JSON.parse(localStorage.getItem("quire.replaced") ?? "{}");
      const mine = all?.[this.api.session?.accountId ?? ""];
      return Array.isArray(mine) ? mine : [];
    } catch {
      return [];
    }
  }

  /** @param {Array<any>} list */
  keepReplaced(list) {
    try {
      const all = JSON.parse(localStorage.getItem("quire.replaced") ?? "{}") ?? {};
      all[this.api.session?.accountId ?? ""] = list;
      localStorage.setItem("quire.replaced", JSON.stringify(all));
    } catch {
      // Storage full or refused: the notice is still shown now.
    }
  }

  /** @param {string} hash */
  /**
   * Shows the screen at `hash`. `top`: at its top, not where it was left (a photo just edited shows
   * its new picture, not the Edit picture link it was left at).
   * @param {string} hash @param {{top?: boolean}} [options]
   */
  go(hash, options = {}) {
    if (options.top) this.scrolls.delete(screenKey(hash));
    if (location.hash === hash) this.route();
    else location.hash = hash;
  }

  async route() {
    if (!this.sync) return;
    // Only the newest route draws: one asked while an earlier one waited for its screen's module
    // (a sign-in's route, then #/admin once the operator was known) was drawn over by the earlier
    // one when that finished last (the notes list under #/admin, on a loaded machine).
    const asked = (this.routeAsked += 1);
    this.scopeNotices();
    const sync = this.sync;
    // What this app switched on: its plugins (`plugin:reminders`) and their features (`search`).
    const features = new Set((this.manifest?.plugins ?? []).flatMap((p) => [`plugin:${p.id}`, ...p.features]));
    const context = { api: this.api, sync, go: (/** @type {string} */ hash, /** @type {{top?: boolean}} */ options = {}) => this.go(hash, options), features };
    // A record opened by the local id it had before the server named it (a reload, a link kept
    // from then, a screen asked for just as the answer came): the address bar takes the server's id.
    const named = location.hash.replace(/local(?::|%3A)[0-9a-f]{16}/gi, (local) => sync.resolve(decodeURIComponent(local)));
    if (named !== location.hash) history.replaceState(history.state, "", named);
    const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
    const parts = path.split("/").map(decodeURIComponent);
    const status = /** @type {import("./ui.js").QuireStatus} */ (h("quire-status"));
    status.attach(sync);
    // iRemember's device account has no password to sign in with again: signing out lives on the
    // "new phone" screen, next to the code that opens the album again.
    const album = Boolean(this.plugin("album"));
    // Sign-in skipped (AR Notebook): this phone's account is left by signing up, which keeps its notebooks.
    const skipped = !album && Boolean(this.api.session?.deviceSecret) && Boolean(this.plugin("notebooks"));
    const header = h("header", { class: "bar" }, h("span", { class: "app-name" }, this.name), status,
      album ? (path ? h("a", { href: "#/", class: "link" }, "Home") : null)
        : skipped ? h("a", { href: "#/sign-up", class: "link" }, "Sign up")
          : h("button", { type: "button", class: "link", onclick: () => this.signOut() }, "Sign out"),
      // Web Push (the push plugin): "Notify me on this phone". iRemember has it in its own Settings.
      // On the list of notes or notebooks only: beside "Offline · 3 waiting" and "Sign out" on a
      // page or a note it wrapped the bar to two lines at 390 px, and in landscape the taller bar
      // covered the drawing. (AR Notebook's first screen is the open notebook; its list is #/notebooks.)
      !album && this.plugin("push") && (this.plugin("notebooks") ? parts[0] === "notebooks" : !path)
        ? h("a", { href: "#/settings", class: "link settings-link", "aria-label": "Settings", title: "Settings" }, "⚙\uFE0E") : null,
      // The operator's screen: linked for operators only (for anyone else its routes do not exist).
      this.operator ? h("a", { href: parts[0] === "admin" ? "#/" : "#/admin", class: "link" }, parts[0] === "admin" ? "App" : "Admin") : null,
      this.notices);
    /** @type {HTMLElement} */
    let screen;
    if (parts[0] === "sign-up" && skipped) {
      const signUp = /** @type {import("./screen-signin.js").QuireSignIn} */ (h("quire-signin"));
      const ways = this.plugin("auth")?.features ?? [];
      signUp.showSignUp(this.api, { password: ways.includes("sign-in:password"), providers: ways.includes("sign-in:oidc"), error: this.signUpError });
      this.signUpError = undefined;
      screen = signUp;
    } else if (parts[0] === "settings" && !album && this.plugin("push")) {
      const { pushScreen } = await import("./push-settings.js");
      screen = pushScreen(context);
    } else if (parts[0] === "admin" && this.operator) {
      const { adminScreen } = await import("./screen-admin.js");
      screen = adminScreen(context);
    } else if (album) {
      const { albumScreen } = await import("./screen-album.js");
      screen = albumScreen(context, parts, query);
    } else if (this.plugin("notebooks")) {
      const { notebookScreen } = await import("./screen-notebook.js");
      screen = notebookScreen(context, parts);
    } else if (this.plugin("vocabulary")) {
      const { vocabScreen } = await import("./screen-vocab.js");
      screen = vocabScreen(context, parts, query);
    } else if (this.plugin("notes")) {
      const { NotesList, NoteEditor, NoteBack } = await import("./screen-notes.js");
      if (parts[0] === "share") {
        // Shared from another app (share-target.js): the new note opens; a share that did not arrive is said.
        const { openShared } = await import("./share-target.js");
        return openShared(context, query);
      }
      if (parts[0] === "notes" && parts[1] && parts[2] === "back") {
        const back = new NoteBack();
        screen = back;
        back.attach(context, parts[1]);
      } else if (parts[0] === "notes" && parts[1]) {
        const editor = new NoteEditor();
        screen = editor;
        editor.attach(context, parts[1]);
      } else {
        const list = new NotesList();
        screen = list;
        list.attach(context);
      }
    } else {
      screen = h("main", { class: "screen" }, h("h1", {}, this.name),
        h("p", {}, "This app's screens are not in the web client yet; its API is at /api/v1 (see the README)."));
    }
    if (asked !== this.routeAsked) return;
    const shown = screenKey(location.hash);
    if (this.shownHash !== shown) {
      this.scrolls.set(this.shownHash, window.scrollY);
      if (this.scrolls.size > 50) this.scrolls.delete(/** @type {string} */ (this.scrolls.keys().next().value));
    }
    this.replaceChildren(header, screen);
    // Back on a screen seen before (the list after a note): where it was; a new screen: its top.
    if (this.shownHash !== shown) window.scrollTo(0, this.scrolls.get(shown) ?? 0);
    this.shownHash = shown;
    const heading = screen.querySelector("h1");
    if (heading) announce(heading.textContent ?? "");
  }

  /** Signs out and deletes this account's copy from the phone (the next person to use it sees
   * none of it); changes the server does not have yet are lost, so that is asked first. */
  async signOut() {
    // What is typed is queued now; online, a few seconds for the outbox to reach the server, so a
    // change already on its way is not called lost.
    window.dispatchEvent(new Event("quire:flush"));
    if (this.sync && navigator.onLine) await this.sync.settled(5000);
    const waiting = this.sync?.pending ?? 0;
    // Typing not added or saved yet (a draft) goes too: asked first, in its words (AR's battery alert
    // signs out by "Sign out and close", over a text being written).
    const typed = draftsSentence(unsavedDrafts(localStorage));
    if (waiting > 0 && !(await confirmAction(
      `${waiting} change${waiting === 1 ? " is" : "s are"} not on the server yet. Signing out deletes ${waiting === 1 ? "it" : "them"} from this phone; connect to the network first to keep ${waiting === 1 ? "it" : "them"}.${typed ? ` ${typed}` : ""} Sign out anyway?`,
      "Sign out and delete"))) return;
    if (!waiting && typed && !(await confirmAction(`${typed} Sign out anyway?`, "Sign out and delete"))) return;
    if (!waiting && this.api.session?.deviceSecret && !(await confirmAction(
      "Sign out of this phone? Your album stays safe, but to open it again you need its code (on the “new phone” screen). Copy it first.",
      "Sign out"))) return;
    const sync = this.sync;
    this.sync = null;
    await sync?.forget().catch(() => {});
    // Drafts, and what this account's phone remembers of what it did (ui.js PHONE).
    for (const key of Object.keys(localStorage)) if (key.startsWith("quire.draft.") || key.startsWith(PHONE)) localStorage.removeItem(key);
    // A dialog the account's screens left open (AR's Write, under the battery alert) goes with them,
    // not over the sign-in screen, taking what is typed there.
    for (const dialog of document.querySelectorAll("body > dialog[open]")) dialog.remove();
    this.keepReplaced([]);
    this.notices.replaceChildren();
    await this.api.signOut().catch((error) => { if (error instanceof ApiError) this.notice(error.message); });
  }
}
customElements.define("quire-app", QuireApp);

/** The screen an address shows, as its scroll is kept: one screen, one place (`#/` and `#/notes` are both Napkin's list). @param {string} hash */
function screenKey(hash) {
  const [path, query = ""] = hash.replace(/^#\/?/, "").split("?");
  return `${path === "notes" ? "" : path}?${query}`;
}

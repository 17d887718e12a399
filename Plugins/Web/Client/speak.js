// @ts-check
/**
 * Read aloud (issue 41; W3C COGA "Making Content Usable" favours it): a "Read aloud" button that
 * speaks a text with the browser's own `speechSynthesis` in a given language; tapping it again
 * stops. One speaker per page, so starting one button stops another (and resets its label).
 * Where the browser has no `speechSynthesis`, no button is made. Used by iRemember (the user's
 * language) and Foreign Note (the entry's language). No imports: node:test runs it against a fake
 * `speechSynthesis`.
 */

/**
 * @typedef {object} Synth the part of `speechSynthesis` we use
 * @property {(utterance: any) => void} speak
 * @property {() => void} cancel
 */

/** Starts and stops speech; says who is speaking so buttons can show "Stop". */
export class Speaker {
  /**
   * @param {Synth | null | undefined} synth
   * @param {(new (text: string) => any) | null | undefined} Utterance
   */
  constructor(synth, Utterance) {
    this.synth = synth ?? null;
    this.Utterance = Utterance ?? null;
    /** @type {unknown} the owner of what is being spoken, or null */
    this.owner = null;
    /** @type {any} */
    this.utterance = null;
    /** @type {Set<() => void>} */
    this.listeners = new Set();
  }

  /** Whether this browser can speak at all. */
  get available() {
    return Boolean(this.synth && typeof this.synth.speak === "function" && typeof this.Utterance === "function");
  }

  /** @param {unknown} owner */
  speaking(owner) {
    return this.owner !== null && this.owner === owner;
  }

  /**
   * Speaks `text` in `lang` for `owner`, or stops when `owner` is already speaking.
   * @param {unknown} owner @param {string} text @param {string} lang @returns {boolean} whether it is speaking now
   */
  toggle(owner, text, lang) {
    if (!this.available) return false;
    if (this.speaking(owner)) {
      this.stop();
      return false;
    }
    const words = text.replace(/\s+/g, " ").trim();
    this.stop();
    if (!words) return false;
    const synth = /** @type {Synth} */ (this.synth);
    const Utterance = /** @type {new (text: string) => any} */ (this.Utterance);
    const utterance = new Utterance(words);
    if (lang) utterance.lang = lang;
    const done = () => {
      if (this.utterance !== utterance) return;
      this.owner = null;
      this.utterance = null;
      this.changed();
    };
    utterance.onend = done;
    utterance.onerror = done;
    this.owner = owner;
    this.utterance = utterance;
    synth.speak(utterance);
    this.changed();
    return true;
  }

  /** Stops whatever is being spoken. */
  stop() {
    const was = this.owner !== null;
    this.owner = null;
    this.utterance = null;
    if (this.synth && typeof this.synth.cancel === "function") this.synth.cancel();
    if (was) this.changed();
  }

  /** @param {() => void} listener @returns {() => void} stops listening */
  listen(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed() {
    for (const listener of [...this.listeners]) listener();
  }
}

/** @type {Speaker | null} */
let shared = null;

/** The page's speaker (the browser's `speechSynthesis`). */
export function speaker() {
  if (!shared) {
    const scope = /** @type {any} */ (globalThis);
    shared = new Speaker(scope.speechSynthesis, scope.SpeechSynthesisUtterance);
    // Leaving a screen stops its speech.
    scope.addEventListener?.("hashchange", () => shared?.stop());
  }
  return shared;
}

/** The user's language for their own texts (captions, notes): the phone's, else the page's. */
export function userLanguage() {
  const scope = /** @type {any} */ (globalThis);
  return scope.navigator?.languages?.[0] || scope.navigator?.language || scope.document?.documentElement?.lang || "en";
}

/**
 * A "Read aloud" button (44×44 px or more) for `text` (a function for text that changes, as a
 * slideshow's caption) in `lang`; null where the browser cannot speak, so no button is shown.
 * `what` names what it reads for screen readers ("the notes", "the word").
 * @param {string | (() => string)} text @param {string | (() => string)} lang @param {string} what
 * @param {Speaker} [by] @returns {HTMLButtonElement | null}
 */
export function speakButton(text, lang, what, by = speaker()) {
  if (!by.available) return null;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "speak secondary";
  let seen = false;
  const show = () => {
    if (button.isConnected) seen = true;
    else if (seen) { unlisten(); return; }
    const on = by.speaking(button);
    const icon = document.createElement("span");
    icon.setAttribute("aria-hidden", "true");
    icon.textContent = on ? "■ " : "🔊 ";
    // The visible words say what it reads (two buttons on one screen differ), and are its name.
    const label = on ? `Stop reading ${what}` : `Read aloud ${what}`;
    button.replaceChildren(icon, label);
    button.setAttribute("aria-label", label);
    button.dataset.speaking = on ? "true" : "false";
  };
  const unlisten = by.listen(show);
  show();
  button.addEventListener("click", () => {
    by.toggle(button, typeof text === "function" ? text() : text, typeof lang === "function" ? lang() : lang);
  });
  return button;
}

/**
 * Whether the app switched `feature` on in its YAML (the manifest's features, in the context).
 * @param {object} context @param {string} feature
 */
export function switchedOn(context, feature) {
  const features = /** @type {any} */ (context).features;
  return Boolean(features && typeof features.has === "function" && features.has(feature));
}

/**
 * A "Read aloud" button when the app has `read-aloud` (web: { read_aloud: true }) and the browser
 * can speak; else null (nothing shown).
 * @param {object} context @param {string | (() => string)} text @param {string | (() => string)} lang @param {string} what
 */
export function readAloud(context, text, lang, what) {
  return switchedOn(context, "read-aloud") ? speakButton(text, lang, what) : null;
}

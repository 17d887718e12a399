// @ts-check
/** A recording on a record, for every app (the `audio` capability): Napkin Notes' voice note (the
 * seed's "voice recording integration"), iRemember's recorded caption, Foreign Note's recorded
 * pronunciation. "Record …" asks for the microphone only when tapped, shows the time recorded and
 * Stop; the recording (whatever the browser's MediaRecorder makes: WebM/Opus, MP4/AAC) is decoded on
 * the phone and sent as a 16-bit mono WAV (`wav.js`), which the server's audio plugin encodes to Ogg
 * Opus. Offline it waits in the outbox like a photo, and plays from there meanwhile. Played with an
 * `<audio>` element (and, where the app asks, a big Play button); deletable after a question.
 *
 * `<note-voice>` is Napkin's; other apps make a `<recorded-voice>` and attach it with their
 * VoiceOptions (the route, the record's field, the words). */
import { KIND, NOTES } from "./notes-parts.js";
import { BOUNDS, pictureURL } from "./picture-cache.js";
import { announce, confirmAction, h } from "./ui.js";
import { VOICE_RATE, clock, wavBytes } from "./wav.js";

/** @typedef {import("./notes-parts.js").Context} Context */

/**
 * What a recording is on: the sync kind and route of its record, the record's field holding it
 * (`voice` → `voice`, `voiceMs`, `pendingVoice`), the picture cache's bound it is kept within, and
 * its name in words ("Voice note"). `play`: the words of a big Play button (none: the player's own).
 * @typedef {object} VoiceOptions
 * @property {string} kind
 * @property {(id: string) => string} path
 * @property {string} field
 * @property {import("./picture-cache.js").Bound | (() => import("./picture-cache.js").Bound)} bound
 * @property {string} name
 * @property {string} record   the first button's words ("Record a voice note")
 * @property {string} [play]
 * @property {(record: any) => string} [by]  whose voice, after the name (", in Anna's voice"; "" for the user's own)
 * @property {boolean} [keep]  no Delete (a caregiver records again, deleting stays the user's)
 */

/** Napkin Notes' voice note. @type {VoiceOptions} */
export const NOTE_VOICE = { kind: KIND, path: (id) => `${NOTES}/${id}/voice`, field: "voice", bound: BOUNDS.napkin,
  name: "Voice note", record: "Record a voice note" };

/** The capitalised field name's variants. @param {string} field */
function fields(field) {
  const cap = field[0].toUpperCase() + field.slice(1);
  return { ms: `${field}Ms`, pending: `pending${cap}` };
}

/** The server's default `audio: max_seconds`: a recording stops by itself there. */
export const MAX_SECONDS = 300;

/**
 * A recording (any format the browser plays) as a WAV at VOICE_RATE, mono.
 * @param {Blob} recorded @returns {Promise<Blob>}
 */
export async function recordingAsWav(recorded) {
  const decoder = new AudioContext();
  let decoded;
  try {
    decoded = await decoder.decodeAudioData(await recorded.arrayBuffer());
  } finally {
    decoder.close().catch(() => {});
  }
  const length = Math.max(1, Math.ceil(decoded.duration * VOICE_RATE));
  const offline = new OfflineAudioContext(1, length, VOICE_RATE);
  const source = offline.createBufferSource();
  source.buffer = decoded;
  source.connect(offline.destination); // several channels are mixed down to the one
  source.start();
  const rendered = await offline.startRendering();
  return new Blob([wavBytes(rendered.getChannelData(0), VOICE_RATE)], { type: "audio/wav" });
}

/** The record's recording as an object URL: fetched with the session's token and kept on the phone
 * like the record's pictures (picture-cache.js, within the app's bound), by the recording's id, so
 * it plays offline once heard. @param {Context} context @param {any} note @param {VoiceOptions} options */
function voiceURL(context, note, options) {
  const path = options.path(note.id);
  return pictureURL(context, path, options.bound, `${path}@${note[options.field]}`);
}

export class RecordedVoice extends HTMLElement {
  constructor() {
    super();
    /** @type {Context | undefined} */
    this.context = undefined;
    /** @type {VoiceOptions} */
    this.options = NOTE_VOICE;
    /** @type {() => any} */
    this.note = () => null;
    /** What the player shows, so a refresh that changes nothing leaves it playing. */
    this.shownKey = "";
    /** @type {MediaRecorder | null} */
    this.recorder = null;
  }

  /** @param {Context} context @param {() => any} note the record as it is now @param {() => void} [beforeWrite]
   * @param {VoiceOptions} [options] what it is on (Napkin's voice note when none) */
  attach(context, note, beforeWrite, options = NOTE_VOICE) {
    this.options = options;
    this.context = context;
    this.note = note;
    this.beforeWrite = beforeWrite;
    this.classList.add("voice");
    this.update(note());
  }

  disconnectedCallback() {
    // Moved (a screen drawn again that keeps this element) it goes on recording; gone, it stops.
    if (this.isConnected) return;
    if (this.recorder && this.recorder.state !== "inactive") this.recorder.stop();
  }

  /** @param {any} note */
  key(note) {
    const { field } = this.options;
    return `${note?.[field] ?? ""}|${note?.[fields(field).pending] ? "pending" : ""}`;
  }

  /** Drawn again only when the recording changed (and never while recording). @param {any} note */
  update(note) {
    if (!note || this.recorder || this.key(note) === this.shownKey) return;
    this.shownKey = this.key(note);
    const context = /** @type {Context} */ (this.context);
    const { field, name, play } = this.options;
    const { ms, pending } = fields(field);
    const lower = name.toLowerCase();
    const record = h("button", { type: "button", class: "secondary record-voice", onclick: () => this.record() },
      note[field] || note[pending] ? "Record it again" : this.options.record);
    if (!note[field] && !note[pending]) {
      this.replaceChildren(record);
      return;
    }
    const audio = /** @type {HTMLAudioElement} */ (h("audio", { controls: play ? undefined : "", preload: "metadata", "aria-label": `The ${lower}` }));
    const seconds = note[ms] ? ` (${clock(note[ms] / 1000)})` : "";
    const whose = this.options.by?.(note) ?? "";
    const line = h("p", { class: "hint voice-line" }, note[pending] ? `🎙 ${name}, waiting to upload` : `🎙 ${name}${whose}${seconds}`);
    const remove = h("button", { type: "button", class: "danger delete-voice", onclick: () => this.remove_() }, `Delete ${lower}`);
    this.replaceChildren(line, ...(play ? [playButton(audio, play)] : []), audio, h("div", { class: "row" }, record, ...(this.options.keep ? [] : [remove])));
    if (note[pending]) {
      audio.src = URL.createObjectURL(note[pending]);
    } else if (!String(note.id).startsWith("local:")) {
      voiceURL(context, note, this.options).then((url) => { audio.src = url; }).catch(() => {
        line.textContent = `🎙 The ${lower} could not be loaded; it plays once you are back online.`;
      });
    }
  }

  /** The microphone is asked for here, on the tap, and nowhere else. */
  async record() {
    // Someone else's recording (a relative's voice) is not replaced by a stray tap: asked first.
    const shown = this.note();
    const whose = shown?.[this.options.field] ? this.options.by?.(shown) ?? "" : "";
    if (whose && !(await confirmAction(`Record over this ${this.options.name.toLowerCase()}${whose}? It cannot be brought back.`, "Record again"))) return;
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === "undefined") {
      announce("This browser cannot record sound.");
      this.replaceChildren(h("p", { class: "error", role: "alert" }, "This browser cannot record sound; try another, or update it."));
      return;
    }
    /** @type {MediaStream} */
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (error) {
      const denied = error instanceof DOMException && error.name === "NotAllowedError";
      this.shownKey = "";
      this.update(this.note());
      this.prepend(h("p", { class: "error", role: "alert" }, denied
        ? "The microphone is not allowed for this app; allow it in the browser's site settings, then tap Record again."
        : `The microphone could not be opened (${error instanceof Error ? error.message : String(error)}).`));
      return;
    }
    const recorder = new MediaRecorder(stream);
    this.recorder = recorder;
    /** @type {Blob[]} */
    const chunks = [];
    recorder.addEventListener("dataavailable", (event) => { if (event.data.size) chunks.push(event.data); });
    const started = performance.now();
    const elapsed = h("span", { class: "voice-elapsed", role: "timer", "aria-live": "off" }, "0:00");
    const stop = h("button", { type: "button", class: "primary stop-voice", onclick: () => recorder.stop() }, "Stop");
    this.replaceChildren(h("p", { class: "voice-recording" }, "● Recording ", elapsed), stop);
    announce("Recording. Tap Stop when you are done.");
    const tick = setInterval(() => {
      const seconds = (performance.now() - started) / 1000;
      elapsed.textContent = clock(seconds);
      if (seconds >= MAX_SECONDS && recorder.state === "recording") recorder.stop();
    }, 250);
    recorder.addEventListener("stop", () => {
      clearInterval(tick);
      for (const track of stream.getTracks()) track.stop();
      this.recorder = null;
      this.save(new Blob(chunks, { type: recorder.mimeType })).catch((error) => {
        this.shownKey = "";
        this.update(this.note());
        this.prepend(h("p", { class: "error", role: "alert" }, `The recording could not be kept: ${error instanceof Error ? error.message : String(error)}`));
      });
    });
    recorder.start(1000);
  }

  /** Queued like a photo: sent now when online, else when the network is back. @param {Blob} recorded */
  async save(recorded) {
    const { kind, path, field, name } = this.options;
    this.replaceChildren(h("p", { class: "hint" }, `Keeping the ${name.toLowerCase()}…`));
    const wav = await recordingAsWav(recorded);
    this.beforeWrite?.();
    const note = this.note();
    if (!note) return;
    const context = /** @type {Context} */ (this.context);
    await context.sync.write({ method: "PUT", path: path(note.id), body: wav, contentType: "audio/wav", kind, id: note.id,
      local: { [fields(field).pending]: wav } });
    this.shownKey = "";
    this.update(this.note());
    announce(`${name} added.`);
  }

  async remove_() {
    const note = this.note();
    if (!note) return;
    const { kind, path, field, name } = this.options;
    if (!(await confirmAction(`Delete this ${name.toLowerCase()}? This cannot be undone.`, "Delete"))) return;
    const context = /** @type {Context} */ (this.context);
    const { ms, pending } = fields(field);
    await context.sync.write({ method: "DELETE", path: path(note.id), kind, id: note.id,
      local: { [field]: null, [ms]: null, [pending]: null } });
    this.shownKey = "";
    this.update(this.note());
    announce(`${name} deleted.`);
  }
}
customElements.define("recorded-voice", RecordedVoice);

/** Napkin Notes' voice note (its own tag, which its screens and walks know). */
export class NoteVoice extends RecordedVoice {}
customElements.define("note-voice", NoteVoice);

/**
 * A big Play button for `audio` (for people for whom a player's small controls are too much):
 * "▶ Play …", "❚❚ Pause" while it plays.
 * @param {HTMLAudioElement} audio @param {string} words
 */
export function playButton(audio, words) {
  const label = h("span", { class: "word" }, words);
  const symbol = h("span", { class: "symbol", "aria-hidden": "true" }, "▶");
  const button = h("button", { type: "button", class: "big play-voice", onclick: () => {
    if (audio.paused) audio.play().catch(() => announce("The recording could not be played; try again."));
    else audio.pause();
  } }, symbol, label);
  const show = () => {
    symbol.textContent = audio.paused ? "▶" : "❚❚";
    label.textContent = audio.paused ? words : "Pause";
  };
  audio.addEventListener("play", show);
  audio.addEventListener("pause", show);
  audio.addEventListener("ended", show);
  return button;
}

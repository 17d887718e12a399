// @ts-check
/** Napkin Notes' voice note (the seed's "voice recording integration"): "Record a voice note" asks
 * for the microphone only when tapped, shows the time recorded and Stop; the recording (whatever the
 * browser's MediaRecorder makes: WebM/Opus, MP4/AAC) is decoded on the phone and sent as a 16-bit
 * mono WAV (`wav.js`), which the server's audio plugin encodes to Ogg Opus. Offline it waits in the
 * outbox like a photo, and plays from there meanwhile. Played with an `<audio>` element; deletable. */
import { KIND, NOTES } from "./notes-parts.js";
import { BOUNDS, pictureURL } from "./picture-cache.js";
import { announce, confirmAction, h } from "./ui.js";
import { VOICE_RATE, clock, wavBytes } from "./wav.js";

/** @typedef {import("./notes-parts.js").Context} Context */

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

/** The note's recording as an object URL: fetched with the session's token and kept on the phone
 * like the note's photo (picture-cache.js, within Napkin's bound), by the recording's id, so it
 * plays offline once heard. @param {Context} context @param {any} note */
function voiceURL(context, note) {
  const path = `${NOTES}/${note.id}/voice`;
  return pictureURL(context, path, BOUNDS.napkin, `${path}@${note.voice}`);
}

export class NoteVoice extends HTMLElement {
  constructor() {
    super();
    /** @type {Context | undefined} */
    this.context = undefined;
    /** @type {() => any} */
    this.note = () => null;
    /** What the player shows, so a refresh that changes nothing leaves it playing. */
    this.shownKey = "";
    /** @type {MediaRecorder | null} */
    this.recorder = null;
  }

  /** @param {Context} context @param {() => any} note the note as it is now @param {() => void} beforeWrite */
  attach(context, note, beforeWrite) {
    this.context = context;
    this.note = note;
    this.beforeWrite = beforeWrite;
    this.classList.add("voice");
    this.update(note());
  }

  disconnectedCallback() {
    if (this.recorder && this.recorder.state !== "inactive") this.recorder.stop();
  }

  /** @param {any} note */
  key(note) {
    return `${note?.voice ?? ""}|${note?.pendingVoice ? "pending" : ""}`;
  }

  /** Drawn again only when the recording changed (and never while recording). @param {any} note */
  update(note) {
    if (!note || this.recorder || this.key(note) === this.shownKey) return;
    this.shownKey = this.key(note);
    const context = /** @type {Context} */ (this.context);
    const record = h("button", { type: "button", class: "secondary record-voice", onclick: () => this.record() },
      note.voice || note.pendingVoice ? "Record it again" : "Record a voice note");
    if (!note.voice && !note.pendingVoice) {
      this.replaceChildren(record);
      return;
    }
    const audio = /** @type {HTMLAudioElement} */ (h("audio", { controls: "", preload: "metadata", "aria-label": "The voice note" }));
    const seconds = note.voiceMs ? ` (${clock(note.voiceMs / 1000)})` : "";
    const line = h("p", { class: "hint voice-line" }, note.pendingVoice ? "🎙 Voice note, waiting to upload" : `🎙 Voice note${seconds}`);
    const remove = h("button", { type: "button", class: "danger delete-voice", onclick: () => this.remove_() }, "Delete voice note");
    this.replaceChildren(line, audio, h("div", { class: "row" }, record, remove));
    if (note.pendingVoice) {
      audio.src = URL.createObjectURL(note.pendingVoice);
    } else if (!String(note.id).startsWith("local:")) {
      voiceURL(context, note).then((url) => { audio.src = url; }).catch(() => {
        line.textContent = "🎙 The voice note could not be loaded; it plays once you are back online.";
      });
    }
  }

  /** The microphone is asked for here, on the tap, and nowhere else. */
  async record() {
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
    this.replaceChildren(h("p", { class: "hint" }, "Keeping the voice note…"));
    const wav = await recordingAsWav(recorded);
    this.beforeWrite?.();
    const note = this.note();
    if (!note) return;
    const context = /** @type {Context} */ (this.context);
    await context.sync.write({ method: "PUT", path: `${NOTES}/${note.id}/voice`, body: wav, contentType: "audio/wav", kind: KIND, id: note.id,
      local: { pendingVoice: wav } });
    this.shownKey = "";
    this.update(this.note());
    announce("Voice note added.");
  }

  async remove_() {
    const note = this.note();
    if (!note) return;
    if (!(await confirmAction("Delete this voice note? This cannot be undone.", "Delete"))) return;
    const context = /** @type {Context} */ (this.context);
    await context.sync.write({ method: "DELETE", path: `${NOTES}/${note.id}/voice`, kind: KIND, id: note.id,
      local: { voice: null, voiceMs: null, pendingVoice: null } });
    this.shownKey = "";
    this.update(this.note());
    announce("Voice note deleted.");
  }
}
customElements.define("note-voice", NoteVoice);

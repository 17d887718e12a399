// @ts-check
/**
 * iRemember's recorded caption (needs `audio:` in the app's YAML): on a photo, "Record the caption
 * in your voice" (or a relative's), through the one recorder every app uses (`voice-note.js`: asked
 * for the microphone only on the tap, kept as Ogg Opus by the server's audio plugin, queued like a
 * photo when offline); played with a big Play button next to the caption and in the slideshow.
 */
import { CACHE_SIZE, KIND, PHOTOS } from "./album-base.js";
import { budgetBytes, pictureURL } from "./picture-cache.js";
import { h } from "./ui.js";
import { playButton } from "./voice-note.js";

/** @typedef {import("./album-base.js").Context} Context */
/** @typedef {import("./album-base.js").Photo & {voice?: string, voiceMs?: number, pendingVoice?: Blob}} Photo */

/** The photo's recording, kept with its pictures (within the size chosen in Settings). */
const bound = () => ({ bytes: budgetBytes(localStorage.getItem(CACHE_SIZE)) });

/** @type {import("./voice-note.js").VoiceOptions} */
export const CAPTION_VOICE = { kind: KIND, path: (id) => `${PHOTOS}/${id}/voice`, field: "voice", bound, name: "Recorded caption",
  record: "Record the caption in your voice", play: "Play the recorded caption",
  by: (photo) => (photo.voiceBy ? `, in ${photo.voiceBy}'s voice` : "") };

/** Whether this app records captions (its YAML has an audio section). @param {Context} context */
export function hasVoice(context) {
  return Boolean(/** @type {any} */ (context).features?.has("plugin:audio"));
}

/**
 * The photo screen's part: the recorder and the big Play button, by the caption.
 * @param {Context} context @param {() => Photo | undefined} photo the photo as it is now
 * @param {import("./voice-note.js").VoiceOptions} [options] a caregiver's screen gives its route (album-helping.js)
 */
export function captionVoice(context, photo, options = CAPTION_VOICE) {
  if (!hasVoice(context)) return null;
  const voice = /** @type {import("./voice-note.js").RecordedVoice} */ (document.createElement("recorded-voice"));
  voice.attach(/** @type {any} */ (context), photo, undefined, options);
  return h("section", { class: "caption-voice", "aria-label": "Recorded caption" }, voice);
}

/**
 * The slideshow's part: a big Play button for this slide's recorded caption (none when it has none),
 * from the phone's copy or the server's.
 * @param {Context} context @param {HTMLElement} slot where the button goes @param {Photo} photo
 * @param {() => void} [onPlay] when it starts playing (the slideshow pauses on this photo)
 */
export function slideVoice(context, slot, photo, onPlay) {
  // The same slide shown again (the show paused or resumed): its recording keeps playing.
  const key = `${photo.id}@${photo.voice ?? ""}${photo.pendingVoice ? ":pending" : ""}`;
  if (slot.dataset.voice === key) return;
  slot.dataset.voice = key;
  for (const playing of slot.querySelectorAll("audio")) playing.pause();
  slot.replaceChildren();
  if (!hasVoice(context) || (!photo.voice && !photo.pendingVoice)) return;
  const audio = /** @type {HTMLAudioElement} */ (h("audio", { preload: "auto", "aria-label": "The recorded caption" }));
  if (onPlay) audio.addEventListener("play", onPlay);
  slot.append(playButton(audio, "Play the recorded caption"), audio);
  if (photo.pendingVoice) audio.src = URL.createObjectURL(photo.pendingVoice);
  else pictureURL(context, CAPTION_VOICE.path(photo.id), bound, `${CAPTION_VOICE.path(photo.id)}@${photo.voice}`)
    .then((url) => { if (audio.isConnected) audio.src = url; }).catch(() => {
      slot.replaceChildren(h("p", { class: "hint" }, "The recorded caption plays once this phone is online."));
    });
}

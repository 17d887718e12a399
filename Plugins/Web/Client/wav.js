// @ts-check
/** A recording as the server's audio plugin takes it: 16-bit mono PCM WAV at 16 kHz (plenty for a
 * voice; five minutes are 9.6 MB). Pure: `node --test Tests/WebClient` runs it. */

/** The rate recordings are resampled to (the server takes 8, 12, 16, 24 or 48 kHz). */
export const VOICE_RATE = 16000;

/**
 * Samples in -1…1 as a canonical WAV (RIFF/WAVE, `fmt ` first, then `data`), clipped to 16 bits.
 * @param {Float32Array} samples @param {number} rate @returns {Uint8Array}
 */
export function wavBytes(samples, rate) {
  const bytes = new Uint8Array(44 + samples.length * 2);
  const view = new DataView(bytes.buffer);
  const text = (/** @type {number} */ at, /** @type {string} */ word) => { for (let i = 0; i < 4; i++) bytes[at + i] = word.charCodeAt(i); };
  text(0, "RIFF");
  view.setUint32(4, 36 + samples.length * 2, true);
  text(8, "WAVE");
  text(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true); // bytes per second
  view.setUint16(32, 2, true); // block
  view.setUint16(34, 16, true); // bits
  text(36, "data");
  view.setUint32(40, samples.length * 2, true);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i] || 0));
    view.setInt16(44 + i * 2, s < 0 ? Math.round(s * 32768) : Math.round(s * 32767), true);
  }
  return bytes;
}

/** "1:05" for 65 seconds. @param {number} seconds */
export function clock(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

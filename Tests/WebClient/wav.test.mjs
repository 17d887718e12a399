// The voice note's WAV (wav.js): what the server's audio plugin reads strictly. Run by `node --test Tests/WebClient`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { VOICE_RATE, clock, wavBytes } from "../../Plugins/Web/Client/wav.js";

test("a canonical 16-bit mono PCM WAV: RIFF/WAVE, fmt first, the lengths of what follows", () => {
  const bytes = wavBytes(new Float32Array([0, 0.5, -0.5, 1, -1, 2, -2, Number.NaN]), VOICE_RATE);
  const view = new DataView(bytes.buffer);
  const text = (at) => String.fromCharCode(...bytes.slice(at, at + 4));
  assert.equal(bytes.length, 44 + 8 * 2);
  assert.deepEqual([text(0), text(8), text(12), text(36)], ["RIFF", "WAVE", "fmt ", "data"]);
  assert.equal(view.getUint32(4, true), bytes.length - 8, "the RIFF length is the file's, less its first 8 bytes");
  assert.deepEqual([view.getUint32(16, true), view.getUint16(20, true), view.getUint16(22, true)], [16, 1, 1], "PCM, one channel");
  assert.deepEqual([view.getUint32(24, true), view.getUint32(28, true), view.getUint16(32, true), view.getUint16(34, true)], [16000, 32000, 2, 16]);
  assert.equal(view.getUint32(40, true), 16);
  const samples = Array.from({ length: 8 }, (_, i) => view.getInt16(44 + i * 2, true));
  assert.deepEqual(samples, [0, 16384, -16384, 32767, -32768, 32767, -32768, 0], "clipped to 16 bits; NaN is silence");
});

test("the recording's clock: minutes and seconds", () => {
  assert.equal(clock(0), "0:00");
  assert.equal(clock(2.7), "0:02");
  assert.equal(clock(65), "1:05");
  assert.equal(clock(-3), "0:00");
});

#!/usr/bin/env python3
"""Recorded audio to Opus (issue 41's audio capability, Napkin's voice notes), through the real server, against opusenc.

Makes recordings of known length (10 s, 60 s, 5 min) as the phone sends them (voice-note.js: a 16-bit mono
WAV at 16 kHz, whatever MediaRecorder made): "speech", espeak-ng reading seeded prose (resampled from its
22.05 kHz to 16 kHz), and "synthetic", voiced harmonics (a wandering pitch, formant-shaped) under a syllable
envelope with pauses. Each goes through the real server (Napkin's shipped YAML, `audio: { max_seconds: 300 }`,
its storage in a scratch folder): sign up, a note, `PUT /api/v1/notes/{id}/voice`, `GET` it back. Per
length: upload → stored (the PUT's round trip: the body sent, the WAV checked, encoded, the Ogg blob and the
note written), the server's CPU (utime+stime from /proc/PID/stat across the PUT) per second of audio, the
output's size and bitrate, and the server's peak RSS (VmHWM, reset before each PUT by writing 5 to
/proc/PID/clear_refs). The peer in the same run: `opusenc` (opus-tools, Debian's libopus) on the same WAV at
the same settings (24 kbit/s VBR, --speech, complexity 10, 20 ms frames), its CPU from wait4, its peak RSS from GNU time.
Quality: both outputs decoded by `opusdec --rate 16000`; their length in samples against the input's, and
the SNR of each against the input: waveform SNR (after the best lag within ±20 ms) and spectral SNR (STFT
magnitudes, 20 ms Hann frames, 10 ms hop), in dB.

usage: tools/bench.d/audio.py --binary .build/release/quire [--rounds 3] [--lengths 10,60,300] [--keep DIR]
Prints Markdown tables and one JSON line. Needs `tools/setup --bench` (opus-tools, espeak-ng).
"""
import argparse
import http.client
import io
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import wave

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, call, free_port, serving  # noqa: E402

RATE = 16000  # the web client's VOICE_RATE (Plugins/Web/Client/wav.js)
BITRATE = 24000  # the audio plugin's default `bitrate`
WORDS = ("the of and a to in is was that for it with as his on be at by had are but from or have an they which one you were all "
         "her she there would their we him been has when who will no more if out so said what up its about than into them can "
         "only other time new some could these two may first then do any like my now over such our man me even most made after "
         "also did many before must through back years where much your way well down should because each just those people how "
         "remember to buy milk and bread on the way home call the doctor about thursday the garden needs water before the "
         "weekend and the kitchen window is still open harbour bakery morning letter river market station bridge village").split()


def wav_bytes(samples):
    out = io.BytesIO()
    with wave.open(out, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(RATE)
        handle.writeframes(np.clip(samples, -32768, 32767).astype("<i2").tobytes())
    return out.getvalue()


def read_wav(path):
    with wave.open(path, "rb") as handle:
        assert handle.getnchannels() == 1 and handle.getsampwidth() == 2, path
        return handle.getframerate(), np.frombuffer(handle.readframes(handle.getnframes()), "<i2").astype(np.float64)


def speech(seconds, work):
    """espeak-ng reading seeded prose until `seconds` are filled (a sentence per call, a short pause between),
    at 16 kHz, with a faint room noise (-66 dBFS) so silence is not digital zero."""
    from scipy.signal import resample_poly
    rng = random.Random(41)
    pieces, total = [], 0
    path = os.path.join(work, "sentence.wav")
    while total < seconds * RATE:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16))) + "."
        subprocess.run(["espeak-ng", "-v", "en", "-s", str(rng.randint(150, 180)), "-w", path, sentence], check=True)
        rate, samples = read_wav(path)
        piece = resample_poly(samples, RATE, rate) * 1.6
        pieces += [piece, np.zeros(int(RATE * rng.uniform(0.2, 0.6)))]
        total += len(pieces[-2]) + len(pieces[-1])
    signal = np.concatenate(pieces)[: seconds * RATE]
    return signal + np.random.default_rng(41).normal(0, 16, len(signal))


def synthetic(seconds):
    """Voiced harmonics (pitch wandering 90-220 Hz, 30 harmonics shaped by three moving formants) under a
    syllable envelope (4-6 syllables a second, a pause every few words), with faint noise."""
    rng = np.random.default_rng(41)
    n = seconds * RATE
    t = np.arange(n) / RATE
    pitch = 150 + 50 * np.sin(2 * np.pi * 0.3 * t) + 20 * np.sin(2 * np.pi * 1.7 * t + 1)
    phase = 2 * np.pi * np.cumsum(pitch) / RATE
    formants = [(500 + 200 * np.sin(2 * np.pi * 2.1 * t), 90), (1500 + 400 * np.sin(2 * np.pi * 2.9 * t + 2), 120),
                (2500 + 200 * np.sin(2 * np.pi * 1.3 * t + 4), 160)]
    voiced = np.zeros(n)
    for k in range(1, 31):
        frequency = k * pitch
        gain = sum(np.exp(-((frequency - f) / bw) ** 2 / 2) for f, bw in formants) + 0.02
        voiced += np.where(frequency < RATE / 2 - 200, gain, 0) * np.sin(k * phase) / k ** 0.5
    envelope = np.zeros(n)
    at = 0
    while at < n:
        syllable = int(RATE * rng.uniform(0.15, 0.25))
        end = min(n, at + syllable)
        envelope[at:end] = np.sin(np.pi * np.arange(end - at) / syllable) ** 2
        at = end + (int(RATE * rng.uniform(0.25, 0.6)) if rng.random() < 0.15 else int(RATE * 0.02))
    signal = voiced * envelope
    signal *= 9000 / np.max(np.abs(signal))
    return signal + rng.normal(0, 16, n)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    return int(fields["VmHWM"].split()[0]) / 1024


def request(port, method, path, token, body=None, content_type=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    headers = {"Authorization": "Bearer " + token}
    if content_type:
        headers["Content-Type"] = content_type
    connection.request(method, path, body, headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def through_server(port, pid, token, wav):
    """One note, the WAV as its voice: the PUT's time, the server's CPU and peak across it, the Ogg file back."""
    note = call(port, "POST", "/api/v1/notes", {"title": "A voice note"}, token)
    with open(f"/proc/{pid}/clear_refs", "w") as clear:
        clear.write("5")  # resets VmHWM to the current RSS
    base_mb = peak_mb(pid)
    cpu = cpu_seconds(pid)
    started = time.monotonic()
    status, body = request(port, "PUT", f"/api/v1/notes/{note['id']}/voice", token, wav, "audio/wav")
    elapsed = time.monotonic() - started
    cpu = cpu_seconds(pid) - cpu
    if status != 200:
        raise SystemExit(f"PUT voice: {status} {body[:300]!r}")
    stored = json.loads(body)
    status, ogg = request(port, "GET", f"/api/v1/notes/{note['id']}/voice", token)
    assert status == 200 and ogg[:4] == b"OggS", status
    return {"put_s": elapsed, "cpu_s": cpu, "peak_mb": peak_mb(pid), "base_mb": base_mb, "ogg": ogg, "voice_ms": stored.get("voiceMs")}


def opusenc(wav_path, out_path, work):
    """The peer: opusenc at the plugin's settings; its CPU seconds (wait4, µs) and peak RSS (GNU time's %M: a
    child forked from this Python would report Python's own peak as its ru_maxrss)."""
    report = os.path.join(work, "time.txt")
    started = time.monotonic()
    process = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", report, "opusenc", "--quiet", "--bitrate", str(BITRATE // 1000),
                                "--vbr", "--speech", "--comp", "10", "--framesize", "20", wav_path, out_path])
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"opusenc failed ({status})")
    with open(report) as handle:
        peak_kb = int(handle.read().split()[-1])
    return {"wall_s": time.monotonic() - started, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": peak_kb / 1024}


def decode(ogg_path, wav_path):
    subprocess.run(["opusdec", "--quiet", "--rate", str(RATE), ogg_path, wav_path], check=True)
    return read_wav(wav_path)[1]


def quality(reference, decoded):
    """Waveform SNR after the best lag within ±20 ms, and spectral SNR of the STFT magnitudes (20 ms Hann, 10 ms hop)."""
    n = min(len(reference), len(decoded))
    best = max(range(-320, 321), key=lambda lag: float(np.dot(reference[max(0, lag):n + min(0, lag)][::7],
                                                             decoded[max(0, -lag):n - max(0, lag)][::7])))
    x, y = reference[max(0, best):n + min(0, best)], decoded[max(0, -best):n - max(0, best)]
    waveform = 10 * np.log10(np.sum(x ** 2) / max(np.sum((x - y) ** 2), 1e-9))
    window = np.hanning(320)
    frames = lambda s: np.abs(np.fft.rfft(np.lib.stride_tricks.sliding_window_view(s, 320)[::160] * window, axis=1))
    X, Y = frames(x), frames(y)
    spectral = 10 * np.log10(np.sum(X ** 2) / max(np.sum((X - Y) ** 2), 1e-9))
    return {"samples": len(decoded), "lag": best, "snr_db": round(float(waveform), 2), "spectral_snr_db": round(float(spectral), 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/quire"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lengths", default="10,60,300", help="seconds, comma-separated")
    parser.add_argument("--signals", default="speech,synthetic")
    parser.add_argument("--keep", help="a folder to keep the WAVs and both encodings in")
    args = parser.parse_args()
    lengths = [int(s) for s in args.lengths.split(",")]

    work = tempfile.mkdtemp(prefix="quire-bench-audio-")
    keep = args.keep or work
    os.makedirs(keep, exist_ok=True)
    results, refusals = [], {}
    try:
        recordings = {}
        for signal in args.signals.split(","):
            longest = speech(max(lengths), work) if signal == "speech" else synthetic(max(lengths))
            for seconds in lengths:
                path = os.path.join(keep, f"{signal}-{seconds}s.wav")
                data = wav_bytes(longest[: seconds * RATE])
                with open(path, "wb") as handle:
                    handle.write(data)
                recordings[(signal, seconds)] = (path, data)
        data_dir = os.path.join(work, "data")
        env = dict(os.environ, QUIRE_DATA=data_dir, QUIRE_AUTH_SECRET="bench-secret-0123456789-0123456789-0123456789")
        port = free_port()
        config = os.path.join(ROOT, "config/apps/napkin-notes.yaml")
        with serving(os.path.dirname(os.path.abspath(args.binary)), config, env, port) as server:
            call(port, "POST", "/api/v1/auth/register", {"username": "bench", "password": "a good password"})
            token = call(port, "POST", "/api/v1/auth/login", {"username": "bench", "password": "a good password"})["access_token"]
            idle = cpu_seconds(server.pid)
            time.sleep(2)
            idle_cpu_per_s = (cpu_seconds(server.pid) - idle) / 2
            for (signal, seconds), (path, data) in recordings.items():
                ours_path, peer_path = os.path.join(keep, f"{signal}-{seconds}s.quire.opus"), os.path.join(keep, f"{signal}-{seconds}s.opusenc.opus")
                ours, peer = [], []
                for _ in range(args.rounds):  # alternated: ours, then the peer, each round
                    ours.append(through_server(port, server.pid, token, data))
                    peer.append(opusenc(path, peer_path, work))
                with open(ours_path, "wb") as handle:
                    handle.write(ours[-1]["ogg"])
                reference = read_wav(path)[1]
                q_ours = quality(reference, decode(ours_path, ours_path + ".wav"))
                q_peer = quality(reference, decode(peer_path, peer_path + ".wav"))
                median = lambda rows, key: statistics.median(r[key] for r in rows)
                size_ours, size_peer = len(ours[-1]["ogg"]), os.path.getsize(peer_path)
                results.append({
                    "signal": signal, "seconds": seconds, "wav_bytes": len(data), "rounds": args.rounds,
                    "put_s": round(median(ours, "put_s"), 3), "put_s_all": [round(r["put_s"], 3) for r in ours],
                    "cpu_ms_per_audio_s": round(1000 * median(ours, "cpu_s") / seconds, 2),
                    "peer_cpu_ms_per_audio_s": round(1000 * median(peer, "cpu_s") / seconds, 2),
                    "peer_wall_s": round(median(peer, "wall_s"), 3),
                    "cpu_ratio": round(median(ours, "cpu_s") / max(median(peer, "cpu_s"), 1e-6), 2),
                    "bytes": size_ours, "peer_bytes": size_peer,
                    "kbps": round(size_ours * 8 / seconds / 1000, 2), "peer_kbps": round(size_peer * 8 / seconds / 1000, 2),
                    "peak_mb": round(max(r["peak_mb"] for r in ours), 1), "base_mb": round(min(r["base_mb"] for r in ours), 1),
                    "peer_peak_mb": round(max(r["peak_mb"] for r in peer), 1),
                    "voice_ms": ours[-1]["voice_ms"], "input_samples": len(reference), "ours": q_ours, "peer": q_peer})
            # What the server says to what a phone might send instead: an Ogg Opus file, and a recording too long.
            wrong = open(os.path.join(keep, f"{args.signals.split(',')[0]}-{lengths[0]}s.opusenc.opus"), "rb").read()
            note = call(port, "POST", "/api/v1/notes", {"title": "not a WAV"}, token)
            status, body = request(port, "PUT", f"/api/v1/notes/{note['id']}/voice", token, wrong, "audio/ogg")
            refusals["ogg"] = {"status": status, "body": body[:400].decode(errors="replace")}
            longest = read_wav(recordings[(args.signals.split(",")[0], max(lengths))][0])[1]
            long_wav = wav_bytes(np.tile(longest, 301 // max(lengths) + 1)[: 301 * RATE])
            status, body = request(port, "PUT", f"/api/v1/notes/{note['id']}/voice", token, long_wav, "audio/wav")
            refusals["301s"] = {"status": status, "bytes": len(long_wav), "body": body[:400].decode(errors="replace")}
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"server idle CPU: {idle_cpu_per_s * 1000:.1f} ms/s")
    print("| recording (16 kHz mono WAV) | upload → stored (PUT, median) | server CPU per s of audio | opusenc CPU per s of audio | ours ÷ opusenc | "
          "output, bitrate (ours / opusenc) | server peak RSS (before → during) | opusenc peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        print(f"| {r['signal']}, {r['seconds']} s ({r['wav_bytes'] / 1e6:.2f} MB) | {r['put_s']} s | {r['cpu_ms_per_audio_s']} ms | "
              f"{r['peer_cpu_ms_per_audio_s']} ms | {r['cpu_ratio']}× | {r['bytes'] / 1000:.1f} / {r['peer_bytes'] / 1000:.1f} KB, "
              f"{r['kbps']} / {r['peer_kbps']} kbit/s | {r['base_mb']} → {r['peak_mb']} MB | {r['peer_peak_mb']} MB |")
    print()
    print("| recording | input samples | decoded samples (ours / opusenc) | waveform SNR (ours / opusenc) | spectral SNR (ours / opusenc) |")
    print("| --- | --- | --- | --- | --- |")
    for r in results:
        print(f"| {r['signal']}, {r['seconds']} s | {r['input_samples']} | {r['ours']['samples']} / {r['peer']['samples']} | "
              f"{r['ours']['snr_db']} / {r['peer']['snr_db']} dB | {r['ours']['spectral_snr_db']} / {r['peer']['spectral_snr_db']} dB |")
    for name, refusal in refusals.items():
        print(f"refusal {name}: {refusal}")
    print(json.dumps({"idle_cpu_ms_per_s": round(idle_cpu_per_s * 1000, 2), "results": results, "refusals": refusals}))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Text in photos (Napkin Notes, issue 41): a 12-megapixel photo of a printed page, read by the server.

Renders a page of known text at 4000x3000 (PIL: a serif face, turned, soft, with sensor grain and
uneven light, saved as a phone saves it: JPEG), photographed two ways (steady and rough), then through the real server (Napkin's
shipped YAML, its storage in a scratch folder): sign up, a note, PUT the photo, wait for the note's
photoTextState. Reports Tesseract's time (the job's record), the time from upload to the text on the
note, and the character error rate against the known text (Levenshtein distance over the known
text's length, whitespace runs made one space, case kept).

usage: tools/bench.d/photo_text.py --binary .build/release/quire [--rounds 3] [--keep PREFIX]  (PREFIX-steady.jpg, PREFIX-rough.jpg)
Prints a Markdown table and one JSON line.
"""
import argparse
import io
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, call, free_port, serving  # noqa: E402

from PIL import Image, ImageDraw, ImageFilter, ImageFont  # noqa: E402  (Debian's python3-pil, PyPI's pillow)

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
WORDS = ("the of and a to in is was that for it with as his on be at by had are but from or have an they which one you were all "
         "her she there would their we him been has when who will no more if out so said what up its about than into them can "
         "only other time new some could these two may first then do any like my now over such our man me even most made after "
         "also did many before must through back years where much your way well down should because each just those people how "
         "too little state good very make world still own see men work long get here between both life being under never day "
         "same another know while last might us great old year off come since against go came right used take three harbour "
         "bakery morning letter garden river window kitchen market station bridge village summer winter").split()


def page_text(seed=41, lines=46, width=72):
    """Lines of plausible prose of known words, with numbers and punctuation, about `width` characters each."""
    rng = random.Random(seed)
    out = []
    for _ in range(lines):
        line = []
        while sum(len(w) + 1 for w in line) < width - 8:
            word = rng.choice(WORDS)
            roll = rng.random()
            if roll < 0.05:
                word = str(rng.randint(2, 2026))
            elif roll < 0.12:
                word = word.capitalize()
            line.append(word)
        text = " ".join(line)
        out.append(text[0].upper() + text[1:] + rng.choice([".", ",", ";", ".", ":"]))
    return out


# How the page was photographed: "steady", held square in good light; "rough", turned 2 degrees, out of
# focus, darker, grainier, saved at a lower JPEG quality.
TAKES = {"steady": {"turn": 0.6, "blur": 1.1, "shade": 0.82, "grain": 0.10, "quality": 88},
         "rough": {"turn": 2.0, "blur": 2.4, "shade": 0.65, "grain": 0.22, "quality": 70}}


def render_page(lines, take="steady"):
    """The page photographed: 4000x3000, black on off-white, turned, soft, grainy, lit unevenly; JPEG bytes."""
    how = TAKES[take]
    page = Image.new("L", (4000, 3000), 238)
    draw = ImageDraw.Draw(page)
    font = ImageFont.truetype(FONT, 50)
    for index, line in enumerate(lines):
        draw.text((220, 150 + index * 58), line, fill=28, font=font)
    page = page.rotate(how["turn"], resample=Image.BICUBIC, fillcolor=238).filter(ImageFilter.GaussianBlur(how["blur"]))
    # Uneven light: darker to the right, as a page by a window.
    shade = Image.linear_gradient("L").rotate(90).resize(page.size)
    page = Image.composite(page, page.point(lambda v: int(v * how["shade"])), shade.point(lambda v: 255 - v // 2))
    # Grain: a noise field at quarter size, scaled up.
    noise = Image.effect_noise((1000, 750), 24).resize(page.size, Image.BILINEAR)
    page = Image.blend(page, noise, how["grain"])
    out = io.BytesIO()
    page.convert("RGB").save(out, "JPEG", quality=how["quality"])
    return out.getvalue()


def levenshtein(a, b):
    """Edit distance (insertions, deletions, substitutions), row by row."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def normalise(text):
    return re.sub(r"\s+", " ", text).strip()


def upload(port, token, path, data, content_type):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method="PUT")
    request.add_header("Authorization", "Bearer " + token)
    request.add_header("Content-Type", content_type)
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/quire"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", help="also write the page's JPEG here")
    args = parser.parse_args()

    lines = page_text()
    known = normalise("\n".join(lines))
    pages = {take: render_page(lines, take) for take in TAKES}
    if args.keep:
        for take, jpeg in pages.items():
            with open(f"{args.keep}-{take}.jpg", "wb") as handle:
                handle.write(jpeg)

    work = tempfile.mkdtemp(prefix="quire-bench-photo-text-")
    results = []
    try:
        env = dict(os.environ, QUIRE_DATA=work, QUIRE_AUTH_SECRET="bench-secret-0123456789-0123456789-0123456789")
        port = free_port()
        config = os.path.join(ROOT, "config/apps/napkin-notes.yaml")
        with serving(os.path.dirname(os.path.abspath(args.binary)), config, env, port):
            call(port, "POST", "/api/v1/auth/register", {"username": "bench", "password": "a good password"})
            token = call(port, "POST", "/api/v1/auth/login", {"username": "bench", "password": "a good password"})["access_token"]
            for take, jpeg in pages.items():
                rounds = [read_once(port, token, jpeg, known) for _ in range(args.rounds)]
                median = lambda key: statistics.median(r[key] for r in rounds)
                results.append({"take": take, "image": "4000x3000 JPEG", "jpeg_bytes": len(jpeg), "known_chars": len(known), "rounds": len(rounds),
                                "tesseract_s_median": round(median("tesseract_s"), 2), "to_text_s_median": round(median("to_text_s"), 2),
                                "upload_s_median": round(median("upload_s"), 2), "cer_median": round(median("cer"), 4),
                                "edits_median": median("distance"), "confidence": rounds[0]["confidence"]})
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("| page photographed | photo | known text | rounds | Tesseract (the job's record) | upload → text on the note | CER | Tesseract's confidence |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        how = TAKES[r["take"]]
        print(f"| {r['take']} (turned {how['turn']}°, blur {how['blur']} px, JPEG q{how['quality']}) | 4000×3000, {r['jpeg_bytes'] / 1e6:.1f} MB | "
              f"{r['known_chars']} characters, {len(lines)} lines | {r['rounds']} | {r['tesseract_s_median']} s | {r['to_text_s_median']} s | "
              f"{r['cer_median'] * 100:.2f} % ({r['edits_median']} edits) | {r['confidence']} |")
    print(json.dumps(results))


def read_once(port, token, jpeg, known):
    """One note, the page as its photo, the note read back once its text is: the times and the error rate."""
    note = call(port, "POST", "/api/v1/notes", {"title": "A printed page"}, token)
    started = time.monotonic()
    upload(port, token, f"/api/v1/notes/{note['id']}/photo", jpeg, "image/jpeg")
    uploaded = time.monotonic()
    while True:
        shown = call(port, "GET", f"/api/v1/notes/{note['id']}", None, token)
        if shown.get("photoTextState") != "reading":
            break
        time.sleep(0.05)
    ended = time.monotonic()
    job = call(port, "GET", f"/api/v1/notes/{note['id']}/photo-text", None, token)
    if shown.get("photoTextState") != "read":
        raise SystemExit(f"the page was not read: {job}")
    distance = levenshtein(known, normalise(shown.get("photoText") or ""))
    return {"upload_s": uploaded - started, "to_text_s": ended - started, "tesseract_s": job["milliseconds"] / 1000,
            "confidence": job["confidence"], "cer": distance / len(known), "distance": distance}

if __name__ == "__main__":
    main()

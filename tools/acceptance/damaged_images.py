"""A corpus of damaged images for the upload path, made with the `vips` command (tools/setup).

`corpus(directory)` returns (name, bytes, kind) triples, at least 200, every one of which a server
must refuse with a 4xx: truncated files, bit flips that break the file, a wrong magic number,
decompression bombs (20000x20000), and things that are not images at all under an image's name.

Flipping a bit in the compressed pixel data of a JPEG, WebP or GIF usually yields another valid
image (JPEG and WebP carry no checksum: libjpeg accepted 36 of 40 single flips in a JPEG's headers
and nearly all in its scan data), so it is not "damaged" to any decoder. The corpus keeps a flip only
when the `vips` command refuses the file in a separate process; `silent_flips(directory)` returns
the flips that decode, which a server may accept but must never fail on with a 5xx.
"""
import fcntl
import hashlib
import io
import os
import pickle
import random
import struct
import subprocess
import tempfile
import zipfile
import zlib

FORMATS = ["jpg", "png", "webp", "gif", "heic", "avif"]


def vips(*arguments):
    subprocess.run(["vips", *arguments], check=True, capture_output=True)


def decodes(path):
    """Whether the vips command decodes every pixel of `path` (failing on truncation)."""
    result = subprocess.run(["vips", "avg", f"{path}[fail_on=truncated]"], capture_output=True)
    return result.returncode == 0


def bases(directory):
    """One small real image per format the server reads, from a gradient with noise."""
    source = os.path.join(directory, "base.v")
    vips("xyz", os.path.join(directory, "xyz.v"), "320", "240")
    vips("gaussnoise", os.path.join(directory, "noise.v"), "320", "240")
    vips("add", os.path.join(directory, "xyz.v"), os.path.join(directory, "noise.v"), os.path.join(directory, "sum.v"))
    vips("cast", os.path.join(directory, "sum.v"), source, "uchar")
    made = {}
    for extension in FORMATS:
        path = os.path.join(directory, "base." + extension)
        try:
            vips("copy", source, path)
        except subprocess.CalledProcessError:
            continue  # this libvips cannot write HEIC/AVIF: leave the format out
        with open(path, "rb") as handle:
            made[extension] = handle.read()
    return made


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def header_bomb_png(width, height):
    """A PNG whose header says width x height, with one tiny compressed row: refused by its header."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", zlib.compress(b"\x00" * (width + 1)))
            + png_chunk(b"IEND", b""))


def gif_image_descriptor(gif):
    """Offset of a GIF's first image descriptor: after the header, global colour table, extensions."""
    position = 13 + (3 << ((gif[10] & 7) + 1) if gif[10] & 0x80 else 0)
    while position < len(gif):
        if gif[position] == 0x2C:
            return position
        if gif[position] != 0x21:
            return None
        position += 2  # introducer, label; then sub-blocks until a zero length
        while position < len(gif) and gif[position]:
            position += gif[position] + 1
        position += 1
    return None


def corpus(directory):
    rng = random.Random(20261122)
    images = bases(directory)
    cases = []

    # Truncated, at many points, each format.
    for extension, data in images.items():
        for fraction in [0.0005, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98]:
            cut = max(8, int(len(data) * fraction))
            cases.append((f"truncated-{fraction}.{extension}", data[:cut], "truncated"))

    # Bit flips that break the file: any flip of a PNG (every chunk has a CRC); other formats keep
    # the flips the vips command refuses.
    for extension, data in images.items():
        wanted = 30 if extension == "png" else 12
        kept, attempts = 0, 0
        while kept < wanted and attempts < 400:
            attempts += 1
            flipped = bytearray(data)
            # Mostly in the first quarter, where the structure is (headers, tables, the start of the
            # compressed stream): flips there break a file far more often than deep in its pixels.
            reach = len(flipped) if extension == "png" or rng.random() < 0.2 else max(64, len(flipped) // 4)
            for _ in range(rng.choice([1, 2, 4, 8])):
                position = rng.randrange(reach)
                flipped[position] ^= 1 << rng.randrange(8)
            path = os.path.join(directory, f"probe.{extension}")
            with open(path, "wb") as handle:
                handle.write(flipped)
            if bytes(flipped) != data and not decodes(path):
                cases.append((f"flipped-{kept}.{extension}", bytes(flipped), "bit-flipped"))
                kept += 1

    # Wrong magic: the right body behind another (or no) signature.
    magics = [b"\x00\x00\x00\x00", b"\xff\xd8\xff\xe0", b"\x89PNG", b"GIF8", b"RIFF", b"%PDF"]
    for extension, data in images.items():
        for magic in magics:
            damaged = magic + data[len(magic):]
            # (JPEG's own signature on a JPEG only swaps APP0 for APP1: still a valid file.)
            if damaged[:3] != data[:3]:
                cases.append((f"magic-{magic[:4].hex()}.{extension}", damaged, "wrong magic"))

    # Decompression bombs: 20000 x 20000 = 400 megapixels, a few hundred kilobytes on disk.
    out = os.path.join(directory, "bomb.png")
    vips("black", out, "20000", "20000")
    with open(out, "rb") as handle:
        cases.append(("bomb-black.png", handle.read(), "bomb"))
    cases.append(("bomb-header.png", header_bomb_png(20000, 20000), "bomb"))
    if "gif" in images:
        gif = bytearray(images["gif"])
        gif[6:10] = struct.pack("<HH", 20000, 20000)  # logical screen
        descriptor = gif_image_descriptor(gif)
        if descriptor is not None:
            gif[descriptor + 5:descriptor + 9] = struct.pack("<HH", 20000, 20000)  # the first frame
            cases.append(("bomb-frame.gif", bytes(gif), "bomb"))
    if "jpg" in images:
        jpeg = bytearray(images["jpg"])
        frame = jpeg.find(b"\xff\xc0")
        if frame > 0:
            jpeg[frame + 5:frame + 9] = struct.pack(">HH", 20000, 20000)
            cases.append(("bomb-frame.jpg", bytes(jpeg), "bomb"))

    # Not images at all, named like one.
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("photo.jpg", b"not really")
    with open("/bin/true", "rb") as handle:
        elf = handle.read(8192)
    tiff = os.path.join(directory, "base.tif")
    vips("copy", os.path.join(directory, "base.v"), tiff)
    with open(tiff, "rb") as handle:
        tiff_bytes = handle.read()
    others = [
        ("notes.txt", b"Buy milk, eggs and bread.\n" * 20), ("page.html", b"<!doctype html><html><body>hi</body></html>"),
        ("data.json", b'{"photo": true}'), ("doc.pdf", b"%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n"),
        ("archive.zip", archive.getvalue()), ("program.elf", elf), ("image.tif", tiff_bytes),
        ("drawing.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
        ("bitmap.bmp", b"BM" + struct.pack("<IHHI", 70, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 2, 2, 1, 24, 0, 16, 0, 0, 0, 0) + bytes(16)),
        ("sound.wav", b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt " + bytes(24)),
        ("video.mp4", struct.pack(">I", 24) + b"ftypisom" + bytes(12)),
        ("script.sh", b"#!/bin/sh\necho photo\n"), ("zeros.jpg", bytes(4096)), ("one-byte.jpg", b"\xff"),
        ("jpeg-magic-only.jpg", b"\xff\xd8\xff"), ("png-signature-only.png", b"\x89PNG\r\n\x1a\n"),
    ]
    for index in range(6):
        others.append((f"random-{index}.jpg", bytes(rng.getrandbits(8) for _ in range(rng.randrange(16, 20000)))))
    cases += [(name, data, "not an image") for name, data in others]
    return cases


def cached_corpus(directory):
    """`corpus(directory)`, made once a checkout (and this file, and vips) and kept in .build: making it
    runs some 1,500 vips processes (~50 s, over 3 minutes on a busy machine), and tools/test uploads
    it on SQLite, PostgreSQL and NATS, which then all meet the same damaged files. tools/test makes it
    beside `swift test` (`python3 tools/acceptance/damaged_images.py`); a caller meanwhile waits on
    its lock rather than making it twice."""
    version = subprocess.run(["vips", "--version"], capture_output=True, text=True).stdout
    with open(__file__, "rb") as handle:
        key = hashlib.sha256(handle.read() + version.encode()).hexdigest()[:16]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kept = os.path.join(root, ".build", f"damaged-images-{key}.pickle")
    os.makedirs(os.path.dirname(kept), exist_ok=True)
    with open(f"{kept}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(kept, "rb") as handle:
                return pickle.load(handle)  # our own file, written below
        except (OSError, pickle.UnpicklingError, EOFError):
            pass
        cases = corpus(directory)
        partial = f"{kept}.{os.getpid()}"
        with open(partial, "wb") as handle:
            pickle.dump(cases, handle)
        os.replace(partial, kept)
        return cases


def silent_flips(directory, count=20):
    """Bit flips in a JPEG and a WebP that still decode: valid images with changed pixels."""
    rng = random.Random(7)
    images = bases(directory)
    found = []
    for extension in ["jpg", "webp"]:
        data = images.get(extension)
        attempts = 0
        while data and len([f for f in found if f[0].endswith(extension)]) < count // 2 and attempts < 200:
            attempts += 1
            flipped = bytearray(data)
            position = rng.randrange(len(flipped) // 2, len(flipped))
            flipped[position] ^= 1 << rng.randrange(8)
            path = os.path.join(directory, f"silent.{extension}")
            with open(path, "wb") as handle:
                handle.write(flipped)
            if decodes(path):
                found.append((f"silent-{len(found)}.{extension}", bytes(flipped)))
    return found


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="quire-damaged-") as work:
        print(f"{len(cached_corpus(work))} damaged images in .build")

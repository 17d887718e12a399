#!/usr/bin/env python3
"""Times the peers of `quire-bench media` on the same files: vipsthumbnail (one invocation for the
whole batch, so its start-up is amortised) and ImageMagick `convert -thumbnail` (one process per
image, no size hint). Prints one JSON object, milliseconds per image."""
import json
import subprocess
import sys
import tempfile
import time

rounds = 3
# Debian's ImageMagick 6, by its full name: a `convert` earlier on PATH may be something else.
CONVERT = "/usr/bin/convert-im6.q16"
files = sys.argv[1:]


def timed(commands):
    for command in commands:  # warm-up
        subprocess.run(command, check=True, capture_output=True)
    started = time.perf_counter()
    for _ in range(rounds):
        for command in commands:
            subprocess.run(command, check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000 / (rounds * len(files))


with tempfile.TemporaryDirectory() as out:
    result = {
        "vipsthumbnail_cover_44_ms": timed([["vipsthumbnail", *files, "-s", "44x44", "-m", "centre", "-o", f"{out}/%s_44.jpg"]]),
        "vipsthumbnail_contain_200_ms": timed([["vipsthumbnail", *files, "-s", "200x200", "-o", f"{out}/%s_200.jpg"]]),
        "convert_cover_44_ms": timed([[CONVERT, f, "-thumbnail", "44x44^", "-gravity", "center", "-extent", "44x44",
                                       f"{out}/c44.jpg"] for f in files]),
        "convert_contain_200_ms": timed([[CONVERT, f, "-thumbnail", "200x200", f"{out}/c200.jpg"] for f in files]),
    }
print(json.dumps(result, sort_keys=True))

#!/usr/bin/env bash
# Makes the benchmark photos once into $1: real photo content (scikit-image's sample images, taken
# from its wheel on PyPI without installing it), upscaled to 4032x3024 (JPEG q90) and 6000x4000.
set -euo pipefail
out=$1
if [[ -f "$out/done" ]]; then exit 0; fi
mkdir -p "$out/wheel"
python3 -m pip download -q --no-deps --disable-pip-version-check -d "$out/wheel" scikit-image==0.26.0 >/dev/null
python3 - "$out" <<'PY'
import glob, sys, zipfile
out = sys.argv[1]
wheel = zipfile.ZipFile(glob.glob(f"{out}/wheel/*.whl")[0])
for name in ["astronaut", "coffee", "chelsea", "motorcycle_left"]:
    with open(f"{out}/{name}.png", "wb") as handle:
        handle.write(wheel.read(f"skimage/data/{name}.png"))
PY
for name in astronaut coffee chelsea motorcycle_left; do
  w=$(vipsheader -f width "$out/$name.png"); h=$(vipsheader -f height "$out/$name.png")
  vips resize "$out/$name.png" "$out/$name-12mp.jpg[Q=90]" "$(python3 -c "print(max(4032/$w, 3024/$h))")"
  vips crop "$out/$name-12mp.jpg" "$out/${name}_4032x3024.jpg[Q=90]" 0 0 4032 3024
  vips resize "$out/$name.png" "$out/$name-24mp.jpg[Q=90]" "$(python3 -c "print(max(6000/$w, 4000/$h))")"
  vips crop "$out/$name-24mp.jpg" "$out/${name}_6000x4000.jpg[Q=90]" 0 0 6000 4000
  rm -f "$out/$name-12mp.jpg" "$out/$name-24mp.jpg"
done
touch "$out/done"

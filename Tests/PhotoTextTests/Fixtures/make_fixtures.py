#!/usr/bin/env python3
"""Makes the photo-text test images (committed; run again only to change them).

receipt.png: a small photo-like image of known text, dark on a light, slightly uneven background,
a little rotated: what PhotoTextTests and tools/acceptance/web_capture.py expect Tesseract to read.
    python3 Tests/PhotoTextTests/Fixtures/make_fixtures.py
receipt-sideways.png: the same, a quarter turn anticlockwise (EXIF orientation 6 turns it back).
"""
import pathlib
from PIL import Image, ImageDraw, ImageFilter, ImageFont

HERE = pathlib.Path(__file__).resolve().parent
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LINES = ["Harbour Bakery", "Sourdough loaf 4.20", "Rhubarb crumble 3.50", "Paid with thanks"]


def receipt() -> Image.Image:
    image = Image.new("L", (900, 420), 236)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 46)
    for index, line in enumerate(LINES):
        draw.text((60, 40 + index * 88), line, fill=30, font=font)
    # A photo, not a screenshot: slightly turned, a little soft, one side in shade.
    image = image.rotate(1.5, resample=Image.BICUBIC, expand=False, fillcolor=236)
    image = image.filter(ImageFilter.GaussianBlur(0.8))
    # Uneven light: a gentle shade from left to right (kept in few grey levels, so the PNG stays small).
    shade = Image.linear_gradient("L").rotate(90).resize(image.size).point(lambda v: v // 16)
    image = Image.eval(Image.merge("L", [image]), lambda v: v)
    image = Image.composite(image, image.point(lambda v: max(0, v - 24)), shade.point(lambda v: 255 if v > 7 else 0))
    return image.quantize(16).convert("L")


if __name__ == "__main__":
    page = receipt()
    page.save(HERE / "receipt.png", optimize=True)
    # Stored as a phone held upright stores it: a quarter turn anticlockwise, EXIF orientation 6.
    page.rotate(90, expand=True).save(HERE / "receipt-sideways.png", optimize=True)
    (HERE / "receipt.txt").write_text("\n".join(LINES) + "\n")
    print("wrote", HERE / "receipt.png")

// @ts-check
/**
 * What AR Notebook shows in the room view (`xr-room.js` draws these on its WebGL quads): the open
 * page as a canvas (its colour, words and the pictures already shown on the screen), or the cover.
 */

/** @typedef {import("./notebook-model.js").Catalog} Catalog */
/** @typedef {import("./notebook-model.js").Page} Page */
/** @typedef {import("./notebook-model.js").Notebook} Notebook */

/**
 * The open page, or the cover when `page` is null. Pictures are taken from the screen (`root`),
 * where they are already loaded.
 * @param {Catalog} cat @param {Page | null} page @param {Notebook} notebook @param {ParentNode} root
 */
export function pagePicture(cat, page, notebook, root) {
  const canvas = document.createElement("canvas");
  canvas.width = 512;
  canvas.height = Math.round((512 * cat.pageHeight) / cat.pageWidth);
  const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  if (!page) {
    g.drawImage(coverPicture(cat, notebook), 0, 0, canvas.width, canvas.height);
    return canvas;
  }
  const scale = canvas.width / cat.pageWidth;
  g.fillStyle = cat.palette.find((/** @type {any} */ s) => s.id === page.background)?.hex ?? "#FFFFFF";
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = page.background === "night" ? "#f4f1ea" : "#1d1b16";
  g.textBaseline = "top";
  for (const item of page.items) {
    const f = item.frame;
    const [x, y, width, height] = [f.x * scale, f.y * scale, f.width * scale, f.height * scale];
    const img = /** @type {HTMLImageElement | null} */ (root.querySelector(`[data-item="${CSS.escape(item.id)}"] img`));
    if (item.kind === "image") {
      if (img?.complete && img.naturalWidth) g.drawImage(img, x, y, width, height);
      continue;
    }
    g.font = "22px system-ui, sans-serif";
    wrap(g, item.text ?? "", width).slice(0, Math.max(1, Math.floor(height / 27))).forEach((line, n) => g.fillText(line, x, y + n * 27, width));
  }
  return canvas;
}

/** The cover: its two colours and its title. @param {Catalog} cat @param {Notebook} notebook */
export function coverPicture(cat, notebook) {
  const colours = cat.covers.find((/** @type {any} */ c) => c.id === notebook.cover)?.colors ?? ["#8E2B2B", "#D9B382"];
  const canvas = document.createElement("canvas");
  canvas.width = 512;
  canvas.height = Math.round((512 * cat.pageHeight) / cat.pageWidth);
  const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
  const fill = g.createLinearGradient(0, 0, canvas.width, canvas.height);
  fill.addColorStop(0, colours[0]);
  fill.addColorStop(1, colours[1]);
  g.fillStyle = fill;
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = "#fff";
  g.font = "bold 40px system-ui, sans-serif";
  g.textAlign = "center";
  wrap(g, notebook.coverText || notebook.name, canvas.width - 80).slice(0, 3)
    .forEach((line, n) => g.fillText(line, canvas.width / 2, canvas.height * 0.35 + n * 48));
  return canvas;
}

/**
 * `text` broken into lines no wider than `width` at the context's font.
 * @param {CanvasRenderingContext2D} g @param {string} text @param {number} width
 */
function wrap(g, text, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && g.measureText(next).width > width) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

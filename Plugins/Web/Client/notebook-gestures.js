// @ts-check
/**
 * AR Notebook's gestures on the page: drag an item to move it, pinch it or drag its corner to
 * resize it (the frame the server keeps is what stays; offline, kept inside the page the same
 * way), the arrow keys for the keyboard, a tap (or Enter) for the item's choices; and swiping the
 * page to turn it.
 */
import { ITEM, N } from "./notebook-model.js";
import { announce } from "./ui.js";

/** @typedef {import("./screen-notebook.js").BookScreen} BookScreen */

/** How soon after a page turn ends a finger down on an item is still the next quick swipe. */
const QUICK_SWIPE_MS = 400;
/** How long a finger rests on an item before it lifts the item to move it: one that moves sooner
 * is a flick across the page, which turns it (a picture filling a box left nowhere else to swipe). */
const HOLD_MS = 300;
/** @typedef {import("./notebook-model.js").Item} Item */
/** @typedef {import("./notebook-model.js").Frame} Frame */

/**
 * Drag to move, pinch (two fingers) or drag the corner to resize; the frame the server answers
 * (kept inside the page) is the one that stays. A finger (not a mouse) lifts the item after resting
 * on it for HOLD_MS (it shows lifted); moving sooner, it swipes the page.
 * @param {BookScreen} screen @param {HTMLElement} box @param {Item} item @param {(frame: Frame) => void} place
 */
export function movable(screen, box, item, place) {
  /** @type {Map<number, {x: number, y: number}>} */
  const pointers = new Map();
  let start = { ...item.frame };
  let startDistance = 0;
  let resizing = false;
  let frame = { ...item.frame };
  /** How far the pointer went: a tap that did not move opens the item's choices. */
  let travelled = 0;
  const scale = () => {
    const sheet = /** @type {HTMLElement} */ (box.parentElement);
    return screen.catalog.pageWidth / sheet.clientWidth;
  };
  const spread = () => {
    const [a, b] = [...pointers.values()];
    return Math.hypot(a.x - b.x, a.y - b.y);
  };
  /**
   * What the pointers on the item are doing: "idle" (none down), "resting" (a finger down, not yet
   * holding the item: `lifting` lifts it after HOLD_MS), "swiping" (the screen's swipe sees them: a
   * finger that moved too soon, or one down while a page turned; a tap still opens the item's
   * choices) or "held" (the item is taken: the fingers or the mouse move, pinch or resize it, and
   * the screen does not see them).
   * @type {"idle" | "resting" | "swiping" | "held"}
   */
  let mode = "idle";
  /** The timer that lifts the item from a resting finger. */
  let lifting = 0;
  const stopLifting = () => {
    clearTimeout(lifting);
    lifting = 0;
  };
  /** Takes the item for the pointers down on it now (a drag, a pinch, a resize). */
  const take = () => {
    if (mode !== "held") {
      mode = "held";
      screen.dragging += 1;
      box.classList.add("lifted");
    }
    for (const id of pointers.keys()) {
      try {
        box.setPointerCapture(id);
      } catch {
        // That finger already lifted.
      }
    }
    start = { ...frame };
    if (pointers.size === 2) startDistance = spread();
  };
  box.addEventListener("pointerdown", (event) => {
    if (pointers.size === 0 && (screen.turning || performance.now() - screen.turnedAt < QUICK_SWIPE_MS)) {
      // Not stopped: the screen's swipe listener sees it too.
      mode = "swiping";
      travelled = 0;
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      return;
    }
    if (mode === "swiping") return;
    const first = pointers.size === 0;
    if (first) travelled = 0;
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    resizing = /** @type {HTMLElement} */ (event.target).classList.contains("grip");
    if (first && event.pointerType === "touch" && !resizing) {
      // Not stopped either: a flick across the item is the screen's swipe. At rest, it lifts.
      mode = "resting";
      lifting = window.setTimeout(() => {
        lifting = 0;
        if (mode === "resting" && pointers.size > 0 && travelled < 4) take();
      }, HOLD_MS);
      return;
    }
    event.stopPropagation();
    stopLifting(); // a second finger while the first rests: a pinch, at once
    take();
  });
  box.addEventListener("pointermove", (event) => {
    const from = pointers.get(event.pointerId);
    if (!from) return;
    if (mode !== "held") {
      travelled = Math.max(travelled, Math.hypot(event.clientX - from.x, event.clientY - from.y));
      // A finger that moves before it has rested long enough swipes: it never takes the item.
      if (mode === "resting" && travelled >= 4) {
        stopLifting();
        mode = "swiping";
      }
      return;
    }
    event.stopPropagation();
    travelled = Math.max(travelled, Math.hypot(event.clientX - from.x, event.clientY - from.y));
    if (travelled < 4) return;
    if (pointers.size === 2) {
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      const ratio = spread() / Math.max(1, startDistance);
      frame = { ...start, width: start.width * ratio, height: start.height * ratio };
    } else {
      const k = scale();
      const dx = (event.clientX - from.x) * k, dy = (event.clientY - from.y) * k;
      frame = resizing ? { ...start, width: Math.max(16, start.width + dx), height: Math.max(16, start.height + dy) }
        : { ...start, x: start.x + dx, y: start.y + dy };
    }
    place(frame);
  });
  /** Sends the frame; the server's answer (kept inside the page) is what stays. */
  const commit = async () => {
    if (frame.x === item.frame.x && frame.y === item.frame.y && frame.width === item.frame.width && frame.height === item.frame.height) return;
    const round = (/** @type {number} */ v) => Math.round(v * 10) / 10;
    const cat = screen.catalog;
    // Kept inside the page here too, so what waits offline is drawn where the server will put it.
    const width = Math.min(Math.max(frame.width, 16), cat.pageWidth), height = Math.min(Math.max(frame.height, 16), cat.pageHeight);
    const asked = { x: round(frame.x), y: round(frame.y), width: round(frame.width), height: round(frame.height) };
    const kept = { x: round(Math.min(Math.max(frame.x, 0), cat.pageWidth - width)), y: round(Math.min(Math.max(frame.y, 0), cat.pageHeight - height)),
      width: round(width), height: round(height) };
    const answer = await screen.change({ method: "PATCH", path: `${N}/notebooks/${screen.nid}/items/${item.id}`, body: { frame: asked },
      kind: ITEM, id: item.id, baseVersion: item.version || undefined, local: { frame: kept } });
    if (answer?.item) item.frame = answer.item.frame;
    else if (answer === null) item.frame = kept;
    if (answer?.clamped || (answer === null && JSON.stringify(kept) !== JSON.stringify(asked))) announce("Kept inside the page.");
    frame = { ...item.frame };
    place(item.frame);
    screen.shownAs = ""; // the frame drawn is the server's now: the next sync may draw it again
  };
  const end = (/** @type {PointerEvent} */ event) => {
    if (!pointers.has(event.pointerId)) return;
    if (mode !== "held") {
      // A swipe, or a finger lifted before the item lifted (a tap): the screen sees it too.
      stopLifting();
      pointers.delete(event.pointerId);
      mode = "idle";
      if (event.type === "pointerup" && travelled < 4) menuAfterTap();
      return;
    }
    event.stopPropagation();
    pointers.delete(event.pointerId);
    if (pointers.size > 0) return;
    mode = "idle";
    box.classList.remove("lifted");
    const tapped = travelled < 4 && event.type === "pointerup";
    const done = () => { screen.dragging = Math.max(0, screen.dragging - 1); };
    if (tapped) {
      frame = { ...item.frame };
      done();
      menuAfterTap();
    } else {
      commit().finally(done);
    }
  };
  // A tap's choices open on the click that follows it (or, if none comes, half a second later),
  // not at pointerup: opened then, the dialog lay under the finger and the same tap's click pressed
  // the button there (“Change the text” chosen, unasked).
  let tapTimer = 0;
  const menuAfterTap = () => {
    clearTimeout(tapTimer);
    tapTimer = window.setTimeout(() => { tapTimer = 0; screen.itemMenu(item); }, 500);
  };
  box.addEventListener("click", () => {
    if (!tapTimer) return;
    clearTimeout(tapTimer);
    tapTimer = 0;
    screen.itemMenu(item);
  });
  box.addEventListener("pointerup", end);
  box.addEventListener("pointercancel", end);
  // The keyboard's way: arrow keys move the focused item (Shift for bigger steps).
  box.addEventListener("keydown", (event) => {
    const step = event.shiftKey ? 40 : 10;
    const moves = /** @type {Record<string, [number, number]>} */ ({ ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] });
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      screen.itemMenu(item);
      return;
    }
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    frame = { ...item.frame, x: item.frame.x + move[0], y: item.frame.y + move[1] };
    place(frame);
    commit();
  });
}

/** The screens already listening for swipes. @type {WeakSet<BookScreen>} */
const swiped = new WeakSet();

/**
 * Swiping left turns to the next page; right, back. Listened for on the screen, which stays, not
 * on the stage, which each redraw replaces: a swipe that starts before a turn's redraw and ends
 * after it still counts, so quick swipes add up like quick taps (see `BookScreen.turn`).
 * @param {BookScreen} screen @param {HTMLElement} stage
 */
export function swipes(screen, stage) {
  void stage; // any stage the screen draws: the listeners are the screen's
  if (swiped.has(screen)) return;
  swiped.add(screen);
  /** Where each pointer that went down on the stage started. @type {Map<number, number>} */
  const starts = new Map();
  screen.addEventListener("pointerdown", (event) => {
    if (event.target instanceof Element && event.target.closest(".stage")) starts.set(event.pointerId, event.clientX);
  });
  screen.addEventListener("pointercancel", (event) => { starts.delete(event.pointerId); });
  screen.addEventListener("pointerup", (event) => {
    const startX = starts.get(event.pointerId);
    starts.delete(event.pointerId);
    if (startX === undefined) return;
    const dx = event.clientX - startX;
    if (Math.abs(dx) > 50) screen.turn(dx < 0 ? 1 : -1);
  });
}

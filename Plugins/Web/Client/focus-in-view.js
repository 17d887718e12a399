// @ts-check
/**
 * The field being typed in stays in view when the screen changes size: a phone turned mid-edit
 * (390x844 to 844x390) left the note's text below the fold while the keyboard still typed into it,
 * so what was typed was hidden. After a resize, a focused text field that is not whole in view is
 * scrolled to (its caret line, at least its top) without moving the page when it already shows.
 */

/** Whether an element is a field a person types text into. @param {Element | null} el */
function typesText(el) {
  if (!el) return false;
  if (el instanceof HTMLTextAreaElement) return true;
  if (el instanceof HTMLElement && el.isContentEditable) return true;
  return el instanceof HTMLInputElement && !["button", "checkbox", "color", "file", "hidden", "image",
    "radio", "range", "reset", "submit"].includes(el.type);
}

/** Scrolls the focused text field into view when any of it is out of the visible screen. */
export function keepFocusInView() {
  const el = document.activeElement;
  if (!typesText(el) || !(el instanceof HTMLElement)) return;
  const box = el.getBoundingClientRect();
  const height = window.visualViewport?.height ?? window.innerHeight;
  // A sticky header covers the top of the page: the field counts as hidden under it.
  const header = document.querySelector("header");
  const top = header && getComputedStyle(header).position !== "static" ? header.getBoundingClientRect().bottom : 0;
  if (box.top >= top && box.top + Math.min(box.height, 48) <= height) return;
  el.scrollIntoView({ block: box.height > height - top ? "start" : "center", inline: "nearest" });
}

let timer = 0;
/** After a resize settles (a turn fires several), once. */
function onResize() {
  clearTimeout(timer);
  timer = window.setTimeout(keepFocusInView, 150);
}

window.addEventListener("resize", onResize);
window.visualViewport?.addEventListener("resize", onResize);

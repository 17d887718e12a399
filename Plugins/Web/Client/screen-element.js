// @ts-check
/**
 * The one base of every app screen (iRemember's, Foreign Note's and AR Notebook's screens extend
 * it): it holds the app's context, follows the synced records (another device's edit, or a write of
 * this one answered) by calling `changed()`, forgets them when the screen leaves the page, and can
 * wait for the network to come back. Screens draw with `draw()`, which keeps the focused control.
 */

/** @typedef {{api: import("./api.js").Api, sync: import("./sync.js").Sync, go: (hash: string, options?: {top?: boolean}) => void}} Context */

/** A name for a control that survives a redraw: its id, its item, else its kind and label. @param {Element} element */
export function focusKey(element) {
  if (element.id) return `#${element.id}`;
  if (element instanceof HTMLElement && element.dataset.item) return `item:${element.dataset.item}`;
  return `${element.tagName}:${element.getAttribute("aria-label") ?? element.textContent}`;
}

export class ScreenElement extends HTMLElement {
  /** @type {Context | undefined} */
  context;
  /** @type {(() => void) | undefined} */
  following;

  get ctx() {
    return /** @type {Context} */ (this.context);
  }

  /**
   * Starts following the synced records: `changed()` runs on every change from now until the
   * screen leaves the page. @param {Context} context
   */
  follow(context) {
    this.context = context;
    this.unfollow();
    const following = () => this.changed();
    this.following = following;
    context.sync.addEventListener("change", following);
  }

  unfollow() {
    if (this.following) this.context?.sync.removeEventListener("change", this.following);
    this.following = undefined;
  }

  /** The synced records changed; most screens simply draw again. */
  changed() {
    this.render();
  }

  render() {}

  disconnectedCallback() {
    this.unfollow();
    this.stopWaiting();
  }

  /** Stops waiting for the network (see `whenOnline`). */
  stopWaiting() {}

  /**
   * Runs `again` once the network is back (the window's "online", or sync leaving "offline"): a
   * screen that could not be read offline reads itself again, without a reload.
   * @param {() => void} again
   */
  whenOnline(again) {
    this.stopWaiting();
    const sync = this.ctx.sync;
    let was = sync.state;
    const check = (/** @type {Event} */ event) => {
      const back = event.type === "online" || (was === "offline" && sync.state !== "offline");
      was = sync.state;
      if (!back) return;
      this.stopWaiting();
      if (this.isConnected) again();
    };
    window.addEventListener("online", check);
    sync.addEventListener("state", check);
    this.stopWaiting = () => {
      window.removeEventListener("online", check);
      sync.removeEventListener("state", check);
      this.stopWaiting = () => {};
    };
  }

  /**
   * Replaces the screen's content, keeping focus on the control that had it (a redraw when another
   * device changed something must not take the user's place away).
   * @param {...(Node | string)} children
   */
  draw(...children) {
    const active = document.activeElement;
    const focused = active && this.contains(active) ? focusKey(active) : null;
    this.replaceChildren(...children);
    if (!focused) return;
    const again = [...this.querySelectorAll("button, a, input, textarea, select, [data-item]")].find((element) => focusKey(element) === focused);
    /** @type {HTMLElement | undefined} */ (again)?.focus({ preventScroll: true });
  }
}

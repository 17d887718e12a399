// @ts-check
/** Signing in and signing up; or, where the app's onboarding is the device account, "Get Started"
 * with nothing to type. Every refusal shows the server's own sentence. */
import { ApiError } from "./api.js";
import { h } from "./ui.js";

export class QuireSignIn extends HTMLElement {
  /**
   * @param {import("./api.js").Api} api
   * @param {{name: string, password: boolean, device: boolean, onboarding: string}} options
   */
  show(api, options) {
    const error = h("p", { class: "error", role: "alert", id: "signin-error" });
    /** @param {() => Promise<void>} action @param {HTMLButtonElement} button */
    const attempt = async (action, button) => {
      error.textContent = "";
      button.disabled = true;
      try {
        await action();
      } catch (failure) {
        error.textContent = failure instanceof ApiError ? failure.message : "Something went wrong; try again.";
      } finally {
        button.disabled = false;
      }
    };
    const user = /** @type {HTMLInputElement} */ (h("input", { id: "username", name: "username", autocomplete: "username", required: true,
      autocapitalize: "none", spellcheck: "false" }));
    const password = /** @type {HTMLInputElement} */ (h("input", { id: "password", name: "password", type: "password",
      autocomplete: "current-password", required: true }));
    const signIn = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Sign in"));
    const signUp = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary",
      onclick: () => attempt(() => api.signUp(user.value.trim(), password.value), signUp) }, "Create an account"));
    const form = h("form", { class: "stack", "aria-describedby": "signin-error",
      onsubmit: (/** @type {Event} */ event) => { event.preventDefault(); attempt(() => api.signIn(user.value.trim(), password.value), signIn); } },
    h("label", { for: "username" }, "User name"), user,
    h("label", { for: "password" }, "Password"), password,
    signIn, signUp);
    const start = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "hero",
      onclick: () => attempt(() => api.getStarted(), start) }, "Get Started"));
    const device = options.device && options.onboarding === "device";
    this.replaceChildren(h("main", { class: "screen signin" },
      h("h1", {}, options.name),
      device ? h("p", { class: "lead" }, "Your photos stay on this phone's account. Nothing to type, nothing to remember.") : null,
      device ? start : null,
      options.password ? (device ? h("details", {}, h("summary", {}, "I have a user name and password"), form) : form) : null,
      error));
  }
}
customElements.define("quire-signin", QuireSignIn);

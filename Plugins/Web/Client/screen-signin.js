// @ts-check
/** Signing in and signing up; or, where the app's onboarding is the device account, "Get Started"
 * with nothing to type. Every refusal shows the server's own sentence. */
import { readMoveCode } from "./album.js";
import { ApiError } from "./api.js";
import { begin } from "./oidc.js";
import { h } from "./ui.js";

export class QuireSignIn extends HTMLElement {
  /**
   * @param {import("./api.js").Api} api
   * @param {{name: string, password: boolean, device: boolean, onboarding: string, moveCode?: string,
   *   providers?: boolean, error?: string, shared?: boolean, skip?: boolean, helping?: boolean}} options  `helping`: opened from an
   *   iRemember caregiver invitation (#/help/…, kept through signing in);  `shared`: opened from a link someone shared (kept
   *   through signing in); `skip`: "Skip for now" makes a device account (AR Notebook), signed up later with `showSignUp`
   */
  show(api, options) {
    const error = h("p", { class: "error", role: "alert", id: "signin-error" }, options.error ?? "");
    /** @param {() => Promise<void>} action @param {HTMLButtonElement} button @param {string} [working] what the button says meanwhile */
    const attempt = async (action, button, working = "") => {
      error.textContent = "";
      button.disabled = true;
      // Said on the button while the server works (making an account takes a moment).
      const label = button.textContent;
      if (working) button.textContent = working;
      button.setAttribute("aria-busy", "true");
      try {
        await action();
      } catch (failure) {
        error.textContent = failure instanceof ApiError ? failure.message : "Something went wrong; try again.";
        // Said under everything (a shared link's sentence and "Skip for now" push it below the fold): brought into view.
        error.scrollIntoView({ block: "nearest" });
      } finally {
        button.disabled = false;
        button.textContent = label;
        button.removeAttribute("aria-busy");
      }
    };
    const user = /** @type {HTMLInputElement} */ (h("input", { id: "username", name: "username", autocomplete: "username", required: true,
      autocapitalize: "none", spellcheck: "false" }));
    const password = /** @type {HTMLInputElement} */ (h("input", { id: "password", name: "password", type: "password",
      autocomplete: "current-password", required: true }));
    const signIn = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Sign in"));
    const signUp = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary",
      onclick: () => attempt(() => api.signUp(user.value.trim(), password.value), signUp, "Creating your account…") }, "Create an account"));
    const form = h("form", { class: "stack", "aria-describedby": "signin-error",
      onsubmit: (/** @type {Event} */ event) => { event.preventDefault(); attempt(() => api.signIn(user.value.trim(), password.value), signIn, "Signing in…"); } },
    h("label", { for: "username" }, "User name"), user,
    h("label", { for: "password" }, "Password"), password,
    signIn, signUp);
    const start = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "hero",
      onclick: () => attempt(() => api.getStarted(), start) }, "Get Started"));
    const device = options.device && options.onboarding === "device";
    // Moving from another phone: its code (typed, pasted, or in the link it sent).
    const linked = options.moveCode ? readMoveCode(options.moveCode) : null;
    /** @param {{accountId: string, deviceSecret: string}} account */
    const moveIn = async (account) => {
      await api.moveIn(account);
      history.replaceState(null, "", "#/");
    };
    const open = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "hero",
      onclick: () => linked && attempt(() => moveIn(linked), open) }, "Open my album"));
    const code = /** @type {HTMLInputElement} */ (h("input", { id: "move-code-in", autocomplete: "off", autocapitalize: "none", spellcheck: "false" }));
    const useCode = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Open my album"));
    const codeForm = h("form", { class: "stack", onsubmit: (/** @type {Event} */ event) => {
      event.preventDefault();
      const account = readMoveCode(code.value);
      if (!account) {
        error.textContent = "That is not an album code. On your other phone, open “Use this album on a new phone” and copy the code again.";
        return;
      }
      attempt(() => moveIn(account), useCode);
    } },
    h("label", { for: "move-code-in" }, "The code from your other phone"), code, useCode);
    this.replaceChildren(h("main", { class: "screen signin" },
      h("h1", {}, options.name),
      options.shared ? h("p", { class: "lead shared-invite" },
        "Someone shared a notebook with you. Sign in, or create an account, to read it; it opens once you are in.") : null,
      linked ? h("p", { class: "lead" }, "This link opens your album from your other phone.") : null,
      options.helping ? h("p", { class: "lead helping-invite" },
        "Someone invited you to help with their album. Sign in with your own account, or create one; the invitation opens once you are in.") : null,
      linked ? open : null,
      device && !linked ? h("p", { class: "lead" }, "Your photos stay on this phone's account. Nothing to type, nothing to remember.") : null,
      device && !linked ? start : null,
      device ? h("details", {}, h("summary", {}, "I have a code from my other phone"), codeForm) : null,
      options.password ? (device ? h("details", { open: options.helping }, h("summary", {}, "I have a user name and password"), form) : form) : null,
      options.providers ? h("div", { class: "providers stack" }) : null,
      options.skip && !device ? this.skipPart(api, attempt) : null,
      error));
    if (options.providers) this.showProviders(api, options.password, error);
  }

  /**
   * "Skip for now" (UI5.1.1): a device account, said plainly to live only on this phone until signed up.
   * @param {import("./api.js").Api} api @param {(action: () => Promise<void>, button: HTMLButtonElement, working?: string) => Promise<void>} attempt
   */
  skipPart(api, attempt) {
    const skip = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "secondary skip",
      "aria-describedby": "skip-note", onclick: () => attempt(() => api.getStarted(), skip, "Making this phone's account…") }, "Skip for now"));
    return h("div", { class: "stack skip-sign-in" },
      h("p", { class: "or" }, "or"),
      skip,
      h("p", { id: "skip-note", class: "hint" },
        "Skipping keeps your notebooks on this phone only: nobody can open them anywhere else, and they are lost with this phone's data, until you sign up. "
        + "Signing up later keeps them."));
  }

  /**
   * Signing up this phone's account (sign-in was skipped): a user name and password, or a
   * provider; either way the notebooks made so far stay the account's own.
   * @param {import("./api.js").Api} api
   * @param {{password: boolean, providers?: boolean, error?: string}} options
   */
  showSignUp(api, options) {
    const error = h("p", { class: "error", role: "alert", id: "signup-error" }, options.error ?? "");
    const user = /** @type {HTMLInputElement} */ (h("input", { id: "username", name: "username", autocomplete: "username", required: true,
      autocapitalize: "none", spellcheck: "false" }));
    const password = /** @type {HTMLInputElement} */ (h("input", { id: "password", name: "password", type: "password",
      autocomplete: "new-password", required: true }));
    const submit = /** @type {HTMLButtonElement} */ (h("button", { type: "submit" }, "Sign up and keep my notebooks"));
    const form = h("form", { class: "stack", "aria-describedby": "signup-error", onsubmit: async (/** @type {Event} */ event) => {
      event.preventDefault();
      error.textContent = "";
      submit.disabled = true;
      submit.setAttribute("aria-busy", "true");
      try {
        const session = await api.signUpDevice({ username: user.value.trim(), password: password.value });
        history.replaceState(null, "", "#/");
        api.keep(session);
      } catch (failure) {
        error.textContent = failure instanceof ApiError ? failure.message : "Something went wrong; try again.";
      } finally {
        submit.disabled = false;
        submit.removeAttribute("aria-busy");
      }
    } },
    h("label", { for: "username" }, "Choose a user name"), user,
    h("label", { for: "password" }, "Choose a password"), password,
    submit);
    this.replaceChildren(h("main", { class: "screen signin sign-up" },
      h("h1", {}, "Sign up"),
      h("p", { class: "lead" }, "You skipped signing in, so your notebooks live only on this phone. "
        + "Sign up and they are kept under your account, to open on any phone."),
      // Above the ways in: a provider's refusal is said where the page opens on coming back.
      error,
      options.providers ? h("div", { class: "providers stack" }) : null,
      options.password ? form : null,
      h("p", {}, h("a", { href: "#/", class: "link" }, "Not now, back to my notebooks"))));
    if (options.providers) this.showProviders(api, options.password, error, true);
  }

  /**
   * One "Continue with …" button per provider the YAML gives a browser address; none when the
   * server cannot be reached (the password form still shows).
   * @param {import("./api.js").Api} api @param {boolean} orPassword @param {HTMLElement} error
   * @param {boolean} [carryOver]  signing up this phone's account: the provider's identity keeps its notebooks
   */
  async showProviders(api, orPassword, error, carryOver = false) {
    const place = this.querySelector(".providers");
    const providers = await api.providers().catch(() => []);
    if (!place || providers.length === 0) return;
    place.replaceChildren(...providers.map((provider) => h("button", { type: "button", class: "provider",
      onclick: () => begin(provider, { carryOver }).catch(() => { error.textContent = `${provider.label} cannot be reached; try again.`; }) },
    `Continue with ${provider.label}`)));
    if (orPassword) place.append(h("p", { class: "or" }, "or with a user name and password"));
    // Above the password form: one tap is the quicker way in.
    this.querySelector("main")?.insertBefore(place, this.querySelector("main > form, main > details, main > .skip-sign-in"));
  }
}
customElements.define("quire-signin", QuireSignIn);

// @ts-check
/** Signing in with an OpenID Connect provider from the browser: the implicit flow
 * (`response_type=id_token`), which needs no client secret and no server-side callback. The page
 * sends the person to the provider with a fresh nonce and state; the provider sends them back to
 * this page with `#id_token=…&state=…`; the page hands the ID token and its nonce to
 * `POST /api/v1/auth/oidc/<name>`, which checks the signature, issuer, audience, expiry and nonce.
 * Pure functions except `begin` and `pending`, which keep the nonce and state for the way back. */

/** @typedef {{name: string, label: string, authorizeUrl: string, clientId: string, nonceHash: "none" | "sha256"}} Provider */
/** @typedef {{provider: string, nonce: string, state: string}} Pending */

const KEY = "quire.oidc";

/** A random base64url string of `bytes` bytes. @param {number} [bytes] */
export function randomToken(bytes = 24) {
  const data = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...data)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The lowercase hex SHA-256 of `text` (what Sign in with Apple is given as the nonce). @param {string} text */
export async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The provider's authorization address for this page.
 * @param {Provider} provider
 * @param {{redirectUri: string, nonce: string, state: string}} request
 * @returns {Promise<string>}
 */
export async function authorizeAddress(provider, request) {
  const url = new URL(provider.authorizeUrl);
  url.searchParams.set("client_id", provider.clientId);
  url.searchParams.set("response_type", "id_token");
  url.searchParams.set("response_mode", "fragment");
  url.searchParams.set("scope", "openid");
  url.searchParams.set("redirect_uri", request.redirectUri);
  url.searchParams.set("state", request.state);
  url.searchParams.set("nonce", provider.nonceHash === "sha256" ? await sha256Hex(request.nonce) : request.nonce);
  return url.toString();
}

/**
 * What came back in the address's fragment: the ID token, the provider's refusal, or nothing
 * (an ordinary address). A state other than the one sent is refused: that answer was not ours.
 * @param {string} hash  `location.hash`
 * @param {Pending | null} pending
 * @returns {{idToken: string, pending: Pending} | {error: string} | null}
 */
export function readCallback(hash, pending) {
  const fields = new URLSearchParams(hash.replace(/^#/, ""));
  if (!fields.has("id_token") && !fields.has("error")) return null;
  if (!pending || fields.get("state") !== pending.state) {
    return { error: "That sign-in answer was not for this page (it may be an old link). Tap the sign-in button again." };
  }
  const refusal = fields.get("error");
  if (refusal) {
    const said = fields.get("error_description");
    return { error: refusal === "access_denied"
      ? "Sign-in was cancelled. Tap the button again when you want to sign in."
      : `The provider did not sign you in${said ? `: ${said.slice(0, 200)}` : ` (${refusal.slice(0, 60)})`}. Try again.` };
  }
  return { idToken: /** @type {string} */ (fields.get("id_token")), pending };
}

/** Sends the person to the provider, keeping the nonce and state for the way back. @param {Provider} provider */
export async function begin(provider) {
  /** @type {Pending} */
  const pending = { provider: provider.name, nonce: randomToken(), state: randomToken(16) };
  sessionStorage.setItem(KEY, JSON.stringify(pending));
  location.assign(await authorizeAddress(provider, { redirectUri: location.origin + location.pathname, ...pending }));
}

/** The sign-in under way, taken out of storage (it is good for one answer). @returns {Pending | null} */
export function pending() {
  const kept = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  try {
    return kept ? JSON.parse(kept) : null;
  } catch {
    return null;
  }
}

// @ts-check
/** Signing in with an OpenID Connect provider from the browser: the implicit flow
 * (`response_type=id_token`), which needs no client secret and no server-side callback. The page
 * sends the person to the provider with a fresh nonce and state; the provider sends them back to
 * this page with `#id_token=…&state=…`; the page hands the ID token and its nonce to
 * `POST /api/v1/auth/oidc/<name>`, which checks the signature, issuer, audience, expiry and nonce.
 * A `form_post` provider (Sign in with Apple on the web) posts the ID token to the server instead:
 * the server begins the sign-in (its nonce and state), checks the token at its callback, signs the
 * person in and sends them back with `#session=…&state=…`. Either way the page takes only an
 * answer whose state it began with.
 * Pure functions except `begin` and `pending`, which keep the nonce and state for the way back. */

/** @typedef {{name: string, label: string, authorizeUrl: string, clientId: string, nonceHash: "none" | "sha256", responseMode?: "fragment" | "form_post"}} Provider */
/** @typedef {{access_token: string, refresh_token: string, expires_in: number, accountId: string}} Tokens */
/** @typedef {{provider: string, nonce: string, state: string, returnTo?: string, carryOver?: boolean}} Pending
 * `returnTo`: the address's fragment when the sign-in began (a shared notebook's `#/accept/…`), given back
 * after it; `carryOver`: begun by a device account signing up, whose notebooks the provider's identity keeps. */

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
 * What came back in the address's fragment: the ID token, the session our callback made, a refusal, or nothing
 * (an ordinary address). A state other than the one sent is refused: that answer was not ours.
 * @param {string} hash  `location.hash`
 * @param {Pending | null} pending
 * @returns {{idToken: string, pending: Pending} | {session: Tokens, pending: Pending} | {error: string} | null}
 */
export function readCallback(hash, pending) {
  const fields = new URLSearchParams(hash.replace(/^#/, ""));
  if (!fields.has("id_token") && !fields.has("error") && !fields.has("session")) return null;
  if (!pending || fields.get("state") !== pending.state) {
    return { error: "That sign-in answer was not for this page (it may be an old link). Tap the sign-in button again." };
  }
  const refusal = fields.get("error");
  if (refusal) {
    const said = fields.get("error_description");
    if (refusal === "access_denied") return { error: "Sign-in was cancelled. Tap the button again when you want to sign in." };
    // Our own callback's refusals end with what to do; a provider's are a code and maybe a phrase.
    if (said && /[.!?]$/.test(said)) return { error: said.slice(0, 300) };
    return { error: `The provider did not sign you in${said ? `: ${said.slice(0, 200)}` : ` (${refusal.slice(0, 60)})`}. Try again.` };
  }
  const session = fields.get("session");
  if (session) {
    try {
      /** @type {Tokens} */
      const tokens = JSON.parse(atob(session.replace(/-/g, "+").replace(/_/g, "/")));
      return { session: tokens, pending };
    } catch {
      return { error: "The sign-in answer could not be read. Tap the sign-in button again." };
    }
  }
  return { idToken: /** @type {string} */ (fields.get("id_token")), pending };
}

/**
 * Sends the person to the provider, keeping the nonce and state (and where they were) for the way back.
 * @param {Provider} provider @param {{carryOver?: boolean}} [options]
 */
export async function begin(provider, options = {}) {
  // Signing up this phone's account comes back to the notebooks, not to the sign-up screen.
  const returnTo = !options.carryOver && /^#\/./.test(location.hash) ? location.hash : undefined;
  if (provider.responseMode === "form_post") {
    // The server keeps the nonce (the provider posts the token to it), and gives the state.
    const answer = await fetch(`/api/v1/auth/oidc/${encodeURIComponent(provider.name)}/begin`, { method: "POST" });
    if (!answer.ok) throw new Error(`begin: ${answer.status}`);
    const { authorizeUrl, state } = await answer.json();
    sessionStorage.setItem(KEY, JSON.stringify({ provider: provider.name, nonce: "", state, returnTo, carryOver: options.carryOver }));
    location.assign(authorizeUrl);
    return;
  }
  /** @type {Pending} */
  const pending = { provider: provider.name, nonce: randomToken(), state: randomToken(16), returnTo, carryOver: options.carryOver };
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

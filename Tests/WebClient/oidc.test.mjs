// Signing in with an OpenID Connect provider from the browser: the address sent to, the answer read back (node --test).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import test from "node:test";
import { authorizeAddress, randomToken, readCallback } from "../../Plugins/Web/Client/oidc.js";

const google = { name: "google", label: "Google", authorizeUrl: "https://accounts.example/o/auth?prompt=select_account",
  clientId: "app-123", nonceHash: "none" };

test("the authorization address asks for an ID token in the fragment, with this page, the state and the nonce", async () => {
  const url = new URL(await authorizeAddress(google, { redirectUri: "https://notes.example/", nonce: "n-1", state: "s-1" }));
  assert.equal(url.origin + url.pathname, "https://accounts.example/o/auth");
  const q = Object.fromEntries(url.searchParams);
  assert.deepEqual(q, { prompt: "select_account", client_id: "app-123", response_type: "id_token", response_mode: "fragment",
    scope: "openid", redirect_uri: "https://notes.example/", state: "s-1", nonce: "n-1" });
});

test("a provider that wants the nonce hashed (Apple) is given its SHA-256, the server the nonce itself", async () => {
  const url = new URL(await authorizeAddress({ ...google, nonceHash: "sha256" }, { redirectUri: "https://x/", nonce: "n-1", state: "s" }));
  assert.equal(url.searchParams.get("nonce"), createHash("sha256").update("n-1").digest("hex"));
});

test("the answer: the ID token with the pending nonce when the state matches", () => {
  const pending = { provider: "google", nonce: "n-1", state: "s-1" };
  assert.deepEqual(readCallback("#id_token=aaa.bbb.ccc&state=s-1", pending), { idToken: "aaa.bbb.ccc", pending });
});

test("an answer with another state, or none pending, is refused; an ordinary address is not an answer", () => {
  const pending = { provider: "google", nonce: "n-1", state: "s-1" };
  assert.match(readCallback("#id_token=aaa&state=other", pending)?.error ?? "", /not for this page/);
  assert.match(readCallback("#id_token=aaa&state=s-1", null)?.error ?? "", /not for this page/);
  assert.equal(readCallback("#/notebooks", pending), null);
  assert.equal(readCallback("", pending), null);
});

test("the provider's refusal is said as a sentence; cancelling says how to try again", () => {
  const pending = { provider: "google", nonce: "n-1", state: "s-1" };
  assert.match(readCallback("#error=access_denied&state=s-1", pending)?.error ?? "", /cancelled/);
  assert.match(readCallback("#error=server_error&error_description=Try+later&state=s-1", pending)?.error ?? "", /did not sign you in: Try later/);
});

test("random tokens are base64url and differ", () => {
  const a = randomToken();
  assert.match(a, /^[A-Za-z0-9_-]{32}$/);
  assert.notEqual(a, randomToken());
});

test("a form_post sign-in (Apple on the web): the session our callback made, only with the state this page began", () => {
  const tokens = { access_token: "at", refresh_token: "rt", expires_in: 900, accountId: "acc_1" };
  const session = Buffer.from(JSON.stringify(tokens)).toString("base64url");
  const pending = { provider: "apple", nonce: "", state: "s-9" };
  assert.deepEqual(readCallback(`#session=${session}&state=s-9`, pending), { session: tokens, pending });
  assert.match(readCallback(`#session=${session}&state=other`, pending)?.error ?? "", /not for this page/);
  assert.match(readCallback("#session=%%%&state=s-9", pending)?.error ?? "", /could not be read/);
});

test("our callback's refusal, a sentence ending with what to do, is said as it is", () => {
  const pending = { provider: "apple", nonce: "", state: "s-9" };
  const said = "This sign-in answer was used already, or is more than ten minutes old. Tap “Continue with Apple” again.";
  assert.deepEqual(readCallback(`#error=replayed&error_description=${encodeURIComponent(said)}&state=s-9`, pending), { error: said });
});

#!/usr/bin/env python3
"""Sign in with Apple on the web, as Apple does it (`response_mode=form_post`), against the real
`quire` binary: the shipped foreign-note.yaml with its Apple provider made live and pointed at a
local stand-in for Apple on 127.0.0.2 (its RSA key generated here, its JWKS served from loopback),
and an Apple key (.p8) generated here.

- Off when not configured: the shipped config offers no provider (the page shows no button).
- Configured: `GET /auth/oidc` lists Apple with `responseMode: form_post`; `POST …/apple/begin` gives
  Apple's authorization address (client id, our callback, `code id_token`, `form_post`, state, the
  nonce hashed as Apple wants it).
- Apple's post to `…/apple/callback` with a good token signs the person in: 303 back to the app with
  `#session=…&state=…`, whose access token works.
- Refused, each back to the app with `#error=<stable code>&error_description=<what to do>`: the same
  post again (`replayed`), a token for another app (`wrong_audience`), an expired one (`expired`), one
  signed by a key Apple does not publish (`bad_signature`), one carrying another sign-in's nonce
  (`wrong_nonce`), and the person cancelling at Apple (`access_denied`).
- A form_post provider without our callback's address, or with a key file that is not a P-256 key,
  stops the server at start with the setting named.

Prints one line per check and `apple acceptance: N passed, N failed` last.
"""
import argparse
import base64
import hashlib
import html
import http.client
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import urllib.parse

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ar_notebook  # noqa: E402  (the stand-in provider: a JWKS on loopback, tokens signed RS256/ES256)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port, results  # noqa: E402

ROOT = napkin_notes.ROOT
SHIPPED = os.path.join(ROOT, "config", "apps", "foreign-note.yaml")
ISSUER = "https://appleid.apple.com"
SERVICES_ID = "app.quire.foreignnote.web"
CLAIMS = dict(iss="https://appleid.apple.com", aud="app.quire.foreignnote.web", sub="001234.abcdef.0042", kid="apple-rsa")


class ApplePage:
    """Apple's sign-in page, as a browser sees it: a page whose buttons post Apple's answer
    (form_post) to the redirect_uri, a token made for the nonce it was given, or the cancel."""

    def __init__(self, provider, claims):
        page = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
                page.asked.append(query)
                token = provider.token(nonce=query.get("nonce", ""), **claims)
                field = lambda name, value: f'<input type="hidden" name="{name}" value="{html.escape(value)}">'  # noqa: E731
                action = html.escape(query.get("redirect_uri", ""))
                body = (f'<!doctype html><title>Sign in with Apple</title><h1>Apple ID</h1>'
                        f'<form method="post" action="{action}">{field("state", query.get("state", ""))}{field("code", "c0de")}'
                        f'{field("id_token", token)}<button>Continue</button></form>'
                        f'<form method="post" action="{action}">{field("state", query.get("state", ""))}'
                        f'{field("error", "user_cancelled_authorize")}<button>Cancel</button></form>').encode()
                self.send_response(200 if self.path.startswith("/auth/authorize?") else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.asked = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def in_the_browser(server):
    """The page: “Continue with Apple”, Apple's page, its post to our callback, and the app signed in;
    cancelling at Apple comes back to the sign-in screen saying so."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=webwalk.chromium_path(), args=["--no-sandbox"])
        try:
            _, page = webwalk.phone(browser, server)
            page.goto("/")
            apple = page.get_by_role("button", name="Continue with Apple")
            apple.wait_for(timeout=10_000)
            webwalk.screen(page, "foreign-note", "sign-in with Apple", "signin-apple")
            apple.click()
            page.get_by_role("heading", name="Apple ID").wait_for(timeout=10_000)
            page.get_by_role("button", name="Cancel", exact=True).click()
            page.wait_for_selector("quire-signin #signin-error:has-text('cancelled')", timeout=10_000)
            check("in the browser: cancelling at Apple comes back to the sign-in screen, saying so",
                  page.text_content("#signin-error").startswith("Sign-in was cancelled"), page.text_content("#signin-error"))
            page.get_by_role("button", name="Continue with Apple").click()
            # Apple's own button, on Apple's page: `exact`, or the locator resolves at once to our
            # “Continue with Apple” (still on screen while /begin answers) and taps it a second time.
            page.get_by_role("heading", name="Apple ID").wait_for(timeout=10_000)
            page.get_by_role("button", name="Continue", exact=True).click()
            page.wait_for_selector("vocab-collections", timeout=15_000)
            session = page.evaluate("() => JSON.parse(localStorage.getItem('quire.session'))")
            status, me, _ = call(server, "GET", "/api/v1/auth/me", token=session["accessToken"])
            check("…“Continue with Apple”, Apple's page posts to our callback, and the app opens signed in (the address keeps no token)",
                  status == 200 and me["kind"] == "external" and "session" not in page.url, (status, me, page.url))
        finally:
            browser.close()


def config(provider, port, key_file, extra="", authorize=None):
    """The shipped config with Sign in with Apple on the web, pointed at the stand-in."""
    with open(SHIPPED) as handle:
        text = handle.read()
    block = re.search(r"^    # oidc_providers:.*\n(?:    #   .*\n)+", text, re.M)
    live = (f"    oidc_providers:\n"
            f"      - name: apple\n"
            f"        label: Apple\n"
            f"        issuer: {ISSUER}\n"
            f"        audience: {SERVICES_ID}\n"
            f"        keys_url: http://127.0.0.2:{provider.port}/jwks.json\n"
            f"        nonce_hash: sha256\n"
            f"        authorize_url: {authorize or f'http://127.0.0.2:{provider.port}/auth/authorize'}\n"
            f"        response_mode: form_post\n"
            f"        redirect_uri: http://127.0.0.1:{port}/api/v1/auth/oidc/apple/callback\n"
            f"        team_id: TEAM123456\n"
            f"        key_id: KEY1234567\n"
            f"        private_key_file: {key_file}\n"
            f"        allow_networks: [127.0.0.2/32]\n{extra}")
    return text.replace(block.group(0), live).replace("methods: [password, device]", "methods: [password, device, oidc]")


def post_form(server, path, fields):
    """A browser's post of Apple's form: the answer itself (303 and its Location), not followed."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    body = urllib.parse.urlencode(fields)
    connection.request("POST", path, body=body, headers={"Content-Type": "application/x-www-form-urlencoded",
                                                         "Origin": "https://appleid.apple.com"})
    answer = connection.getresponse()
    answer.read()
    connection.close()
    return answer.status, answer.getheader("Location") or ""


def fragment(location):
    return dict(urllib.parse.parse_qsl(location.split("#", 1)[1])) if "#" in location else {}


def begin(server):
    status, body, _ = call(server, "POST", "/api/v1/auth/oidc/apple/begin")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(body["authorizeUrl"]).query)) if status == 200 else {}
    return status, body, query


def start_fails(binary, data, text, name):
    path = os.path.join(data, f"{name}.yaml")
    with open(path, "w") as handle:
        handle.write(text)
    run = subprocess.run([binary, "serve", "--config", path], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, QUIRE_DATA=os.path.join(data, name), QUIRE_PORT=str(free_port())))
    return run.returncode, run.stdout + run.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    provider = ar_notebook.Provider()
    provider.keys["apple-rsa"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    try:
        walk(binary, provider)
    except Exception as error:  # a crash of the harness (a server that would not start) is a failed check, with its reason
        check("apple acceptance run", False, repr(error))
    provider.close()
    failed = results.count(False)
    print(f"apple acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def walk(binary, provider):
    with tempfile.TemporaryDirectory(prefix="quire-apple-") as data:
        # Off when not configured.
        plain = napkin_notes.Server(binary, os.path.join(data, "plain"), free_port(), config=SHIPPED)
        os.makedirs(plain.data)
        plain.start()
        try:
            status, _, _ = call(plain, "GET", "/api/v1/auth/oidc")
            _, manifest, _ = call(plain, "GET", "/api/v1/manifest")
            features = [f for p in manifest.get("plugins", []) for f in p.get("features", [])] if isinstance(manifest, dict) else []
            check("not configured: no provider is offered (GET /auth/oidc 404, no sign-in:oidc, so no button)",
                  status == 404 and "sign-in:oidc" not in json.dumps(manifest), (status, features))
        finally:
            plain.stop()

        key_file = os.path.join(data, "AuthKey_KEY1234567.p8")
        with open(key_file, "wb") as handle:
            handle.write(ec.generate_private_key(ec.SECP256R1()).private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        port = free_port()
        apple_page = ApplePage(provider, dict(CLAIMS, sub="001234.web.0001"))
        path = os.path.join(data, "foreign-note-apple.yaml")
        with open(path, "w") as handle:
            handle.write(config(provider, port, key_file, authorize=f"http://127.0.0.2:{apple_page.port}/auth/authorize"))
        server = napkin_notes.Server(binary, os.path.join(data, "apple"), port, config=path)
        os.makedirs(server.data)
        server.start()
        try:
            status, listing, _ = call(server, "GET", "/api/v1/auth/oidc")
            apple = next((p for p in (listing or {}).get("providers", []) if p["name"] == "apple"), None)
            check("configured: GET /auth/oidc lists Apple, answering with form_post (the page shows “Continue with Apple”)",
                  status == 200 and apple is not None and apple["responseMode"] == "form_post" and apple["label"] == "Apple", listing)

            status, body, query = begin(server)
            state = body.get("state") if isinstance(body, dict) else None
            check("POST …/apple/begin gives Apple's address: the Services ID, our callback, code id_token, form_post, the state, a hashed nonce",
                  status == 200 and query.get("client_id") == SERVICES_ID and query.get("response_mode") == "form_post"
                  and query.get("response_type") == "code id_token" and query.get("state") == state
                  and query.get("redirect_uri") == f"http://127.0.0.1:{port}/api/v1/auth/oidc/apple/callback"
                  and re.fullmatch(r"[0-9a-f]{64}", query.get("nonce", "")) is not None, (status, body))
            claims = CLAIMS
            # What Apple posts: the state, and a token carrying the nonce it was given.
            good = {"state": state, "code": "c0de", "id_token": provider.token(nonce=query.get("nonce"), **claims)}
            status, location = post_form(server, "/api/v1/auth/oidc/apple/callback", good)
            answer = fragment(location)
            session = {}
            if "session" in answer:
                session = json.loads(base64.urlsafe_b64decode(answer["session"] + "=" * (-len(answer["session"]) % 4)))
            me_status, me, _ = call(server, "GET", "/api/v1/auth/me", token=session.get("access_token")) if session else (None, None, None)
            check("Apple's post with a good token signs in: 303 to /#session=…&state=…, and its access token works",
                  status == 303 and location.startswith("/#") and answer.get("state") == state and me_status == 200
                  and me.get("kind") == "external", (status, location[:120], me))

            status, location = post_form(server, "/api/v1/auth/oidc/apple/callback", good)
            answer = fragment(location)
            check("the same post again (a replayed nonce) is refused: error=replayed, saying to tap the button again",
                  status == 303 and answer.get("error") == "replayed" and "Continue with Apple" in answer.get("error_description", ""),
                  (status, answer))

            def refused(what, code, token_for=None, form=None):
                status, _, query = begin(server)
                state = _["state"]
                fields = form(state) if form else {"state": state, "id_token": token_for(query["nonce"])}
                status, location = post_form(server, "/api/v1/auth/oidc/apple/callback", fields)
                answer = fragment(location)
                check(f"{what} is refused: error={code}, with a sentence", status == 303 and answer.get("error") == code
                      and answer.get("state") == state and len(answer.get("error_description", "")) > 20 and "session" not in answer,
                      (status, answer))

            refused("a token for another app (wrong audience)", "wrong_audience",
                    lambda nonce: provider.token(nonce=nonce, **dict(claims, aud="com.other.app")))
            refused("an expired token", "expired", lambda nonce: provider.token(nonce=nonce, expires_in=-600, **claims))
            stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            refused("a token signed by a key Apple does not publish (bad signature)", "bad_signature",
                    lambda nonce: provider.token(nonce=nonce, key=stranger, **claims))
            refused("a token carrying another sign-in's nonce", "wrong_nonce",
                    lambda nonce: provider.token(nonce=hashlib.sha256(b"another sign-in").hexdigest(), **claims))
            refused("cancelling at Apple", "access_denied", form=lambda state: {"state": state, "error": "user_cancelled_authorize"})
            status, location = post_form(server, "/api/v1/auth/oidc/apple/callback", {"state": "made-up", "id_token": good["id_token"]})
            check("…and a state the server never gave is refused (replayed)", fragment(location).get("error") == "replayed", location[:160])
            in_the_browser(server)
        finally:
            server.stop()
            apple_page.close()

        # Configuration mistakes stop the server at start, naming the setting.
        text = config(provider, port, key_file)
        code, said = start_fails(binary, data, re.sub(r"        redirect_uri: .*\n", "", text), "no-redirect")
        check("form_post without redirect_uri does not start, naming redirect_uri", code != 0 and "redirect_uri" in said, said[-400:])
        not_key = os.path.join(data, "not-a-key.p8")
        with open(not_key, "w") as handle:
            handle.write("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
        code, said = start_fails(binary, data, text.replace(key_file, not_key), "bad-key")
        check("a private_key_file that is not a P-256 key does not start, naming private_key_file",
              code != 0 and "private_key_file" in said and "P-256" in said, said[-400:])


if __name__ == "__main__":
    main()

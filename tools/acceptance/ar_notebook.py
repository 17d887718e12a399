#!/usr/bin/env python3
"""End-to-end acceptance of AR Notebook: UC-1…UC-15 walked against the real `quire` binary and the
shipped config (plus a real OpenID Connect provider on 127.0.0.2 that publishes its keys and signs
ID tokens, and a second run with tiny quotas).

Prints one line per check and `acceptance: N passed, N failed` last.
"""
import argparse
import base64
import html
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from websockets.sync.client import connect

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402

ROOT = napkin_notes.ROOT
SHIPPED = os.path.join(ROOT, "config", "apps", "ar-notebook.yaml")
PROVIDER_HOST = "127.0.0.2"
ISSUER = "https://id.quire.test"
AUDIENCE = "ar-notebook-client"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Provider:
    """A small OpenID Connect provider: publishes its keys as a JWKS and signs ID tokens, ES256 with a
    P-256 key or RS256 with an RSA key (Apple and Facebook sign RS256)."""

    def __init__(self):
        self.keys = {"k1": ec.generate_private_key(ec.SECP256R1())}
        self.authorized = []  # what the browser asked /authorize for, answered through /answer
        provider = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/authorize?"):
                    return self.authorize()
                if self.path.startswith("/answer?"):
                    return self.answer()
                body = json.dumps(provider.jwks()).encode()
                self.send_response(200 if self.path == "/jwks.json" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def authorize(self):
                """The browser's way in (the implicit flow): a consent page whose two links answer the app."""
                query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
                if query.get("client_id") != AUDIENCE or query.get("response_type") != "id_token" or "redirect_uri" not in query:
                    return self.page(400, "<p>invalid_request</p>")
                allow = "/answer?" + urllib.parse.urlencode({**query, "allow": "1"})
                deny = "/answer?" + urllib.parse.urlencode({**query, "allow": "0"})
                self.page(200, f'<h1>Test provider</h1><p>{html.escape(query.get("scope", ""))}</p>'
                               f'<a id="allow" href="{html.escape(allow)}">Allow</a> <a id="deny" href="{html.escape(deny)}">Cancel</a>')

            def answer(self):
                query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
                provider.authorized.append(query)
                if query["allow"] == "1":
                    fragment = {"id_token": provider.token(sub="fb|web-1", nonce=query["nonce"]), "state": query["state"]}
                else:
                    fragment = {"error": "access_denied", "state": query["state"]}
                self.send_response(302)
                self.send_header("Location", query["redirect_uri"] + "#" + urllib.parse.urlencode(fragment))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def page(self, status, body):
                data = f"<!doctype html><title>Test provider</title>{body}".encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer((PROVIDER_HOST, 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def jwks(self):
        keys = []
        for kid, key in self.keys.items():
            numbers = key.public_key().public_numbers()
            if isinstance(key, rsa.RSAPrivateKey):
                keys.append({"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "e": b64url(numbers.e.to_bytes(3, "big")),
                             "n": b64url(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big"))})
            else:
                keys.append({"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
                             "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))})
        return {"keys": keys}

    def token(self, sub="fb|1001", aud=AUDIENCE, iss=ISSUER, expires_in=600, nonce="n-123", kid="k1", key=None, extra=None):
        now = int(time.time())
        key = key or self.keys[kid]
        alg = "RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256"
        header = b64url(json.dumps({"alg": alg, "typ": "JWT", "kid": kid}).encode())
        claims = {"iss": iss, "sub": sub, "aud": aud, "iat": now - 5, "exp": now + expires_in, "nonce": nonce, "email": "ann@example.com"}
        claims.update(extra or {})
        payload = b64url(json.dumps(claims).encode())
        signing_input = f"{header}.{payload}".encode()
        if alg == "RS256":
            return f"{header}.{payload}.{b64url(key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256()))}"
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        return f"{header}.{payload}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"

    def close(self):
        self.server.shutdown()


class Server(napkin_notes.Server):
    def start(self):
        napkin_notes.CONFIG = self.config
        super().start()


def make_config(data, provider, quotas=None):
    """The shipped config plus the OIDC test provider (reachable on 127.0.0.2 only) and, when given, other quotas."""
    with open(SHIPPED) as handle:
        text = handle.read()
    text = re.sub(r"    methods: \[password(, device)?\]", r"    methods: [password\1, oidc]", text)
    text = text.replace("    secret: ${QUIRE_AUTH_SECRET:-}\n", "    secret: ${QUIRE_AUTH_SECRET:-}\n    oidc_providers:\n"
                        f"      - {{ name: facebook, issuer: \"{ISSUER}\", audience: {AUDIENCE}, "
                        f"keys_url: \"http://{PROVIDER_HOST}:{provider.port}/jwks.json\", "
                        f"authorize_url: \"http://{PROVIDER_HOST}:{provider.port}/authorize\", allow_networks: [127.0.0.2/32] }}\n")
    for key, value in (quotas or {}).items():
        text = re.sub(rf"    {key}: \d+", f"    {key}: {value}", text)
    path = os.path.join(data, f"ar-notebook-{len(quotas or {})}.yaml")
    with open(path, "w") as handle:
        handle.write(text)
    return path


def next_alert(live, timeout=5):
    """The next alert message on a live connection (pokes skipped), or None."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            message = json.loads(live.recv(timeout=max(0.05, deadline - time.time())))
        except TimeoutError:
            return None
        if message.get("type") == "alert":
            return message
    return None


def frame(data, name, rgb, size=(64, 48)):
    path = os.path.join(data, name)
    subprocess.run(["vips", "black", path + ".v", str(size[0]), str(size[1]), "--bands", "3"], check=True)
    subprocess.run(["vips", "linear", path + ".v", path, "1 1 1", " ".join(map(str, rgb)), "--uchar"], check=True)
    with open(path, "rb") as handle:
        return handle.read()


def uc1_sign_in(server, provider):
    """UC-1: sign in through the provider (Facebook in the document); bad tokens are refused with the reason."""
    status, listing, _ = call(server, "GET", "/api/v1/auth/oidc")
    check("UC-1 a browser finds the provider's sign-in address (GET /auth/oidc, no token needed)",
          status == 200 and [(p["name"], p["label"], p["clientId"]) for p in listing["providers"]] == [("facebook", "Facebook", AUDIENCE)]
          and listing["providers"][0]["authorizeUrl"].endswith("/authorize"), (status, listing))
    status, body, _ = call(server, "POST", "/api/v1/auth/oidc/facebook", {"id_token": provider.token(), "nonce": "n-123"})
    check("UC-1 a valid ID token signs in and creates a linked account", status == 200 and "access_token" in (body or {}), (status, body))
    token = body["access_token"]
    status, again, _ = call(server, "POST", "/api/v1/auth/oidc/facebook", {"id_token": provider.token(nonce="n-9"), "nonce": "n-9"})
    check("UC-1 signing in again finds the same account", status == 200 and again["accountId"] == body["accountId"], (status, again))
    cases = [
        ("wrong audience", provider.token(aud="someone-else"), "n-123", "wrong_audience"),
        ("expired", provider.token(expires_in=-3600), "n-123", "expired"),
        ("signed by an unknown key", provider.token(kid="k-rogue", key=ec.generate_private_key(ec.SECP256R1())), "n-123", "unknown_key"),
        ("a known kid but a forged signature", provider.token(key=ec.generate_private_key(ec.SECP256R1())), "n-123", "bad_signature"),
        ("wrong issuer", provider.token(iss="https://evil.example"), "n-123", "wrong_issuer"),
        ("wrong nonce", provider.token(nonce="other"), "n-123", "wrong_nonce"),
    ]
    for name, id_token, nonce, reason in cases:
        status, problem, _ = call(server, "POST", "/api/v1/auth/oidc/facebook", {"id_token": id_token, "nonce": nonce})
        check(f"UC-1 a token {name} is refused (401, {reason})", status == 401 and problem.get("reason") == reason, (status, problem))
    # Rotation: the provider publishes a new key; a token signed with it verifies after a refetch.
    provider.keys["k2"] = ec.generate_private_key(ec.SECP256R1())
    time.sleep(11)
    status, rotated, _ = call(server, "POST", "/api/v1/auth/oidc/facebook", {"id_token": provider.token(kid="k2", nonce="r"), "nonce": "r"})
    check("UC-1 after the provider rotates its keys, a token with the new key signs in", status == 200, (status, rotated))
    return token


def walk(server, data, token, other):
    base = "/api/v1/notebooks"
    # UC-2: create a notebook with a cover style.
    status, notebook, _ = call(server, "POST", f"{base}/notebooks", {"name": "Trip", "cover": "text", "coverText": "Lisbon 2026"}, token=token)
    check("UC-2 a new notebook with a cover style", status == 201 and notebook["cover"] == "text", (status, notebook))
    nb = notebook["id"]
    status, bad, _ = call(server, "POST", f"{base}/notebooks", {"cover": "velvet"}, token=token)
    check("UC-2 an unknown cover is refused, naming the three", status == 422 and "colors, image, text" in bad["detail"], (status, bad))
    # UC-3: retrieve: the last one opened by default; the list.
    call(server, "POST", f"{base}/open", {"id": nb}, token=token)
    status, opened, _ = call(server, "POST", f"{base}/open", token=token)
    check("UC-3 opening with no choice gives the last one opened", status == 200 and opened["notebook"]["id"] == nb, (status, opened))
    _, listing, _ = call(server, "GET", f"{base}/notebooks", token=token)
    check("UC-3 the list of my notebooks", [n["id"] for n in listing["items"]] == [nb], listing)
    # UC-4: pages from templates, with palette backgrounds.
    status, page1, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages", {"template": "two-slots", "background": "mint"}, token=token)
    check("UC-4 a two-slot page is page 1 (the cover is 0)", status == 201 and page1["number"] == 1 and len(page1["page"]["slots"]) == 2, (status, page1))
    _, page2, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages", {"template": "blank"}, token=token)
    status, bad, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages", {"template": "blank", "background": "plaid"}, token=token)
    check("UC-4 a background outside the palette is refused", status == 422 and bad["field"] == "background", (status, bad))
    _, cover, _ = call(server, "GET", f"{base}/notebooks/{nb}/pages/0", token=token)
    check("turning pages: the cover, then page 1", cover["next"] == 1 and cover.get("previous") is None and cover.get("page") is None, cover)
    # UC-5: clipboard text in the chosen free slot; 141 characters refused clearly; non-text refused.
    status, clip, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "clipboard", "text": "x" * 140, "slot": 1}, token=token)
    slot1 = page1["page"]["slots"][1]
    check("UC-5 clipboard text lands in the chosen free slot", status == 201 and clip["item"]["slot"] == 1
          and clip["item"]["frame"]["y"] == slot1["y"], (status, clip))
    status, long, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "clipboard", "text": "y" * 141}, token=token)
    check("UC-5 a 141-character clipboard insert is refused with a clear message", status == 422 and "at most 140 characters" in long["detail"]
          and "141" in long["detail"], (status, long))
    status, notext, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "clipboard", "text": {"image": 1}}, token=token)
    check("UC-5 a clipboard holding something else than text is refused", status == 422 and "only text" in notext["detail"], (status, notext))
    status, taken, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "hi", "slot": 1}, token=token)
    check("a taken slot is refused (409)", status == 409, (status, taken))
    # UC-6: keyboard text on a blank page is centred.
    status, typed, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/2/items", {"kind": "text", "text": "Hello, AR"}, token=token)
    f = typed["item"]["frame"]
    check("UC-6 keyboard text on a blank page is centred", status == 201 and abs(f["x"] + f["width"] / 2 - 300) < 0.01
          and abs(f["y"] + f["height"] / 2 - 400) < 0.01, typed)
    # UC-7: an image from the gallery (≤ 10 MB) into the free slot; resize past the edge is clamped.
    picture = frame(data, "gallery.jpg", (40, 120, 200), size=(400, 300))
    status, image, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", raw=picture, content_type="image/jpeg", token=token)
    check("UC-7 a gallery image fills the first free slot, keeping its aspect", status == 201 and image["item"]["slot"] == 0
          and abs(image["item"]["frame"]["width"] / image["item"]["frame"]["height"] - 4 / 3) < 0.01, (status, image))
    item = image["item"]["id"]
    status, got, headers = call(server, "GET", image["item"]["image"], token=token)
    check("UC-7 the image is served back", status == 200 and got == picture, status)
    status, resized, _ = call(server, "PATCH", f"{base}/notebooks/{nb}/items/{item}", {"frame": {"x": 500, "y": 700, "width": 900, "height": 300}}, token=token)
    rf = resized["item"]["frame"]
    check("UC-7 an image resized past the page edge is clamped inside it, at full width", status == 200 and resized["clamped"]
          and rf == {"x": 0, "y": 500, "width": 600, "height": 300}, (status, resized))
    big = b"\xff\xd8\xff" + b"\0" * (10 * 1024 * 1024 + 10)
    status, problem, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/2/items", raw=big, content_type="image/jpeg", token=token)
    check("UC-7 an image over 10 MB is refused with 413 naming the limit", status == 413 and "max_image_bytes" in problem["detail"], (status, problem))
    # Autosave: reopening shows everything in insertion order, where it was placed.
    _, whole, _ = call(server, "GET", f"{base}/notebooks/{nb}", token=token)
    seqs = [i["seq"] for p in whole["pages"] for i in p["items"]]
    check("autosave: reopened, items come in insertion order with their frames", [len(p["items"]) for p in whole["pages"]] == [2, 1]
          and seqs == [1, 3, 2] and whole["pages"][0]["items"][1]["frame"] == rf, whole)
    # FR3.2.12: undo takes back the last thing done, once: here the resize (the image back at its size
    # and place in its slot; it stays), then nothing more.
    status, undone, _ = call(server, "POST", f"{base}/notebooks/{nb}/undo", token=token)
    check("undo after the resize puts the image back as it was in its slot (the last thing done); the image stays",
          status == 200 and (undone.get("restored") or {}).get("id") == item and undone["restored"]["frame"] == image["item"]["frame"]
          and "removed" not in undone, (status, undone))
    status, again, _ = call(server, "POST", f"{base}/notebooks/{nb}/undo", token=token)
    check("a second undo has nothing to undo (409)", status == 409, (status, again))
    # UC-10: an insert undone is removed.
    status, added, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/2/items", {"kind": "text", "text": "undo me"}, token=token)
    status, undone, _ = call(server, "POST", f"{base}/notebooks/{nb}/undo", token=token)
    check("UC-10 undo removes the last insert", status == 200 and (undone.get("removed") or {}).get("id") == added["item"]["id"], (status, undone))
    status, _, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/2/items", {"kind": "text", "text": "to be deleted"}, token=token)
    _, page2now, _ = call(server, "GET", f"{base}/notebooks/{nb}/pages/2", token=token)
    victim = page2now["page"]["items"][-1]["id"]
    call(server, "DELETE", f"{base}/notebooks/{nb}/items/{victim}", token=token)
    status, after_delete, _ = call(server, "POST", f"{base}/notebooks/{nb}/undo", token=token)
    _, whole2, _ = call(server, "GET", f"{base}/notebooks/{nb}", token=token)
    ids = [i["id"] for p in whole2["pages"] for i in p["items"]]
    check("UC-10 undo after a delete resurrects nothing and removes nothing", status == 409 and victim not in ids and len(ids) == 3, (status, ids))
    # UC-9: delete a page: confirmation first.
    status, ask, _ = call(server, "DELETE", f"{base}/notebooks/{nb}/pages/2", token=token)
    check("UC-9 deleting a page asks for confirmation (428 with a token)", status == 428 and ask.get("confirm"), (status, ask))
    status, _, _ = call(server, "DELETE", f"{base}/notebooks/{nb}/pages/2?confirm={ask['confirm']}", token=token)
    _, whole3, _ = call(server, "GET", f"{base}/notebooks/{nb}", token=token)
    check("UC-9 confirmed, the page and its items are gone", status == 204 and len(whole3["pages"]) == 1, (status, whole3["notebook"]))
    # UC-11 / UC-12: share read-only; the signed-in recipient sees that notebook and nothing else.
    _, secret_nb, _ = call(server, "POST", f"{base}/notebooks", {"name": "Private", "cover": "colors"}, token=token)
    status, link, _ = call(server, "POST", f"{base}/notebooks/{nb}/share", {}, token=token)
    check("UC-11 sharing answers a link", status == 201 and link["path"].startswith("/api/v1/share-link/s/"), (status, link))
    status, page, _ = call(server, "GET", link["path"] + "?format=json")
    check("UC-11 the public page shows the title, not the contents", status == 200 and page["title"] == "Trip" and not page["contents"], (status, page))
    status, accepted, _ = call(server, "POST", f"{base}/shared", {"token": link["token"]}, token=other)
    check("UC-12 the recipient opens the link in the app", status == 200 and accepted["notebook"]["access"] == "read", (status, accepted))
    status, seen, _ = call(server, "GET", f"{base}/notebooks/{nb}", token=other)
    check("UC-12 the recipient reads the whole notebook", status == 200 and len(seen["pages"]) == 1, status)
    writes = [("POST", f"{base}/notebooks/{nb}/pages", {"template": "blank"}), ("POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "x"}),
              ("PATCH", f"{base}/notebooks/{nb}", {"name": "Mine"}), ("POST", f"{base}/notebooks/{nb}/undo", None),
              ("DELETE", f"{base}/notebooks/{nb}", None), ("DELETE", f"{base}/notebooks/{nb}/pages/1?confirm=x", None),
              ("PUT", f"{base}/notebooks/{nb}/pin", {"latitude": 1, "longitude": 1}), ("POST", f"{base}/notebooks/{nb}/share", {})]
    refused = [call(server, method, path, body, token=other)[0] for method, path, body in writes]
    check("UC-12 every write by the recipient is refused (403)", all(code == 403 for code in refused), refused)
    status, _, _ = call(server, "GET", f"{base}/notebooks/{secret_nb['id']}", token=other)
    status2, _, _ = call(server, "POST", f"{base}/notebooks/{secret_nb['id']}/pages", {}, token=other)
    check("NFR3.3.1 the owner's other notebooks are 404 to the recipient", status == 404 and status2 == 404, (status, status2))
    _, listing, _ = call(server, "GET", f"{base}/notebooks", token=other)
    check("NFR3.3.1 the recipient's own list has none of the owner's notebooks", listing["items"] == [], listing)
    shared_feed(server, token, other, nb, secret_nb["id"])
    # UC-13: pin; a passer-by reports a location and gets the alert; may edit when allowed.
    status, pinned, _ = call(server, "PUT", f"{base}/notebooks/{nb}/pin", {"latitude": 38.7223, "longitude": -9.1393, "allowEdits": True}, token=token)
    check("UC-13 a notebook is pinned", status == 200 and pinned["pin"]["allowEdits"], (status, pinned))
    passer = sign_up(server, "passerby")
    status, far, _ = call(server, "POST", f"{base}/nearby", {"latitude": 38.80, "longitude": -9.1393}, token=passer)
    check("UC-13 9 km away: nothing nearby", status == 200 and far["items"] == [], far)
    status, _, _ = call(server, "GET", f"{base}/notebooks/{nb}", token=passer)
    check("UC-13 …and the pinned notebook cannot be opened from there (404)", status == 404, status)
    # The passer-by's phone (the one reporting) and their tablet hold live sync connections.
    devices = []
    for _ in range(2):
        live = connect(f"ws://127.0.0.1:{server.port}/api/v1/sync/live", open_timeout=5)
        live.send(json.dumps({"type": "auth", "token": passer}))
        live.recv(timeout=5)
        devices.append(live)
    status, near, _ = call(server, "POST", f"{base}/nearby", {"latitude": 38.7226, "longitude": -9.1390}, token=passer)
    check("UC-13 40 m away: the pinned notebook is reported nearby", status == 200 and [n["notebook"]["id"] for n in near["items"]] == [nb], near)
    alerts = [next_alert(live) for live in devices]
    check("UC-13 coming within the radius is pushed to every live device of the user (alert notebooks.nearby)",
          all(a and a["kind"] == "notebooks.nearby" and [n["id"] for n in a["data"]["notebooks"]] == [nb] for a in alerts), alerts)
    call(server, "POST", f"{base}/nearby", {"latitude": 38.7225, "longitude": -9.1391}, token=passer)
    check("UC-13 …once: still within it at the next report, no new alert", next_alert(devices[0], timeout=1.5) is None)
    for live in devices:
        live.close()
    status, edited, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "was here"}, token=passer)
    check("UC-13 the finder may edit, as the owner allowed", status == 201, (status, edited))
    status, _, _ = call(server, "DELETE", f"{base}/notebooks/{nb}", token=passer)
    check("UC-13 …but not delete it (403)", status == 403, status)
    # UC-15: offline replay: the same insert sent again with its Idempotency-Key is stored once.
    key = {"Idempotency-Key": "offline-queue-1"}
    first = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "queued offline"}, token=token, headers=key)
    second = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "queued offline"}, token=token, headers=key)
    _, whole4, _ = call(server, "GET", f"{base}/notebooks/{nb}", token=token)
    texts = [i.get("text") for p in whole4["pages"] for i in p["items"]]
    check("UC-15 an insert replayed after a lost connection is stored once", first[0] == 201 and second[0] == 201
          and first[1]["item"]["id"] == second[1]["item"]["id"] and texts.count("queued offline") == 1, (first[0], second[0], texts))
    return nb, picture


def pull_all(server, token):
    entries, cursor = [], None
    while True:
        status, page, _ = call(server, "GET", "/api/v1/sync/changes" + (f"?after={cursor}" if cursor else ""), token=token)
        if status != 200:
            raise RuntimeError(f"pull: {status} {page}")
        entries += page["items"]
        cursor = page["nextCursor"]
        if not page["hasMore"]:
            return entries, cursor


def shared_feed(server, token, other, nb, secret):
    """Sync for a recipient: the shared notebook's changes and nothing else of the owner's."""
    from websockets.sync.client import connect
    base = "/api/v1/notebooks"
    entries, cursor = pull_all(server, other)
    notebooks = {e["id"] for e in entries if e["kind"] == "notebooks.notebook"}
    check("sync: the recipient's feed has the shared notebook, read-only, marked with its owner",
          notebooks == {nb} and all(e.get("owner") for e in entries if e["kind"].startswith("notebooks."))
          and next(e for e in entries if e["id"] == nb)["record"]["access"] == "read", entries[:3])
    check("sync: …with its pages and items", any(e["kind"] == "notebooks.page" for e in entries)
          and any(e["kind"] == "notebooks.item" and e["record"]["notebook"] == nb for e in entries), [e["kind"] for e in entries])
    check("sync: …and nothing of the owner's other notebook", all(e["id"] != secret and (e.get("record") or {}).get("notebook") != secret
                                                                   for e in entries))
    live = connect(f"ws://127.0.0.1:{server.port}/api/v1/sync/live", open_timeout=5)
    live.send(json.dumps({"type": "auth", "token": other}))
    live.recv(timeout=5)
    call(server, "POST", f"{base}/notebooks/{secret}/pages", {"template": "blank"}, token=token)
    try:
        stray = live.recv(timeout=0.5)
    except TimeoutError:
        stray = None
    check("sync: the owner's other notebook changing pokes no recipient", stray is None, stray)
    call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", {"kind": "text", "text": "for the recipient"}, token=token)
    poke = json.loads(live.recv(timeout=2))
    check("sync: a change to the shared notebook pokes the recipient", poke.get("type") == "poke", poke)
    status, page, _ = call(server, "GET", f"/api/v1/sync/changes?after={cursor}", token=other)
    items = [e for e in page["items"] if e["kind"] == "notebooks.item"]
    check("sync: …who pulls that change (the item, and the notebook's new count)", status == 200
          and [e["record"].get("text") for e in items] == ["for the recipient"]
          and {e["id"] for e in page["items"] if e["kind"] == "notebooks.notebook"} == {nb}, page)
    live.close()
    _, listing, _ = call(server, "GET", f"{base}/notebooks/{nb}", token=token)
    item = next(i for p in listing["pages"] for i in p["items"] if i.get("text") == "for the recipient")
    call(server, "DELETE", f"{base}/notebooks/{nb}/items/{item['id']}", token=token)


def uc8_delete_notebook(server, data, token, other, nb):
    base = "/api/v1/notebooks"
    # An image only this notebook holds; its blob must go with the notebook.
    _, item, _ = call(server, "POST", f"{base}/notebooks/{nb}/pages/1/items", raw=frame(data, "only.jpg", (201, 33, 99), size=(120, 90)),
                      content_type="image/jpeg", token=token)
    blob = os.path.join(server.data, "blobs")
    before = sum(len(files) for _, _, files in os.walk(blob))
    status, ask, _ = call(server, "DELETE", f"{base}/notebooks/{nb}", token=token)
    check("UC-8 deleting a notebook asks for confirmation, saying what goes", status == 428 and re.search(r"\b\d+ pages?\b", ask["detail"]) and ask.get("confirm"), (status, ask))
    status, _, _ = call(server, "DELETE", f"{base}/notebooks/{nb}?confirm=not-the-token", token=token)
    check("UC-8 a wrong confirmation deletes nothing", status == 428, status)
    status, _, _ = call(server, "DELETE", f"{base}/notebooks/{nb}?confirm={ask['confirm']}", token=token)
    after = sum(len(files) for _, _, files in os.walk(blob))
    check("UC-8 confirmed, the notebook is gone", status == 204 and call(server, "GET", f"{base}/notebooks/{nb}", token=token)[0] == 404, status)
    check("UC-8 its image blobs are deleted when nothing else uses them", after < before, (before, after))
    _, shared, _ = call(server, "GET", f"{base}/shared", token=other)
    check("UC-8 the recipient's shared list no longer has it", shared["items"] == [], shared)


def uc14_device(server, data, token, binary):
    dm = "/api/v1/device-monitor"
    status, low, _ = call(server, "POST", f"{dm}/battery", {"level": 5, "unit": "percent", "state": "discharging"}, token=token)
    check("UC-14 battery at 5 % not charging: the alert shows", status == 200 and low["alert"], low)
    status, refused, _ = call(server, "POST", f"{dm}/battery/dismiss", token=token)
    check("FR3.2.18 at or below 5 % the alert cannot be dismissed (409 battery_critical)",
          status == 409 and refused.get("reason") == "battery_critical", (status, refused))
    _, still, _ = call(server, "GET", f"{dm}/battery", token=token)
    check("FR3.2.18 …and it keeps showing", still["alert"], still)
    status, fraction, _ = call(server, "POST", f"{dm}/battery", {"level": 0.04, "unit": "fraction", "state": "unplugged"}, token=token)
    check("a fraction from iOS / BatteryManager (0.04, 'unplugged') reads as 4 %, discharging, alert",
          status == 200 and round(fraction["level"]) == 4 and fraction["state"] == "discharging" and fraction["alert"], (status, fraction))
    status, half, _ = call(server, "POST", f"{dm}/battery", {"level": 0.5, "unit": "fraction", "state": "unplugged"}, token=token)
    check("0.5 as a fraction is 50 %, not 1 %: no alert, and dismissing is fine", status == 200 and half["level"] == 50 and not half["alert"]
          and call(server, "POST", f"{dm}/battery/dismiss", token=token)[0] == 200, (status, half))
    status, unitless, _ = call(server, "POST", f"{dm}/battery", {"level": 0.5, "state": "unplugged"}, token=token)
    check("a level without its unit is refused with a sentence naming 'unit'", status == 400 and "unit" in unitless.get("detail", ""), (status, unitless))
    status, wrong, _ = call(server, "POST", f"{dm}/battery", {"level": 42, "unit": "fraction", "state": "full"}, token=token)
    check("42 as a fraction is refused (fractions are 0.0–1.0)", status == 422, (status, wrong))
    call(server, "POST", f"{dm}/battery", {"level": 5, "unit": "percent", "state": "discharging"}, token=token)
    status, claim, _ = call(server, "POST", f"{dm}/battery/charging", token=token)
    check("UC-14 'I am charging' is not taken on trust (409 until the device says so)", status == 409, (status, claim))
    _, charging, _ = call(server, "POST", f"{dm}/battery", {"level": 5, "unit": "percent", "state": "charging"}, token=token)
    status, verified, _ = call(server, "POST", f"{dm}/battery/charging", token=token)
    check("UC-14 charging: the alert is gone and the claim verifies", not charging["alert"] and status == 200, (charging, status))
    for name, rgb, expected in [("dark", (12, 10, 9), ["too_dark"]), ("tungsten", (255, 170, 90), ["too_warm"]), ("daylight", (235, 238, 245), [])]:
        picture = frame(data, name + ".jpg", rgb)
        status, light, _ = call(server, "POST", f"{dm}/lighting", raw=picture, content_type="image/jpeg", token=token)
        check(f"ADC3 a {name} frame: warnings {expected}", status == 200 and light["warnings"] == expected, (status, light))
        run = subprocess.run([os.path.join(os.path.dirname(binary), "quire-monitor"), "lighting", os.path.join(data, name + ".jpg")],
                             capture_output=True, text=True)
        code = {"too_dark": 2, "too_warm": 1}.get(expected[0], 0) if expected else 0
        check(f"quire-monitor lighting {name}.jpg exits {code}", run.returncode == code, (run.returncode, run.stdout))
    status, lux, _ = call(server, "POST", f"{dm}/lighting", {"lux": 12}, token=token)
    check("ADC3 12 lux is too dark", lux["warnings"] == ["too_dark"], lux)
    monitor = os.path.join(os.path.dirname(binary), "quire-monitor")
    for args, code in [(["battery", "--level", "5", "--charging", "false"], 2), (["battery", "--level", "5", "--charging", "true"], 0),
                       (["battery", "--level", "12", "--charging", "false"], 1), (["battery", "--sysfs", data], 3)]:
        run = subprocess.run([monitor] + args, capture_output=True, text=True)
        check(f"quire-monitor {' '.join(args)} exits {code}", run.returncode == code and run.stdout.startswith("BATTERY"), (run.returncode, run.stdout))
    fake = os.path.join(data, "sys", "class", "power_supply", "BAT0")
    os.makedirs(fake)
    for name, value in [("type", "Battery"), ("capacity", "4"), ("status", "Discharging")]:
        with open(os.path.join(fake, name), "w") as handle:
            handle.write(value + "\n")
    run = subprocess.run([monitor, "battery", "--sysfs", os.path.join(data, "sys"), "--json"], capture_output=True, text=True)
    details = json.loads(run.stdout or "{}")
    check("quire-monitor reads a sysfs battery (4 %, discharging → CRITICAL)", run.returncode == 2 and details.get("level") == 4, run.stdout)


def quotas(binary, data, provider):
    server = Server(binary, os.path.join(data, "q"), free_port())
    os.makedirs(server.data)
    server.config = make_config(data, provider, {"ops_per_user_per_day": 9, "max_stored_bytes_per_user": 3000})
    server.start()
    try:
        token = sign_up(server, "quota-user")
        base = "/api/v1/notebooks"
        _, nb, _ = call(server, "POST", f"{base}/notebooks", {"name": "Q"}, token=token)
        call(server, "POST", f"{base}/notebooks/{nb['id']}/pages", {}, token=token)
        statuses = []
        for _ in range(6):
            status, problem, headers = call(server, "POST", f"{base}/notebooks/{nb['id']}/pages/1/items", {"kind": "text", "text": "z" * 1000}, token=token)
            statuses.append(status)
        check("quotas: stored bytes per user beyond the limit → 507 naming it", 507 in statuses and "max_stored_bytes_per_user" in str(problem), (statuses, problem))
        status, usage, _ = call(server, "GET", "/api/v1/quotas/usage", token=token)
        check("DBC4 the limit is never overshot, though usage is measured only every 30 s (each write counts at the write)",
              status == 200 and usage["storedBytes"] <= usage["maxStoredBytes"] == 3000 and statuses.count(201) >= 1, (status, usage, statuses))
        status, problem, headers = call(server, "GET", f"{base}/notebooks", token=token)
        check("quotas: operations per user per day beyond the limit → 429 with Retry-After", status == 429 and int(headers.get("Retry-After", "0")) > 0
              and "ops_per_user_per_day" in problem["detail"], (status, problem, headers))
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="quire-ar-notebook-") as data:
        provider = Provider()
        server = Server(binary, os.path.join(data, "main"), free_port())
        os.makedirs(server.data)
        server.config = make_config(data, provider)
        try:
            server.start()
            token = uc1_sign_in(server, provider)
            other = sign_up(server, "recipient")
            nb, _ = walk(server, data, token, other)
            uc14_device(server, data, token, binary)
            _, before, _ = call(server, "GET", f"/api/v1/notebooks/notebooks/{nb}", token=token)
            code = server.stop(signal.SIGTERM)
            check("SIGTERM → clean exit 0", code == 0, code)
            server.start()
            _, after, _ = call(server, "GET", f"/api/v1/notebooks/notebooks/{nb}", token=token)
            check("after restart: the same notebook, page for page", before == after, (before, after))
            uc8_delete_notebook(server, data, token, other, nb)
            server.stop()
            quotas(binary, data, provider)
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("acceptance run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
        finally:
            provider.close()
    failed = results.count(False)
    print(f"ar-notebook acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

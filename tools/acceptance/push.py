#!/usr/bin/env python3
"""Web Push with the real binary (issue 41): a push service of this test's own on loopback, which
checks each push's VAPID JWT (ES256 with the server's public key, aud, exp, sub) and decrypts its
payload with the subscription's own keys (PyPI http-ece, RFC 8291/8188 aes128gcm).

- Napkin Notes: a due reminder arrives, once, decrypted, "Reminder: <title>", opening the note;
  a subscription the push service answers 410 for is deleted; another user's phones are not
  touched; loopback and http:// endpoints are refused unless allow_test_endpoints is on (off by
  default); the VAPID key survives a restart and is never logged.
- iRemember: the daily "On this day" at the chosen hour, "3 years ago today: …", only on a day
  with photos from earlier years.

    python3 tools/acceptance/push.py --binary .build/debug/quire
"""
import argparse
import base64
import datetime
import json
import os
import stat
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402

import http_ece  # noqa: E402  (PyPI http-ece, pinned in tools/setup)
from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, utils  # noqa: E402

NAPKIN = os.path.join(napkin_notes.ROOT, "config", "apps", "napkin-notes.yaml")
IREMEMBER = os.path.join(napkin_notes.ROOT, "config", "apps", "iremember.yaml")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService:
    """A push service on 127.0.0.1: records every POST; answers 410 for paths under /gone/."""

    def __init__(self):
        self.received = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with outer.lock:
                    outer.received.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body,
                                           "at": time.time()})
                self.send_response(410 if self.path.startswith("/gone/") else 201)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, path, count=1, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            with self.lock:
                got = [r for r in self.received if r["path"] == path]
            if len(got) >= count:
                return got
            time.sleep(0.1)
        with self.lock:
            return [r for r in self.received if r["path"] == path]


class Phone:
    """A browser's side of a subscription: its own P-256 key pair and auth secret."""

    def __init__(self, service, path):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.path = path
        self.endpoint = service.origin + path
        public = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.subscription = {"endpoint": self.endpoint, "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}, "device": "Test phone"}

    def open(self, push):
        """The payload, decrypted as a browser does (aes128gcm: the sender's key is in the header)."""
        return json.loads(http_ece.decrypt(push["body"], private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


def vapid_problems(push, server_key, audience):
    """What is wrong with a push's VAPID header (RFC 8292): nothing → []."""
    problems = []
    header = push["headers"].get("authorization", "")
    if not header.startswith("vapid "):
        return [f"Authorization is not vapid: {header[:40]!r}"]
    fields = dict(part.strip().split("=", 1) for part in header[len("vapid "):].split(","))
    if fields.get("k") != server_key:
        problems.append("k is not the server's public key")
    parts = fields.get("t", "").split(".")
    if len(parts) != 3:
        return problems + ["t is not a JWT"]
    head, claims = json.loads(unb64url(parts[0])), json.loads(unb64url(parts[1]))
    if head.get("alg") != "ES256":
        problems.append(f"alg {head.get('alg')}")
    signature = unb64url(parts[2])
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(server_key))
    try:
        der = utils.encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        public.verify(der, f"{parts[0]}.{parts[1]}".encode(), ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        problems.append("the signature does not verify with the server's public key")
    if claims.get("aud") != audience:
        problems.append(f"aud {claims.get('aud')} is not {audience}")
    now = time.time()
    if not (now < claims.get("exp", 0) <= now + 24 * 3600):
        problems.append(f"exp {claims.get('exp')} is not within 24 h")
    if not str(claims.get("sub", "")).startswith(("mailto:", "https://")):
        problems.append(f"sub {claims.get('sub')}")
    for name, want in (("content-encoding", "aes128gcm"),):
        if push["headers"].get(name) != want:
            problems.append(f"{name}: {push['headers'].get(name)}")
    if not push["headers"].get("ttl", "").isdigit():
        problems.append(f"TTL: {push['headers'].get('ttl')}")
    return problems


def napkin(binary, service):
    with tempfile.TemporaryDirectory(prefix="quire-push-") as data:
        os.environ["QUIRE_PUSH_TEST_ENDPOINTS"] = "true"
        server = napkin_notes.Server(binary, data, free_port(), config=NAPKIN)
        try:
            server.start()
            status, _, _ = call(server, "GET", "/api/v1/push/key")
            check("the public key needs a signed-in caller", status == 401, status)
            token = sign_up(server, "rita")
            status, key, _ = call(server, "GET", "/api/v1/push/key", token=token)
            server_key = key.get("publicKey", "") if isinstance(key, dict) else ""
            check("GET /push/key: the VAPID public key, an uncompressed P-256 point", status == 200 and len(unb64url(server_key)) == 65
                  and unb64url(server_key)[0] == 4, (status, key))
            phone, gone = Phone(service, "/rita/phone"), Phone(service, "/gone/rita-old-phone")
            status, saved, _ = call(server, "PUT", "/api/v1/push/subscriptions", phone.subscription, token=token)
            check("a phone's subscription is saved", status == 200 and saved.get("device") == "Test phone" and "keys" not in saved, (status, saved))
            status, again, _ = call(server, "PUT", "/api/v1/push/subscriptions", phone.subscription, token=token)
            check("…saving it again is harmless (the same id)", status == 200 and again["id"] == saved["id"], (status, again))
            bad = dict(phone.subscription, keys={"p256dh": b64url(b"\x04" + b"\x01" * 64), "auth": phone.subscription["keys"]["auth"]})
            status, problem, _ = call(server, "PUT", "/api/v1/push/subscriptions", bad, token=token)
            check("a key that is not a P-256 point is refused, with what to send", status == 422 and "p256dh" in json.dumps(problem), (status, problem))
            status, problem, _ = call(server, "PUT", "/api/v1/push/subscriptions", dict(phone.subscription, endpoint="ftp://127.0.0.1/x"), token=token)
            check("an endpoint that is not https is refused", status == 422, (status, problem))

            status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "Take the cake out"}, token=token)
            at = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
            call(server, "PUT", "/api/v1/reminders", {"subject": f"notes/{note['id']}", "at": at, "title": "Take the cake out"}, token=token)
            got = service.wait(phone.path, seconds=30)
            check("a due reminder is pushed to the phone's endpoint", len(got) == 1, len(got))
            if got:
                problems = vapid_problems(got[0], server_key, service.origin)
                check("…with a VAPID JWT the push service accepts (ES256 by the server's key, aud = the endpoint's origin, exp ≤ 24 h), "
                      "Content-Encoding aes128gcm and a TTL", problems == [], problems)
                check("…marked urgent (Urgency: high)", got[0]["headers"].get("urgency") == "high", got[0]["headers"])
                message = phone.open(got[0])
                check("…and decrypted with the subscription's keys it says 'Reminder: <title>', opening the note",
                      message.get("title") == "Reminder: Take the cake out" and message.get("url") == f"#/notes/{note['id']}"
                      and message.get("tag") == f"reminder:notes/{note['id']}", message)
            time.sleep(3)
            check("…once", len(service.wait(phone.path, seconds=0)) == 1)

            # 410: the push service says the subscription is gone; the server deletes it.
            call(server, "PUT", "/api/v1/push/subscriptions", gone.subscription, token=token)
            status, listed, _ = call(server, "GET", "/api/v1/push/subscriptions", token=token)
            check("two phones are listed", status == 200 and len(listed["items"]) == 2, listed)
            status, sent, _ = call(server, "POST", "/api/v1/push/test", token=token)
            check("a test push: one phone took it, the one answering 410 was removed", status == 200 and sent == {"sent": 2 - 1, "removed": 1}, sent)
            status, listed, _ = call(server, "GET", "/api/v1/push/subscriptions", token=token)
            check("…410 deleted that subscription; the other stays", [i["endpoint"] for i in listed["items"]] == [phone.endpoint], listed)
            test = service.wait(phone.path, count=2, seconds=10)
            check("…the test push arrived decrypted", len(test) == 2 and phone.open(test[1]).get("title") == "Notifications are on", len(test))

            # Who is asking: another user neither sees nor deletes rita's phones.
            other = sign_up(server, "sam")
            _, theirs, _ = call(server, "GET", "/api/v1/push/subscriptions", token=other)
            status, _, _ = call(server, "DELETE", f"/api/v1/push/subscriptions?endpoint={phone.endpoint}", token=other)
            _, listed, _ = call(server, "GET", "/api/v1/push/subscriptions", token=token)
            check("another user sees none of them, and deleting by the endpoint leaves rita's in place",
                  theirs["items"] == [] and status == 204 and len(listed["items"]) == 1, (theirs, status, listed))
            status, _, _ = call(server, "DELETE", f"/api/v1/push/subscriptions?endpoint={phone.endpoint}", token=token)
            _, listed, _ = call(server, "GET", "/api/v1/push/subscriptions", token=token)
            check("rita turns this phone off: deleted", status == 204 and listed["items"] == [], listed)

            key_file = os.path.join(data, "napkin-notes.vapid-key")
            mode = stat.S_IMODE(os.stat(key_file).st_mode) if os.path.exists(key_file) else None
            check("the VAPID private key was generated into the data folder, mode 0600", mode == 0o600, oct(mode or 0))
            server.stop()
            os.environ["QUIRE_PUSH_TEST_ENDPOINTS"] = "false"
            server.start()
            _, key, _ = call(server, "GET", "/api/v1/push/key", token=token)
            check("after a restart the same key pair (phones stay subscribed)", key.get("publicKey") == server_key, key)
            status, problem, _ = call(server, "PUT", "/api/v1/push/subscriptions", phone.subscription, token=token)
            check("with allow_test_endpoints off (the default) an http:// loopback endpoint is refused", status == 422, (status, problem))
            with open(key_file) as handle:
                private = handle.read().strip()
            with open(server.log_path) as handle:
                log = handle.read()
            check("the private key is never in the server's log", private not in log and len(private) >= 40)
            server.stop()
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("push (napkin) run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
        finally:
            os.environ.pop("QUIRE_PUSH_TEST_ENDPOINTS", None)


def iremember(binary, service):
    import iremember as album
    with tempfile.TemporaryDirectory(prefix="quire-push-album-") as data:
        os.environ["QUIRE_PUSH_TEST_ENDPOINTS"] = "true"
        # The shipped config, with the daily look every 2 s instead of every minute.
        with open(IREMEMBER) as handle:
            text = handle.read()
        assert "  push: { " in text
        config = os.path.join(data, "iremember-push.yaml")
        with open(config, "w") as handle:
            handle.write(text.replace("  push: { ", "  push: { daily_check_seconds: 2, ", 1))
        server = album.Server(binary, data, free_port(), config=config)
        try:
            server.start()
            token = napkin_notes.device_account(server)
            phone = Phone(service, "/grandma/phone")
            status, _, _ = call(server, "PUT", "/api/v1/push/subscriptions", phone.subscription, token=token)
            check("iRemember: a phone subscribes", status == 200, status)
            now = datetime.datetime.now(datetime.timezone.utc)
            # A day with no photos from earlier years: nothing is sent.
            status, choice, _ = call(server, "PUT", "/api/v1/push/on-this-day", {"hour": now.hour, "timeZone": "UTC"}, token=token)
            check("the daily On this day alert at this hour (UTC)", status == 200 and choice == {"hour": now.hour, "timeZone": "UTC"}, (status, choice))
            status, bad, _ = call(server, "PUT", "/api/v1/push/on-this-day", {"hour": 24, "timeZone": "UTC"}, token=token)
            check("…an hour of 24 is refused", status == 422, (status, bad))
            quiet = service.wait(phone.path, seconds=6)
            check("…no photos from this day in earlier years: no alert", quiet == [], len(quiet))
            # Today was looked at for that account (and nothing sent); a second account has a photo taken
            # three years ago today, then chooses the hour.
            second = napkin_notes.device_account(server)
            phone2 = Phone(service, "/grandpa/phone")
            call(server, "PUT", "/api/v1/push/subscriptions", phone2.subscription, token=second)
            taken = now.replace(year=now.year - 3).strftime("%Y:%m:%d 10:00:00")
            status, photo, _ = album.upload(server, second, album.jpeg(data, "picnic.jpg", taken=taken), "notes=" + "the%20picnic%20with%20Tom")
            check("a photo taken three years ago today", status in (200, 201), (status, photo))
            call(server, "PUT", "/api/v1/push/on-this-day", {"hour": now.hour, "timeZone": "UTC"}, token=second)
            got = service.wait(phone2.path, seconds=20)
            check("at the chosen hour the phone gets one alert", len(got) == 1, len(got))
            if got:
                message = phone2.open(got[0])
                check("…'3 years ago today: the picnic with Tom', opening the home screen's On this day",
                      message.get("title") == "On this day" and message.get("body") == "3 years ago today: the picnic with Tom"
                      and message.get("url") == "#/", message)
            check("…and the other account (no such photos) still got nothing", service.wait(phone.path, seconds=0) == [])
            status, _, _ = call(server, "DELETE", "/api/v1/push/on-this-day", token=second)
            status2, _, _ = call(server, "GET", "/api/v1/push/on-this-day", token=second)
            check("turned off: 404 for the choice", status == 204 and status2 == 404, (status, status2))
            server.stop()
        except Exception as error:
            check("push (iremember) run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
        finally:
            os.environ.pop("QUIRE_PUSH_TEST_ENDPOINTS", None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    parser.add_argument("--only", choices=["napkin", "iremember"])
    args = parser.parse_args()
    service = PushService()
    binary = os.path.abspath(args.binary)
    if args.only in (None, "napkin"):
        napkin(binary, service)
    if args.only in (None, "iremember"):
        iremember(binary, service)
    failed = results.count(False)
    print(f"push acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

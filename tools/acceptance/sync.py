#!/usr/bin/env python3
"""Acceptance of sync (issue 15) against the real `quire` binary serving Napkin Notes.

Two devices of one user, each with its own cursor and a live (WebSocket) connection, as a phone
and a tablet would be: an edit queued offline and replayed merges with the other device's edit;
the same field edited on both keeps the later and returns the one it replaced; a create whose
connection dropped is retried without creating twice; a kill -9 between a write's answer and its
poke loses nothing a pull can find; another user's changes never reach a feed or a poke; a cursor
older than retention answers resync_required, and a resync converges to the server's state,
record by record. Prints one line per check and `acceptance: N passed, N failed` last.
"""
import argparse
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import time

from websockets.sync.client import connect

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import Server, call, check, free_port, sign_up  # noqa: E402

ROOT = napkin_notes.ROOT


class Device:
    """One signed-in device: its cursor, its copy of the records, and a live connection."""

    def __init__(self, server, token, name):
        self.server, self.token, self.name = server, token, name
        self.cursor = None
        self.records = {}
        self.pokes = []
        self.live = None
        self.listener = None

    def pull(self):
        """Pulls until caught up; applies each entry to the local copy. Answers the entries."""
        entries = []
        while True:
            query = f"?after={self.cursor}" if self.cursor else ""
            status, page, _ = call(self.server, "GET", "/api/v1/sync/changes" + query, token=self.token)
            if status != 200:
                return status, page
            for entry in page["items"]:
                key = (entry["kind"], entry["id"])
                if entry["deleted"]:
                    self.records.pop(key, None)
                else:
                    self.records[key] = entry["record"]
            entries += page["items"]
            self.cursor = page["nextCursor"]
            if not page["hasMore"]:
                return 200, entries

    def resync(self):
        """Pulls from the start and keeps exactly what it returns."""
        self.cursor, kept = None, {}
        while True:
            query = f"?after={self.cursor}" if self.cursor else ""
            status, page, _ = call(self.server, "GET", "/api/v1/sync/changes" + query, token=self.token)
            if status != 200:
                return status
            for entry in page["items"]:
                key = (entry["kind"], entry["id"])
                if entry["deleted"]:
                    kept.pop(key, None)
                else:
                    kept[key] = entry["record"]
            self.cursor = page["nextCursor"]
            if not page["hasMore"]:
                self.records = kept
                return 200

    def go_live(self):
        port = self.server.port
        self.live = connect(f"ws://127.0.0.1:{port}/api/v1/sync/live", open_timeout=5)
        self.live.send(json.dumps({"type": "auth", "token": self.token}))
        ready = json.loads(self.live.recv(timeout=5))
        self.listener = threading.Thread(target=self._listen, daemon=True)
        self.listener.start()
        return ready

    def _listen(self):
        try:
            for message in self.live:
                self.pokes.append((time.monotonic(), json.loads(message)))
        except Exception:  # noqa: BLE001 - the connection closed
            pass

    def wait_for_poke(self, since, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(at >= since and message.get("type") == "poke" for at, message in self.pokes):
                return True
            time.sleep(0.005)
        return False

    def close(self):
        if self.live:
            self.live.close()


def notes_by_id(server, token):
    return {note["id"]: note for note in napkin_notes.all_notes(server, token)}


def offline_edit_merges(server, token):
    a, b = Device(server, token, "A"), Device(server, token, "B")
    check("device B's live connection opens and authenticates", b.go_live() == {"type": "ready"})
    status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "Groceries", "text": "milk"}, token=token)
    a.pull()
    b.pull()
    check("both devices pulled the new note", ("notes.note", note["id"]) in a.records and ("notes.note", note["id"]) in b.records)
    # A goes offline and queues a text edit based on version 1; B renames the note meanwhile.
    queued = ({"text": "milk, eggs"}, {"If-Match": f'"{note["version"]}"', "Idempotency-Key": "a-offline-1"})
    status, renamed, _ = call(server, "PATCH", f"/api/v1/notes/{note['id']}", {"title": "Shopping"}, token=token,
                              headers={"If-Match": f'"{note["version"]}"'})
    check("B's rename is saved", status == 200 and renamed["version"] == 2, f"{status} {renamed}")
    b.pull()
    # A comes back and replays its queue.
    since = time.monotonic()
    status, merged, _ = call(server, "PATCH", f"/api/v1/notes/{note['id']}", queued[0], token=token, headers=queued[1])
    check("A's replayed edit (If-Match 1) is merged, not refused",
          status == 200 and merged["title"] == "Shopping" and merged["text"] == "milk, eggs", f"{status} {merged}")
    check("nothing was replaced (the edits touched different fields)", "replaced" not in merged, str(merged))
    poked = b.wait_for_poke(since, 1.0)
    check("B is poked", poked)
    b.pull()
    elapsed = time.monotonic() - since
    pulled = b.records.get(("notes.note", note["id"]), {})
    check("B has pulled A's change within 1 s", pulled.get("text") == "milk, eggs" and elapsed < 1.0, f"{elapsed:.3f} s, {pulled}")
    print(f"     (A's answer to B's pull: {elapsed * 1000:.0f} ms)")
    # Both edit the text: the later wins, the answer carries what it replaced.
    base = merged["version"]
    status, first, _ = call(server, "PATCH", f"/api/v1/notes/{note['id']}", {"text": "B's text"}, token=token, headers={"If-Match": f'"{base}"'})
    status, later, _ = call(server, "PATCH", f"/api/v1/notes/{note['id']}", {"text": "A's text"}, token=token, headers={"If-Match": f'"{base}"'})
    check("the later edit of the same field wins", status == 200 and later["text"] == "A's text", f"{status} {later}")
    check("its answer carries the text it replaced", later.get("replaced") == {"text": "B's text"}, str(later.get("replaced")))
    check("the title is untouched by either", later["title"] == "Shopping")
    status, history, _ = call(server, "GET", f"/api/v1/notes/{note['id']}/history", token=token)
    check("the replaced text is in the note's history", status == 200 and any(v["text"] == "B's text" for v in history["items"]),
          str([v.get("text") for v in history.get("items", [])]))
    status, restored, _ = call(server, "POST", f"/api/v1/notes/{note['id']}/history/{first['version']}/restore", token=token)
    check("restoring that version brings B's text back as a new version",
          status == 200 and restored["text"] == "B's text" and restored["version"] > later["version"], f"{status} {restored}")
    # Older than any version history holds: 412 as before.
    status, problem, _ = call(server, "PATCH", f"/api/v1/notes/{note['id']}", {"text": "x"}, token=token, headers={"If-Match": '"999"'})
    check("If-Match naming a version the note never had is 412", status == 412 and problem["code"] == "precondition_failed", f"{status}")
    a.close()
    b.close()
    return note["id"]


def dropped_connection_retry(server, token):
    before = len(napkin_notes.all_notes(server, token))
    body = json.dumps({"title": "Sent once", "text": "the answer was lost"}).encode()
    request = (f"POST /api/v1/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
               f"Content-Type: application/json\r\nIdempotency-Key: lost-answer-1\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    with socket.create_connection(("127.0.0.1", server.port)) as connection:
        connection.sendall(request)
        connection.shutdown(socket.SHUT_RDWR)  # gone before the answer
    time.sleep(0.3)
    status, note, headers = call(server, "POST", "/api/v1/notes", {"title": "Sent once", "text": "the answer was lost"}, token=token,
                                 headers={"Idempotency-Key": "lost-answer-1"})
    after = napkin_notes.all_notes(server, token)
    check("a create retried after its connection dropped counts once",
          status in (200, 201) and len(after) == before + 1 and sum(n["title"] == "Sent once" for n in after) == 1,
          f"{status}, {before} -> {len(after)}")
    check("the retry says it replayed", headers.get("Idempotent-Replayed") == "true", str(headers.get("Idempotent-Replayed")))


def other_users_never_appear(server, token):
    other = sign_up(server, "sync-mallory")
    spy = Device(server, other, "M")
    spy.go_live()
    spy.pull()
    since = time.monotonic()
    for index in range(5):
        call(server, "POST", "/api/v1/notes", {"title": f"private {index}"}, token=token)
    time.sleep(0.5)
    check("another user's writes never poke this user", not spy.wait_for_poke(since, 0.01), str(spy.pokes))
    status, entries = spy.pull()
    check("another user's changes never appear in this user's feed", status == 200 and entries == [], str(entries)[:200])
    spy.close()


def kill_between_answer_and_poke(binary, data, server, token):
    device = Device(server, token, "K")
    device.pull()
    status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "Written just before the crash"}, token=token)
    server.stop(signal.SIGKILL)
    server.start()
    status, entries = device.pull()
    check("after kill -9 right after a write's answer, a pull returns the write",
          status == 200 and any(e["id"] == note["id"] and not e["deleted"] for e in entries), str(entries)[:200])


def resync_converges(binary, workdir):
    data = os.path.join(workdir, "resync")
    os.makedirs(data)
    config = os.path.join(workdir, "resync.yaml")
    with open(napkin_notes.CONFIG) as source:
        text = source.read()
    # Deletes are kept only until the next compaction, which runs every second.
    text = text.replace("    blob_grace_seconds: ${QUIRE_BLOB_GRACE:-600}",
                        "    blob_grace_seconds: ${QUIRE_BLOB_GRACE:-600}\n    retention_days: 0\n    compact_seconds: 1")
    with open(config, "w") as target:
        target.write(text)
    server = Server(binary, data, free_port(), config=config)
    server.start()
    try:
        token = sign_up(server, "sync-resync")
        ids = [call(server, "POST", "/api/v1/notes", {"title": f"note {i}", "text": "first"}, token=token)[1]["id"] for i in range(12)]
        device = Device(server, token, "R")
        device.pull()
        check("the device holds all 12 notes", len(device.records) == 12, str(len(device.records)))
        for note_id in ids[:4]:
            call(server, "DELETE", f"/api/v1/notes/{note_id}", token=token)
        for note_id in ids[4:8]:
            call(server, "PATCH", f"/api/v1/notes/{note_id}", {"text": "edited while away"}, token=token)
        call(server, "POST", "/api/v1/notes", {"title": "new while away"}, token=token)
        time.sleep(2.5)  # two compactions: the deletes' tombstones are gone
        status, problem = device.pull()
        check("a cursor older than retention answers 410 resync_required",
              status == 410 and problem.get("code") == "resync_required", f"{status} {problem}")
        check("a resync (a pull from the start) succeeds", device.resync() == 200)
        server_notes = notes_by_id(server, token)
        local = {key[1]: record for key, record in device.records.items() if key[0] == "notes.note"}
        fields = ("version", "title", "text", "date", "position")
        same = set(local) == set(server_notes) and all(
            all(local[i].get(f) == server_notes[i].get(f) for f in fields) for i in server_notes)
        check("the resync converges to exactly the server's notes, record by record", same,
              f"local {sorted(local)} server {sorted(server_notes)}")
    finally:
        server.stop()


def close_code(live, timeout):
    """The close code the server ends a live connection with (None if it stays open that long)."""
    from websockets.exceptions import ConnectionClosed
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            live.recv(timeout=max(0.05, deadline - time.monotonic()))
    except TimeoutError:
        return None
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    return None


def unmasked_close_code(port, timeout=5):
    """Opens a live connection by hand and sends one unmasked text frame, as no browser would
    (RFC 6455 5.1: a client masks every frame); answers the close code the server sends back."""
    import base64
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        raw.sendall((f"GET /api/v1/sync/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += raw.recv(4096)
        if not head.startswith(b"HTTP/1.1 101"):
            return None
        payload = b'{"type":"auth","token":"x"}'
        raw.sendall(bytes([0x81, len(payload)]) + payload)
        data = head.split(b"\r\n\r\n", 1)[1]
        deadline = time.monotonic() + timeout
        while len(data) < 4 and time.monotonic() < deadline:
            chunk = raw.recv(4096)
            if not chunk:
                break
            data += chunk
        return int.from_bytes(data[2:4], "big") if len(data) >= 4 and data[0] == 0x88 else None
    finally:
        raw.close()


def live_limits(binary, workdir):
    """The live endpoint's rules: authenticate in time, with a valid token, within the per-user
    bound; a connection ends when its token expires unless the client renews it."""
    data = os.path.join(workdir, "limits")
    os.makedirs(data)
    config = os.path.join(workdir, "limits.yaml")
    with open(napkin_notes.CONFIG) as source:
        text = source.read()
    text = text.replace("  sync: {}", "  sync: { max_connections_per_user: 2, auth_timeout_seconds: 1 }")
    text = text.replace("    methods: [password, device]", "    methods: [password, device]\n    access_token_ttl: 1m")
    with open(config, "w") as target:
        target.write(text)
    server = Server(binary, data, free_port(), config=config)
    server.start()
    url = f"ws://127.0.0.1:{server.port}/api/v1/sync/live"
    try:
        token = sign_up(server, "sync-limits")
        silent = connect(url, open_timeout=5)
        check("a connection that does not authenticate in time is closed with 4401", close_code(silent, 5) == 4401)
        forged = connect(url, open_timeout=5)
        forged.send(json.dumps({"type": "auth", "token": token[:-4] + "AAAA"}))
        check("a forged token is closed with 4401", close_code(forged, 5) == 4401)
        garbled = connect(url, open_timeout=5)
        garbled.send("hello")
        check("a message that is not an auth is closed with 4400", close_code(garbled, 5) == 4400)
        code = unmasked_close_code(server.port)
        check("an unmasked client frame is closed with 1002, protocol error (RFC 6455 5.1)", code == 1002, code)
        kept, renewed = connect(url, open_timeout=5), connect(url, open_timeout=5)
        for live in (kept, renewed):
            live.send(json.dumps({"type": "auth", "token": token}))
            live.recv(timeout=5)
        third = connect(url, open_timeout=5)
        third.send(json.dumps({"type": "auth", "token": token}))
        check("a third connection over max_connections_per_user (2) is closed with 4429", close_code(third, 5) == 4429)
        # Half way through the token's minute, one connection renews with a fresh token.
        time.sleep(30)
        _, session, _ = call(server, "POST", "/api/v1/auth/login", {"username": "sync-limits", "password": "correct horse battery"})
        renewed.send(json.dumps({"type": "auth", "token": session["access_token"]}))
        check("the connection whose token expires is closed with 4403", close_code(kept, 45) == 4403)
        check("…while the one that renewed its token stays open", close_code(renewed, 2) is None)
        renewed.close()
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-sync-") as workdir:
        data = os.path.join(workdir, "data")
        os.makedirs(data)
        server = Server(args.binary, data, free_port())
        server.start()
        try:
            token = sign_up(server, "sync-ann")
            offline_edit_merges(server, token)
            dropped_connection_retry(server, token)
            other_users_never_appear(server, token)
            kill_between_answer_and_poke(args.binary, data, server, token)
        finally:
            server.stop()
        resync_converges(args.binary, workdir)
        live_limits(args.binary, workdir)
    passed = sum(napkin_notes.results)
    failed = len(napkin_notes.results) - passed
    print(f"acceptance: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

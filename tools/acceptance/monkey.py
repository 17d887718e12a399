#!/usr/bin/env python3
"""A seeded monkey: two phones of one user, each app, random actions through the UI at once.

For each app (Napkin Notes, Foreign Note, iRemember, AR Notebook) a server with the shipped config,
one Chromium and two phones (browser contexts) of the same user: signed up on A, signed in on B (for
iRemember, B opens the album with A's code). Then actions chosen at random, the phones taking turns,
as a person does them, controls found by their labels and roles: create a record, open one, type in
a field, add a photo, draw on it, delete (confirming), reload, go back, go offline and online, turn
the phone. An action whose control is not on the screen navigates there first, or is skipped.

Checked after every step, on both phones: no uncaught error, no console error but failed network
requests (while offline, or from a request the server refused), no 5xx, and no "not here any
more" about a record the server has. At the end, both online and settled ("Saved"), reloaded: each
phone shows exactly the server's records, and each field the monkey typed holds the value of the
last write the server acknowledged; the last value each phone typed was acknowledged (not lost).

Also checked once after signing in: AR Notebook's welcome is drawn once (not again under the finger
that taps "Open my notebook"), and a new access token (a refresh) leaves the screen as it is.

A failure prints the seed, the app, the step and the last actions, saves a screenshot under
.build/monkey/, and prints the command that replays it (`--seed N --app X --actions K`: the same
choices; what the screen offers decides the rest, so a replay is close, not exact).

The default run keeps to --seconds (180) in total, each app's server, sign-ins and final checks
included (RESERVE below): the bounded run of tools/test. A longer one by hand: --seconds 1200.

    python3 tools/acceptance/monkey.py --binary .build/debug/quire [--app napkin-notes|foreign-note|iremember|ar-notebook|all]
                                       [--seed N] [--actions N] [--seconds S]

Prints one line per check and `monkey: N passed, N failed` last; exit 1 on failures.
"""
import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (Server, call, check)
import webwalk  # noqa: E402  (PHONE, chromium_path, settled)
from napkin_notes import call, check, free_port, results  # noqa: E402

from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

ROOT = napkin_notes.ROOT
APPS = ["napkin-notes", "foreign-note", "iremember", "ar-notebook"]
SHOTS = os.path.join(ROOT, ".build", "monkey")
PORTRAIT, LANDSCAPE = {"width": 390, "height": 844}, {"width": 844, "height": 390}
FIND = 3_000          # ms to find a control: a missing one does not stall the run
GONE = re.compile(r"not here any more|not in your album|not there any more")
WORDS = ["milk", "eggs", "lecture", "idea", "train", "Tom", "beach", "crème", "brûlée", "bonjour", "Zürich", "call mum",
         "room 101", "naïve", "日本", "emoji 🙂", "a longer line of text", "", "  spaced  ", "x"]
NETWORK = re.compile(r"Failed to load resource|net::ERR_|WebSocket connection to .* failed|ERR_INTERNET_DISCONNECTED|Failed to fetch")
PASSWORD = "a good password"
HERE = {"latitude": 51.5007, "longitude": -0.1246, "accuracy": 20}


class Phone:
    def __init__(self, monkey, name, context, page):
        self.monkey, self.name, self.context, self.page = monkey, name, context, page
        self.offline = False
        self.changed_network = 0.0   # when it last went on or off line
        self.landscape = False
        self.problems = []           # (kind, text) seen since the last check
        page.set_default_timeout(FIND)
        page.on("pageerror", lambda error: self.problems.append(("uncaught error", str(error)[:300])))
        page.on("console", self.console)
        page.on("response", self.response)

    def console(self, message):
        if message.type != "error":
            return
        text = message.text
        if NETWORK.search(text):
            # A request that failed: the network was off (or just switched), or the server refused it
            # (a 4xx the screen handles; 5xx are caught from the responses).
            return
        self.problems.append(("console error", text[:300]))

    def response(self, response):
        try:
            status, request = response.status, response.request
            path = urllib.parse.urlsplit(response.url).path
            if status >= 500:
                self.problems.append(("server error", f"{request.method} {path} → {status}"))
            if not path.startswith("/api/") or request.method == "GET":
                return
            body = None
            try:
                body = request.post_data_json if request.post_data and "json" in (request.headers.get("content-type") or "") else None
            except Exception:
                body = None
            answer = None
            if 200 <= status < 300 and "json" in (response.headers.get("content-type") or ""):
                try:
                    answer = response.json()
                except Exception:
                    answer = None
            self.monkey.writes.append({"phone": self.name, "method": request.method, "path": path, "status": status,
                                       "body": body, "answer": answer, "step": self.monkey.step})
        except Exception:
            pass

    def hash(self):
        try:
            return urllib.parse.unquote(urllib.parse.urlsplit(self.page.url).fragment)
        except Exception:
            return ""

    def resolved(self, record_id):
        """The server's id for a record this phone created offline (its sync's own map), or the id."""
        if not record_id.startswith("local:"):
            return record_id
        try:
            return self.page.evaluate("id => document.querySelector('quire-app')?.sync?.resolved.get(id) ?? id", record_id)
        except PlaywrightError:
            return record_id

    def status(self):
        try:
            return self.page.text_content("quire-status", timeout=1_000) or ""
        except PlaywrightError:
            return ""


class Monkey:
    """One app's run: the server, two phones, the actions and the checks."""
    name = ""
    when = ""           # "as it is" or "reloaded", in the final checks' names          # what a "gone" screen's id is checked against: a function id → exists on server
    debounce = 0.0      # seconds an editor waits before it queues what was typed

    def __init__(self, args, seed, data, browser, deadline):
        self.args, self.seed, self.data, self.browser, self.deadline = args, seed, data, browser, deadline
        self.rng = random.Random(seed)
        self.step = 0
        self.walked = 0                  # the steps of the walk (a replay's --actions)
        self.log = collections.deque(maxlen=10)
        self.history = []                # every step's line, written to .build/monkey/ when something failed
        self.writes = []                 # every non-GET API request answered, from both phones
        self.typed = {}                  # (phone, record id, field) → (value, step)
        self.deleted = set()             # ids deleted by either phone (raw and resolved)
        self.drawn = collections.Counter()  # record id → strokes drawn on it by either phone
        self.failures = 0
        self.reported = set()
        self.skipped = collections.Counter()
        self.performed = collections.Counter()
        self.server = None
        self.token = None
        self.phones = []
        self.jpegs = []

    # The run ------------------------------------------------------------------------------------

    def run(self):
        self.server = self.make_server()
        self.server.start()
        try:
            self.jpegs = [self.jpeg(i) for i in range(3)]
            a = self.new_phone("A")
            b = self.new_phone("B")
            self.phones = [a, b]
            self.sign_up(a)
            self.token = self.token_of(a)
            self.sign_in_second(a, b)
            for phone in self.phones:
                # As a person who has used the app before: the service worker keeps the app for offline.
                phone.page.evaluate("navigator.serviceWorker.ready.then(() => true)")
                phone.page.reload()
                self.wait_ready(phone)
            check(f"[{self.name}] two phones of one user signed in (seed {self.seed})", True)
            self.refresh_keeps_screen(a)
            self.deadline = max(self.deadline, time.time() + 10)  # a slow start still walks a little
            self.walk()
            self.walked = self.step
            self.finish()
        except Exception as error:  # a crash of the harness: a failed check with its reason and the page
            self.walked = self.walked or self.step
            self.fail("the monkey's run", f"{error!r}\n{traceback.format_exc(limit=4)}", self.phones[-1] if self.phones else None)
        finally:
            for phone in self.phones:
                try:
                    phone.context.close()
                except Exception:
                    pass
            self.server.stop()
        if self.failures:
            os.makedirs(SHOTS, exist_ok=True)
            path = os.path.join(SHOTS, f"{self.name}-seed{self.args.seed}.log")
            with open(path, "w") as handle:
                handle.write("\n".join(self.history + list(self.log)[-3:]) + "\n")
            print(f"     [{self.name}] every step of this run: {path}", flush=True)
            print(f"     [{self.name}] FAILED with seed {self.args.seed}; replay: {self.replay(self.walked)}", flush=True)
            replays.append(self.replay(self.walked))
        print(f"     [{self.name}] {self.step} steps; done {dict(self.performed)}; skipped {dict(self.skipped)}", flush=True)

    def refresh_keeps_screen(self, phone):
        """A new access token (every 15 minutes, or after a 401) is the same person signed in: the
        screen stays as it is, not drawn again under a finger (nor the sync started again)."""
        page = phone.page
        page.evaluate("() => { window.__screen = document.querySelector('quire-app > :not(header)'); }")
        page.evaluate("() => document.querySelector('quire-app').api.refresh(true)")
        page.wait_for_timeout(1_500)
        kept = page.evaluate("() => Boolean(window.__screen?.isConnected) && document.querySelector('quire-app').api.session?.accessToken")
        what = f"phone {phone.name}: a new access token leaves the screen as it is (not drawn again)"
        if kept:
            check(f"[{self.name}] {what}", True)
        else:
            self.fail(what, "the screen was replaced after the token's refresh" if kept is False else "no session after the refresh", phone)

    def walk(self):
        limit = self.args.actions if self.args.actions else 10 ** 9
        while self.step < limit and time.time() < self.deadline:
            self.step += 1
            phone = self.phones[(self.step - 1) % 2]
            # Three draws each step whatever happens, so the sequence of choices replays.
            choice, pick, word = self.rng.random(), self.rng.random(), self.rng.choice(WORDS)
            actions = self.actions() + [("reload", 1, self.reload), ("back", 1, self.back), ("OK a notice", 1, self.read_notice),
                                        ("network", 1, self.network), ("rotate", 1, self.rotate)]
            total = sum(weight for _, weight, _ in actions)
            at = choice * total
            for action_name, weight, action in actions:
                at -= weight
                if at < 0:
                    break
            self.resolve_all()
            label = f"{self.step}: {phone.name} {action_name}"
            started = time.time()
            try:
                said = action(phone, pick, word)
                if said is False:
                    self.skipped[action_name] += 1
                    label += " (skipped: not on this screen)"
                else:
                    self.performed[action_name] += 1
                    if said:
                        label += f" {said}"
            except PlaywrightTimeout as error:
                self.skipped[action_name] += 1
                label += f" (skipped: {str(error).splitlines()[0][:100]})"
                if self.args.verbose:
                    os.makedirs(SHOTS, exist_ok=True)
                    try:
                        phone.page.screenshot(path=os.path.join(SHOTS, f"skip-{self.name}-{self.step}-{phone.name}.png"), timeout=3_000)
                    except PlaywrightError:
                        pass
            except PlaywrightError as error:
                label += f" (error: {str(error).splitlines()[0][:160]})"
                self.log.append(label)
                self.fail(f"{action_name} on phone {phone.name}", str(error).splitlines()[0][:300], phone)
                continue
            try:
                notices = phone.page.locator("quire-app .notice").all_inner_texts()
            except PlaywrightError:
                notices = []
            if notices:
                label += f" (notice: {notices[0].splitlines()[0][:140]})"
            closed = self.close_dialogs(phone)
            if closed:
                label += f" (left a dialog open: {closed})"
            label += f" [{time.time() - started:.1f}s; {phone.hash() or '/'}; {phone.status()}]"
            self.log.append(label)
            self.history.append(label)
            if self.args.verbose:
                print("     " + label, flush=True)
            self.resolve_all()
            self.invariants()

    # Checks -------------------------------------------------------------------------------------

    def fail(self, what, detail, phone=None):
        key = (what, str(detail)[:120])
        if key in self.reported:
            return
        self.reported.add(key)
        self.failures += 1
        shot = ""
        if phone is not None:
            os.makedirs(SHOTS, exist_ok=True)
            shot = os.path.join(SHOTS, f"{self.name}-seed{self.args.seed}-step{self.step}-{phone.name}.png")
            try:
                phone.page.screenshot(path=shot, timeout=5_000)
            except Exception:
                shot = "(no screenshot: the page did not answer)"
        check(f"[{self.name}] {what}", False,
              f"{detail}\n       replay: {self.replay()} (this app's seed {self.seed}), step {self.step}"
              + (f"; screenshot {shot}" if shot else "")
              + "\n       last actions:\n" + "\n".join("         " + line for line in self.log))

    def replay(self, steps=None):
        """The command that walks this app again with the same choices (`steps` of them)."""
        binary = os.path.relpath(os.path.abspath(self.args.binary), ROOT) if os.path.abspath(self.args.binary).startswith(ROOT) else self.args.binary
        return (f"python3 tools/acceptance/monkey.py --binary {binary} --app {self.name} --seed {self.args.seed}"
                + (f" --actions {steps}" if steps else ""))

    def invariants(self):
        for phone in self.phones:
            problems, phone.problems = phone.problems, []
            for kind, text in problems:
                self.fail(f"no {kind} on phone {phone.name}", text, phone)
            try:
                shown = phone.page.locator("main").first.inner_text(timeout=1_000)
            except PlaywrightError:
                continue
            found = GONE.search(shown)
            if not found:
                continue
            record = self.screen_record(phone)
            if not record:
                continue
            real = phone.resolved(record)
            if real.startswith("local:") or record in self.deleted or real in self.deleted:
                continue
            if self.exists(real):
                self.fail(f"no “{found.group(0)}” on phone {phone.name} about a record the server has",
                          f"{phone.hash()} shows “{found.group(0)}” but the server has {real}", phone)

    def resolve_all(self):
        """Typed values and deletes keyed by a local id move to the server's id once a phone knows it."""
        for phone in self.phones:
            for key in [k for k in self.typed if k[0] == phone.name and k[1].startswith("local:")]:
                real = phone.resolved(key[1])
                if real != key[1]:
                    value = self.typed.pop(key)
                    new = (key[0], real, key[2])
                    if new not in self.typed or self.typed[new][1] < value[1]:
                        self.typed[new] = value
            for drawn in [d for d in self.drawn if d.startswith("local:")]:
                real = phone.resolved(drawn)
                if real != drawn:
                    self.drawn[real] += self.drawn.pop(drawn)
            for gone in [g for g in self.deleted if g.startswith("local:")]:
                real = phone.resolved(gone)
                if real != gone:
                    self.deleted.add(real)

    def finish(self):
        """Both online, settled, reloaded: both show exactly the server's records, with their values."""
        self.step += 1
        self.log.append(f"{self.step}: the end: both phones online, settled, reloaded")
        for phone in self.phones:
            if phone.offline:
                phone.context.set_offline(False)
                phone.offline = False
                phone.changed_network = time.time()
            if phone.landscape:
                phone.page.set_viewport_size(PORTRAIT)
                phone.landscape = False
        for phone in self.phones:
            self.leave_editors(phone)
        for phone in self.phones:
            try:
                said = self.settle(phone, 20_000)
                if said:
                    self.log.append(f"   phone {phone.name} said {said}")
            except PlaywrightError:
                self.fail(f"phone {phone.name} says “Saved” within 20 s of going online", f"it says “{phone.status()}”; {self.outbox(phone)}", phone)
        time.sleep(1.5)  # the sync pokes of the last writes reach the other phone
        self.resolve_all()
        for phone in self.phones:
            try:
                self.settle(phone, 20_000)
            except PlaywrightError:
                pass
        self.resolve_all()
        self.invariants()
        # As they are (a sync's pokes, no reload): what each shows now, the screen it is on first.
        self.when = "as it is"
        server = self.server_records()
        for phone in self.phones:
            self.compare(phone, server)
        for phone in self.phones:
            phone.page.reload()
            self.wait_ready(phone)
        for phone in self.phones:
            try:
                self.settle(phone, 20_000)
            except PlaywrightError:
                self.fail(f"phone {phone.name} says “Saved” after its reload", f"it says “{phone.status()}”; {self.outbox(phone)}", phone)
        self.invariants()
        self.when = "reloaded"
        server = self.server_records()
        for phone in self.phones:
            self.compare(phone, server)
        self.acknowledged(server)
        self.lost_edits(server)
        self.strokes_kept(server)
        if not self.failures:
            check(f"[{self.name}] {self.step - 1} random steps on two phones: no failure "
                  f"({len(server)} records at the end)", True)

    def acknowledged(self, server):
        """Each record's fields hold the last write the server acknowledged (the highest version answered)."""
        last = {}
        for write in self.writes:
            record = self.record_in(write)
            if not isinstance(record, dict) or "id" not in record or not isinstance(record.get("version"), int):
                continue
            if record["id"] not in last or last[record["id"]]["version"] < record["version"]:
                last[record["id"]] = record
        wrong = []
        for record_id, record in server.items():
            seen = last.get(record_id)
            if not seen or seen["version"] != record.get("version"):
                continue  # a write whose answer no phone read (a reload mid-request): nothing to compare
            for field in self.fields:
                if field in seen and seen[field] != record.get(field):
                    wrong.append((record_id, field, seen[field], record.get(field)))
        if wrong:
            self.fail("every field holds the value of the last write the server acknowledged", wrong[:5])
        else:
            check(f"[{self.name}] every record's fields hold the last acknowledged write", True)

    def lost_edits(self, server):
        """The last value each phone typed into a field of a record that still exists reached the server."""
        lost = []
        for (phone, record_id, field), (value, step) in sorted(self.typed.items(), key=lambda item: item[1][1]):
            if record_id.startswith("local:") or record_id in self.deleted or record_id not in server:
                continue
            sent = [w for w in self.writes if w["phone"] == phone and 200 <= w["status"] < 300 and w["step"] >= step
                    and (record_id in w["path"] or (self.record_in(w) or {}).get("id") == record_id)
                    and isinstance(w["body"], dict) and self.same(field, w["body"].get(field), value)]
            if not sent:
                lost.append(f"phone {phone} typed {value!r} into the {field} of {record_id} at step {step}; "
                            f"the server has {server[record_id].get(field)!r}")
        if lost:
            self.fail("the last value each phone typed into a field reached the server", "\n       ".join(lost[:6]))
        else:
            check(f"[{self.name}] the last value each phone typed into each field reached the server", True)

    drawing_path = None

    def strokes_kept(self, server):
        """Every stroke drawn on a record the server still has is in its drawing (the monkey never erases)."""
        if not self.drawing_path:
            return
        lost = []
        for record_id, count in self.drawn.items():
            if record_id.startswith("local:") or record_id not in server:
                continue
            kept = self.strokes(self.drawing_path.format(id=record_id))
            if kept is not None and kept < count:
                lost.append(f"{record_id}: {count} strokes drawn, the server keeps {kept}")
        if lost:
            self.fail("every stroke drawn on the two phones is in the drawing the server keeps", "; ".join(lost[:6]))
        elif self.drawn:
            check(f"[{self.name}] every stroke drawn on the two phones is in the drawing the server keeps ({sum(self.drawn.values())})", True)

    def same(self, field, sent, typed):
        return sent == typed

    def record_in(self, write):
        return write["answer"]

    # Common actions -----------------------------------------------------------------------------

    def reload(self, phone, pick, word):
        phone.page.reload()
        self.wait_ready(phone)

    def back(self, phone, pick, word):
        before = phone.page.url
        phone.page.go_back(timeout=FIND)
        if phone.page.url == before or not phone.page.url.startswith(self.server.base):
            # Back past the app (the sign-in's page): forward again, as a person would.
            phone.page.goto(self.server.base + "/")
            self.wait_ready(phone)
            return "(left the app: opened it again)"
        phone.page.wait_for_timeout(150)

    def network(self, phone, pick, word):
        phone.offline = not phone.offline
        phone.context.set_offline(phone.offline)
        phone.changed_network = time.time()
        return "offline" if phone.offline else "online"

    def rotate(self, phone, pick, word):
        phone.landscape = not phone.landscape
        phone.page.set_viewport_size(LANDSCAPE if phone.landscape else PORTRAIT)
        return "landscape" if phone.landscape else "portrait"

    # Helpers ------------------------------------------------------------------------------------

    def new_phone(self, name, **options):
        context = self.browser.new_context(base_url=self.server.base, **webwalk.PHONE, **options)
        page = context.new_page()
        return Phone(self, name, context, page)

    def token_of(self, phone):
        return phone.page.evaluate("JSON.parse(localStorage.getItem('quire.session')).accessToken")

    def api(self, method, path, body=None):
        status, answer, _ = call(self.server, method, path, body, token=self.token)
        if status == 401:
            login = call(self.server, "POST", "/api/v1/auth/login", {"username": self.user, "password": PASSWORD})[1]
            self.token = login["access_token"]
            status, answer, _ = call(self.server, method, path, body, token=self.token)
        return status, answer

    def jpeg(self, index):
        path = os.path.join(self.data, f"photo{index}.jpg")
        subprocess.run(["vips", "black", path + ".v", "160", "120", "--bands", "3"], check=True)
        subprocess.run(["vips", "linear", path + ".v", path, "1 1 1", f"{60 * index + 40} 120 {200 - 50 * index}", "--uchar"], check=True)
        return path

    def config(self):
        """The app's shipped YAML (its file is named as the app)."""
        return os.path.join(ROOT, "config", "apps", f"{self.name}.yaml")

    def make_server(self):
        return napkin_notes.Server(os.path.abspath(self.args.binary), self.data, free_port(), config=self.config())

    def sign_up(self, phone):
        self.password_sign_in(phone, create=True)
        self.signed_in(phone)

    def sign_in_second(self, a, b):
        self.password_sign_in(b, create=False)
        self.signed_in(b)

    def signed_in(self, phone):
        """What a phone does after signing in, before it is ready for actions."""
        self.wait_ready(phone)

    def password_sign_in(self, phone, create):
        page = phone.page
        page.goto("/")
        page.get_by_label("User name").fill(self.user, timeout=15_000)
        page.get_by_label("Password").fill(PASSWORD)
        if create:
            page.get_by_role("button", name="Create an account").click()
        else:
            page.get_by_role("button", name="Sign in").click()

    def visible(self, locator):
        try:
            return locator.first.is_visible()
        except PlaywrightError:
            return False

    def settle(self, phone, timeout):
        """Waits for "Saved"; "Not saved" (a write the server refused) is read and OK'd first, as a person
        does. Answers what the phone said."""
        page = phone.page
        page.wait_for_function("() => ['Saved', 'Not saved'].includes(document.querySelector('quire-status')?.textContent)", timeout=timeout)
        said = self.dismiss(phone) if phone.status() == "Not saved" else []
        webwalk.settled(page, 5_000)
        return said

    def dismiss(self, phone):
        """The notices showing (a refusal, what another device's edit replaced): read, then OK. A
        notice holding kept work (its way back and Discard, no OK) stays: it comes first, and is
        what a person keeps until they choose."""
        said = []
        notices = phone.page.locator("quire-app .notice").filter(has=phone.page.get_by_role("button", name="OK", exact=True))
        for _ in range(5):
            if not notices.count():
                break
            said.append(notices.first.inner_text(timeout=1_000).replace("\n", " ")[:200])
            notices.first.get_by_role("button", name="OK").click(timeout=1_000)
        return said

    def read_notice(self, phone, pick, word):
        said = self.dismiss(phone)
        return f"said {said}" if said else False

    def outbox(self, phone):
        """What a phone that does not say "Saved" still holds (its outbox's first writes), and what the server refused it."""
        try:
            waiting = phone.page.evaluate("() => (document.querySelector('quire-app')?.sync?.writes ?? []).slice(0, 4)"
                                          ".map(w => `${w.method} ${w.path} (${w.kind} ${w.id}, ${w.attempts} attempts)`)")
        except PlaywrightError:
            waiting = "(unknown)"
        refused = [f"step {w['step']}: {w['method']} {w['path']} → {w['status']}" for w in self.writes
                   if w["phone"] == phone.name and 400 <= w["status"] < 500][-4:]
        return f"its outbox starts {waiting}; the server refused it {refused}"

    def close_dialogs(self, phone):
        """A dialog still open after an action (a refusal said in it): cancelled, as a person would."""
        dialog = phone.page.locator("dialog[open]")
        try:
            if not dialog.count():
                return None
            said = dialog.first.inner_text(timeout=1_000).replace("\n", " ")[:120]
            cancel = dialog.first.get_by_role("button", name="Cancel")
            if cancel.count():
                cancel.first.click(timeout=1_000)
            else:
                phone.page.keyboard.press("Escape")
            return said
        except PlaywrightError:
            return "(could not close it)"

    def confirm_dialog(self, phone, button="Delete"):
        phone.page.get_by_role("dialog").get_by_role("button", name=button, exact=True).click()

    def draw_on(self, page, canvas):
        """One stroke across the visible part of the pad (turned, the pad may be taller than the
        screen). Answers whether the pad took it (its drawing has one more stroke)."""
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        view = page.viewport_size
        if not box or not view:
            raise PlaywrightTimeout("no canvas to draw on")
        top, bottom = max(box["y"], 0) + 10, min(box["y"] + box["height"], view["height"]) - 10
        if bottom - top < 20:
            raise PlaywrightTimeout("the canvas is not on the screen")
        count = "() => document.querySelector('drawing-pad')?.drawing?.strokes?.length ?? -1"
        before = page.evaluate(count)
        y = top + (bottom - top) * (0.2 + 0.6 * random.Random(self.step).random())
        page.mouse.move(box["x"] + 20, y)
        page.mouse.down()
        for step in range(1, 8):
            page.mouse.move(box["x"] + 20 + step * min(20, (box["width"] - 40) / 8), y + (step % 3) * 5)
        page.mouse.up()
        return page.evaluate(count) == before + 1

    def failed_check(self, phone):
        self.failures += 1
        os.makedirs(SHOTS, exist_ok=True)
        shot = os.path.join(SHOTS, f"{self.name}-seed{self.args.seed}-end-{self.when.replace(' ', '-')}-{phone.name}.png")
        phone.page.screenshot(path=shot)
        print(f"       replay: {self.replay()} (this app's seed {self.seed}); screenshot {shot}\n"
              "       last actions:\n" + "\n".join("         " + line for line in self.log), flush=True)

    def screen_record(self, phone):
        return None

    def pad_shows_server(self, phone, record, path):
        """A drawing pad just opened, online, with nothing of this phone's waiting for it, shows the server's
        drawing (its strokes, counted; the monkey never erases). Answers the strokes shown."""
        real = phone.resolved(record)
        page = phone.page
        before = self.strokes(path.format(id=real)) if not real.startswith("local:") else None
        page.wait_for_timeout(400)  # the pad loads its drawing
        shown = page.evaluate("() => document.querySelector('drawing-pad')?.drawing?.strokes?.length ?? -1")
        if before is None or phone.offline or time.time() - phone.changed_network < 3:
            return shown
        waiting = page.evaluate("id => (document.querySelector('quire-app')?.sync?.writes ?? []).some(w => w.id === id || w.path.includes(id))", real)
        after = self.strokes(path.format(id=real))
        if not waiting and before == after and shown != after:
            self.fail(f"phone {phone.name}: a drawing opened online shows the server's drawing",
                      f"{real}: the pad shows {shown} strokes, the server has {after} (and had them before it opened)", phone)
        return shown

    def strokes(self, path):
        status, drawing = self.api("GET", path)
        return len(drawing.get("strokes", [])) if status == 200 and isinstance(drawing, dict) else None

    def leave_editors(self, phone):
        pass


# Napkin Notes ----------------------------------------------------------------------------------------

class Napkin(Monkey):
    name = "napkin-notes"
    user = "monkey-ada"
    fields = ("title", "text")
    drawing_path = "/api/v1/notes/{id}/drawing"
    debounce = 0.5

    def wait_ready(self, phone):
        phone.page.wait_for_selector("notes-list h1, note-editor main, note-back main", timeout=15_000)

    def screen(self, phone):
        parts = phone.hash().lstrip("/").split("/")
        if parts[0] == "notes" and len(parts) >= 3 and parts[2] == "back":
            return "back", parts[1]
        if parts[0] == "notes" and len(parts) >= 2 and parts[1]:
            return "editor", parts[1]
        return "list", None

    def screen_record(self, phone):
        return self.screen(phone)[1]

    def exists(self, record_id):
        return self.api("GET", f"/api/v1/notes/{urllib.parse.quote(record_id)}")[0] == 200

    def actions(self):
        return [("new note", 3, self.new_note), ("open a note", 4, self.open_note), ("type the title", 4, self.type_title),
                ("type the text", 4, self.type_text), ("add a photo", 1, self.add_photo), ("draw on the back", 2, self.draw),
                ("delete the note", 1, self.delete), ("to the list", 2, self.to_list), ("move a note", 1, self.move)]

    def note_deleted(self, phone, pick):
        """The open note was deleted on the other phone: the editor says so ("Note deleted") and keeps
        what was typed here. A person keeps it as a new note or lets it go; both are theirs to choose.
        Answers what was chosen, or None when the editor is not saying that."""
        page = phone.page
        if self.screen(phone)[0] != "editor" or not self.visible(page.get_by_role("heading", name="Note deleted")):
            return None
        record = self.screen(phone)[1]
        self.deleted.add(record)
        self.deleted.add(phone.resolved(record))
        keep = page.get_by_role("button", name="Keep my text as a new note")
        if self.visible(keep) and pick < 0.5:
            # What the card shows is what the new note gets (textContent: spaces as typed).
            title, text = page.evaluate("() => [document.querySelector('.kept-text strong')?.textContent ?? '',"
                                        " document.querySelector('.kept-text .pre-wrap')?.textContent ?? '']")
            keep.click()
            page.wait_for_function("old => !location.hash.includes(old)", arg=record)
            page.get_by_label("Title", exact=True).wait_for()
            added = self.screen(phone)[1]
            self.typed[(phone.name, added, "title")] = (title, self.step)
            self.typed[(phone.name, added, "text")] = (text, self.step)
            self.log.append(f"   phone {phone.name}: {record} was deleted on the other phone (said); kept as {added}")
            return added
        page.get_by_role("link", name=re.compile("^(Let it go|Back to the notes)$")).click()
        page.get_by_role("heading", name="Notes").wait_for()
        self.log.append(f"   phone {phone.name}: {record} was deleted on the other phone (said); let it go")
        return "let go"

    def to_list(self, phone, pick=0, word=""):
        page = phone.page
        self.note_deleted(phone, pick)
        where, _ = self.screen(phone)
        if where == "back":
            page.get_by_role("link", name="Flip back").click()
            page.get_by_label("Title", exact=True).wait_for()
        if self.screen(phone)[0] == "editor":
            page.get_by_role("link", name="Back to the notes").click()
        page.get_by_role("heading", name="Notes").wait_for()

    def to_editor(self, phone, pick):
        """On a note's front: where it is, from its back, or a note opened from the list."""
        self.note_deleted(phone, pick)
        where, record = self.screen(phone)
        if where == "back":
            phone.page.get_by_role("link", name="Flip back").click()
            phone.page.get_by_label("Title", exact=True).wait_for()
            return self.screen(phone)[1]
        if where == "editor":
            phone.page.get_by_label("Title", exact=True).wait_for()
            return record
        return self.open_note(phone, pick, "") and self.screen(phone)[1]

    def new_note(self, phone, pick, word):
        if self.screen(phone)[0] != "list":
            self.to_list(phone)
        phone.page.get_by_role("button", name="New note").click()
        phone.page.get_by_label("Title", exact=True).wait_for()
        # A person makes a note to write in it: a new note left untouched is not kept (the app
        # deletes it on leaving), so the monkey writes its word first, as a title.
        phone.page.get_by_label("Title", exact=True).fill(word or "note")
        return self.screen(phone)[1]

    def open_note(self, phone, pick, word):
        if self.screen(phone)[0] != "list":
            self.to_list(phone)
        notes = phone.page.locator("li.note").get_by_role("link")
        count = notes.count()
        if not count:
            # No note yet: a person writes one first.
            return self.new_note(phone, pick, word)
        # The first few (the newest): the two phones meet on the same notes.
        target = notes.nth(int(pick * min(count, 4)))
        shown = target.inner_text()
        target.click()
        phone.page.get_by_label("Title", exact=True).wait_for()
        return f"“{shown.splitlines()[0] if shown else ''}” {self.screen(phone)[1]}"

    def type_field(self, phone, pick, word, label, field):
        record = self.to_editor(phone, pick)
        if not record:
            return False
        value = f"{word} {self.step}".strip()
        phone.page.get_by_label(label, exact=True).fill(value)
        self.typed[(phone.name, record, field)] = (value, self.step)
        return f"{value!r} into {record}"

    def type_title(self, phone, pick, word):
        return self.type_field(phone, pick, word, "Title", "title")

    def type_text(self, phone, pick, word):
        return self.type_field(phone, pick, word, "Note", "text")

    def add_photo(self, phone, pick, word):
        record = self.to_editor(phone, pick)
        if not record:
            return False
        with phone.page.expect_file_chooser() as chooser:
            phone.page.get_by_text("Choose photo", exact=True).click()
        chooser.value.set_files(self.jpegs[int(pick * len(self.jpegs))])
        phone.page.get_by_role("img", name=re.compile("Photo")).first.wait_for(timeout=5_000)
        return record

    def draw(self, phone, pick, word):
        record = self.to_editor(phone, pick) if self.screen(phone)[0] != "back" else self.screen(phone)[1]
        if not record:
            return False
        opened = self.screen(phone)[0] == "editor"
        if opened:
            phone.page.get_by_role("link", name="Flip to draw").click()
        canvas = phone.page.get_by_role("img", name="Drawing on the back of the note")
        canvas.wait_for()
        shown = self.pad_shows_server(phone, record, "/api/v1/notes/{id}/drawing") if opened else "?"
        if not self.draw_on(phone.page, canvas):
            return f"{record} (it showed {shown} strokes; the pad took no stroke)"
        self.drawn[record] += 1
        return f"{record} (it showed {shown} strokes)"

    def delete(self, phone, pick, word):
        record = self.to_editor(phone, pick)
        if not record:
            return False
        phone.page.get_by_role("button", name="Delete note").click()
        self.confirm_dialog(phone)
        self.deleted.add(record)
        self.deleted.add(phone.resolved(record))
        phone.page.get_by_role("heading", name="Notes").wait_for()
        return record

    def move(self, phone, pick, word):
        if self.screen(phone)[0] != "list":
            self.to_list(phone)
        handles = phone.page.get_by_role("button", name=re.compile("^Move “"))
        count = handles.count()
        if count < 2:
            return False
        handle = handles.nth(int(pick * count))
        handle.focus()
        key = "ArrowUp" if word < "m" else "ArrowDown"
        phone.page.keyboard.press(key)
        return key

    def leave_editors(self, phone):
        # What an editor holds is queued when it is left (or after its pause): wait it out.
        phone.page.wait_for_timeout(700)

    def server_records(self):
        return {note["id"]: note for note in napkin_notes.all_notes(self.server, self.token)}

    @staticmethod
    def editor_values(page):
        """What the open editor shows: (title, text)."""
        return page.get_by_label("Title", exact=True).input_value(), page.get_by_label("Note", exact=True).input_value()

    @staticmethod
    def as_server_has(note):
        """The same of the server's note."""
        return note["title"], note["text"]

    def compare(self, phone, server):
        page = phone.page
        where, record = self.screen(phone)
        if where == "editor" and self.when == "as it is":
            real = phone.resolved(record)
            note = server.get(real)
            replaced = page.locator(".replaced-line").all_inner_texts()
            if note is None:
                # Deleted (on this phone, or on the other: then the editor says so, "Note deleted").
                check(f"[{self.name}] ({self.when}) phone {phone.name}'s open editor is of a note the server has", real in self.deleted,
                      f"{real} shows {page.locator('main').first.inner_text()[:120]!r}") or self.failed_check(phone)
            else:
                values = self.editor_values(page)
                check(f"[{self.name}] ({self.when}) phone {phone.name}'s open editor shows the note as the server has it"
                      f"{' (or says what replaced it)' if replaced else ''}", values == self.as_server_has(note) or bool(replaced),
                      f"{real}: phone {values}, server {self.as_server_has(note)}") or self.failed_check(phone)
        self.to_list(phone)
        shown = page.eval_on_selector_all("li.note", "els => els.map(e => [e.dataset.id, e.querySelector('.title')?.textContent])")
        expected = [[n["id"], n["title"] or "Title"] for n in napkin_notes.all_notes(self.server, self.token)]
        check(f"[{self.name}] ({self.when}) phone {phone.name}'s list is the server's notes, titles and order ({len(expected)})", shown == expected,
              f"phone: {shown}\n       server: {expected}") or self.failed_check(phone)
        wrong = []
        for record_id, note in list(server.items())[:12]:
            page.goto(f"/#/notes/{urllib.parse.quote(record_id)}")
            try:
                # This note's editor (not the last one's, still there while the route changes).
                page.wait_for_selector(f'note-editor a[href="#/notes/{urllib.parse.quote(record_id)}/back"]')
                page.get_by_label("Title", exact=True).wait_for()
                values = self.editor_values(page)
            except PlaywrightError:
                values = ("(no editor)", page.locator("main").first.inner_text()[:80])
            if values != self.as_server_has(note):
                wrong.append((record_id, values, self.as_server_has(note)))
        check(f"[{self.name}] ({self.when}) phone {phone.name}'s editor shows each note's title and text as the server has them", not wrong,
              f"(id, phone, server): {wrong[:5]}") or self.failed_check(phone)
        page.goto("/#/notes")

# Foreign Note ----------------------------------------------------------------------------------------

V = "/api/v1/vocabulary"


class ForeignNote(Monkey):
    name = "foreign-note"
    user = "monkey-lea"
    fields = ("word", "definitions")
    COLLECTIONS = ["French", "Verbs", "Trip to Rome"]

    def wait_ready(self, phone):
        phone.page.wait_for_selector("vocab-collections h1, vocab-collection main, vocab-entry main, vocab-entry-form main, "
                                     "vocab-search main, vocab-tags main, vocab-files main, vocab-review main", timeout=15_000)

    def screen(self, phone):
        parts = phone.hash().lstrip("/").split("?")[0].split("/")
        if parts[0] in ("c", "e", "new", "edit") and len(parts) > 1:
            return parts[0], parts[1]
        return parts[0] or "collections", None

    def screen_record(self, phone):
        where, record = self.screen(phone)
        return record if where in ("c", "e", "edit") else None

    def exists(self, record_id):
        found = self.api("GET", f"{V}/entries/{urllib.parse.quote(record_id)}")[0] == 200
        return found or self.api("GET", f"{V}/collections/{urllib.parse.quote(record_id)}")[0] == 200

    def actions(self):
        return [("new collection", 1, self.new_collection), ("open a collection", 3, self.open_collection),
                ("add a word", 4, self.add_word), ("open a word", 3, self.open_word), ("edit a word", 4, self.edit_word),
                ("delete a word", 1, self.delete_word), ("undo a delete", 1, self.undo), ("delete a collection", 0.3, self.delete_collection),
                ("to the collections", 1, self.to_collections)]

    def to_collections(self, phone, pick=0, word=""):
        page = phone.page
        if self.screen(phone)[0] != "collections":
            link = page.get_by_role("link", name="‹ Collections")
            if self.visible(link):
                link.first.click()
            else:
                page.goto("/#/")
        page.get_by_role("heading", name="Collections").wait_for()

    def new_collection(self, phone, pick, word):
        self.to_collections(phone)
        name = self.COLLECTIONS[int(pick * len(self.COLLECTIONS))]
        phone.page.get_by_role("button", name="New collection").click()
        phone.page.get_by_role("dialog").get_by_label("Name", exact=True).fill(name)
        phone.page.get_by_role("dialog").get_by_role("button", name="Save").click()
        phone.page.wait_for_timeout(200)
        return name

    def open_collection(self, phone, pick, word):
        if self.screen(phone)[0] == "c":
            return "(already open)"
        self.to_collections(phone)
        links = phone.page.get_by_role("list", name="Your collections").get_by_role("link")
        count = links.count()
        if not count:
            # Nothing to open: a person makes one first.
            self.new_collection(phone, pick, word)
            return self.screen(phone)[0] == "c" and self.screen(phone)[1]
        links.nth(int(pick * count)).click()
        phone.page.get_by_role("link", name="Add word").wait_for()
        return self.screen(phone)[1]

    def add_word(self, phone, pick, word):
        if self.screen(phone)[0] != "c" and not self.open_collection(phone, pick, word):
            return False
        if not self.visible(phone.page.get_by_role("link", name="Add word")):
            return False
        phone.page.get_by_role("link", name="Add word").click()
        value = f"{word.strip() or 'mot'} {self.step}"
        # Exact: a first-use tip's sentence ("… a word or phrase with its definitions …") names the tip too.
        phone.page.get_by_label("Word or phrase", exact=True).fill(value)
        phone.page.get_by_label("Definitions", exact=True).fill(f"meaning {self.step}")
        phone.page.get_by_role("button", name="Save").click()
        phone.page.get_by_role("button", name="Delete word").wait_for()
        record = self.screen(phone)[1]
        self.typed[(phone.name, record, "word")] = (value, self.step)
        self.typed[(phone.name, record, "definitions")] = ([f"meaning {self.step}"], self.step)
        return f"{value!r} {record}"

    def open_word(self, phone, pick, word):
        if self.screen(phone)[0] == "e":
            return "(already open)"
        if self.screen(phone)[0] != "c" and not self.open_collection(phone, pick, word):
            return False
        links = phone.page.locator("ul.entries").get_by_role("link")
        count = links.count()
        if not count:
            return self.add_word(phone, pick, word) and self.screen(phone)[1]
        links.nth(int(pick * count)).click()
        phone.page.get_by_role("button", name="Delete word").wait_for()
        return self.screen(phone)[1]

    def edit_word(self, phone, pick, word):
        page = phone.page
        if self.screen(phone)[0] != "edit":
            # The word's form: open already (a Save that did not finish), or from the word's screen.
            if self.screen(phone)[0] != "e" and not self.open_word(phone, pick, word):
                return False
            page.get_by_role("link", name="Edit", exact=True).click()
        page.get_by_label("Definitions", exact=True).wait_for()
        record = self.screen(phone)[1]
        value = f"{word.strip() or 'sens'} {self.step}"
        page.get_by_label("Definitions", exact=True).fill(value)
        gone = page.locator("#entry-gone")
        if not self.visible(gone):
            page.get_by_role("button", name="Save").click()
            # Saved (the word's screen), or the form says the word was deleted on the other phone.
            page.get_by_role("button", name="Delete word").or_(gone).first.wait_for()
            if not self.visible(gone):
                self.typed[(phone.name, record, "definitions")] = ([value], self.step)
                return f"{value!r} {record}"
        return self.deleted_elsewhere(phone, pick, record, value)

    def deleted_elsewhere(self, phone, pick, record, value):
        """The word edited here was deleted on the other phone: the form says so and keeps what was
        typed. A person adds it again as a new word, or leaves it (Cancel); both are theirs to choose."""
        page = phone.page
        self.deleted.add(record)
        self.deleted.add(phone.resolved(record))
        if pick < 0.5:
            page.get_by_role("link", name="Cancel").click()
            # Leaving with words typed asks first (“Discard your changes to this word?”): let go.
            discard = page.get_by_role("dialog").get_by_role("button", name="Discard", exact=True)
            page.locator("vocab-entry main, vocab-collection main").or_(discard).first.wait_for()
            if self.visible(discard):
                discard.click()
            page.wait_for_selector("vocab-entry main, vocab-collection main")
            return f"{value!r} {record}: deleted on the other phone (said); left it"
        typed = page.get_by_label("Word or phrase", exact=True).input_value().strip()
        page.locator("#entry-gone").get_by_role("button", name="Add it again as a new word").click()
        page.get_by_role("button", name="Delete word").wait_for()
        added = self.screen(phone)[1]
        self.typed[(phone.name, added, "word")] = (typed, self.step)
        self.typed[(phone.name, added, "definitions")] = ([value], self.step)
        return f"{value!r} {record}: deleted on the other phone (said); added again as {added}"

    def delete_word(self, phone, pick, word):
        if self.screen(phone)[0] != "e" and not self.open_word(phone, pick, word):
            return False
        record = self.screen(phone)[1]
        phone.page.get_by_role("button", name="Delete word").click()
        self.confirm_dialog(phone)
        self.deleted.add(record)
        self.deleted.add(phone.resolved(record))
        phone.page.get_by_role("link", name="Add word").wait_for()
        return record

    def undo(self, phone, pick, word):
        button = phone.page.locator(".undo-bar").get_by_role("button", name="Undo")
        if not self.visible(button):
            return False
        said = phone.page.locator(".undo-bar").inner_text()
        button.click()
        # Back, as far as the monkey knows: whichever record it was is no longer "deleted by a phone".
        return said.splitlines()[0]

    def delete_collection(self, phone, pick, word):
        if self.screen(phone)[0] != "c" and not self.open_collection(phone, pick, word):
            return False
        record = self.screen(phone)[1]
        phone.page.get_by_role("button", name="Delete", exact=True).click()
        self.confirm_dialog(phone)
        self.deleted.add(record)
        self.deleted.add(phone.resolved(record))
        phone.page.get_by_role("heading", name="Collections").wait_for()
        return record

    def same(self, field, sent, typed):
        return sent == typed

    def server_records(self):
        records = {}
        _, collections = self.api("GET", f"{V}/collections?limit=500")
        for collection in collections["items"]:
            records[collection["id"]] = dict(collection, type="collection")
            _, entries = self.api("GET", f"{V}/collections/{collection['id']}/entries?limit=500")
            for entry in entries["items"]:
                _, full = self.api("GET", f"{V}/entries/{entry['id']}")
                records[entry["id"]] = dict(full, type="entry")
        return records

    def compare(self, phone, server):
        page = phone.page
        self.to_collections(phone)
        page.wait_for_timeout(300)
        collections = sorted((r for r in server.values() if r["type"] == "collection"), key=lambda c: c["name"].casefold())
        shown = page.eval_on_selector_all("ul.big-list a.big-link", "els => els.map(e => [e.getAttribute('href'), e.innerText.replace(/\\s+/g, ' ')])")
        expected = []
        for collection in collections:
            count = sum(1 for r in server.values() if r["type"] == "entry" and r["collection"] == collection["id"])
            expected.append([f"#/c/{collection['id']}", f"{collection['name']} {count} word{'' if count == 1 else 's'}"])
        ok = check(f"[{self.name}] ({self.when}) phone {phone.name}'s collections are the server's, with their word counts ({len(expected)})",
                   sorted(shown) == sorted(expected), f"phone: {shown}\n       server: {expected}")
        wrong = []
        for collection in collections[:6]:
            page.goto(f"/#/c/{urllib.parse.quote(collection['id'])}")
            try:
                page.get_by_role("link", name="Add word").wait_for()
            except PlaywrightError:
                wrong.append((collection["name"], page.locator("main").first.inner_text()[:100]))
                continue
            page.wait_for_timeout(100)
            words = page.eval_on_selector_all("ul.entries a", "els => els.map(e => [e.getAttribute('href'), e.querySelector('.word')?.textContent, e.querySelector('.definition')?.textContent ?? ''])")
            want = [[f"#/e/{r['id']}", r["word"], (r.get("definitions") or [""])[0]] for r in server.values()
                    if r["type"] == "entry" and r["collection"] == collection["id"]]
            if sorted(words) != sorted(want):
                wrong.append((collection["name"], {"only on the phone": [w for w in words if w not in want],
                                                   "only on the server": [w for w in want if w not in words]}))
        ok = check(f"[{self.name}] ({self.when}) phone {phone.name} shows each collection's words and first definitions as the server has them",
                   not wrong, wrong[:3]) and ok
        if not ok:
            self.failed_check(phone)
        page.goto("/#/")

    def acknowledged(self, server):
        entries = {k: v for k, v in server.items() if v["type"] == "entry"}
        Monkey.acknowledged(self, entries)


# iRemember --------------------------------------------------------------------------------------------

PHOTOS = "/api/v1/album/photos"


class IRemember(Monkey):
    name = "iremember"
    user = None
    fields = ("notes", "tags")
    drawing_path = PHOTOS + "/{id}/markup"
    debounce = 0.6

    def make_server(self):
        import iremember
        return iremember.Server(os.path.abspath(self.args.binary), self.data, free_port(), config=self.config())

    def new_phone(self, name, **options):
        return Monkey.new_phone(self, name, geolocation=HERE, permissions=["geolocation"])

    def sign_up(self, phone):
        phone.page.goto("/")
        phone.page.get_by_role("button", name="Get Started").click(timeout=15_000)
        phone.page.wait_for_selector("album-home h1", timeout=15_000)

    def sign_in_second(self, a, b):
        a.page.get_by_role("link", name="Use this album on a new phone").click()
        code = a.page.get_by_label("Your album's code").input_value()
        a.page.get_by_role("link", name="‹ Home").click()
        b.page.goto("/")
        b.page.get_by_text("I have a code from my other phone").click(timeout=15_000)
        b.page.get_by_label("The code from your other phone").fill(code)
        b.page.get_by_role("button", name="Open my album").click()
        b.page.wait_for_selector("album-home h1", timeout=15_000)

    def api(self, method, path, body=None):
        status, answer, _ = call(self.server, method, path, body, token=self.token)
        if status == 401:
            self.token = self.token_of(self.phones[0])
            status, answer, _ = call(self.server, method, path, body, token=self.token)
        return status, answer

    def wait_ready(self, phone):
        phone.page.wait_for_selector("album-home h1, album-browse main, album-photo main, album-markup main, album-recent main, "
                                     "album-share main, album-move main, album-import main, album-folders main, album-slideshow, "
                                     "album-tags main, album-time main", timeout=15_000)

    def screen(self, phone):
        parts = phone.hash().lstrip("/").split("?")[0].split("/")
        if parts[0] == "photo" and len(parts) > 2 and parts[2] == "markup":
            return "markup", parts[1]
        if parts[0] == "photo" and len(parts) > 1:
            return "photo", parts[1]
        return parts[0] or "home", None

    def screen_record(self, phone):
        return self.screen(phone)[1]

    def exists(self, record_id):
        return self.api("GET", f"{PHOTOS}/{urllib.parse.quote(record_id)}")[0] == 200

    def actions(self):
        return [("add a photo", 2, self.add_photo), ("open the album", 2, self.open_album), ("open a photo", 3, self.open_photo),
                ("mark up", 2, self.markup), ("type notes", 4, self.type_notes), ("add a tag", 3, self.add_tag),
                ("draw on the photo", 1, self.draw), ("done", 2, self.done), ("delete the photo", 1, self.delete),
                ("home", 1, self.home)]

    def home(self, phone, pick=0, word=""):
        if self.screen(phone)[0] != "home":
            phone.page.get_by_role("link", name="Home", exact=True).click()
        phone.page.get_by_role("heading", name="iRemember").wait_for()

    def add_photo(self, phone, pick, word):
        self.home(phone)
        with phone.page.expect_file_chooser() as chooser:
            phone.page.get_by_role("button", name="Choose From Phone").click()
        chooser.value.set_files(self.jpegs[int(pick * len(self.jpegs))])
        phone.page.get_by_role("heading", name="Mark up").wait_for(timeout=10_000)
        return self.screen(phone)[1]

    def open_album(self, phone, pick, word):
        if self.screen(phone)[0] == "album":
            return "(already open)"
        self.home(phone)
        phone.page.get_by_role("link", name="Album", exact=True).click()
        phone.page.get_by_role("link", name="Search by Tags").wait_for()

    def open_photo(self, phone, pick, word):
        if self.screen(phone)[0] == "photo":
            return "(already open)"
        if self.screen(phone)[0] != "album":
            self.open_album(phone, pick, word)
        cells = phone.page.locator("ul.grid").get_by_role("link")
        count = cells.count()
        if not count:
            # An empty album: a person adds a photo first (the mark-up screen opens).
            return self.add_photo(phone, pick, word)
        cells.nth(int(pick * count)).click()
        phone.page.get_by_role("button", name="Delete photo").wait_for()
        return self.screen(phone)[1]

    def markup(self, phone, pick, word):
        if self.screen(phone)[0] == "markup":
            return "(already open)"
        if self.screen(phone)[0] != "photo" and not self.open_photo(phone, pick, word):
            return False
        if self.screen(phone)[0] == "markup":
            return self.screen(phone)[1]  # an empty album: the photo added for it opened its mark-up
        phone.page.get_by_role("link", name="Mark up").click()
        phone.page.get_by_role("heading", name="Mark up").wait_for()
        return self.screen(phone)[1]

    def type_notes(self, phone, pick, word):
        if self.screen(phone)[0] != "markup" and not self.markup(phone, pick, word):
            return False
        record = self.screen(phone)[1]
        value = f"{word} {self.step}".strip()
        phone.page.get_by_label("Notes", exact=True).fill(value)
        self.typed[(phone.name, record, "notes")] = (value, self.step)
        return f"{value!r} into {record}"

    def add_tag(self, phone, pick, word):
        if self.screen(phone)[0] != "markup" and not self.markup(phone, pick, word):
            return False
        record = self.screen(phone)[1]
        tag = ["tom", "beach", "picnic", "mum", "train"][int(pick * 5)]
        phone.page.get_by_label("New tag", exact=True).fill(tag)
        phone.page.get_by_role("button", name="Add tag").click()
        return f"{tag} on {record}"

    def draw(self, phone, pick, word):
        opened = self.screen(phone)[0] != "markup"
        if opened and not self.markup(phone, pick, word):
            return False
        record = self.screen(phone)[1]
        canvas = phone.page.get_by_role("img", name="Draw or write on the photo")
        canvas.wait_for()
        shown = self.pad_shows_server(phone, record, PHOTOS + "/{id}/markup") if opened else "?"
        if not self.draw_on(phone.page, canvas):
            return f"{record} (it showed {shown} strokes; the pad took no stroke)"
        self.drawn[record] += 1
        return f"{record} (it showed {shown} strokes)"

    def done(self, phone, pick, word):
        if self.screen(phone)[0] != "markup":
            return False
        phone.page.get_by_role("button", name="Done").first.click()
        phone.page.wait_for_selector("album-photo main, album-browse main")
        return self.screen(phone)[1] or phone.hash()

    def delete(self, phone, pick, word):
        if self.screen(phone)[0] != "photo" and not self.open_photo(phone, pick, word):
            return False
        record = self.screen(phone)[1]
        phone.page.get_by_role("button", name="Delete photo").click()
        self.confirm_dialog(phone)
        self.deleted.add(record)
        self.deleted.add(phone.resolved(record))
        phone.page.get_by_role("link", name="Search by Tags").wait_for()
        return record

    def leave_editors(self, phone):
        if self.screen(phone)[0] == "markup":
            try:
                self.done(phone, 0, "")
            except PlaywrightError as error:
                self.log.append(f"   phone {phone.name}: Done on the mark-up screen: {str(error).splitlines()[0][:120]}")
        phone.page.wait_for_timeout(700)

    def record_in(self, write):
        answer = write["answer"]
        return answer.get("photo", answer) if isinstance(answer, dict) else answer

    def same(self, field, sent, typed):
        return sent == typed

    def server_records(self):
        records, cursor = {}, None
        while True:
            _, page = self.api("GET", f"{PHOTOS}?limit=100" + (f"&cursor={cursor}" if cursor else ""))
            for item in page["items"]:
                _, photo = self.api("GET", f"{PHOTOS}/{item['id']}")
                records[item["id"]] = photo
            cursor = page.get("nextCursor")
            if not cursor:
                return records

    def compare(self, phone, server):
        page = phone.page
        page.goto("/#/album")
        page.get_by_role("link", name="Search by Tags").wait_for()
        page.wait_for_timeout(300)
        shown = sorted(h.split("/")[-1] for h in page.eval_on_selector_all("ul.grid a.cell", "els => els.map(e => decodeURIComponent(e.getAttribute('href')))"))
        ok = check(f"[{self.name}] ({self.when}) phone {phone.name}'s album is the server's photos ({len(server)})", shown == sorted(server),
                   f"phone: {shown}\n       server: {sorted(server)}")
        wrong = []
        for record_id, photo in list(server.items())[:10]:
            page.goto(f"/#/photo/{urllib.parse.quote(record_id)}")
            try:
                # This photo's screen (not the last one's, still there while the route changes).
                page.wait_for_selector(f'album-photo a[href="#/photo/{urllib.parse.quote(record_id)}/markup"]')
                page.get_by_role("button", name="Delete photo").wait_for()
                notes = page.locator("album-photo p.notes").all_inner_texts()
                tags = page.locator("album-photo dl.facts dd").last.inner_text()
            except PlaywrightError:
                wrong.append((record_id, page.locator("main").first.inner_text()[:100]))
                continue
            want_tags = ", ".join(photo.get("tags") or []) or "None"
            if (notes[0] if notes else "") != (photo.get("notes") or "") or tags != want_tags:
                wrong.append((record_id, {"phone": (notes, tags), "server": (photo.get("notes"), want_tags)}))
        ok = check(f"[{self.name}] ({self.when}) phone {phone.name} shows each photo's notes and tags as the server has them", not wrong, wrong[:4]) and ok
        if not ok:
            self.failed_check(phone)
        page.goto("/#/")


# AR Notebook -------------------------------------------------------------------------------------------

N = "/api/v1/notebooks"


class ARNotebook(Monkey):
    name = "ar-notebook"
    user = "monkey-ann"
    fields = ()

    def new_phone(self, name, **options):
        phone = Monkey.new_phone(self, name, geolocation=HERE, permissions=["geolocation", "clipboard-read", "clipboard-write"])
        # Counts the welcome screens put on the page: after signing in it is drawn once, not again
        # under the finger that taps "Open my notebook".
        phone.context.add_init_script("window.__welcomes = 0; new MutationObserver((changes) => { for (const change of changes) "
                                      "for (const node of change.addedNodes) if (node.nodeName === 'NB-WELCOME') window.__welcomes += 1; })"
                                      ".observe(document, { childList: true, subtree: true });")
        return phone

    def signed_in(self, phone):
        self.open_notebook(phone)

    def open_notebook(self, phone):
        page = phone.page
        page.wait_for_selector("nb-welcome h1, nb-notebooks h1, nb-book", timeout=15_000)
        if self.visible(page.locator("nb-notebooks h1")):  # an account with notebooks opens on them on a new phone
            page.click("nb-notebooks a.big-link")
            page.wait_for_selector("nb-book .turn-row .where, nb-book .error", timeout=15_000)
        button = page.get_by_role("button", name="Open my notebook")
        if self.visible(button):
            page.wait_for_timeout(500)  # a person reads the welcome first: a redraw just after sign-in would show by now
            drawn = page.evaluate("window.__welcomes")
            check(f"[{self.name}] phone {phone.name}: the welcome is drawn once after signing in", drawn == 1, f"drawn {drawn} times")
            button.click()
            # The notebook, before anything else is looked for: the welcome is still on the page for a
            # moment after the tap (its route is drawn on the hash's change), and a second tap on it
            # then would land as the notebook replaces it.
            page.wait_for_selector("nb-book .turn-row .where, nb-book .error", timeout=15_000)
        self.wait_ready(phone)

    def wait_ready(self, phone):
        phone.page.wait_for_selector("nb-book .turn-row .where, nb-book .error, nb-notebooks h1, nb-welcome h1, quire-signin", timeout=15_000)
        if self.visible(phone.page.get_by_role("button", name="Open my notebook")):
            phone.page.get_by_role("button", name="Open my notebook").click()
            phone.page.wait_for_selector("nb-book .turn-row .where, nb-book .error", timeout=15_000)

    def exists(self, record_id):
        return True

    def actions(self):
        return [("new page", 2, self.new_page), ("turn a page", 3, self.turn), ("write", 5, self.write),
                ("page colour", 1, self.colour), ("undo", 1, self.undo), ("delete the page", 0.7, self.delete_page),
                ("to the notebook", 0.5, self.to_book)]

    def to_book(self, phone, pick=0, word=""):
        """The notebook on the screen: the one open, or the last one (which needs the network to open)."""
        page = phone.page
        if self.visible(page.locator("nb-book .turn-row")):
            return "(already open)"
        if phone.offline and not self.visible(page.locator("nb-book")):
            raise PlaywrightTimeout("offline, and no notebook open (opening one needs the network)")
        for attempt in range(2):
            # Through "My notebooks" when the address is already the notebook's (going to the same
            # address would reload the page under its own requests).
            if phone.hash() in ("", "/"):
                page.goto("/#/notebooks")
                page.wait_for_selector("nb-notebooks h1, nb-notebooks + *, main", timeout=8_000)
            page.goto("/#/")
            page.wait_for_selector("nb-book .turn-row, nb-book .error, nb-welcome h1", timeout=8_000)
            if self.visible(page.get_by_role("button", name="Open my notebook")):
                page.get_by_role("button", name="Open my notebook").click()
                page.wait_for_selector("nb-book .turn-row, nb-book .error", timeout=8_000)
            if self.visible(page.locator("nb-book .turn-row")) or phone.offline:
                break
            page.wait_for_timeout(1_000)
        if not self.visible(page.locator("nb-book .turn-row")) and not phone.offline:
            self.fail(f"phone {phone.name}: the notebook opens online", page.locator("main").first.inner_text()[:160], phone)
        if not self.visible(page.locator("nb-book .turn-row")):
            raise PlaywrightTimeout(f"the notebook did not open: {page.locator('main').first.inner_text()[:100]!r}")

    def where(self, phone):
        return phone.page.get_by_role("status").filter(has_text=re.compile("^(Cover|Page)")).first.inner_text(timeout=2_000)

    def dismiss_notice(self, phone):
        """What the screen said about the last thing asked of it (a refusal, or that it waits), then OK."""
        notice = phone.page.locator("quire-app .notice, .nb-said.alert, .nb-said.status").filter(has=phone.page.get_by_role("button", name="OK"))
        if self.visible(notice):
            said = notice.first.inner_text().splitlines()[0]
            notice.first.get_by_role("button", name="OK").click()
            return said
        return None

    def settle_turn(self, phone, before):
        try:
            # The label names the page a turn leads to as the turn starts; the page itself is drawn
            # when the animation ends (no sheet still turning).
            phone.page.wait_for_function("t => document.querySelector('.turn-row .where')?.textContent !== t"
                                         " && !document.querySelector('nb-book .sheet.turning-next, nb-book .sheet.turning-back')",
                                         arg=before, timeout=2_000)
        except PlaywrightTimeout:
            pass

    def new_page(self, phone, pick, word):
        self.to_book(phone)
        before = self.where(phone)
        phone.page.get_by_role("button", name="New page").click()
        dialog = phone.page.get_by_role("dialog")
        radios = dialog.get_by_role("radio")
        count = radios.count()
        if count:
            radios.nth(int(pick * count)).check()
        dialog.get_by_role("button", name="OK").click()
        self.settle_turn(phone, before)
        said = self.dismiss_notice(phone)
        return f"{before} → {self.where(phone)}" + (f" (said: {said})" if said else "")

    def turn(self, phone, pick, word):
        self.to_book(phone)
        before = self.where(phone)
        name = "Next page" if pick < 0.6 else "Previous page"
        button = phone.page.get_by_role("button", name=name)
        if button.is_disabled():
            name = "Previous page" if name == "Next page" else "Next page"
            button = phone.page.get_by_role("button", name=name)
            if button.is_disabled():
                return False
        button.click()
        self.settle_turn(phone, before)
        return f"{before} → {self.where(phone)}"

    def on_page(self, phone, pick):
        self.to_book(phone)
        if self.where(phone).startswith("Cover"):
            button = phone.page.get_by_role("button", name="Next page")
            if button.is_disabled():
                # No page yet: a person adds one first.
                self.new_page(phone, pick, "")
                return not self.where(phone).startswith("Cover") and self.where(phone)
            before = self.where(phone)
            button.click()
            self.settle_turn(phone, before)
        return self.where(phone)

    def write(self, phone, pick, word):
        if not self.on_page(phone, pick):
            return False
        value = f"{word.strip() or 'note'} {self.step}"
        page = phone.page
        page.get_by_role("button", name="Write").click()
        # A page from a template asks which free box first (more than one free), or says it is full.
        where = page.get_by_role("dialog").filter(has_text="Where on the page")
        text = page.get_by_label("Your text", exact=True)
        full = page.locator(".nb-said.alert").filter(has_text="is full")
        text.or_(where).or_(full).first.wait_for()
        if self.visible(full):
            return f"{value!r}: not added (said: {self.dismiss_notice(phone)})"
        if self.visible(where):
            radios = where.get_by_role("radio")
            radios.nth(int(pick * radios.count())).check()
            where.get_by_role("button", name="OK").click()
        text.fill(value)
        phone.page.get_by_role("dialog").get_by_role("button", name="Add").click()
        try:
            phone.page.get_by_role("group", name=f"Text: {value}").wait_for(timeout=3_000)
        except PlaywrightTimeout:
            said = self.dismiss_notice(phone)
            return f"{value!r}: not added" + (f" (said: {said})" if said else "")
        return f"{value!r} on {self.where(phone)}"

    def colour(self, phone, pick, word):
        if not self.on_page(phone, pick):
            return False
        phone.page.get_by_role("button", name="Page colour").click()
        dialog = phone.page.get_by_role("dialog")
        radios = dialog.get_by_role("radio")
        radios.nth(int(pick * radios.count())).check()
        dialog.get_by_role("button", name="OK").click()
        phone.page.wait_for_timeout(300)
        said = self.dismiss_notice(phone)
        return said and f"(said: {said})"

    def undo(self, phone, pick, word):
        self.to_book(phone)
        button = phone.page.get_by_role("button", name="Undo")
        if button.is_disabled():
            return False
        button.click()
        phone.page.wait_for_timeout(300)
        said = self.dismiss_notice(phone)
        return said and f"(said: {said})"

    def delete_page(self, phone, pick, word):
        if not self.on_page(phone, pick):
            return False
        before = self.where(phone)
        phone.page.get_by_role("button", name="Delete page").click()
        try:
            self.confirm_dialog(phone)
        except PlaywrightTimeout:
            said = self.dismiss_notice(phone)
            return f"{before}: not asked" + (f" (said: {said})" if said else "")
        self.settle_turn(phone, before)
        said = self.dismiss_notice(phone)
        return f"{before} → {self.where(phone)}" + (f" (said: {said})" if said else "")

    def server_records(self):
        _, listing = self.api("GET", f"{N}/notebooks")
        records = {}
        for notebook in listing["items"]:
            _, content = self.api("GET", f"{N}/notebooks/{notebook['id']}")
            records[notebook["id"]] = content
        return records

    def acknowledged(self, server):
        pass

    def lost_edits(self, server):
        pass

    def compare(self, phone, server):
        page = phone.page
        self.to_book(phone)
        name = page.get_by_role("heading", level=1).first.inner_text()
        content = next((c for c in server.values() if c["notebook"]["name"] == name), None)
        if content is None:
            check(f"[{self.name}] ({self.when}) phone {phone.name} shows a notebook the server has", False, (name, [c["notebook"]["name"] for c in server.values()]))
            self.failed_check(phone)
            return
        # Back to the cover, then every page in turn.
        for _ in range(60):
            button = page.get_by_role("button", name="Previous page")
            if button.is_disabled():
                break
            before = self.where(phone)
            button.click()
            self.settle_turn(phone, before)
        pages = content["pages"]
        shown_pages = []
        cover = self.where(phone)
        for _ in range(len(pages) + 1):
            button = page.get_by_role("button", name="Next page")
            if button.is_disabled():
                break
            before = self.where(phone)
            button.click()
            self.settle_turn(phone, before)
            texts = page.locator("nb-book .sheet .item").evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
            shown_pages.append((self.where(phone), sorted(texts)))
        want = [(f"Page {i + 1} of {len(pages)}", sorted("A picture" if item["kind"] == "image" else f"Text: {item.get('text', '')}"
                                                         for item in p["items"])) for i, p in enumerate(pages)]
        ok = check(f"[{self.name}] ({self.when}) phone {phone.name} shows the notebook's pages and their items as the server has them ({len(pages)} pages)",
                   cover.startswith(f"Cover · {len(pages)} page") and shown_pages == want,
                   f"cover {cover!r}\n       phone: {shown_pages}\n       server: {want}")
        if not ok:
            self.failed_check(phone)


# Seconds an app's run takes besides its steps (the server, two sign-ins, settling, the checks at the end
# on both phones, as they are and reloaded), measured on the project's 2-core machine.
# (Measured: 8–10 s for the first three at 35 s of steps; AR Notebook's turns every page at the end, 15–30 s.)
# An app done early leaves its time to the next: each app's share is of what is left of the run.
RESERVE = {"napkin-notes": 14.0, "foreign-note": 14.0, "iremember": 14.0, "ar-notebook": 28.0}
# Each failed app's replay command, printed again last.
replays = []

MONKEYS = {"napkin-notes": Napkin, "foreign-note": ForeignNote, "iremember": IRemember, "ar-notebook": ARNotebook}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--app", default="all", choices=APPS + ["all"])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--actions", type=int, default=0, help="steps per app (default: as many as the time allows)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="the whole run's time, each app's start and final checks included (default 180, or unbounded with --actions)")
    parser.add_argument("--verbose", action="store_true", help="print every step")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 10 ** 6)
    seconds = args.seconds if args.seconds is not None else (10 ** 6 if args.actions else 180)
    apps = APPS if args.app == "all" else [args.app]
    print(f"monkey: seed {args.seed}; apps {', '.join(apps)}; "
          + (f"{args.actions} steps per app" if args.actions else "") + (f" within {seconds:.0f} s" if seconds < 10 ** 6 else ""), flush=True)
    started = time.time()
    with sync_playwright() as playwright:
        for index, app in enumerate(apps):
            # Each app's own seed, from the run's seed and the app's name: one app replays alone.
            seed = random.Random(f"{args.seed}:{app}").randrange(1, 2 ** 31)
            # Its share of what is left of the run, less what its server, sign-ins and final checks
            # take on this machine (RESERVE): the whole run keeps to --seconds.
            share = (started + seconds - time.time()) / (len(apps) - index)
            steps = max(10.0, share - RESERVE[app])
            deadline = time.time() + steps
            print(f"---- {app} (seed {args.seed}, this app's {seed}; steps for {steps:.0f} s)", flush=True)
            browser = playwright.chromium.launch(executable_path=webwalk.chromium_path(), args=["--no-sandbox"])
            try:
                with tempfile.TemporaryDirectory(prefix=f"quire-monkey-{app}-") as data:
                    MONKEYS[app](args, seed, data, browser, deadline).run()
            finally:
                browser.close()
    failed = results.count(False)
    print(f"monkey: seed {args.seed}; {time.time() - started:.0f} s", flush=True)
    for replay in replays:
        print(f"monkey: FAILED; replay: {replay}", flush=True)
    print(f"monkey: {len(results) - failed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

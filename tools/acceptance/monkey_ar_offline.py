#!/usr/bin/env python3
"""AR Notebook through the monkey's own actions: phone B, offline, changes its page's colour twice and
writes two texts while phone A writes one online; B comes back online. The monkey's final checks:
both phones show every text the server has, as it is and reloaded. (Found by the monkey, AR seed 2
walked 120 s: a pull that raced the answer to B's first text put the feed's item, then sync put the
route's answer over it, which has no notebook or page, and B never showed its own text again.)

    python3 tools/acceptance/monkey_ar_offline.py --binary .build/debug/quire
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monkey  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import results  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


class Scripted(monkey.ARNotebook):
    def walk(self):
        a, b = self.phones

        def act(phone, name, fn, pick, word=""):  # one step, as the monkey's walk does it
            self.step += 1
            said = fn(phone, pick, word)
            line = f"{self.step}: {phone.name} {name} {said} [{phone.status()}]"
            print("     " + line, flush=True)
            self.log.append(line)
            self.history.append(line)
            self.invariants()

        act(b, "new page", self.new_page, 0.0)
        act(b, "write", self.write, 0.0, "first")
        webwalk.settled(b.page, 10_000)
        act(b, "network", self.network, 0.0)
        act(b, "page colour", self.colour, 0.3)
        act(b, "page colour", self.colour, 0.6)
        act(b, "write", self.write, 0.0, "emoji")
        act(b, "write", self.write, 0.0, "eggs")
        act(a, "write", self.write, 0.0, "from A")
        act(b, "network", self.network, 0.0)


parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--binary", default=os.path.join(monkey.ROOT, ".build", "debug", "quire"))
args = argparse.Namespace(binary=parser.parse_args().binary, seed=0, verbose=True, actions=0, seconds=None, app="ar-notebook")
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=webwalk.chromium_path(), args=["--no-sandbox"])
    with tempfile.TemporaryDirectory() as data:
        Scripted(args, 0, data, browser, time.time() + 60).run()
    browser.close()
failed = results.count(False)
print(f"monkey_ar_offline: {len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)

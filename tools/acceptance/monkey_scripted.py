"""What the monkey's scripted walks share (monkey_ar_offline.py, monkey_deleted_word.py): one step
as the monkey's own walk takes it, and the run of one or more scripted walkers on one browser."""
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


def act(walker, phone, name, fn, pick, word="", status=False, resolve=True):
    """One step, as the monkey's walk does it: `fn(phone, pick, word)`, logged (with the phone's
    status line if `status`), conflicts resolved if `resolve`, then the monkey's invariants.
    Answers what the action said."""
    walker.step += 1
    said = fn(phone, pick, word)
    line = f"{walker.step}: {phone.name} {name} {said}" + (f" [{phone.status()}]" if status else "")
    print("     " + line, flush=True)
    walker.log.append(line)
    walker.history.append(line)
    if resolve:
        walker.resolve_all()
    walker.invariants()
    return said


class Steps:
    """Mixed into a scripted walker (before the monkey's app class): `self.act(phone, name, fn,
    pick, word)` takes one step as `act` above, with the phone's status line if the class says
    `log_status = True` and conflicts resolved unless it says `resolve_conflicts = False`."""
    log_status = False
    resolve_conflicts = True

    def act(self, phone, name, fn, pick, word=""):
        return act(self, phone, name, fn, pick, word, status=self.log_status, resolve=self.resolve_conflicts)


def main(name, doc, app, walkers):
    """Parses --binary, runs each walker class in `walkers` on its own data folder in one browser
    (60 s each), prints `name: N passed, N failed` and exits 1 if any failed."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(monkey.ROOT, ".build", "debug", "quire"))
    args = argparse.Namespace(binary=parser.parse_args().binary, seed=0, verbose=True, actions=0, seconds=None, app=app)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=webwalk.chromium_path(), args=["--no-sandbox"])
        for walker in walkers:
            with tempfile.TemporaryDirectory() as data:
                walker(args, 0, data, browser, time.time() + 60).run()
        browser.close()
    failed = results.count(False)
    print(f"{name}: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)

#!/usr/bin/env python3
"""AR Notebook through the monkey's own actions: phone B, offline, changes its page's colour twice and
writes two texts while phone A writes one online; B comes back online. The monkey's final checks:
both phones show every text the server has, as it is and reloaded. (Found by the monkey, AR seed 2
walked 120 s: a pull that raced the answer to B's first text put the feed's item, then sync put the
route's answer over it, which has no notebook or page, and B never showed its own text again.)

    python3 tools/acceptance/monkey_ar_offline.py --binary .build/debug/quire
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monkey  # noqa: E402
import monkey_scripted  # noqa: E402
import webwalk  # noqa: E402


class Scripted(monkey_scripted.Steps, monkey.ARNotebook):
    log_status, resolve_conflicts = True, False  # each step logs the phone's status line; conflicts stay

    def walk(self):
        a, b = self.phones
        act = self.act  # one step, as the monkey's walk does it
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


monkey_scripted.main("monkey_ar_offline", __doc__, "ar-notebook", [Scripted])

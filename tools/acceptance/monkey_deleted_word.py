#!/usr/bin/env python3
"""The monkey's model through "deleted on another device", which a random walk reaches rarely.
Foreign Note: phone A is on a word's form, phone B deletes the word, A saves. The form says so and
keeps what was typed; the monkey's own action then adds it again as a new word (one pass) or leaves
it (the other). Napkin Notes: B types offline into a note A deletes; online, B's editor says "Note
deleted" and keeps the typing; the monkey keeps it as a new note or lets it go. Then the monkey's
final checks hold: both phones show the server's records, and what was added again holds what was typed.

    python3 tools/acceptance/monkey_deleted_word.py --binary .build/debug/quire
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import monkey  # noqa: E402
import monkey_scripted  # noqa: E402
import webwalk  # noqa: E402

class Scripted(monkey_scripted.Steps, monkey.ForeignNote):
    def walk(self):
        a, b = self.phones
        act = self.act  # one step, as the monkey's walk does it
        for pick in (0.9, 0.1):     # add it again; leave it
            act(a, "add a word", self.add_word, 0.0, "bonjour")
            webwalk.settled(a.page, 10_000)
            record = a.resolved(self.screen(a)[1])
            a.page.get_by_role("link", name="Edit", exact=True).click()
            a.page.get_by_label("Definitions").wait_for()
            b.page.goto(f"/#/e/{record}")
            b.page.get_by_role("button", name="Delete word").wait_for(timeout=10_000)
            act(b, "delete a word", self.delete_word, 0.0)
            a.page.wait_for_timeout(2_000)   # the delete reaches A's open form (sync's poke)
            said = act(a, "edit a word", self.edit_word, pick, "merci")
            if "deleted on the other phone" not in str(said):
                self.fail("phone A's save of a word deleted on phone B meets “deleted on another device”", said, a)
            self.step += 1

class ScriptedNapkin(monkey_scripted.Steps, monkey.Napkin):
    """Napkin Notes' "Note deleted": B types offline into a note A deletes; back online, B's editor
    says so and keeps the typing; the monkey keeps it as a new note (one pass) or lets it go."""
    def walk(self):
        a, b = self.phones
        act = self.act  # one step, as the monkey's walk does it
        for pick in (0.1, 0.9):     # keep it as a new note; let it go
            act(a, "new note", self.new_note, 0.0, "bonjour")
            self.to_list(a)
            webwalk.settled(a.page, 10_000)
            act(b, "open a note", self.open_note, 0.0)
            act(b, "network", self.network, 0.0)
            act(a, "delete the note", self.delete, 0.0)
            webwalk.settled(a.page, 10_000)
            act(b, "type the text", self.type_text, 0.0, "merci")
            act(b, "network", self.network, 0.0)
            b.page.get_by_role("heading", name="Note deleted").wait_for(timeout=10_000)
            chose = self.note_deleted(b, pick)
            print(f"     {self.step}: B on “Note deleted”: {chose}", flush=True)
            if chose is None or (pick < 0.5) == (chose == "let go"):
                self.fail("phone B's typing into a note deleted on phone A meets “Note deleted”", chose, b)


monkey_scripted.main("monkey_deleted_word", __doc__, "foreign-note", [Scripted, ScriptedNapkin])

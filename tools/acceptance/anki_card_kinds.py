#!/usr/bin/env python3
"""Foreign Note's card kinds against Anki's own library (the `anki` PyPI package).

A collection with word → definition, definition → word and cloze on: each kind is its own card
with its own schedule in Quire; the .apkg export opens in Anki with the note types "Quire Word (and
reversed card)" (two templates, like Anki's Basic (and reversed card)) and "Quire Cloze" (a cloze
note type, like Anki's Cloze), each card in its place in the schedule, and Anki's scheduler shows
and answers the cards of each note type. Importing the package back makes no copies and puts
every card of every kind back in its place in the schedule. A package Anki writes after reviewing
them (with Anki's own Basic (and reversed card) and Cloze notes beside them, answered by Anki's FSRS)
imports with each card where Anki's scheduler put it.
Prints one line per check and `anki card kinds: N passed, N failed` last.
"""
import argparse
import datetime
import os
import re
import sqlite3
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from foreign_note import Server, anki_opened, wait_job  # noqa: E402
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402

V = "/api/v1/vocabulary"


def run(server, data):
    from anki.collection import ExportAnkiPackageOptions

    token = sign_up(server, "ada")
    _, french, _ = call(server, "POST", f"{V}/collections", {"name": "French"}, token=token)
    words = {}
    for word, meaning, example in (("pomme", "apple", "Je mange une pomme."), ("chat", "cat", "Le {{c1::chat}} dort au soleil."),
                                   ("pain", "bread", None)):
        body = {"collection": french["id"], "word": word, "definitions": [meaning], "languages": ["fr"]}
        if example:
            body["example"] = example
        _, entry, _ = call(server, "POST", f"{V}/entries", body, token=token)
        words[word] = entry["id"]

    status, body, _ = call(server, "GET", f"{V}/review/next?limit=50", token=token)
    check("by default a collection gives word → definition only (nothing changes for current users)",
          status == 200 and {i["kind"] for i in body["items"]} == {"forward"} and len(body["items"]) == 3, body)
    status, bad, _ = call(server, "PUT", f"{V}/collections/{french['id']}/cards", {"cardKinds": ["sideways"]}, token=token)
    check("an unknown kind → 422 naming the kinds there are", status == 422 and "forward" in str(bad), (status, bad))
    status, bad, _ = call(server, "PUT", f"{V}/collections/{french['id']}/cards", {"cardKinds": []}, token=token)
    check("no kind at all → 422", status == 422, (status, bad))
    status, changed, _ = call(server, "PUT", f"{V}/collections/{french['id']}/cards", {"cardKinds": ["cloze", "forward", "reverse"]}, token=token)
    check("PUT …/collections/{id}/cards turns reverse and cloze on", status == 200 and changed.get("cardKinds") == ["forward", "reverse", "cloze"],
          (status, changed))
    bob = sign_up(server, "bob")
    status, _, _ = call(server, "PUT", f"{V}/collections/{french['id']}/cards", {"cardKinds": ["forward"]}, token=bob)
    check("…another user cannot change it (404)", status == 404, status)

    # One card of a word per session (siblings wait); each rating makes the next kind come up.
    seen = {}
    for _ in range(3):
        _, body, _ = call(server, "GET", f"{V}/review/next?limit=50", token=token)
        for item in body["items"]:
            word = item["entry"]["word"]
            if (word, item["kind"]) in seen:
                continue
            seen[(word, item["kind"])] = item
            call(server, "POST", f"{V}/review", {"entry": item["entry"]["id"], "rating": "easy", "kind": item["kind"]}, token=token)
    check("each word's kinds come up one per session: pomme and chat get all three, pain (no example) no cloze",
          sorted(seen) == sorted([("pomme", "forward"), ("pomme", "reverse"), ("pomme", "cloze"), ("chat", "forward"), ("chat", "reverse"),
                                  ("chat", "cloze"), ("pain", "forward"), ("pain", "reverse")]), sorted(seen))
    cloze = seen.get(("pomme", "cloze"), {}).get("cloze") or {}
    check("the cloze of an example is the word blanked", cloze.get("question") == "Je mange une _____." and cloze.get("answer") == "pomme", cloze)
    marked = seen.get(("chat", "cloze"), {}).get("cloze") or {}
    check("…or the part the user marked with {{c1::…}}", marked.get("question") == "Le _____ dort au soleil." and marked.get("answer") == "chat"
          and marked.get("full") == "Le chat dort au soleil.", marked)
    _, page, _ = call(server, "GET", "/api/v1/sync/changes?limit=500", token=token)
    cards = [i["record"] for i in page["items"] if i["kind"] == "vocabulary.card" and i.get("record")]
    check("each kind is its own card with its own schedule (8 cards, all in review)",
          len(cards) == 8 and all(c["state"] == "review" for c in cards) and len({c.get("kind", "forward") for c in cards}) == 3, cards)

    _, package, _ = call(server, "GET", f"{V}/export?format=apkg", token=token)
    path = os.path.join(data, "kinds.apkg")
    with open(path, "wb") as handle:
        handle.write(package)
    with zipfile.ZipFile(path) as archive:
        archive.extract("collection.anki2", os.path.join(data, "raw"))
    raw = sqlite3.connect(os.path.join(data, "raw", "collection.anki2"))
    schema = raw.execute("SELECT count(*) FROM notes").fetchone()[0], raw.execute("SELECT count(*) FROM cards").fetchone()[0]
    raw.close()
    check("the package holds 3 word notes and 2 cloze notes, 8 cards", schema == (5, 8), schema)

    with anki_opened(path, data, "kinds.anki2", with_scheduling=True) as col:
        models = {m["name"]: m for m in col.models.all()}
        reversed_model = models.get("Quire Word (and reversed card)") or {}
        cloze_model = models.get("Quire Cloze") or {}
        check("Anki opens it with a two-template word note type (Basic and reversed) and a Cloze note type",
              [t["name"] for t in reversed_model.get("tmpls", [])] == ["Card 1", "Card 2"] and cloze_model.get("type") == 1
              and [f["name"] for f in cloze_model.get("flds", [])][:2] == ["Text", "Back Extra"], (sorted(models), cloze_model.get("type")))
        kinds = {}
        for cid in col.find_cards(""):
            card = col.get_card(cid)
            note = card.note()
            name = note.note_type()["name"]
            kinds[(note.fields[2] if name == "Quire Cloze" else note.fields[0], name, card.ord)] = card
        check("…every card in review, with Quire's stability and difficulty",
              len(kinds) == 8 and all(c.type == 2 and c.memory_state is not None for c in kinds.values()), sorted(kinds))
        logged = {key: col.db.list("SELECT ease FROM revlog WHERE cid = ?", card.id) for key, card in kinds.items()}
        check("…and Anki's review log has each card's review (8, each rated easy, 4, on its own card)",
              len(logged) == 8 and all(eases == [4] for eases in logged.values()), logged)
        question = kinds.get(("pomme", "Quire Word (and reversed card)", 1))
        check("…card 2 asks the word for the definition", question is not None and "apple" in question.question() and "pomme" not in question.question(),
              question and question.question())
        blank = kinds.get(("pomme", "Quire Cloze", 0))
        check("…the cloze card shows the sentence with a blank, and the word on the back",
              blank is not None and "[...]" in blank.question() and "pomme" not in re.sub(r"<[^>]*>", "", blank.question()) and "pomme" in blank.answer(),
              blank and (blank.question(), blank.answer()))
        # Anki's scheduler takes them: due today, each type answered by Anki.
        col.set_config("fsrs", True)  # Anki's FSRS answers: each card keeps its memory state
        col.decks.select(col.decks.id_for_name("French"))
        col.sched.set_due_date([c.id for c in kinds.values()], "0")
        answered = set()
        for _ in range(24):
            card = col.sched.getCard()
            if not card:
                break
            answered.add((card.note().note_type()["name"], card.ord))
            col.sched.answerCard(card, 3)
        check("Anki's scheduler shows and answers a card of each note type and template",
              answered == {("Quire Word (and reversed card)", 0), ("Quire Word (and reversed card)", 1), ("Quire Cloze", 0)}, answered)
        # Anki's own note types beside them: Basic (and reversed card) and Cloze, answered by Anki's FSRS.
        spanish = col.decks.id("Spanish")
        basic = col.new_note(col.models.by_name("Basic (and reversed card)"))
        basic["Front"], basic["Back"] = "perro", "dog"
        col.add_note(basic, spanish)
        gap = col.new_note(col.models.by_name("Cloze"))
        gap["Text"], gap["Back Extra"] = "El {{c1::gato}} duerme.", "cat"
        col.add_note(gap, spanish)
        conf = col.decks.config_dict_for_deck_id(spanish)
        conf["new"]["bury"] = False  # each of a note's cards answered in the same session
        col.decks.update_config(conf)
        col.decks.select(spanish)
        ratings = iter([4, 3, 4, 3, 4, 3])
        for _ in range(6):
            card = col.sched.getCard()
            if not card:
                break
            col.sched.answerCard(card, next(ratings))
        anki_cards = anki_schedules(col)
        reviewed = os.path.join(data, "reviewed-in-anki.apkg")
        col.export_anki_package(out_path=reviewed, options=ExportAnkiPackageOptions(with_scheduling=True, with_media=False, legacy=True),
                                limit=None)

    carol = sign_up(server, "carol")
    with open(path, "rb") as handle:
        _, job, _ = call(server, "POST", f"{V}/imports?format=apkg", raw=handle.read(), token=carol, content_type="application/zip")
    job = wait_job(server, carol, job)
    _, body, _ = call(server, "GET", f"{V}/search?q=", token=carol)
    check("importing the package makes the 3 words, not a copy per cloze note", job["state"] == "succeeded" and job["imported"] == 3,
          (job, [i["word"] for i in body.get("items", [])]))
    theirs = feed(server, carol)
    check("…and every card of every kind comes back in its place in the schedule (8 cards: forward, reverse, cloze)",
          len(theirs["cards"]) == 8 and all(same(theirs["cards"].get(key), card) for key, card in feed(server, token)["cards"].items()),
          sorted(theirs["cards"]))
    check("…the collection it makes has reverse and cloze on", theirs["kinds"].get("French") == ["forward", "reverse", "cloze"], theirs["kinds"])

    # The package Anki wrote after reviewing: Quire's note types and Anki's own, each card where Anki's FSRS put it.
    erin = sign_up(server, "erin")
    with open(reviewed, "rb") as handle:
        _, job, _ = call(server, "POST", f"{V}/imports?format=apkg", raw=handle.read(), token=erin, content_type="application/zip")
    job = wait_job(server, erin, job)
    check("Anki's package imports: the 3 Quire words, perro (Basic and reversed) and gato (Cloze)", job["state"] == "succeeded" and job["imported"] == 5,
          job)
    theirs = feed(server, erin)
    wrong = {key: (theirs["cards"].get(key), card) for key, card in anki_cards.items() if not like_anki(theirs["cards"].get(key), card)}
    check("…each card (11: 8 of Quire's note types, perro's two, gato's cloze) has Anki's state, due time, stability, difficulty, reps and lapses",
          {("perro", "forward"), ("perro", "reverse"), ("gato", "cloze")} <= set(anki_cards) and len(anki_cards) == 11 and not wrong and len(theirs["cards"]) == 11
          and all(card["stability"] is not None for card in anki_cards.values()), wrong or sorted(theirs["cards"]))
    _, found, _ = call(server, "GET", f"{V}/search?q=gato", token=erin)
    gato = (found.get("items") or [{}])[0]
    _, gato, _ = call(server, "GET", f"{V}/entries/{gato.get('id')}", token=erin)
    check("…Anki's Cloze note is the word its {{c1::…}} hides, its sentence the example, Back Extra the definition",
          gato.get("word") == "gato" and gato.get("example") == "El {{c1::gato}} duerme." and gato.get("definitions") == ["cat"], gato)
    check("…the collections it makes have the kinds their notes have", theirs["kinds"] == {"French": ["forward", "reverse", "cloze"],
                                                                                            "Spanish": ["forward", "reverse", "cloze"]}, theirs["kinds"])


def anki_schedules(col):
    """Anki's cards by (word, kind): state, due (epoch seconds), stability, difficulty, reps, lapses."""
    crt = col.db.scalar("SELECT crt FROM col")
    found = {}
    for cid in col.find_cards(""):
        card = col.get_card(cid)
        note = card.note()
        name = note.note_type()["name"]
        if note.note_type()["type"] == 1:
            word = note.fields[2] if name == "Quire Cloze" else re.search(r"\{\{c\d+::([^}:]*)", note.fields[0]).group(1)
            kind = "cloze"
        else:
            word, kind = note.fields[0], ("forward", "reverse")[card.ord]
        if card.type == 0:
            continue
        memory = card.memory_state
        found[(word, kind)] = {"state": {1: "learning", 2: "review", 3: "relearning"}[card.type],
                               "due": crt + card.due * 86_400 if card.queue in (2, 3) else card.due,
                               "stability": memory.stability if memory else None, "difficulty": memory.difficulty if memory else None,
                               "reps": card.reps, "lapses": card.lapses}
    return found


def feed(server, token):
    """A user's cards by (word, kind) and collections' kinds by name, from sync's feed."""
    _, page, _ = call(server, "GET", "/api/v1/sync/changes?limit=500", token=token)
    records = [(i["kind"], i["record"]) for i in page["items"] if i.get("record")]
    words = {r["id"]: r["word"] for k, r in records if k == "vocabulary.entry"}
    return {"cards": {(words.get(r["entry"]), r.get("kind", "forward")): r for k, r in records if k == "vocabulary.card"},
            "kinds": {r["name"]: r.get("cardKinds", ["forward"]) for k, r in records if k == "vocabulary.collection"}}


def epoch(stamp):
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def same(theirs, mine):
    """The same place in the schedule (a review due the same day: Anki counts days)."""
    if not theirs or theirs["state"] != mine["state"] or (theirs["reps"], theirs["lapses"]) != (mine["reps"], mine["lapses"]):
        return False
    close = abs(theirs["stability"] - mine["stability"]) < 1e-6 and abs(theirs["difficulty"] - mine["difficulty"]) < 1e-6
    late = epoch(mine["due"]) - epoch(theirs["due"])
    return close and (0 <= late < 86_400 if mine["state"] == "review" else late == 0)


def like_anki(theirs, anki):
    """Quire's card where Anki's is: the state, the due time, FSRS's memory (as Anki keeps it), reps and lapses."""
    if not theirs or theirs["state"] != anki["state"] or (theirs["reps"], theirs["lapses"]) != (anki["reps"], anki["lapses"]):
        return False
    memory = anki["stability"] is None or (abs(theirs["stability"] - anki["stability"]) < 1e-3 and abs(theirs["difficulty"] - anki["difficulty"]) < 1e-3)
    return memory and abs(epoch(theirs["due"]) - anki["due"]) < 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-card-kinds-") as data:
        server = Server(os.path.abspath(args.binary), data, free_port())
        try:
            server.start()
            run(server, data)
            server.stop()
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("acceptance run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
    failed = results.count(False)
    print(f"anki card kinds: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

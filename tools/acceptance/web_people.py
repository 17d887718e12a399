#!/usr/bin/env python3
"""iRemember's people (issue 41), in a real browser: Debian's Chromium at 390×844 (touch), driven by
Playwright, against the real server and the shipped config (album: { people: true }). Controls are
found by their labels.

A photo is added; two people are named on it with a tap on each face ("Emma", "your
granddaughter"; "Tom", "your son"): the boxes land where the taps were, the names show large under
the photo and in the slideshow, and are read aloud (a fake speechSynthesis records what is said).
A person's page shows their name and relationship large and every photo of them, after a reload
too; People on the home screen lists them. Offline, a second photo is named (one of the people and
someone new): it shows at once, the server has nothing, and once online it is there; one is taken
off again. A second phone
(the album moved with its link) sees the names; removing Tom on the first takes his name off the
second's photo, live. The share page names who is in the photo. With people: false, no control.
axe-core on each screen; screenshots in .build/screenshots/people-*.png.

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iremember  # noqa: E402  (the album's harness: Server, make_config, jpeg)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port  # noqa: E402
from web_beyond import FAKE_SPEECH, add_photo  # noqa: E402
from webwalk import settled, token_of  # noqa: E402

ROOT = napkin_notes.ROOT
A = "/api/v1/album"


def screen(page, name, file=None):
    webwalk.screen(page, "people", name, file)


def fits(page, what):
    width = page.evaluate("document.documentElement.scrollWidth")
    check(f"{what} fits the phone's width ({width} ≤ 390 px)", width <= 390, width)


def phone(browser, server):
    return webwalk.phone(browser, server, init_script=FAKE_SPEECH, locale="en-GB", timezone_id="Europe/London")


def tap_face(page, fx, fy):
    """Name someone in this photo: the tap at (fx, fy), fractions of the picture."""
    page.get_by_role("button", name="Name someone in this photo").click()
    target = page.get_by_role("button", name="Tap where their face is")
    target.wait_for()
    box = page.locator("album-photo figure img").bounding_box()
    target.click(position={"x": box["width"] * fx, "y": box["height"] * fy})
    page.get_by_role("dialog", name="Who is this?").wait_for()


def name_new(page, name, relationship):
    dialog = page.get_by_role("dialog", name="Who is this?")
    dialog.get_by_label("Name", exact=True).fill(name)
    dialog.get_by_label("Who they are to you").fill(relationship)
    dialog.get_by_role("button", name="Save name").click()
    page.get_by_role("link", name=f"{name} — {relationship}").first.wait_for(timeout=10_000)


def names_listed(page):
    return page.eval_on_selector_all("ul.people-list a.person-name", "els => els.map(e => e.textContent)")


def font_px(page, selector):
    page.wait_for_selector(selector)
    return float(page.eval_on_selector(selector, "e => getComputedStyle(e).fontSize").removesuffix("px"))


def people_of(server, token, photo):
    _, body, _ = call(server, "GET", f"{A}/photos/{photo}/people", token=token)
    return body.get("items", [])


def people_walk(browser, server, data):
    context, page = phone(browser, server)
    page.goto("/")
    page.get_by_role("button", name="Get Started").click()
    page.wait_for_selector("album-home")
    token = token_of(page)
    add_photo(page, server, data, "garden.jpg", "2024:06:01 15:00:00", "In the garden", 1)
    photo = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")

    # Two people, each a tap on their face and a name with who they are to the user.
    tap_face(page, 0.3, 0.4)
    dialog = page.get_by_role("dialog", name="Who is this?")
    check("the first tap asks who this is, with a Name and a Who they are to you box (nobody named yet)",
          dialog.get_by_label("Name", exact=True).is_visible() and dialog.get_by_label("Who they are to you").is_visible()
          and dialog.locator("button.person-choice").count() == 0)
    screen(page, "Who is this?", "who-is-this")
    name_new(page, "Emma", "your granddaughter")
    tap_face(page, 0.7, 0.45)
    name_new(page, "Tom", "your son")
    check("the photo view lists both, large, left to right: “Emma — your granddaughter”, “Tom — your son”",
          names_listed(page) == ["Emma — your granddaughter", "Tom — your son"], names_listed(page))
    size = font_px(page, "ul.people-list a.person-name strong")
    check(f"…in large type ({size} px ≥ 24 px)", size >= 24, size)
    boxes = page.locator("figure .face-box")
    check("…and a box on each face, named for the person it opens", boxes.count() == 2
          and page.get_by_role("link", name="Emma — your granddaughter: open their page").count() == 1)
    settled(page)
    faces = sorted(people_of(server, token, photo), key=lambda f: f["box"]["x"])
    centres = [(round(f["box"]["x"] + f["box"]["w"] / 2, 2), round(f["box"]["y"] + f["box"]["h"] / 2, 2)) for f in faces]
    check("the server has both faces, each box centred where the tap was (0.3, 0.4) and (0.7, 0.45)",
          len(faces) == 2 and abs(centres[0][0] - 0.3) < 0.03 and abs(centres[0][1] - 0.4) < 0.03
          and abs(centres[1][0] - 0.7) < 0.03 and abs(centres[1][1] - 0.45) < 0.03, centres)
    _, people, _ = call(server, "GET", f"{A}/people", token=token)
    check("…and both people with their relationships",
          [(p["name"], p["relationship"]) for p in people["items"]] == [("Emma", "your granddaughter"), ("Tom", "your son")], people)
    fits(page, "the photo with its people")
    page.get_by_role("button", name="Read aloud who is in this photo").click()
    said = page.evaluate("window.__spoken")
    check("Read aloud says who is in the photo", said[-1:] and said[-1]["text"] == "Emma, your granddaughter. Tom, your son.", said[-1:])
    page.evaluate("speechSynthesis.finish()")
    page.locator("album-photo h1").scroll_into_view_if_needed()
    screen(page, "the photo with its people", "photo")
    page.get_by_role("link", name="Emma — your granddaughter", exact=True).scroll_into_view_if_needed()
    webwalk.shot(page, "people", "photo-names")

    # The slideshow: the names large under the picture, and read with the caption.
    page.goto("/#/slideshow")
    page.wait_for_function("() => document.querySelector('.slideshow .slide img')?.src.startsWith('blob:')", timeout=15_000)
    page.get_by_role("button", name="Pause").click()
    shown = page.eval_on_selector_all(".slideshow ul.slide-people li", "els => els.map(e => e.textContent)")
    check("the slideshow shows “Emma — your granddaughter” and “Tom — your son”", shown == ["Emma — your granddaughter", "Tom — your son"], shown)
    size = font_px(page, ".slideshow ul.slide-people")
    check(f"…large ({size} px ≥ 24 px)", size >= 24, size)
    page.get_by_role("button", name="Read aloud the caption").click()
    said = page.evaluate("window.__spoken")
    check("…and reads them with the caption", said[-1]["text"].endswith("Emma, your granddaughter. Tom, your son."), said[-1:])
    screen(page, "the slideshow with its people", "slideshow")
    page.get_by_role("link", name="Close the slideshow").click()

    # A person's page: a name in the list opens it.
    page.goto(f"/#/photo/{photo}")
    page.get_by_role("link", name="Emma — your granddaughter", exact=True).click()
    page.wait_for_selector("album-person h1")
    check("a name opens the person's page: “Emma”, large, and “your granddaughter”",
          page.inner_text("album-person h1") == "Emma" and page.inner_text("album-person .relationship") == "your granddaughter"
          and font_px(page, "album-person h1") >= 32, page.inner_text("album-person"))
    check("…with every photo of her (1)", page.locator("album-person ul.grid a.cell").count() == 1
          and "1 photo of Emma" in page.inner_text("album-person"))
    page.get_by_role("button", name="Read aloud who Emma is").click()
    check("…read aloud: “Emma, your granddaughter.”", page.evaluate("window.__spoken")[-1]["text"] == "Emma, your granddaughter.")
    page.evaluate("speechSynthesis.finish()")
    page.wait_for_function("() => [...document.querySelectorAll('album-person ul.grid img')].every(i => i.complete && i.naturalWidth > 0)"
                           " && document.querySelectorAll('album-person ul.grid img').length === 1", timeout=15_000)
    screen(page, "a person's page", "person")
    page.reload()
    page.wait_for_selector("album-person h1", timeout=15_000)
    check("after a reload the person's page is still there", page.inner_text("album-person h1") == "Emma")
    # The box on the face opens the person too.
    page.goto(f"/#/photo/{photo}")
    page.get_by_role("link", name="Tom — your son: open their page").click()
    page.wait_for_selector("album-person h1")
    check("the box on a face opens that person", page.inner_text("album-person h1") == "Tom")

    # People, from the home screen.
    page.goto("/#/")
    page.get_by_role("link", name="People").click()
    page.wait_for_selector("album-people ul.people-index")
    listed = page.eval_on_selector_all("album-people a.person-link strong", "els => els.map(e => e.textContent)")
    check("People on the home screen lists them by name", listed == ["Emma", "Tom"], listed)
    screen(page, "People", "people")

    # Offline: a second photo named with Emma and someone new; shown at once, sent when online.
    add_photo(page, server, data, "beach.jpg", "2025:07:14 11:00:00", "At the beach", 2)
    settled(page)
    second = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
    context.set_offline(True)
    tap_face(page, 0.25, 0.5)
    page.get_by_role("dialog", name="Who is this?").get_by_role("button", name="Emma — your granddaughter").click()
    tap_face(page, 0.75, 0.5)
    name_new(page, "Anna", "your daughter")
    check("offline, naming shows at once: Emma and Anna under the photo",
          names_listed(page) == ["Emma — your granddaughter", "Anna — your daughter"], names_listed(page))
    check("…and the server does not have them yet", people_of(server, token, second) == [])
    webwalk.shot(page, "people", "offline")
    context.set_offline(False)
    settled(page, 30_000)
    faces = people_of(server, token, second)
    _, people, _ = call(server, "GET", f"{A}/people", token=token)
    anna = next((p for p in people["items"] if p["name"] == "Anna"), None)
    check("back online, the server has both names on the photo, and Anna (your daughter)",
          len(faces) == 2 and anna is not None and anna["relationship"] == "your daughter"
          and {f["person"] for f in faces} == {anna["id"], next(p["id"] for p in people["items"] if p["name"] == "Emma")}, (faces, people))
    page.get_by_role("button", name="Take Anna off this photo").click()
    page.wait_for_function("() => document.querySelectorAll('ul.people-list a.person-name').length === 1", timeout=10_000)
    settled(page)
    check("Take Anna off this photo: only Emma is listed, and the server has one face on it (Anna stays one of the people)",
          names_listed(page) == ["Emma — your granddaughter"] and len(people_of(server, token, second)) == 1, names_listed(page))
    page.goto(f"/#/person/{anna['id']}")
    page.wait_for_selector("album-person h1")
    check("the person made offline opens by the server's id", page.inner_text("album-person h1") == "Anna")

    # The share page names who is in the photo.
    _, link, _ = call(server, "POST", f"{A}/photos/{photo}/share", {}, token=token)
    with urllib.request.urlopen(server.base + link["path"]) as response:
        html = response.read().decode()
    check("the share page says “Emma — your granddaughter · Tom — your son”", "Emma — your granddaughter · Tom — your son" in html, html[:300])

    # A second phone: the album moved with its link.
    page.goto("/#/move")
    page.wait_for_selector("#move-code")
    code = page.input_value("#move-code")
    other_context, other = phone(browser, server)
    other.goto(f"/#/move/{code}")
    other.get_by_role("button", name="Open my album").click()
    other.wait_for_selector("album-home")
    other.goto(f"/#/photo/{photo}")
    other.wait_for_selector("ul.people-list", timeout=15_000)
    check("the second phone shows the names on the photo", names_listed(other) == ["Emma — your granddaughter", "Tom — your son"], names_listed(other))

    # Removing Tom on the first phone: the second loses his name, live.
    page.goto(f"/#/person/{next(p['id'] for p in people['items'] if p['name'] == 'Tom')}")
    page.wait_for_selector("album-person h1")
    page.get_by_role("button", name="Remove Tom from your people").click()
    page.get_by_role("dialog").get_by_role("button", name="Remove").click()
    page.wait_for_selector("album-people")
    listed = page.eval_on_selector_all("album-people a.person-link strong", "els => els.map(e => e.textContent)")
    check("removing Tom: People no longer lists him", listed == ["Anna", "Emma"], listed)
    settled(page)
    _, people, _ = call(server, "GET", f"{A}/people", token=token)
    check("…the server has no Tom, and his name is off the photo",
          [p["name"] for p in people["items"]] == ["Anna", "Emma"] and len(people_of(server, token, photo)) == 1)
    other.wait_for_function("() => [...document.querySelectorAll('ul.people-list a.person-name')].map(e => e.textContent).join('|') === "
                            "'Emma — your granddaughter'", timeout=15_000)
    check("…and the second phone's photo shows only Emma, without a reload", True)
    other_context.close()
    context.close()


def switched_off_walk(browser, server, data):
    _, manifest, _ = call(server, "GET", "/api/v1/manifest")
    features = {f for p in manifest["plugins"] for f in p["features"]}
    check("with people: false the manifest has no people feature", "people" not in features and "photos" in features, sorted(features))
    context, page = phone(browser, server)
    page.goto("/")
    page.get_by_role("button", name="Get Started").click()
    page.wait_for_selector("album-home")
    check("switched off: no People on the home screen", page.get_by_role("link", name="People").count() == 0)
    add_photo(page, server, data, "off.jpg", "2024:06:01 15:00:00", "In the garden", 3)
    check("switched off: the photo view has no “Name someone in this photo”",
          page.get_by_role("button", name="Name someone in this photo").count() == 0)
    status, _, _ = call(server, "GET", f"{A}/people", token=token_of(page))
    check("switched off: the people routes are not there (404)", status == 404, status)
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    codes = []
    with tempfile.TemporaryDirectory(prefix="quire-web-people-") as data:
        server = iremember.Server(binary, data, free_port())
        server.config = iremember.make_config(data)
        with open(server.config) as handle:
            assert "people: true" in handle.read(), "the shipped iremember.yaml switches people on"
        codes.append(webwalk.run(server, lambda browser: people_walk(browser, server, data)))
    with tempfile.TemporaryDirectory(prefix="quire-web-people-off-") as data:
        server = iremember.Server(binary, data, free_port())
        path = iremember.make_config(data)
        with open(path) as handle:
            text = handle.read()
        with open(path, "w") as handle:
            handle.write(text.replace("people: true", "people: false"))
        server.config = path
        codes.append(webwalk.run(server, lambda browser: switched_off_walk(browser, server, data)))
    sys.exit(1 if any(codes) else 0)


if __name__ == "__main__":
    main()

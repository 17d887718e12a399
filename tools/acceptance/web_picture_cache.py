#!/usr/bin/env python3
"""The one picture cache of the phone apps (issue 40), as AR Notebook uses it in the browser.

iRemember, AR Notebook and Napkin Notes keep the pictures they have shown with one module
(Plugins/Web/Client/picture-cache.js; its rules are unit-tested in
Tests/WebClient/picture-cache.test.mjs). web_iremember.py checks iRemember's size setting,
web_napkin.py a photo shown offline after a reload, web_ar_notebook.py (pictures_offline) AR's
pictures offline. This walk checks that AR's picture is kept where the others keep theirs: in
the account's own IndexedDB copy (`meta`, `picture:PATH`), counted in the cache's index
(`picture-cache`: its size and when it was last shown, which the bound works on), and that AR's
database of its own from before (`quire-ar-pictures`) is gone.

    python3 tools/acceptance/web_picture_cache.py [--binary .build/debug/quire]

Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ar_notebook  # noqa: E402  (the shipped AR Notebook config)
import napkin_notes  # noqa: E402
import webwalk  # noqa: E402
from napkin_notes import check, free_port  # noqa: E402
from web_ar_notebook import add_page, picture  # noqa: E402  (its phones' setup)

ROOT = napkin_notes.ROOT

# What the account's copies on this phone hold of the picture cache: for each database, the
# picture keys kept and the index's entries.
KEPT = """async () => {
  const open = (name) => new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const done = (request) => new Promise((resolve, reject) => { request.onsuccess = () => resolve(request.result); request.onerror = () => reject(request.error); });
  const found = {};
  for (const { name } of await indexedDB.databases()) {
    const db = await open(name);
    if (!db.objectStoreNames.contains('meta')) { found[name] = null; db.close(); continue; }
    const store = db.transaction('meta').objectStore('meta');
    const keys = (await done(store.getAllKeys())).map(String).filter((k) => k.startsWith('picture:'));
    const index = await done(store.get('picture-cache'));
    found[name] = { keys, index: index ? Object.keys(index) : null };
    db.close();
  }
  return found;
}"""


def ar_pictures_in_the_one_cache(browser, server, data):
    context, page = webwalk.phone(browser, server)
    page.goto("/")
    # A phone that had AR's database of its own from before: it goes once the app keeps a picture.
    page.evaluate("""() => new Promise((resolve) => {
      const request = indexedDB.open('quire-ar-pictures', 1);
      request.onupgradeneeded = () => request.result.createObjectStore('pictures', { keyPath: 'path' });
      request.onsuccess = () => { request.result.close(); resolve(true); };
    })""")
    webwalk.sign_in(page, "web-cache", create=True)
    page.wait_for_selector("nb-welcome")
    page.click("text=Open my notebook")
    page.wait_for_selector("nb-book .sheet.cover")
    add_page(page, "Page 1 of 1")
    with page.expect_file_chooser() as chooser:
        page.click("nb-book button:has-text('Picture')")
    chooser.value.set_files(picture(data))
    page.wait_for_selector(".sheet .item-image img", timeout=15_000)
    webwalk.settled(page)
    # Opened online afresh: the notebook's pictures fetched from the server and kept.
    page.reload()
    page.wait_for_function("() => document.querySelector('.sheet .item-image img')?.naturalWidth > 0", timeout=15_000)
    kept = {}
    for _ in range(30):  # the index is written a second after the pictures are shown
        page.wait_for_timeout(200)
        kept = page.evaluate(KEPT)
        if any(v and v["keys"] and v["index"] for v in kept.values()):
            break
    account = {name: v for name, v in kept.items() if name.startswith("quire-") and v is not None}
    pictures = [k for v in account.values() for k in v["keys"] if "/api/v1/notebooks/" in k]
    indexed = [k for v in account.values() for k in (v["index"] or []) if "/api/v1/notebooks/" in k]
    check("AR's picture is kept in the account's own copy on the phone, with the cache the other apps use (picture:PATH, in picture-cache's index)",
          len(pictures) == 1 and indexed == pictures, kept)
    check("…and AR's database of its own from before (quire-ar-pictures, made before sign-in here) is deleted", "quire-ar-pictures" not in kept, sorted(kept))
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-web-picture-cache-") as data:
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=ar_notebook.SHIPPED)
        sys.exit(webwalk.run(server, lambda browser: ar_pictures_in_the_one_cache(browser, server, data)))


if __name__ == "__main__":
    main()

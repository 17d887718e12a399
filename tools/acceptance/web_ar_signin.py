#!/usr/bin/env python3
"""AR Notebook's sign-in in a phone's browser (issue 39; UI5.1.1 and UC-1):

- "Skip for now" makes this phone's own (device) account, said plainly to live only on this phone
  until signed up; a notebook written in; "Sign up" in the header gives the account a user name and
  password, and the notebook is still there, on the server under the signed-up account; a second
  phone signing in to it sees it.
- The same with "Continue with Facebook" (the OpenID Connect test provider on 127.0.0.2, standing in
  for Facebook): the provider's identity keeps the notebook, a second phone continuing with it sees
  it; an identity that already has its own account is refused on the sign-up screen, nothing moved.
- Only the device account's own token hands it over, once (the API, beside the browser).
- A shared notebook's link opened while signed out survives signing in through the provider.

axe-core checks every screen; screenshots go to .build/screenshots/ar-signin-*.png.
Prints one line per check and `web acceptance: N passed, N failed` last.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webwalk  # noqa: E402  (the browser: Chromium at a phone's size, axe, screenshots)
from napkin_notes import call, check  # noqa: E402
from web_ar_notebook import run_walk  # noqa: E402
from webwalk import phone, token_of  # noqa: E402

N = "/api/v1/notebooks"


def screen(page, name, file=None):
    webwalk.screen(page, "ar-signin", name, file)


def session_of(page):
    return page.evaluate("JSON.parse(localStorage.getItem('quire.session'))")


def header_says(page, text, timeout=10_000):
    page.wait_for_function("t => [...document.querySelectorAll('header.bar .link')].some(e => e.textContent === t)", arg=text, timeout=timeout)


def skip_and_write(page, text):
    """Skips signing in, opens the notebook the welcome offers and writes `text` on it."""
    page.goto("/")
    page.wait_for_selector("quire-signin button.skip")
    page.click("quire-signin button.skip")
    page.wait_for_selector("nb-welcome")
    page.click("text=Open my notebook")
    page.wait_for_selector("nb-book .sheet.cover")
    page.click("nb-book button:has-text('New page')")
    page.click("dialog button:has-text('OK')")
    page.wait_for_function("() => document.querySelector('.turn-row .where')?.textContent === 'Page 1 of 1'")
    page.click("nb-book button:has-text('Write')")
    page.fill("#nb-text", text)
    page.click("dialog button:has-text('Add')")
    page.wait_for_selector(f".sheet .item-text:has-text('{text}')")
    webwalk.settled(page)


def notebook_texts(server, token):
    """Every text item in the account's notebooks, from the server."""
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=token)
    texts = []
    for notebook in listing.get("items", []):
        _, content, _ = call(server, "GET", f"{N}/notebooks/{notebook['id']}", token=token)
        texts += [item.get("text") for page in content.get("pages", []) for item in page.get("items", [])]
    return texts


def sees_on_a_second_phone(browser, server, sign_in, text):
    """A phone that has not seen the account signs in (`sign_in(page)`) and opens its notebook."""
    context, page = phone(browser, server)
    page.goto("/")
    sign_in(page)
    page.wait_for_selector("nb-welcome h1, nb-notebooks h1, nb-book")
    if page.is_visible("nb-welcome h1"):
        page.click("text=Open my notebook")
    elif page.is_visible("nb-notebooks h1"):  # an account with notebooks opens on them on a new phone
        page.click("nb-notebooks a.big-link")
    page.wait_for_selector("nb-book .sheet.cover")
    page.click("[aria-label='Next page']")  # the text is on page 1
    try:
        page.wait_for_selector(f"nb-book .sheet .item-text:has-text('{text}')", timeout=10_000)
        seen = True
    except Exception:
        seen = False
    context.close()
    return seen


def skip_then_password(browser, server):
    """UI5.1.1: skip, write, sign up with a user name and password; the notebook is kept."""
    context, page = phone(browser, server)
    page.goto("/")
    page.wait_for_selector("quire-signin button.skip")
    said = page.inner_text("quire-signin")
    check("the sign-in screen offers “Skip for now”, saying the notebooks then stay on this phone only until signing up (UI5.1.1)",
          page.is_visible("text=Skip for now") and "on this phone only" in said and "until you sign up" in said, said[:400])
    screen(page, "sign-in with Skip for now", "signin-skip")
    skip_and_write(page, "Kept on this phone")
    token = token_of(page)
    _, me, _ = call(server, "GET", "/api/v1/auth/me", token=token)
    device_id = me.get("accountId")
    check("skipping makes this phone's own account (a device account), and the notebook is on the server under it",
          me.get("kind") == "device" and "Kept on this phone" in notebook_texts(server, token), me)
    header_says(page, "Sign up")
    check("a skipped account's header offers “Sign up” instead of “Sign out”",
          not page.is_visible("header.bar button:has-text('Sign out')"), page.inner_text("header.bar"))
    screen(page, "the notebook of a skipped account", "skipped-notebook")

    page.click("header.bar a:has-text('Sign up')")
    page.wait_for_selector("quire-signin.sign-up, quire-signin main.sign-up")
    said = page.inner_text("quire-signin")
    check("the sign-up screen says the notebooks live only on this phone until signing up, and that signing up keeps them",
          "only on this phone" in said and "Sign up" in said and page.is_visible("text=Sign up and keep my notebooks"), said[:400])
    screen(page, "signing up a skipped account", "sign-up")
    # A taken name is refused on the screen, nothing moved.
    call(server, "POST", "/api/v1/auth/register", {"username": "web-taken", "password": "a good password"})
    page.fill("#username", "web-taken")
    page.fill("#password", "a good password")
    page.click("text=Sign up and keep my notebooks")
    page.wait_for_function("() => document.querySelector('#signup-error')?.textContent.includes('taken')")
    _, still, _ = call(server, "GET", "/api/v1/auth/me", token=token)
    check("a taken user name is said on the sign-up screen, and the account stays this phone's", still.get("kind") == "device", still)
    screen(page, "a refused sign-up", "sign-up-refused")

    page.fill("#username", "web-skipper")
    page.click("text=Sign up and keep my notebooks")
    header_says(page, "Sign out")
    page.wait_for_selector("nb-book .sheet .item-text:has-text('Kept on this phone')")
    session = session_of(page)
    check("signing up comes back to the notebook, still there on this phone, signed in as the new account",
          "deviceSecret" not in session and session.get("username") == "web-skipper" and session.get("accountId") == device_id, session)
    status, login, _ = call(server, "POST", "/api/v1/auth/login", {"username": "web-skipper", "password": "a good password"})
    check("…and on the server under the signed-up account (its user name and password sign in to it)",
          status == 200 and login.get("accountId") == device_id and "Kept on this phone" in notebook_texts(server, login.get("access_token")),
          (status, login.get("accountId"), device_id))
    status, again, _ = call(server, "POST", "/api/v1/auth/device/sign-up",
                            {"accountId": device_id, "username": "web-other", "password": "a good password"}, token=token_of(page))
    check("a second sign-up of the same account is refused with a sentence (409 already_signed_up)",
          status == 409 and again.get("reason") == "already_signed_up" and "already signed up" in again.get("detail", ""), (status, again))
    screen(page, "the notebook after signing up", "signed-up-notebook")
    context.close()

    seen = sees_on_a_second_phone(browser, server, lambda p: webwalk.sign_in(p, "web-skipper"), "Kept on this phone")
    check("a second phone signing in to the signed-up account sees the notebook written before signing up", seen)


def only_its_own_token(server, provider):
    """The hand-over's access rules over the API: someone else's token, and the provider's route."""
    _, first, _ = call(server, "POST", "/api/v1/auth/device")
    _, second, _ = call(server, "POST", "/api/v1/auth/device")
    status, refused, _ = call(server, "POST", "/api/v1/auth/device/sign-up",
                              {"accountId": first["accountId"], "username": "web-thief", "password": "a good password"}, token=second["access_token"])
    check("another account's token cannot hand a device account's notebooks over (403 not_your_device_account)",
          status == 403 and refused.get("reason") == "not_your_device_account" and "Only this phone's own account" in refused.get("detail", ""),
          (status, refused))
    id_token = provider.token(sub="fb|thief", nonce="n-thief")
    status, refused, _ = call(server, "POST", "/api/v1/auth/oidc/facebook/sign-up",
                              {"accountId": first["accountId"], "id_token": id_token, "nonce": "n-thief"}, token=second["access_token"])
    check("…nor through the provider's sign-up", status == 403 and refused.get("reason") == "not_your_device_account", (status, refused))
    _, me, _ = call(server, "GET", "/api/v1/auth/me", token=first["access_token"])
    check("…and the device account is still this phone's, unchanged", me.get("kind") == "device", me)


def skip_then_provider(browser, server, provider):
    """UC-1 and UI5.1.1: skip, write, sign up with “Continue with Facebook”; the notebook is kept,
    and a second phone continuing with the same Facebook sees it."""
    provider.subject = "fb|skip-web"
    context, page = phone(browser, server)
    skip_and_write(page, "Kept for Facebook")
    device_id = session_of(page)["accountId"]
    page.click("header.bar a:has-text('Sign up')")
    page.wait_for_selector("quire-signin button.provider")
    check("the sign-up screen offers the provider too", page.text_content("quire-signin button.provider") == "Continue with Facebook")
    page.click("quire-signin button.provider")
    page.wait_for_selector("#allow")
    page.click("#allow")
    header_says(page, "Sign out", 15_000)
    page.wait_for_selector("nb-book .sheet .item-text:has-text('Kept for Facebook')")
    session = session_of(page)
    _, me, _ = call(server, "GET", "/api/v1/auth/me", token=session["accessToken"])
    check("signing up with the provider keeps the notebook: the same account, now linked to the provider",
          me.get("kind") == "external" and me.get("accountId") == device_id and "deviceSecret" not in session
          and "Kept for Facebook" in notebook_texts(server, session["accessToken"]), (me, device_id))
    check("…and the address is clean after coming back", "#" not in page.url.rstrip("#/"), page.url)
    context.close()

    def with_facebook(p):
        p.wait_for_selector("button.provider")
        p.click("button.provider")
        p.click("#allow")
    seen = sees_on_a_second_phone(browser, server, with_facebook, "Kept for Facebook")
    check("a second phone continuing with the same Facebook sees the notebook written before signing up", seen)

    # That identity has its account now: another skipped phone cannot sign up with it.
    context, page = phone(browser, server)
    skip_and_write(page, "Stays on this phone")
    page.click("header.bar a:has-text('Sign up')")
    page.wait_for_selector("quire-signin button.provider")
    page.click("quire-signin button.provider")
    page.click("#allow")
    page.wait_for_function("() => document.querySelector('#signup-error')?.textContent.includes('already has its own Quire account')",
                           timeout=15_000)
    token = token_of(page)
    _, me, _ = call(server, "GET", "/api/v1/auth/me", token=token)
    check("a Facebook sign-in that already has its own account is refused on the sign-up screen with what to do; the phone's account is kept",
          me.get("kind") == "device" and "Stays on this phone" in notebook_texts(server, token)
          and "user name and password instead" in page.inner_text("#signup-error"), (me, page.inner_text("#signup-error")))
    screen(page, "a refused provider sign-up", "sign-up-provider-refused")
    context.close()


def shared_link_through_provider(browser, server, provider):
    """A shared notebook's link opened while signed out, then “Continue with Facebook”: it opens."""
    _, owner, _ = call(server, "POST", "/api/v1/auth/login", {"username": "web-skipper", "password": "a good password"})
    _, listing, _ = call(server, "GET", f"{N}/notebooks", token=owner["access_token"])
    status, link, _ = call(server, "POST", f"{N}/notebooks/{listing['items'][0]['id']}/share", {}, token=owner["access_token"])
    provider.subject = "fb|reader-web"
    context, page = phone(browser, server)
    page.goto(f"/#/accept/{link['token']}")
    page.wait_for_selector("quire-signin button.provider")
    check("a shared link opened signed out says someone shared a notebook", "shared a notebook with you" in page.inner_text("quire-signin"))
    page.click("quire-signin button.provider")
    page.click("#allow")
    try:
        page.wait_for_selector("nb-book .warning", timeout=15_000)
        opened = True
    except Exception:
        opened = False
    check("a shared link opened while signed out survives signing in through the provider: the shared notebook opens (UC-1)",
          status == 201 and opened, (status, page.url, page.inner_text("body")[:300]))
    screen(page, "a shared notebook after signing in through the provider", "shared-after-provider")
    context.close()


def main():
    def set_up(provider):
        # The test provider signs every allowed sign-in as one subject; this walk chooses it.
        provider.subject = "fb|web-1"
        sign = provider.token
        provider.token = lambda sub="fb|1001", **rest: sign(sub=provider.subject if sub == "fb|web-1" else sub, **rest)

    def walk(browser, server, provider):
        skip_then_password(browser, server)
        only_its_own_token(server, provider)
        skip_then_provider(browser, server, provider)
        shared_link_through_provider(browser, server, provider)
    return run_walk("web-ar-signin", walk, set_up)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Web Push in Chromium at a phone's size (390×844): the settings control and the service worker.

Headless Chromium has no push service, so a real `pushManager.subscribe` cannot succeed here. The
walk checks, by label:
- Napkin Notes: Settings (header) → Notifications, "Notify me on this phone", Off; the browser's
  permission is not asked before the tap and is asked on it; where the browser cannot subscribe it
  says so in words. With a stand-in PushManager (this test's, in an init script: the subscription
  a push service would give, keys made here) the tap saves the subscription on the server, a push
  the server sends reaches this test's push service and decrypts to "Notifications are on", the
  control says On, and "Stop notifying this phone" deletes it on the server.
- The service worker shows a pushed notification: CDP `ServiceWorker.deliverPushMessage` to the
  registered worker, then `registration.getNotifications()` has its title, body and tag; a second
  push with the same tag replaces the first.
- iRemember: Settings has Notifications and the daily "On this day" hour, saved on the server.
axe-core on each screen; screenshots in .build/screenshots/push-*.png.

    python3 tools/acceptance/web_push.py --binary .build/debug/quire
"""
import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
import push  # noqa: E402  (the loopback push service and a phone's keys)
import webwalk  # noqa: E402
from napkin_notes import call, check, free_port, results  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

# Counts the permission prompts the page asks for, so "only on tap" can be checked.
COUNT_ASKS = """
(() => {
  window.__asked = 0;
  if (!("Notification" in window)) return;
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.__asked += 1; return ask(...args); };
})();
"""

# A stand-in for a browser's push service: the subscription it would give, with keys made by the test.
STAND_IN = """
(() => {
  const subscription = %s;
  let current = null;
  const fake = (json) => ({ endpoint: json.endpoint, toJSON: () => json, unsubscribe: async () => { current = null; return true; } });
  PushManager.prototype.subscribe = async function (options) {
    window.__subscribedWith = options && options.applicationServerKey ? options.applicationServerKey.byteLength : 0;
    current = fake(subscription);
    return current;
  };
  PushManager.prototype.getSubscription = async function () { return current; };
})();
"""


def registration_id(page, cdp, timeout=15):
    """The service worker registration's id, from ServiceWorker.enable's events (Playwright hands
    events over while it waits, hence page.wait_for_timeout rather than a sleep)."""
    found = {}
    cdp.on("ServiceWorker.workerRegistrationUpdated",
            lambda event: found.update({r["registrationId"]: r for r in event["registrations"] if not r.get("isDeleted")}))
    cdp.send("ServiceWorker.enable")
    deadline = time.time() + timeout
    while time.time() < deadline and not found:
        page.wait_for_timeout(100)
    return next(iter(found), None)


def notifications(page):
    return page.evaluate("""navigator.serviceWorker.ready.then((r) => r.getNotifications())
      .then((list) => list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url })))""")


def napkin_walk(browser, server, service):
    context, page = webwalk.phone(browser, server, init_script=COUNT_ASKS)
    page.goto("/")
    webwalk.sign_in(page, "rita", create=True)
    page.wait_for_selector("quire-status")
    webwalk.shot(page, "push", "notes-header")
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("heading", name="Notifications").wait_for()
    button = page.get_by_role("button", name="Notify me on this phone")
    check("Settings → Notifications: 'Notify me on this phone', Off", button.is_visible()
          and "Off" in page.locator("#push-state").inner_text(), page.locator("#push-state").inner_text())
    check("the browser's permission is not asked before the tap", page.evaluate("window.__asked") == 0)
    check("…it says what it sends: a reminder that is due", "when a reminder is due" in page.locator(".push-settings").inner_text())
    webwalk.screen(page, "push", "notifications off", "settings-off")
    # No push service in headless Chromium: the tap asks (granted here), the subscription fails, in words.
    context.grant_permissions(["notifications"], origin=server.base)
    button.click()
    page.wait_for_function("() => document.querySelector('#push-state')?.textContent.includes('push service')", timeout=15_000)
    check("the tap asks for permission, once", page.evaluate("window.__asked") == 1, page.evaluate("window.__asked"))
    check("…where the browser cannot sign up with a push service it says so and what to do",
          "could not sign up with its push service" in page.locator("#push-state").inner_text(), page.locator("#push-state").inner_text())
    webwalk.screen(page, "push", "no push service", "settings-no-service")

    # The service worker shows what a push carries (CDP delivers it to the registered worker).
    cdp = context.new_cdp_session(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    registration = registration_id(page, cdp)
    check("the service worker is registered", registration is not None)
    payload = {"title": "Reminder: Take the cake out", "body": "Tap to open it.", "tag": "reminder:notes/n_1", "url": "#/notes/n_1"}
    cdp.send("ServiceWorker.deliverPushMessage", {"origin": server.base, "registrationId": registration, "data": json.dumps(payload)})
    deadline, shown = time.time() + 10, []
    while time.time() < deadline and not shown:
        shown = notifications(page)
        time.sleep(0.2)
    check("a pushed reminder is shown as a notification (title, body, tag, the screen to open)",
          shown == [{"title": "Reminder: Take the cake out", "body": "Tap to open it.", "tag": "reminder:notes/n_1", "url": "#/notes/n_1"}], shown)
    cdp.send("ServiceWorker.deliverPushMessage", {"origin": server.base, "registrationId": registration,
                                                  "data": json.dumps(dict(payload, title="Reminder: Take the cake out now"))})
    time.sleep(1.5)
    shown = notifications(page)
    check("…a repeat with the same tag replaces it", [n["title"] for n in shown] == ["Reminder: Take the cake out now"], shown)
    context.close()

    # A browser with a push service, stood in for: the control's whole round trip with the server.
    phone = push.Phone(service, "/web/rita")
    context, page = webwalk.phone(browser, server, init_script=COUNT_ASKS + STAND_IN % json.dumps(phone.subscription))
    context.grant_permissions(["notifications"], origin=server.base)
    page.goto("/")
    webwalk.sign_in(page, "rita")
    page.wait_for_selector("quire-status")
    page.goto("/#/settings")
    page.get_by_role("button", name="Notify me on this phone").click()
    page.get_by_role("button", name="Stop notifying this phone").wait_for(timeout=15_000)
    token = webwalk.token_of(page)
    _, listed, _ = call(server, "GET", "/api/v1/push/subscriptions", token=token)
    check("(stand-in push service) the tap subscribes with the server's 65-byte key and the server keeps this phone",
          page.evaluate("window.__subscribedWith") == 65 and [i["endpoint"] for i in listed["items"]] == [phone.endpoint], listed)
    check("…the control says On", page.locator("#push-state").inner_text().startswith("On"), page.locator("#push-state").inner_text())
    webwalk.screen(page, "push", "notifications on", "settings-on")
    _, sent, _ = call(server, "POST", "/api/v1/push/test", token=token)
    got = service.wait(phone.path, seconds=10)
    check("…a push from the server reaches the push service and opens with this phone's keys",
          sent.get("sent") == 1 and got and phone.open(got[0]).get("title") == "Notifications are on", sent)
    page.get_by_role("button", name="Stop notifying this phone").click()
    # Mid-way the button is greyed and keeps its words; "Notify me" comes once the server let go.
    page.locator("section.push-settings[data-state='off']").wait_for(timeout=15_000)
    page.get_by_role("button", name="Notify me on this phone").wait_for(timeout=15_000)
    _, listed, _ = call(server, "GET", "/api/v1/push/subscriptions", token=token)
    check("'Stop notifying this phone' deletes it on the server", listed["items"] == [], listed)
    context.close()


def iremember_walk(browser, server):
    context, page = webwalk.phone(browser, server, init_script=COUNT_ASKS)
    page.goto("/")
    page.get_by_role("button", name="Get Started").click()
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("heading", name="Notifications").wait_for()
    check("iRemember Settings: 'Notify me on this phone'", page.get_by_role("button", name="Notify me on this phone").is_visible())
    hour = page.get_by_label("Daily “On this day” alert")
    check("…and the daily On this day alert, Off at first", hour.input_value() == "", hour.input_value())
    hour.select_option("09:00")
    token = webwalk.token_of(page)
    deadline, choice = time.time() + 10, None
    while time.time() < deadline:
        status, choice, _ = call(server, "GET", "/api/v1/push/on-this-day", token=token)
        if status == 200:
            break
        time.sleep(0.2)
    check("…09:00 chosen: the server keeps the hour and the phone's time zone", isinstance(choice, dict) and choice.get("hour") == 9
          and choice.get("timeZone"), choice)
    check("the permission is not asked by opening Settings", page.evaluate("window.__asked") == 0)
    page.evaluate("document.querySelector('#push-title').scrollIntoView()")
    check("…it says what it sends: photos from this day", "photos from this day in earlier years" in page.locator(".push-settings").inner_text())
    webwalk.screen(page, "push", "iRemember settings", "iremember-settings")
    context.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    service = push.PushService()
    os.environ["QUIRE_PUSH_TEST_ENDPOINTS"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=webwalk.chromium_path(), args=["--no-sandbox"])
        for name, config, walk in (("napkin", push.NAPKIN, lambda b, s: napkin_walk(b, s, service)),
                                   ("iremember", push.IREMEMBER, iremember_walk)):
            with tempfile.TemporaryDirectory(prefix=f"quire-web-push-{name}-") as data:
                napkin_notes.CONFIG = config
                server = napkin_notes.Server(binary, data, free_port(), config=config)
                try:
                    server.start()
                    walk(browser, server)
                except Exception as error:  # a crash of the harness is a failed check, with its reason
                    open_pages = [p for p in webwalk.PAGES if not p.is_closed()]
                    if open_pages:
                        open_pages[-1].screenshot(path=os.path.join(napkin_notes.ROOT, ".build", "web-failure.png"))
                    check(f"web push walk ({name})", False, repr(error))
                finally:
                    server.stop()
        browser.close()
    failed = results.count(False)
    print(f"web push acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

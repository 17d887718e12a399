#!/usr/bin/env python3
"""End-to-end acceptance of iRemember against the real `quire` binary and the shipped config.

- "Get Started" makes a password-less device account (the app's onboarding default).
- A JPEG with EXIF GPS of a known city, uploaded through the API, lands in that city's place folder
  with no other call; its shared page's og:image carries no GPS and no EXIF (checked with exiftool),
  while the original keeps them.
- A revoked link gives 410 at once; a link refuses POST/PUT/PATCH/DELETE; another user's photos 404.
- URL import works from an allowed web server and refuses 127.0.0.1, [::1], 10.0.0.1,
  169.254.169.254, [::ffff:127.0.0.1], a name resolving to loopback, and a redirect to each; a 50 MB
  body is cut off at the limit.
- quire-geo and quire-share work on the same data; SIGTERM stops cleanly and a restart keeps all.
Prints one line per check and `acceptance: N passed, N failed` last.
"""
import argparse
import concurrent.futures
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402  (shared harness: Server, call, check)
from napkin_notes import call, check, free_port, results  # noqa: E402

ROOT = napkin_notes.ROOT
SHIPPED = os.path.join(ROOT, "config", "apps", "iremember.yaml")
# The allowed test web server listens here; the app's config lets URL imports reach it (tests only).
WEB_HOST = "127.0.0.2"


class Server(napkin_notes.Server):
    config = SHIPPED
    # Two seconds: a photo deleted right after its upload is inside the grace, so the checks see
    # its bytes go when the grace has passed (not at the next hourly sweep).
    blob_grace = "2"

    def start(self):
        napkin_notes.CONFIG = self.config
        super().start()


def make_config(data):
    """The shipped config, plus the one test-only exception: URL imports may reach 127.0.0.2."""
    with open(SHIPPED) as handle:
        text = handle.read()
    assert "\n  album:\n" in text
    path = os.path.join(data, "iremember-acceptance.yaml")
    with open(path, "w") as handle:
        handle.write(text.replace("\n  album:\n", "\n  album:\n    import_allow_networks: [127.0.0.2/32]\n"))
    return path


def jpeg(data, name, gps=None, taken=None, seed=0):
    """A real JPEG from vips, with EXIF GPS and time written by exiftool."""
    path = os.path.join(data, name)
    xyz = path + ".v"
    subprocess.run(["vips", "xyz", xyz, "320", "240"], check=True)
    subprocess.run(["vips", "linear", xyz, path, "1", str(seed), "--uchar"], check=True)
    tags = []
    if gps:
        lat, lon = gps
        tags += [f"-GPSLatitude={abs(lat)}", f"-GPSLatitudeRef={'S' if lat < 0 else 'N'}",
                 f"-GPSLongitude={abs(lon)}", f"-GPSLongitudeRef={'W' if lon < 0 else 'E'}"]
    if taken:
        tags.append(f"-DateTimeOriginal={taken}")
    if tags:
        subprocess.run(["exiftool", "-q", "-overwrite_original"] + tags + [path], check=True)
    with open(path, "rb") as handle:
        return handle.read()


def exif_of(data, name, payload):
    """What exiftool reads in an image: its GPS and EXIF tags."""
    path = os.path.join(data, name)
    with open(path, "wb") as handle:
        handle.write(payload)
    out = subprocess.run(["exiftool", "-json", "-n", "-GPS:all", "-EXIF:all", path], capture_output=True, text=True, check=True)
    found = json.loads(out.stdout)[0]
    found.pop("SourceFile", None)
    return found


class WebServer:
    """The allowed web server URL imports fetch from: files, redirects anywhere, a 50 MB body."""

    def __init__(self, files):
        files = dict(files)

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlparse(self.path)
                query = urllib.parse.parse_qs(url.query)
                if url.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", query["to"][0])
                    self.end_headers()
                elif url.path == "/big":
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                    self.end_headers()
                    chunk = b"\xff" * 65536
                    try:
                        for _ in range((50 << 20) // len(chunk)):
                            self.wfile.write(chunk)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                elif url.path.startswith("/files/") and url.path[7:] in files:
                    body = files[url.path[7:]]
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    self.send_response(404)
                    self.end_headers()

        self.httpd = http.server.ThreadingHTTPServer((WEB_HOST, 0), Handler)
        self.base = f"http://{WEB_HOST}:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def redirect(self, target):
        return f"{self.base}/redirect?to={urllib.parse.quote(target, safe='')}"

    def close(self):
        self.httpd.shutdown()


def get_started(server):
    status, body, _ = call(server, "POST", "/api/v1/auth/device")
    if status != 201:
        raise RuntimeError(f"Get Started: {status} {body}")
    return body


def upload(server, token, payload, query=""):
    return call(server, "POST", "/api/v1/album/photos" + (("?" + query) if query else ""), raw=payload, token=token,
                content_type="image/jpeg")


def onboarding_and_place(server, data):
    status, manifest, _ = call(server, "GET", "/api/v1/manifest")
    auth = next(p for p in manifest["plugins"] if p["id"] == "auth")
    check("manifest: onboarding is the password-less device account", "onboarding:device" in auth["features"], auth["features"])
    account = get_started(server)
    check("Get Started: an account with no user name or password to remember", account["accountId"].startswith("acc_"), account)
    token = account["access_token"]
    original = jpeg(data, "paris.jpg", gps=(48.8584, 2.2945), taken="2024:07:14 21:30:00")
    status, screen, _ = upload(server, token, original, "source=camera&tags=fireworks%20Family")
    check("camera upload: 201 straight into mark-up (canvas, empty drawing, tags to tap)",
          status == 201 and screen["markup"]["width"] == 320 and screen["markup"]["drawing"] == {"strokes": [], "texts": []}, (status, screen))
    photo = screen["photo"]
    check("time taken from EXIF", photo["takenAt"] == "2024-07-14T21:30:00+00:00" and photo["takenAtSource"] == "exif", photo)
    status, places, _ = call(server, "GET", "/api/v1/album/folders/places", token=token)
    labels = [item["label"] for item in places["items"]]
    check("EXIF GPS of the Eiffel Tower: the photo lands in the Paris place folder, no other call",
          labels == ["Paris, Ile-de-France, France"], labels)
    key = places["items"][0]["key"]
    status, folder, _ = call(server, "GET", f"/api/v1/album/folders/places/{key}", token=token)
    check("…and the folder lists it", [item["id"] for item in folder["items"]] == [photo["id"]], folder)
    return token, photo, original


def sharing(server, data, token, photo, original):
    status, created, _ = call(server, "POST", f"/api/v1/album/photos/{photo['id']}/share", {}, token=token)
    check("share a photo: 201 with a 256-bit token", status == 201 and len(created["token"]) == 43, (status, created))
    path = created["path"]
    status, page, headers = call(server, "GET", path)
    html = page.decode() if isinstance(page, bytes) else str(page)
    check("the shared page is public HTML with og:title and og:image", status == 200 and 'property="og:image"' in html
          and 'property="og:title"' in html, (status, html[:300]))
    image_url = html.split('property="og:image" content="')[1].split('"')[0]
    image_path = urllib.parse.urlparse(image_url).path
    status, shared_image, _ = call(server, "GET", image_path)
    shared_tags = exif_of(data, "og.jpg", shared_image)
    original_tags = exif_of(data, "original.jpg", original)
    check("exiftool: the original has GPS", "GPSLatitude" in original_tags, original_tags)
    check("exiftool: og:image has no GPS and no EXIF", status == 200 and not any(k.startswith("GPS") for k in shared_tags)
          and shared_tags == {}, shared_tags)
    for method in ["POST", "PUT", "PATCH", "DELETE"]:
        status, _, _ = call(server, method, path, {"notes": "changed"})
        check(f"{method} on the link: 405, read-only", status == 405, status)
    status, now, _ = call(server, "GET", f"/api/v1/album/photos/{photo['id']}", token=token)
    check("…and the photo is unchanged", now["version"] == photo["version"] and now["notes"] == "", now)
    status, _, _ = call(server, "DELETE", f"/api/v1/share-link/links/{created['link']['id']}", token=token)
    status_page, _, _ = call(server, "GET", path)
    status_image, _, _ = call(server, "GET", image_path)
    check("revoked: 410 at once, page and image", (status, status_page, status_image) == (200, 410, 410), (status, status_page, status_image))
    status, _, _ = call(server, "GET", "/api/v1/share-link/s/" + "A" * 43)
    check("an unknown link: 404", status == 404, status)


def isolation(server, photo):
    other = get_started(server)["access_token"]
    pid = photo["id"]
    statuses = [call(server, m, p, b, token=other)[0] for m, p, b in [
        ("GET", f"/api/v1/album/photos/{pid}", None), ("GET", f"/api/v1/album/photos/{pid}/image", None),
        ("PATCH", f"/api/v1/album/photos/{pid}", {"notes": "mine"}), ("DELETE", f"/api/v1/album/photos/{pid}", None),
        ("POST", f"/api/v1/album/photos/{pid}/share", {})]]
    check("another user's photo: 404 on read, image, edit, delete, share", statuses == [404] * 5, statuses)
    status, listing, _ = call(server, "GET", "/api/v1/album/photos", token=other)
    check("…and absent from their album", listing["items"] == [], listing)


def url_import(server, data, token, web):
    status, screen, _ = call(server, "POST", "/api/v1/album/photos/import",
                             {"url": web.redirect(f"{web.base}/files/tokyo.jpg"), "tags": ["trip"]}, token=token)
    check("URL import from an allowed server (through a redirect): 201 into mark-up, place from EXIF",
          status == 201 and screen["photo"]["place"]["city"] == "Tokyo", (status, screen))
    for target in ["http://127.0.0.1/", "http://[::1]/", "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/",
                   "http://[::ffff:127.0.0.1]/", "http://localhost/"]:
        for url, how in [(target, "directly"), (web.redirect(target), "by redirect")]:
            status, body, _ = call(server, "POST", "/api/v1/album/photos/import", {"url": url}, token=token)
            check(f"URL import refuses {target} {how}: 403", status == 403 and body.get("reason") == "address_not_public", (status, body))
    status, body, _ = call(server, "POST", "/api/v1/album/photos/import", {"url": f"{web.base}/big"}, token=token, timeout=60)
    check("a 50 MB body is cut off at the limit: 413", status == 413, (status, body))


def browsing(server, data, token):
    for index, (time, tags) in enumerate([("2024-07-15T09:00", "beach dog"), ("2024-07-16T18:45", "beach"), ("2024-08-01T12:00", "dog")]):
        upload(server, token, jpeg(data, f"b{index}.jpg", seed=10 + index), f"takenAt={time}&tags={urllib.parse.quote(tags)}")
    _, found, _ = call(server, "GET", "/api/v1/album/photos?tags=beach%20-dog", token=token)
    check("search +beach −dog", [i["takenAt"] for i in found["items"]] == ["2024-07-16T18:45:00+00:00"], found)
    _, found, _ = call(server, "GET", "/api/v1/album/photos?tags=dog&from=2024-07-15T09:00&to=2024-07-15T09:00", token=token)
    check("search dog within a one-minute range", [i["takenAt"] for i in found["items"]] == ["2024-07-15T09:00:00+00:00"], found)
    _, months, _ = call(server, "GET", "/api/v1/album/folders/months", token=token)
    check("month folders, newest first", [(m["key"], m["count"]) for m in months["items"]] == [("2024-08", 1), ("2024-07", 4)], months)
    _, show, _ = call(server, "GET", "/api/v1/album/slideshow", token=token)
    check("slideshow: every photo once", len(show["items"]) == 5 and len(set(show["items"])) == 5 and show["nextCursor"] is None, show)


def pixels(data, name, payload):
    """(width, height, bands, raw bytes) of an image, through vips."""
    path = os.path.join(data, name)
    with open(path, "wb") as handle:
        handle.write(payload)
    raw = path + ".raw"
    subprocess.run(["vips", "rawsave", path, raw], check=True)
    size = [int(subprocess.run(["vipsheader", "-f", field, path], capture_output=True, text=True, check=True).stdout) for field in
            ("width", "height", "bands")]
    with open(raw, "rb") as handle:
        return size[0], size[1], size[2], handle.read()


def yellow(data, name, payload):
    """How many pixels are a smiley's yellow."""
    width, height, bands, raw = pixels(data, name, payload)
    if bands < 3:
        return 0  # grey: nothing is yellow
    count = 0
    for offset in range(0, width * height * bands, bands):
        r, g, b = raw[offset], raw[offset + 1], raw[offset + 2]
        if r > 180 and g > 140 and b < 90:
            count += 1
    return count


def blob_files(data):
    root = os.path.join(data, "blobs")
    return {name for _, _, files in os.walk(root) for name in files if not name.startswith(".")}


def edits_and_forgetting(server, data, web):
    """The document's features 7 and 8 through the API, forgiving tags, a shared marked-up photo, an
    emoji in the mark-up, and a deleted photo that takes everything it said about the person."""
    own = os.path.join(data, "edits")
    os.makedirs(own, exist_ok=True)
    token = get_started(server)["access_token"]
    before_blobs = blob_files(server.data)
    original = jpeg(own, "london.jpg", gps=(51.5007, -0.1246), taken="2024:05:01 12:00:00", seed=21)
    status, screen, _ = upload(server, token, original, "tags=" + urllib.parse.quote("Tom, London #trip"))
    photo = screen["photo"]
    pid = photo["id"]
    check("tags typed as text on upload: 'Tom, London #trip' → Tom, London, trip (as typed)", photo["tags"] == ["Tom", "London", "trip"], photo["tags"])
    status, edited, _ = call(server, "PATCH", f"/api/v1/album/photos/{pid}", {"tags": "Tom, London #trip, #Family"}, token=token)
    check("…and on edit: a text, not a 400 for a comma", status == 200 and edited["tags"] == ["Tom", "London", "trip", "Family"], (status, edited))
    status, imported, _ = call(server, "POST", "/api/v1/album/photos/import", {"url": f"{web.base}/files/tokyo.jpg", "tags": "Tom, Tokyo #trip"},
                               token=token)
    check("…and on URL import", status == 201 and imported["photo"]["tags"] == ["Tom", "Tokyo", "trip"], (status, imported))
    status, found, _ = call(server, "GET", "/api/v1/album/photos?tags=tom%20-TRIPS", token=token)
    check("…matched case-folded: ?tags=tom finds the photo tagged Tom", status == 200 and pid in [i["id"] for i in found.get("items", [])], (status, found))
    call(server, "DELETE", f"/api/v1/album/photos/{imported['photo']['id']}", token=token)
    time.sleep(0.5)  # media's ingest event is handled asynchronously: give a second geotag time to appear
    _, near, _ = call(server, "GET", "/api/v1/geo/near?lat=51.5007&lon=-0.1246&radiusKm=1", token=token)
    subjects = [item["geotag"]["subject"] for item in near["items"]]
    check("/geo/near lists an EXIF photo once, as the photo", subjects == [f"album.photos/{pid}"], subjects)

    # Features 7 and 8: rotate, crop, straighten as new versions; revert to the original.
    status, turned, _ = call(server, "POST", f"/api/v1/album/photos/{pid}/edit", {"rotate": 90}, token=token)
    check("rotate 90°: a new version, 240×320, marked edited", status == 200 and (turned["width"], turned["height"]) == (240, 320)
          and turned["edited"] and turned["version"] > edited["version"], (status, turned))
    status, thumb, _ = call(server, "GET", f"/api/v1/album/photos/{pid}/image/thumb", token=token)
    tw, th, _, _ = pixels(own, "thumb.jpg", thumb)
    check("…the thumbnail follows (portrait now)", status == 200 and th > tw, (tw, th))
    status, cropped, _ = call(server, "POST", f"/api/v1/album/photos/{pid}/edit", {"crop": {"x": 0.25, "y": 0.25, "width": 0.5, "height": 0.5}},
                              token=token)
    check("crop to the middle quarter: 120×160", status == 200 and (cropped["width"], cropped["height"]) == (120, 160), (status, cropped))
    status, straight, _ = call(server, "POST", f"/api/v1/album/photos/{pid}/edit", {"straighten": 8}, token=token)
    check("straighten 8°: cropped to the largest upright part, same proportions, no black corners",
          status == 200 and straight["width"] < 120 and abs(straight["width"] / straight["height"] - 0.75) < 0.03, (status, straight))
    status, bad, _ = call(server, "POST", f"/api/v1/album/photos/{pid}/edit", {"crop": {"x": 0.8, "y": 0, "width": 0.5, "height": 1}}, token=token)
    check("a crop outside the picture is refused with a sentence", status == 422 and "inside the picture" in bad.get("detail", ""), (status, bad))
    status, months, _ = call(server, "GET", "/api/v1/album/folders/places", token=token)
    check("…folders still hold the edited photo", [m["count"] for m in months["items"]] == [1], months)
    status, back, _ = call(server, "POST", f"/api/v1/album/photos/{pid}/revert", token=token)
    status_image, image, _ = call(server, "GET", f"/api/v1/album/photos/{pid}/image", token=token)
    check("revert: the picture as it was uploaded, byte for byte", status == 200 and not back["edited"]
          and (back["width"], back["height"]) == (320, 240) and image == original, (status, back))
    status, again, _ = call(server, "POST", f"/api/v1/album/photos/{pid}/revert", token=token)
    check("…reverting an unedited photo: 409 not_edited", status == 409 and again.get("reason") == "not_edited", (status, again))

    # Mark-up with an emoji, and sharing the marked-up picture.
    label = {"strokes": [], "texts": [{"text": "Tom 🙂", "x": 0.1, "y": 0.7, "size": 0.3, "color": "#000000"}]}
    status, _, _ = call(server, "PUT", f"/api/v1/album/photos/{pid}/markup", label, token=token)
    _, marked, _ = call(server, "GET", f"/api/v1/album/photos/{pid}/marked", token=token)
    call(server, "PUT", f"/api/v1/album/photos/{pid}/markup", {"strokes": [], "texts": [dict(label["texts"][0], text="Tom")]}, token=token)
    _, plain, _ = call(server, "GET", f"/api/v1/album/photos/{pid}/marked", token=token)
    emoji, without = yellow(own, "marked.png", marked), yellow(own, "plain.png", plain)
    check("an emoji in the mark-up is drawn, in colour (not an empty box)", emoji > without + 300, (emoji, without))
    call(server, "PUT", f"/api/v1/album/photos/{pid}/markup", label, token=token)
    for markup in (True, False):
        status, created, _ = call(server, "POST", f"/api/v1/album/photos/{pid}/share", {"markup": True} if markup else {}, token=token)
        _, page, _ = call(server, "GET", created["path"])
        html = page.decode() if isinstance(page, bytes) else str(page)
        image_path = urllib.parse.urlparse(html.split('property="og:image" content="')[1].split('"')[0]).path
        status, shared, headers = call(server, "GET", image_path)
        found = yellow(own, f"shared-{markup}.img", shared)
        tags = exif_of(own, f"shared-{markup}.exif", shared)
        if markup:
            check("shared with {markup: true}: the page shows the marked-up picture, still without GPS",
                  status == 200 and found > 300 and not any(k.startswith("GPS") for k in tags), (status, found, tags))
        else:
            check("…shared without it: the plain picture", status == 200 and found < 100, (status, found))
    _, plain_photo, _ = call(server, "POST", "/api/v1/album/photos/import", {"url": f"{web.base}/files/tokyo.jpg"}, token=token)
    status, refused, _ = call(server, "POST", f"/api/v1/album/photos/{plain_photo['photo']['id']}/share", {"markup": True}, token=token)
    check("…{markup: true} for a photo with no mark-up: 422 saying so", status == 422 and "mark-up" in refused.get("detail", ""), (status, refused))
    call(server, "DELETE", f"/api/v1/album/photos/{plain_photo['photo']['id']}", token=token)

    # Deleting the photo takes what it said about the person.
    status, _, _ = call(server, "DELETE", f"/api/v1/album/photos/{pid}", token=token)
    _, near, _ = call(server, "GET", "/api/v1/geo/near?lat=51.5007&lon=-0.1246&radiusKm=1", token=token)
    _, places, _ = call(server, "GET", "/api/v1/album/folders/places", token=token)
    _, tags, _ = call(server, "GET", "/api/v1/album/tags", token=token)
    check("deleted: at once no geotag near its place, no place folder, no tag counters", status == 204 and near["items"] == []
          and places["items"] == [] and tags["items"] == [], (status, near, places, tags))
    deadline = time.time() + 15
    left = blob_files(server.data) - before_blobs
    while left and time.time() < deadline:
        time.sleep(0.25)
        left = blob_files(server.data) - before_blobs
    check("…and within the blob grace (2 s here, blob_grace_seconds) the original, every edit, the renditions and the mark-up are off the disk",
          not left, left)


def upload_once(server, data):
    """The same upload sent twice with one Idempotency-Key (a phone whose answer was lost sends it
    again from its outbox) adds one photo; another key adds another."""
    account = get_started(server)
    token = account["access_token"]
    payload = jpeg(data, "twice.jpg", seed=7)
    sent = [call(server, "POST", "/api/v1/album/photos?source=camera", raw=payload, token=token, content_type="image/jpeg",
                 headers={"Idempotency-Key": key}) for key in ("upload-1", "upload-1", "upload-2")]
    ids = [body["photo"]["id"] if isinstance(body, dict) and "photo" in body else None for _, body, _ in sent]
    _, listing, _ = call(server, "GET", "/api/v1/album/photos?limit=10", token=token)
    check("an upload sent again with its Idempotency-Key answers the same photo; a new key adds another",
          all(status in (200, 201) for status, _, _ in sent) and ids[0] == ids[1] and ids[2] not in (None, ids[0])
          and len(listing["items"]) == 2, ([s for s, _, _ in sent], ids, len(listing["items"])))


def album_scenarios(server, data, web, label):
    """Onboarding, sharing, isolation, URL imports and browsing for one new user; their token."""
    napkin_notes.scenario.label = label
    own = os.path.join(data, label.replace(" ", "-"))
    os.makedirs(own, exist_ok=True)
    token, photo, original = onboarding_and_place(server, own)
    sharing(server, own, token, photo, original)
    isolation(server, photo)
    url_import(server, own, token, web)
    browsing(server, own, token)
    upload_once(server, own)
    return token


def tools(binary, server, account):
    config, env = server.tool()
    geo = os.path.join(os.path.dirname(binary), "quire-geo")
    share = os.path.join(os.path.dirname(binary), "quire-share")
    out = subprocess.run([geo, "place", "48.8584", "2.2945"], capture_output=True, text=True)
    check("quire-geo place: Paris", out.returncode == 0 and out.stdout.startswith("Paris, Ile-de-France, France"), out)
    out = subprocess.run([geo, "near", "48.858", "2.294", "--radius-km", "1", "--config", config, "--user", account, "--kind", "album.photos"],
                         capture_output=True, text=True, env=env)
    check("quire-geo near: the Paris photo", out.returncode == 0 and "album.photos/" in out.stdout, out)
    out = subprocess.run([share, "list", "--user", account, "--config", config], capture_output=True, text=True, env=env)
    check("quire-share list: the revoked link", out.returncode == 0 and "revoked" in out.stdout, out)
    out = subprocess.run([share, "create", "album.search", "--resource", "tags=beach", "--expires-in", "1d", "--user", account,
                          "--config", config], capture_output=True, text=True, env=env)
    check("quire-share create: a path", out.returncode == 0 and out.stdout.startswith("/api/v1/share-link/s/"), out)
    return out.stdout.strip()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="quire-iremember-") as data:
        server = Server(binary, data, free_port())
        server.config = make_config(data)
        web = None
        try:
            web = WebServer({"tokyo.jpg": jpeg(data, "tokyo.jpg", gps=(35.6895, 139.6917), taken="2024:07:20 10:00:00", seed=5)})
            server.start()
            # Every album scenario runs for two users at once, with the same photos, months and tags:
            # what one user stores must never get in the other's way (tag and folder counters were
            # once shared, so only the first user of a month could upload into it).
            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                runs = [pool.submit(album_scenarios, server, data, web, label) for label in ("user A", "user B")]
                token = [run.result() for run in runs][0]
            edits_and_forgetting(server, data, web)
            account = json.loads(__import__("base64").urlsafe_b64decode(token.split(".")[1] + "=="))["sub"]
            shared_path = tools(binary, server, account)
            status, _, _ = call(server, "GET", shared_path + "?format=json")
            check("…and the server serves the link quire-share made", status == 200, status)
            _, before, _ = call(server, "GET", "/api/v1/album/photos", token=token)
            code = server.stop(signal.SIGTERM)
            check("SIGTERM → clean exit 0", code == 0, code)
            server.start()
            _, after, _ = call(server, "GET", "/api/v1/album/photos", token=token)
            check("after restart: the same photos", before == after, (before, after))
            server.stop()
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("acceptance run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
        finally:
            if web:
                web.close()
    failed = results.count(False)
    print(f"iremember acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

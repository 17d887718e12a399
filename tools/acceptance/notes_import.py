#!/usr/bin/env python3
"""An Evernote export of many notes with many images, imported through the real server, with its
peak memory measured (the kernel's VmHWM of the server process).

The file is made to `evernote-export3.dtd` as Evernote writes it: a DOCTYPE, one `<note>` per
note with its ENML in CDATA, `created`, tags, and a JPEG `resource` in base64 (76-column lines).
Every image is different (a comment segment numbers it), so each one is decoded, checked and stored
like an upload. Every 1,000th note has a date Evernote never writes: it must be reported and the
others kept.

    python3 tools/acceptance/notes_import.py --binary .build/debug/quire                 # tools/test: 10,000 notes, 100 MB of images
    python3 tools/acceptance/notes_import.py --binary .build-release/release/quire --image-kb 100   # 10,000 notes, 1 GB
"""
import argparse
import base64
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402


def base_images(directory, kilobytes, count=8):
    """`count` noise JPEGs of about `kilobytes` each (noise does not compress)."""
    side = 32
    images = []
    for seed in range(count):
        while True:
            raw, out = os.path.join(directory, f"n{seed}.v"), os.path.join(directory, f"n{seed}.jpg")
            subprocess.run(["vips", "gaussnoise", raw, str(side), str(side), "--mean", "128", "--sigma", "60", "--seed", str(seed)],
                           check=True, capture_output=True)
            subprocess.run(["vips", "copy", raw, out + "[Q=92,strip]"], check=True, capture_output=True)
            size = os.path.getsize(out)
            if size >= kilobytes * 1000 * 0.9:
                break
            side = int(side * max(1.05, (kilobytes * 1000 / size) ** 0.5))
        with open(out, "rb") as handle:
            images.append(handle.read())
    return images


def numbered(jpeg, number):
    """The JPEG with a comment segment after its SOI: the same picture, other bytes."""
    comment = f"quire note {number}".encode()
    return jpeg[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + jpeg[2:]


def write_enex(path, notes, images):
    image_bytes = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                  '<!DOCTYPE en-export SYSTEM "http://xml.evernote.com/pub/evernote-export3.dtd">\n'
                  '<en-export export-date="20260101T120000Z" application="Evernote" version="10.0">\n')
        for n in range(1, notes + 1):
            jpeg = numbered(images[n % len(images)], n)
            image_bytes += len(jpeg)
            created = "sometime" if n % 1000 == 0 else f"2025{1 + n % 12:02d}{1 + n % 28:02d}T{n % 24:02d}3000Z"
            out.write(f"<note><title>Note {n} &amp; friends</title><content><![CDATA["
                      '<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE en-note SYSTEM "http://xml.evernote.com/pub/enml2.dtd">'
                      f"<en-note><div>Line one of note {n}</div><div><br/></div><ul><li>milk</li><li>eggs&nbsp;&amp; bread</li></ul>"
                      f'<en-media type="image/jpeg" hash="{n:032x}"/></en-note>]]></content>'
                      f"<created>{created}</created><updated>20260101T000000Z</updated><tag>tag{n % 7}</tag>"
                      "<note-attributes><author>acceptance</author></note-attributes>"
                      '<resource><data encoding="base64">\n')
            out.write(base64.encodebytes(jpeg).decode())
            out.write("</data><mime>image/jpeg</mime><width>1</width><height>1</height>"
                      f"<resource-attributes><file-name>photo{n}.jpg</file-name></resource-attributes></resource></note>\n")
        out.write("</en-export>\n")
    return image_bytes


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def upload(server, token, path):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
    with open(path, "rb") as body:
        connection.request("POST", "/api/v1/notes/imports?format=enex", body=body,
                           headers={"Authorization": f"Bearer {token}", "Content-Type": "application/enex+xml",
                                    "Content-Length": str(os.path.getsize(path))})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}"), response.getheader("Location")


def quire_notes(server, data):
    """`quire-notes import` beside the running server: progress on stderr, the report on stdout."""
    tool = os.path.join(os.path.dirname(server.binary), "quire-notes")
    config, env = server.tool()
    small = os.path.join(data, "small.enex")
    with open(small, "w") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?><en-export>'
                  "<note><title>From the shell</title><content><![CDATA[<en-note><div>one</div></en-note>]]></content>"
                  "<created>20250101T100000Z</created></note>"
                  "<note><title>Second</title><content><![CDATA[<en-note/>]]></content><created>not a date</created></note></en-export>")
    sign_up(server, "shell")
    run = subprocess.run([tool, "import", small, "--config", config, "--user", "shell"], env=env, capture_output=True, text=True, timeout=120)
    check("quire-notes import → exit 0, the count, and the note it could not read", run.returncode == 0
          and "imported 1 note (0 with a photo) of 2" in run.stdout and "note 2 (Second): its created date" in run.stdout,
          (run.returncode, run.stdout[-300:], run.stderr[-300:]))
    token = sign_up(server, "shell")
    titles = [n["title"] for n in call(server, "GET", "/api/v1/notes", token=token)[1]["items"]]
    check("…and the server lists the note at once", titles == ["From the shell"], titles)
    run = subprocess.run([tool, "import", small, "--config", config, "--user", "nobody"], env=env, capture_output=True, text=True, timeout=120)
    check("quire-notes for an unknown user → exit 3 with a sentence", run.returncode == 3 and "nobody" in run.stderr, (run.returncode, run.stderr))
    run = subprocess.run([tool, "import", os.path.join(data, "server.log"), "--config", config, "--user", "shell"], env=env,
                         capture_output=True, text=True, timeout=120)
    check("quire-notes with a file it cannot tell the format of → exit 64 saying --format", run.returncode == 64 and "--format" in run.stderr,
          (run.returncode, run.stderr))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--image-kb", type=int, default=10, help="size of each note's image (100: a 1 GB file of 10,000 notes)")
    parser.add_argument("--max-rss-mb", type=float, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-notes-import-") as data:
        images = base_images(data, args.image_kb)
        enex = os.path.join(data, "export.enex")
        started = time.time()
        image_bytes = write_enex(enex, args.notes, images)
        size = os.path.getsize(enex)
        print(f"   made {enex}: {args.notes} notes, {size / 1e6:.0f} MB ({image_bytes / 1e6:.0f} MB of images) in {time.time() - started:.0f} s")
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port())
        server.start()
        try:
            token = sign_up(server, "evernote")
            baseline = peak_rss_mb(server.process.pid)
            started = time.time()
            status, job, location = upload(server, token, enex)
            uploaded = time.time() - started
            check("POST /notes/imports of the .enex → 202 with a running job", status == 202 and job.get("state") == "running", job)
            last_line = 0
            while job.get("state") == "running":
                time.sleep(1)
                job = call(server, "GET", location, token=token)[1]
                if time.time() - last_line >= 15:
                    total = job.get("progressTotal") or 0
                    print(f"   … {job.get('notesRead')} notes read, {job.get('imported')} imported, "
                          f"{100 * job.get('progressDone', 0) // max(1, total)} % of the file, {time.time() - started:.0f} s")
                    last_line = time.time()
            seconds = time.time() - started
            peak = peak_rss_mb(server.process.pid)
            bad = args.notes // 1000
            check(f"the import succeeds: {args.notes - bad} notes imported, each with its photo; the {bad} bad dates reported",
                  job.get("state") == "succeeded" and job.get("imported") == args.notes - bad and job.get("photos") == args.notes - bad
                  and job.get("problemCount") == bad and all("sometime" in p["message"] for p in job.get("problems", [])), json.dumps(job)[:600])
            page = call(server, "GET", "/api/v1/notes?limit=2", token=token)[1]
            first = page["items"][0] if page.get("items") else {}
            check("the first note: its title, its text from ENML, its date, its photo",
                  first.get("title") == "Note 1 & friends" and first.get("text") == "Line one of note 1\n\n• milk\n• eggs & bread"
                  and first.get("date") == "2025-02-02" and first.get("photo"), first)
            photo = call(server, "GET", f"/api/v1/notes/{first.get('id')}/photo", token=token)
            check("its photo is the image of the file, byte for byte", photo[0] == 200 and photo[1] == numbered(images[1], 1))
            print(f"   {size / 1e6:.0f} MB, {args.notes} notes: uploaded in {uploaded:.0f} s, imported in {seconds:.0f} s "
                  f"({args.notes / seconds:.0f} notes/s, {size / 1e6 / seconds:.1f} MB/s); "
                  f"server peak RSS {peak:.0f} MB (before the import {baseline:.0f} MB)")
            check(f"the server's peak memory stays under {args.max_rss_mb:.0f} MB ({peak:.0f} MB)", peak < args.max_rss_mb)
            quire_notes(server, data)
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("notes import acceptance run", False, repr(error))
        finally:
            if server.process and server.process.poll() is None:
                server.stop()
    failed = results.count(False)
    print(f"notes import acceptance: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

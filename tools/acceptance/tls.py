#!/usr/bin/env python3
"""Acceptance of HTTPS (issue 37, part 1) against the real `quire` binary serving Napkin Notes.

With certificates made by openssl (`server.tls: {cert_file, key_file}`): HTTPS answers over HTTP/2
and HTTP/1.1 (ALPN), the sync WebSocket works over wss and is poked by a write made over HTTP/2,
a malformed request head over TLS still gets its 400 problem, `server.http_port` redirects with 308
to the same path and query, a certificate replaced on disk is served to new connections after
SIGHUP without a restart, and `quire config check` points at the line of a key that does not match
or a certificate that is missing.

With the local CA (`server.tls: {local_ca: true}`, what `tools/run <app> --lan` uses): the CA is made
with an owner-only key, the plain-HTTP page offers a QR code and the CA certificate, and HTTPS
verifies against that CA for the bound address. Then, in Chromium, from a network namespace of the
test's own (a veth pair on 10.213.<n>.0/30, deleted afterwards; the server binds its 10.x address
inside it): the page is a secure context, the service worker registers, geolocation answers.
When network namespaces cannot be made (no CAP_NET_ADMIN), the browser checks run on 127.0.0.1
over HTTPS instead and say so.

Prints one line per check and `tls: N passed, N failed` last; exits 1 on a failure.
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from websockets.sync.client import connect

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "apps", "napkin-notes.yaml")
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition or not detail else f": {detail}"), flush=True)
    return condition


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certificates(folder):
    """A CA and two server certificates for 127.0.0.1 and localhost (P-256), by openssl."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
            "-days", "2", "-subj", "/CN=Quire acceptance CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign", cwd=folder)
    for name in ("one", "two"):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN={name}.quire.test", cwd=folder)
        with open(os.path.join(folder, f"{name}.ext"), "w") as ext:
            ext.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                "-extfile", f"{name}.ext", "-out", f"{name}.crt", cwd=folder)


def terminate(process, timeout=30):
    """Stops a server as its service manager would: SIGTERM, then SIGKILL if it has not exited in `timeout` s."""
    if process and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()


class Server:
    def __init__(self, binary, data, env, host="127.0.0.1", netns=None, config=CONFIG):
        self.binary, self.data, self.host, self.netns, self.config = binary, data, host, netns, config
        self.port, self.http_port = free_port(), free_port()
        self.env = dict(os.environ, QUIRE_HOST=host, QUIRE_PORT=str(self.port), QUIRE_HTTP_PORT=str(self.http_port), QUIRE_DATA=data, **env)
        self.env.pop("QUIRE_AUTH_SECRET", None)
        self.log_path = os.path.join(data, "server.log")
        self.process = None

    @property
    def base(self):
        return f"https://{self.host}:{self.port}"

    def start(self, context):
        command = [self.binary, "serve", "--config", self.config]
        if self.netns:
            command = ["ip", "netns", "exec", self.netns, *command]
        self.log = open(self.log_path, "a")
        self.process = subprocess.Popen(command, env=self.env, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}; see {self.log_path}:\n" + open(self.log_path).read()[-2000:])
            try:
                if request(self, "GET", "/health", context=context)[0] == 200:
                    return
            except (OSError, ssl.SSLError):
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not answer /health over HTTPS within 60 s")

    def stop(self):
        terminate(self.process)
        if self.process:
            self.log.close()
            if not all(results):
                with open(self.log_path, errors="replace") as log:
                    lines = [line.rstrip() for line in log if " warning " in line or " error " in line]
                for line in lines[-20:]:
                    print("    " + line[:300])


def request(server, method, path, body=None, token=None, context=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10, context=context) as response:
            answer = response.read()
            return response.status, json.loads(answer) if answer and "json" in response.headers.get("Content-Type", "") else answer
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def curl_version(url, flag, cafile):
    done = subprocess.run(["curl", flag, "-s", "--cacert", cafile, "-o", "/dev/null", "-w", "%{http_version}", url],
                          capture_output=True, text=True, timeout=20)
    return done.stdout.strip()


def served_certificate(host, port, server_name=None):
    """The DER certificate a new connection is given (not verified), asking for `server_name` (SNI;
    the host when none)."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection((host, port), timeout=5) as raw, context.wrap_socket(raw, server_hostname=server_name or host) as tls:
        return tls.getpeercert(binary_form=True)


def pem_to_der(path):
    return subprocess.run(["openssl", "x509", "-in", path, "-outform", "der"], capture_output=True, check=True).stdout


def spki_hash(pem_path):
    """base64 of the SHA-256 of a certificate's SubjectPublicKeyInfo (Chromium's --ignore-certificate-errors-spki-list)."""
    key = subprocess.run(["openssl", "x509", "-in", pem_path, "-pubkey", "-noout"], capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=key, capture_output=True, check=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def plain_get(host, port, path, method="GET"):
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.request(method, path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), body


def with_files(binary, work):
    certs = os.path.join(work, "certs")
    os.makedirs(certs)
    make_certificates(certs)
    live_cert, live_key = os.path.join(certs, "live.crt"), os.path.join(certs, "live.key")
    shutil.copy(os.path.join(certs, "one.crt"), live_cert)
    shutil.copy(os.path.join(certs, "one.key"), live_key)
    cafile = os.path.join(certs, "ca.crt")
    context = ssl.create_default_context(cafile=cafile)
    data = os.path.join(work, "files")
    os.makedirs(data)
    server = Server(binary, data, {"QUIRE_TLS_CERT": live_cert, "QUIRE_TLS_KEY": live_key})
    try:
        server.start(context)
        url = f"{server.base}/health"
        check("HTTPS answers over HTTP/2 (ALPN h2)", curl_version(url, "--http2", cafile) == "2")
        check("HTTPS answers over HTTP/1.1 too", curl_version(url, "--http1.1", cafile) == "1.1")
        check("the certificate verifies against its CA for 127.0.0.1", request(server, "GET", "/health", context=context)[0] == 200)

        username = f"tls{os.getpid()}"
        request(server, "POST", "/api/v1/auth/register", {"username": username, "password": "correct horse battery"}, context=context)
        status, login = request(server, "POST", "/api/v1/auth/login", {"username": username, "password": "correct horse battery"}, context=context)
        token = login["access_token"] if status == 200 else None
        check("signing in over HTTPS", token is not None, f"{status} {login}")
        with connect(f"wss://127.0.0.1:{server.port}/api/v1/sync/live", ssl=context, open_timeout=5) as live:
            live.send(json.dumps({"type": "auth", "token": token}))
            ready = json.loads(live.recv(timeout=5))
            check("the sync WebSocket opens over wss and signs in", ready.get("type") == "ready", ready)
            done = subprocess.run(["curl", "--http2", "-s", "--cacert", cafile, "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                                   "-H", f"Authorization: Bearer {token}", "-H", "Content-Type: application/json",
                                   "--data", json.dumps({"title": "over h2", "text": "poke the phone"}), f"{server.base}/api/v1/notes"],
                                  capture_output=True, text=True, timeout=20)
            check("a note written over HTTP/2", done.stdout.strip() in ("2 200", "2 201"), done.stdout)
            poked = False
            deadline = time.time() + 5
            while time.time() < deadline and not poked:
                try:
                    poked = json.loads(live.recv(timeout=max(0.1, deadline - time.time()))).get("type") == "poke"
                except TimeoutError:
                    break
            check("…pokes the wss connection", poked)

        # A head too large to parse still gets its problem document over TLS.
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw, \
                context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.sendall(b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = tls.recv(4096)
                if not chunk:
                    break
                answer += chunk
        check("a 100 KB URL over TLS is answered 400 with a problem (malformed heads still handled)",
              answer.startswith(b"HTTP/1.1 400") and b"application/problem+json" in answer, answer[:80])

        status, headers, _ = plain_get("127.0.0.1", server.http_port, "/api/v1/notes?limit=3&q=a%20b", method="POST")
        check("http_port redirects with 308 to the same path and query over HTTPS",
              status == 308 and headers.get("Location") == f"https://127.0.0.1:{server.port}/api/v1/notes?limit=3&q=a%20b",
              f"{status} {headers.get('Location')}")
        status, _, body = plain_get("127.0.0.1", server.http_port, "/.well-known/acme-challenge/none")
        check("http_port answers ACME challenge paths itself (none pending: 404, not a redirect)", status == 404, status)

        old = served_certificate("127.0.0.1", server.port)
        check("the first certificate is served", old == pem_to_der(os.path.join(certs, "one.crt")))
        kept = http.client.HTTPSConnection("127.0.0.1", server.port, context=context, timeout=5)
        kept.request("GET", "/health")
        kept.getresponse().read()
        # Renewed as a tool writes it: the key, then the certificate (atomically each).
        for name, target in (("two.key", live_key), ("two.crt", live_cert)):
            shutil.copy(os.path.join(certs, name), target + ".new")
            os.replace(target + ".new", target)
        server.process.send_signal(signal.SIGHUP)
        new, deadline = None, time.time() + 10
        while time.time() < deadline:
            new = served_certificate("127.0.0.1", server.port)
            if new != old:
                break
            time.sleep(0.1)
        check("a replaced certificate is served to new connections after SIGHUP, without a restart",
              new == pem_to_der(os.path.join(certs, "two.crt")) and server.process.poll() is None)
        kept.request("GET", "/health")
        check("…while a connection opened before keeps working", kept.getresponse().status == 200)
        kept.close()
    finally:
        server.stop()

    # Mistakes in the files, found before serving, at the line of the setting.
    with open(CONFIG) as handle:
        line = next(number for number, text in enumerate(handle, 1) if "key_file:" in text)
    env = dict(os.environ, QUIRE_TLS_CERT=os.path.join(certs, "one.crt"), QUIRE_TLS_KEY=os.path.join(certs, "two.key"), QUIRE_DATA=data)
    done = subprocess.run([binary, "config", "check", CONFIG], env=env, capture_output=True, text=True, cwd=ROOT)
    check("config check: a key of another certificate is refused at its line and column",
          done.returncode == 1 and f"napkin-notes.yaml:{line}:" in done.stderr and "server.tls.key_file" in done.stderr
          and "does not match" in done.stderr, done.stderr.strip())
    env["QUIRE_TLS_CERT"] = os.path.join(certs, "missing.crt")
    done = subprocess.run([binary, "serve", "--config", CONFIG], env=env, capture_output=True, text=True, cwd=ROOT, timeout=60)
    check("serve: a missing certificate file is refused, saying where and what to do",
          done.returncode == 1 and f"napkin-notes.yaml:{line}:" in done.stderr and "does not exist" in done.stderr, done.stderr.strip())


def with_local_ca(binary, work):
    data = os.path.join(work, "lan")
    os.makedirs(data)
    server = Server(binary, data, {"QUIRE_LOCAL_CA": "true"})
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        server.start(context)
        ca_key = os.path.join(data, "tls", "quire-ca.key")
        check("the local CA is made in the data folder, its key readable by the owner only",
              os.path.exists(ca_key) and (os.stat(ca_key).st_mode & 0o777) == 0o600, oct(os.stat(ca_key).st_mode) if os.path.exists(ca_key) else "")
        status, headers, page = plain_get("127.0.0.1", server.http_port, "/")
        page = page.decode(errors="replace")
        check("http_port / is the setup page: a QR code of the HTTPS address and the CA to download",
              status == 200 and "<svg" in page and 'href="/quire-ca.crt"' in page and f"https://127.0.0.1:{server.port}/" in page, status)
        status, headers, der = plain_get("127.0.0.1", server.http_port, "/quire-ca.crt")
        check("/quire-ca.crt is the CA certificate as application/x-x509-ca-cert",
              status == 200 and headers.get("Content-Type") == "application/x-x509-ca-cert" and der[:1] == b"\x30")
        ca_pem = os.path.join(work, "downloaded-ca.pem")
        subprocess.run(["openssl", "x509", "-inform", "der", "-out", ca_pem], input=der, check=True, capture_output=True)
        verified = ssl.create_default_context(cafile=ca_pem)
        check("HTTPS verifies against the downloaded CA for the bound address", request(server, "GET", "/health", context=verified)[0] == 200)
        check("…over HTTP/2", curl_version(f"{server.base}/health", "--http2", ca_pem) == "2")
        status, headers, _ = plain_get("127.0.0.1", server.http_port, "/notes?x=1")
        check("other plain-HTTP paths redirect to HTTPS", status == 308 and headers.get("Location") == f"{server.base}/notes?x=1")
    finally:
        server.stop()


def make_netns():
    """A namespace with a veth pair on 10.213.<n>.0/30: answers (name, host side, namespace side) or None."""
    n = os.getpid() % 250 + 1
    name, outside, inside = f"quire-tls-{os.getpid()}", f"qtls{n}a", f"qtls{n}b"
    commands = [["ip", "netns", "add", name],
                ["ip", "link", "add", outside, "type", "veth", "peer", "name", inside],
                ["ip", "link", "set", inside, "netns", name],
                ["ip", "addr", "add", f"10.213.{n}.1/30", "dev", outside],
                ["ip", "link", "set", outside, "up"],
                ["ip", "netns", "exec", name, "ip", "addr", "add", f"10.213.{n}.2/30", "dev", inside],
                ["ip", "netns", "exec", name, "ip", "link", "set", inside, "up"],
                ["ip", "netns", "exec", name, "ip", "link", "set", "lo", "up"]]
    for command in commands:
        if subprocess.run(command, capture_output=True).returncode != 0:
            delete_netns(name, outside)
            return None
    return name, outside, f"10.213.{n}.2"


def delete_netns(name, outside):
    subprocess.run(["ip", "link", "del", outside], capture_output=True)
    subprocess.run(["ip", "netns", "del", name], capture_output=True)


def in_chromium(binary, work):
    from playwright.sync_api import sync_playwright

    made = make_netns()
    if made is None:
        print("note: network namespaces cannot be made here (no CAP_NET_ADMIN?); the browser checks run on 127.0.0.1 over HTTPS", flush=True)
    name, outside, address = made or (None, None, "127.0.0.1")
    data = os.path.join(work, "browser")
    os.makedirs(data)
    server = Server(binary, data, {"QUIRE_LOCAL_CA": "true"}, host=address, netns=name)
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        server.start(context)
        spki = spki_hash(os.path.join(data, "tls", "server.crt"))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                                                 args=["--no-sandbox", f"--ignore-certificate-errors-spki-list={spki}"])
            page = browser.new_context(permissions=["geolocation"], geolocation={"latitude": 48.8584, "longitude": 2.2945}).new_page()
            console = []
            page.on("console", lambda message: console.append(message.text))
            page.on("pageerror", lambda error: console.append(str(error)))
            page.goto(f"https://{address}:{server.port}/", wait_until="load", timeout=60_000)
            check(f"Chromium opens https://{address}:{server.port}/ as a secure context", page.evaluate("window.isSecureContext") is True)
            protocol = page.evaluate("performance.getEntriesByType('navigation')[0].nextHopProtocol")
            check("…over HTTP/2", protocol == "h2", protocol)
            scope = page.evaluate("""() => Promise.race([
                navigator.serviceWorker.ready.then(r => r.scope),
                new Promise(resolve => setTimeout(() => resolve(null), 30000))])""")
            check("…the service worker registers", scope == f"https://{address}:{server.port}/", f"{scope}; console: {console[-5:]}")
            position = page.evaluate("""() => new Promise(resolve => navigator.geolocation.getCurrentPosition(
                p => resolve([p.coords.latitude, p.coords.longitude]), e => resolve(String(e.message)), {timeout: 10000}))""")
            check("…geolocation answers (permission granted)", position == [48.8584, 2.2945], position)
            page.goto(f"http://{address}:{server.http_port}/", wait_until="load", timeout=60_000)
            check("…the plain-HTTP setup page shows the QR code", page.locator(".qr svg").count() == 1)
            browser.close()
    finally:
        server.stop()
        if made:
            delete_netns(name, outside)
            gone = name not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
            check("the test's network namespace and veth pair are deleted", gone)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium checks")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="quire-tls-") as work:
        try:
            with_files(binary, work)
            with_local_ca(binary, work)
            if not args.no_browser:
                in_chromium(binary, work)
        except Exception as error:  # noqa: BLE001 - a crash is a failed run, said plainly
            check("the run completes", False, f"{type(error).__name__}: {error}")
    passed = sum(results)
    print(f"tls: {passed} passed, {len(results) - passed} failed", flush=True)
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()

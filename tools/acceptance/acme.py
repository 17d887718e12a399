#!/usr/bin/env python3
"""Acceptance of ACME (issue 37: a public domain with no certificate work) against the real `quire` binary.

Pebble, Let's Encrypt's test CA, runs on loopback with a config of the test's own (its HTTPS by a CA
the test makes with openssl, which Quire trusts through `directory_ca_file`), and pebble-challtestsrv
as its DNS, answering every name with 127.0.0.1 unless told otherwise. Pebble validates for real:
it fetches the HTTP-01 answer from Quire's `server.http_port`, and rejects a share of the nonces
(PEBBLE_WFE_NONCEREJECT), which Quire must send again.

Checks: a certificate is issued and then served on the HTTPS port, verifying against Pebble's root
and intermediate (from its management API); the account key and the certificate's key are stored
0600; renewal (`renew_before_days` larger than Pebble's validity, so a fresh certificate is due at
once) replaces the served certificate on SIGHUP without a restart; a restart reuses the stored
certificate without a new order (Pebble's log counts the orders); without `http_port`, TLS-ALPN-01
on the HTTPS port gets the certificate; a domain Pebble's policy refuses
fails with one log line in the CA's words while the server keeps serving a placeholder; a domain
that resolves to an address where nothing answers fails with the reason; `quire config check`
names the line of a bad setting. About 10 s.

Prints one line per check and `acme: N passed, N failed` last; exits 1 on a failure.
"""
import argparse
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tls import check, free_port, openssl, results, served_certificate, terminate  # noqa: E402  (the HTTPS acceptance's helpers)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOMAIN = "photos.quire.test"


def wait_for(predicate, timeout, step=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


class Pebble:
    """pebble-challtestsrv (DNS) and pebble on loopback, with a certificate for its own HTTPS."""

    def __init__(self, work, http_port, tls_port):
        self.work = os.path.join(work, "pebble")
        os.makedirs(self.work)
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
                "-days", "2", "-subj", "/CN=Pebble WFE test CA", "-addext", "basicConstraints=critical,CA:TRUE", cwd=self.work)
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "wfe.key", "-out", "wfe.csr",
                "-subj", "/CN=localhost", cwd=self.work)
        with open(os.path.join(self.work, "wfe.ext"), "w") as ext:
            ext.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
        openssl("x509", "-req", "-in", "wfe.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
                "-extfile", "wfe.ext", "-out", "wfe.crt", cwd=self.work)
        self.ca_file = os.path.join(self.work, "ca.crt")
        self.port, self.management, self.dns, self.dns_management = free_port(), free_port(), free_port(), free_port()
        config = {"pebble": {
            "listenAddress": f"127.0.0.1:{self.port}", "managementListenAddress": f"127.0.0.1:{self.management}",
            "certificate": os.path.join(self.work, "wfe.crt"), "privateKey": os.path.join(self.work, "wfe.key"),
            "httpPort": http_port, "tlsPort": tls_port, "ocspResponderURL": "", "externalAccountBindingRequired": False,
            "domainBlocklist": ["refused.quire.test"], "retryAfter": {"authz": 1, "order": 1}}}
        with open(os.path.join(self.work, "pebble.json"), "w") as file:
            json.dump(config, file)
        self.context = ssl.create_default_context(cafile=self.ca_file)
        self.processes = []

    @property
    def directory(self):
        return f"https://127.0.0.1:{self.port}/dir"

    def start(self):
        self.dns_log = open(os.path.join(self.work, "challtestsrv.log"), "w")
        self.processes.append(subprocess.Popen(
            ["pebble-challtestsrv", "-management", f"127.0.0.1:{self.dns_management}", "-dns01", f"127.0.0.1:{self.dns}",
             "-http01", "", "-https01", "", "-tlsalpn01", "", "-defaultIPv4", "127.0.0.1", "-defaultIPv6", ""],
            stdout=self.dns_log, stderr=subprocess.STDOUT))
        self.log_path = os.path.join(self.work, "pebble.log")
        self.log = open(self.log_path, "w")
        # No sleep before validating; a third of the nonces rejected as bad, which Quire must send again.
        env = dict(os.environ, PEBBLE_VA_NOSLEEP="1", PEBBLE_WFE_NONCEREJECT="30", PEBBLE_AUTHZREUSE="0")
        self.processes.append(subprocess.Popen(
            ["pebble", "-config", os.path.join(self.work, "pebble.json"), "-dnsserver", f"127.0.0.1:{self.dns}"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=self.work))

        def up():
            try:
                return urllib.request.urlopen(self.directory, context=self.context, timeout=2).status == 200 and self.dns_up()
            except OSError:
                return False
        if not wait_for(up, 20):
            raise RuntimeError("pebble did not answer its directory within 20 s:\n" + open(self.log_path).read()[-2000:])

    def dns_up(self):
        try:
            self.dns_post("/clear-a", {"host": "nothing.quire.test."})
            return True
        except OSError:
            return False

    def dns_post(self, path, body):
        request = urllib.request.Request(f"http://127.0.0.1:{self.dns_management}{path}", data=json.dumps(body).encode(), method="POST")
        return urllib.request.urlopen(request, timeout=5).status

    def resolve(self, host, address):
        self.dns_post("/add-a", {"host": host + ".", "addresses": [address]})

    def pem(self, path):
        return urllib.request.urlopen(f"https://127.0.0.1:{self.management}{path}", context=self.context, timeout=5).read().decode()

    def orders(self):
        with open(self.log_path, errors="replace") as log:
            return sum(1 for line in log if "POST /order-plz" in line)

    def stop(self):
        for process in self.processes:
            terminate(process, timeout=10)


def write_config(work, name, server, domain, pebble, renew_before_days=None, http_port=True):
    data = os.path.join(work, "data")
    acme = {"domain": domain, "email": "operator@quire.test", "directory": pebble.directory, "directory_ca_file": pebble.ca_file}
    if renew_before_days:
        acme["renew_before_days"] = renew_before_days
    config = {"app": "acme-test",
              "server": {"host": "127.0.0.1", "port": server.port, "tls": {"dir": os.path.join(data, "tls"), "acme": acme}},
              "plugins": {"storage": {"backend": "sqlite", "path": os.path.join(data, "acme.sqlite"), "blobs": os.path.join(data, "blobs")}}}
    if http_port:
        config["server"]["http_port"] = server.http_port
    path = os.path.join(work, name)
    with open(path, "w") as file:
        json.dump(config, file)  # JSON is YAML
    return path


class Server:
    def __init__(self, binary, work, port, http_port):
        self.binary, self.work, self.port, self.http_port = binary, work, port, http_port
        self.log_path = os.path.join(work, "server.log")
        self.process = None

    def start(self, config):
        self.log = open(self.log_path, "a")
        self.offset = os.path.getsize(self.log_path)
        self.process = subprocess.Popen([self.binary, "serve", "--config", config], cwd=self.work, stdout=self.log, stderr=subprocess.STDOUT)

        def serving():
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}:\n" + self.lines()[-2000:])
            return "Quire is serving" in self.lines()
        if not wait_for(serving, 60):
            raise RuntimeError("server did not start within 60 s:\n" + self.lines()[-2000:])

    def lines(self):
        """What the server wrote since its last start."""
        with open(self.log_path, errors="replace") as log:
            log.seek(self.offset)
            return log.read()

    def acme_lines(self):
        return [line for line in self.lines().splitlines() if "ACME: " in line]

    def wait_acme_line(self, count, timeout=60):
        return wait_for(lambda: len(self.acme_lines()) >= count, timeout) and self.acme_lines()[count - 1]

    def stop(self):
        terminate(self.process)
        if self.process:
            self.log.close()
            self.process = None


def verified_get(port, server_name, cafile, path="/health"):
    """GET over HTTPS to 127.0.0.1, verifying the chain against `cafile` and the name `server_name`."""
    context = ssl.create_default_context(cafile=cafile)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw, context.wrap_socket(raw, server_hostname=server_name) as tls:
        tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {server_name}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := tls.recv(65536):
            answer += chunk
        return int(answer.split(b" ", 2)[1])


def mode(path):
    return oct(os.stat(path).st_mode & 0o777)


def issue_renew_restart(binary, work, pebble, server):
    tls_dir = os.path.join(work, "data", "tls", "acme")
    config = write_config(work, "acme.yaml", server, DOMAIN, pebble)
    server.start(config)
    line = server.wait_acme_line(1, timeout=90) or ""
    check("a certificate is issued by Pebble, said in one log line", re.search(rf"ACME: certificate for {DOMAIN} issued by Pebble", line), line)
    check("…the line says until when it is valid and when it is renewed", "valid until" in line and "renewed from" in line, line)
    issued = [line]
    roots = os.path.join(work, "pebble-roots.pem")
    with open(roots, "w") as file:
        file.write(pebble.pem("/roots/0"))
    check("the HTTPS port serves it: verifies against Pebble's root (management API) for the domain",
          verified_get(server.port, DOMAIN, roots) == 200)
    intermediate = pebble.pem("/intermediates/0")
    with open(os.path.join(tls_dir, f"{DOMAIN}.crt")) as file:
        chain = file.read()
    check("…the stored chain holds Pebble's intermediate after the domain's certificate",
          chain.count("BEGIN CERTIFICATE") >= 2 and intermediate.strip().split("\n")[1] in chain)
    check("the account key and the certificate's key are stored 0600",
          mode(os.path.join(tls_dir, "account.key")) == "0o600" and mode(os.path.join(tls_dir, f"{DOMAIN}.key")) == "0o600",
          f"{mode(os.path.join(tls_dir, 'account.key'))} {mode(os.path.join(tls_dir, f'{DOMAIN}.key'))}")
    check("no private key appears in the log", "PRIVATE KEY" not in server.lines())
    first = served_certificate("127.0.0.1", server.port, DOMAIN)
    server.stop()

    orders = pebble.orders()
    server.start(config)
    line = server.wait_acme_line(1) or ""
    check("a restart reuses the stored certificate, said in one line", "serving the stored certificate" in line, line)
    time.sleep(1)
    check("…without a new order (Pebble's log)", pebble.orders() == orders, f"{orders} → {pebble.orders()}")
    check("…and serves it", served_certificate("127.0.0.1", server.port, DOMAIN) == first)
    server.stop()

    # Pebble's certificates are valid for years; 100 years before expiry, a fresh one is due at once.
    due = write_config(work, "acme-due.yaml", server, DOMAIN, pebble, renew_before_days=36500)
    server.start(due)
    line = server.wait_acme_line(1, timeout=90) or ""
    check("a certificate due for renewal is renewed on start", f"ACME: certificate for {DOMAIN} renewed by" in line, line)
    issued.append(line)
    renewed = wait_for(lambda: served_certificate("127.0.0.1", server.port, DOMAIN) != first, 10)
    check("…and served", renewed)
    second = served_certificate("127.0.0.1", server.port, DOMAIN)
    keep = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    server.process.send_signal(signal.SIGHUP)
    line = server.wait_acme_line(2, timeout=90) or ""
    check("SIGHUP checks again; a due certificate is renewed", f"ACME: certificate for {DOMAIN} renewed by" in line, line)
    issued.append(line)
    # A third of Pebble's nonces are rejected: over three issuances (some 30 requests), some are.
    check("nonces Pebble rejected (badNonce) were sent again with the fresh one, and the orders went through",
          any("sent again after a badNonce" in line for line in issued), issued)
    check("…the new one is served to new connections without a restart", wait_for(lambda: served_certificate("127.0.0.1", server.port, DOMAIN) != second, 10))
    check("…and verifies against Pebble's root", verified_get(server.port, DOMAIN, roots) == 200)
    keep.close()
    server.stop()


def tls_alpn(binary, work, pebble, server):
    """No plain-HTTP port (port 80 closed): TLS-ALPN-01 on the HTTPS port, which Pebble validates."""
    config = write_config(work, "acme-alpn.yaml", server, "alpn.quire.test", pebble, http_port=False)
    server.start(config)
    line = server.wait_acme_line(1, timeout=90) or ""
    check("without http_port, TLS-ALPN-01 on the HTTPS port gets the certificate (Pebble validates acme-tls/1)",
          "ACME: certificate for alpn.quire.test issued by Pebble" in line, line)
    roots = os.path.join(work, "pebble-roots.pem")
    check("…and the HTTPS port serves it", verified_get(server.port, "alpn.quire.test", roots) == 200)
    # Pebble reuses no authorization (PEBBLE_AUTHZREUSE=0) and this run has no plain-HTTP port.
    try:
        socket.create_connection(("127.0.0.1", server.http_port), timeout=2).close()
        closed = False
    except OSError:
        closed = True
    check("…validated by TLS-ALPN-01 alone: nothing listens on Pebble's HTTP-01 port in this run", closed)
    server.stop()


def failures(binary, work, pebble):
    folder = os.path.join(work, "failures")
    os.makedirs(folder)
    port, http_port = free_port(), free_port()
    # Pebble validates on the ports of its config: a second server cannot be validated, which is
    # what these orders need (they fail before or at validation).
    server = Server(binary, folder, port, http_port)
    refused = write_config(folder, "refused.yaml", server, "refused.quire.test", pebble)
    server.start(refused)
    line = server.wait_acme_line(1) or ""
    check("an order the CA refuses fails with one log line in the CA's words",
          "ACME: the CA refused the order for refused.quire.test:" in line and "forbidden by policy" in line, line)
    check("…saying what to check", "check that the domain points at this server" in line, line)
    check("…and the server keeps serving HTTPS, with a temporary certificate", "temporary self-signed certificate" in line
          and served_certificate("127.0.0.1", port, "refused.quire.test") is not None)
    server.stop()

    pebble.resolve("nowhere.quire.test", "127.0.0.2")
    nowhere = write_config(folder, "nowhere.yaml", server, "nowhere.quire.test", pebble)
    server.start(nowhere)
    line = server.wait_acme_line(1, timeout=90) or ""
    check("a challenge that fails (the domain resolves where nothing answers) logs its reason",
          "ACME: the CA could not validate nowhere.quire.test by http-01:" in line and ("127.0.0.2" in line or "refused" in line), line)
    check("…and what to check", "resolves to this server" in line, line)
    server.stop()


def config_errors(binary, work):
    folder = os.path.join(work, "config")
    os.makedirs(folder)
    path = os.path.join(folder, "bad.yaml")
    with open(path, "w") as file:
        file.write("app: a\nserver:\n  port: 8443\n  tls:\n    cert_file: a.crt\n    key_file: a.key\n    acme:\n      domain: photos.example.org\n"
                   "      email: me@example.org\nplugins: { storage: { backend: sqlite, path: x.sqlite } }\n")
    done = subprocess.run([binary, "config", "check", path], capture_output=True, text=True, cwd=folder)
    output = done.stdout + done.stderr
    check("config check: acme together with cert_file is refused at its line", done.returncode == 1 and "bad.yaml:8:" in output
          and "server.tls.acme: cannot be used with cert_file" in output, output)
    with open(path, "w") as file:
        file.write("app: a\nserver:\n  port: 8443\n  tls:\n    acme:\n      domain: photos.example.org\n"
                   "      directory: http://acme.example/dir\nplugins: { storage: { backend: sqlite, path: x.sqlite } }\n")
    done = subprocess.run([binary, "config", "check", path], capture_output=True, text=True, cwd=folder)
    output = done.stdout + done.stderr
    check("config check: a missing email and a directory that is not https:// are named at their lines",
          done.returncode == 1 and "server.tls.acme.email: is required" in output and "bad.yaml:7:18: server.tls.acme.directory" in output,
          output)
    with open(path, "w") as file:
        file.write("app: a\nserver:\n  port: 8443\n  tls:\n    acme:\n      domain: photos.example.org\n      email: me@example.org\n"
                   "      directory_ca_file: missing-ca.pem\nplugins: { storage: { backend: sqlite, path: x.sqlite } }\n")
    done = subprocess.run([binary, "config", "check", path], capture_output=True, text=True, cwd=folder)
    output = done.stdout + done.stderr
    check("config check: a directory_ca_file that cannot be read is named at its line", done.returncode == 1
          and "bad.yaml:8:26: server.tls.acme.directory_ca_file: cannot read missing-ca.pem" in output, output)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="quire-acme-") as work:
        server = Server(binary, work, free_port(), free_port())
        pebble = Pebble(work, server.http_port, server.port)
        try:
            pebble.start()
            issue_renew_restart(binary, work, pebble, server)
            tls_alpn(binary, work, pebble, server)
            failures(binary, work, pebble)
            config_errors(binary, work)
        except Exception as error:  # noqa: BLE001 - a crash is a failed run, said plainly
            check("the run completes", False, f"{type(error).__name__}: {error}")
        finally:
            server.stop()
            pebble.stop()
            if not all(results):
                for name in ("server.log", "pebble/pebble.log"):
                    path = os.path.join(work, name)
                    if os.path.exists(path):
                        print(f"    --- last lines of {name}")
                        for line in open(path, errors="replace").read().splitlines()[-15:]:
                            print("    " + line[:300])
    passed = sum(results)
    print(f"acme: {passed} passed, {len(results) - passed} failed", flush=True)
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()

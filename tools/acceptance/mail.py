#!/usr/bin/env python3
"""Export by email with the real binary (config/apps/napkin-notes.yaml with its mail section on) and a real SMTP server on
loopback (PyPI aiosmtpd): STARTTLS with a certificate from a throwaway CA, AUTH PLAIN required
after it. A note with a photo, mailed, arrives with its title, text and the photo attached, byte
for byte; a wrong password, a server that is down and a bad address each get a sentence.

    python3 tools/acceptance/mail.py --binary .build/debug/quire
"""
import argparse
import email
import email.policy
import os
import ssl
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import napkin_notes  # noqa: E402
from napkin_notes import call, check, free_port, results, sign_up  # noqa: E402

SHIPPED = os.path.join(napkin_notes.ROOT, "config", "apps", "napkin-notes.yaml")
USER, PASSWORD = "napkin", "smtp secret 42"


def with_mail(directory):
    """The shipped napkin-notes.yaml with its commented-out mail section switched on, as an
    operator with a mail server does; written into `directory`, its path answered."""
    lines, out, inside = open(SHIPPED).read().splitlines(), [], False
    for line in lines:
        if line == "  # mail:":
            inside = True
            out.append("  mail:")
        elif inside and line.startswith("  #   "):
            out.append("    " + line[len("  #   "):])
        else:
            inside = False
            out.append(line)
    if "  mail:" not in out:
        raise SystemExit("config/apps/napkin-notes.yaml has no commented-out mail section to switch on")
    path = os.path.join(directory, "napkin-notes-mail.yaml")
    with open(path, "w") as handle:
        handle.write("\n".join(out) + "\n")
    return path


def certificate(directory):
    """A CA of its own and a certificate it signs for 127.0.0.1."""
    def run(*command):
        subprocess.run(command, check=True, capture_output=True)
    ca_key, ca, key, csr, cert, ext = (os.path.join(directory, n) for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem", "san.ext"))
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", ca_key, "-out", ca,
        "-days", "2", "-subj", "/CN=Quire mail test CA")
    run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=localhost")
    with open(ext, "w") as handle:
        handle.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", cert)
    return ca, cert, key


def smtp_server(port, cert, key, inbox):
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            inbox.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content, session.ssl is not None))
            return "250 OK"

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if address.endswith("@nowhere.example"):
                return "550 5.1.1 no such user here"
            envelope.rcpt_tos.append(address)
            return "250 OK"

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode()
        return AuthResult(success=ok)

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    controller = Controller(Handler(), hostname="127.0.0.1", port=port, tls_context=context, require_starttls=True,
                            auth_require_tls=True, authenticator=authenticator, auth_required=True)
    controller.start()
    return controller


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(napkin_notes.ROOT, ".build", "debug", "quire"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quire-mail-") as data:
        ca, cert, key = certificate(data)
        inbox = []
        smtp_port = free_port()
        controller = smtp_server(smtp_port, cert, key, inbox)
        os.environ.update(QUIRE_SMTP_HOST="127.0.0.1", QUIRE_SMTP_PORT=str(smtp_port), QUIRE_SMTP_USER=USER, QUIRE_SMTP_PASSWORD=PASSWORD,
                          QUIRE_SMTP_CA_FILE=ca, QUIRE_MAIL_FROM="Napkin Notes <notes@napkin.example>")
        server = napkin_notes.Server(os.path.abspath(args.binary), data, free_port(), config=with_mail(data))
        try:
            server.start()
            token = sign_up(server, "molly")
            status, note, _ = call(server, "POST", "/api/v1/notes", {"title": "Crème brûlée", "text": "Sugar on top.\n.\nThen the torch."},
                                   token=token)
            photo = os.path.join(data, "photo.jpg")
            subprocess.run(["vips", "xyz", photo + ".v", "640", "480"], check=True)
            subprocess.run(["vips", "linear", photo + ".v", photo, "1", "40", "--uchar"], check=True)
            with open(photo, "rb") as handle:
                photo_bytes = handle.read()
            status, _, _ = call(server, "PUT", f"/api/v1/notes/{note['id']}/photo", token=token, raw=photo_bytes, content_type="image/jpeg")
            check("a note with a photo", status == 200, status)

            status, sent, _ = call(server, "POST", f"/api/v1/notes/{note['id']}/email", {"to": "friend@example.org"}, token=token, timeout=60)
            check("POST …/email → 200 with the Message-ID", status == 200 and sent.get("messageID", "").startswith("<"), (status, sent))
            deadline = time.time() + 10
            while not inbox and time.time() < deadline:
                time.sleep(0.1)
            if inbox:
                sender, recipients, raw, encrypted = inbox[0]
                message = email.message_from_bytes(raw, policy=email.policy.default)
                body = message.get_body(preferencelist=("plain",))
                attachments = list(message.iter_attachments())
                check("it arrives over STARTTLS, signed in, from the app to the friend",
                      encrypted and sender == "notes@napkin.example" and recipients == ["friend@example.org"], (sender, recipients, encrypted))
                check("…titled with the note, its text intact (a line of one dot included)",
                      message["subject"] == "Crème brûlée" and "Sugar on top.\n.\nThen the torch." in body.get_content(), (message["subject"], body.get_content()))
                check("…with the photo attached, byte for byte", len(attachments) == 1 and attachments[0].get_content_type() == "image/jpeg"
                      and attachments[0].get_content() == photo_bytes, [(a.get_content_type(), len(a.get_content())) for a in attachments])
            else:
                check("the message arrives", False, "nothing reached the SMTP server")

            status, body, _ = call(server, "POST", f"/api/v1/notes/{note['id']}/email", {"to": "ghost@nowhere.example"}, token=token, timeout=60)
            check("an address the server refuses → 422 saying so", status == 422 and "ghost@nowhere.example" in body.get("detail", ""), (status, body))
            status, body, _ = call(server, "POST", f"/api/v1/notes/{note['id']}/email", {"to": "not an address"}, token=token)
            check("not an address → 422", status == 422, (status, body))
            status, body, _ = call(server, "POST", f"/api/v1/notes/{note['id']}/email", {"to": "x@example.org\r\nBcc: all@example.org"}, token=token)
            check("a header smuggled into the address → 422, nothing sent", status == 422 and len(inbox) == 1, (status, body, len(inbox)))
            server.stop()

            os.environ["QUIRE_SMTP_PASSWORD"] = "wrong"
            server.start()
            status, body, _ = call(server, "POST", f"/api/v1/notes/{note['id']}/email", {"to": "friend@example.org"}, token=token, timeout=60)
            check("a wrong password → 503 'try again later', the server's words kept for the log",
                  status == 503 and "try again later" in body.get("detail", "") and "535" not in body.get("detail", ""), (status, body))
            controller.stop()
            status, body, _ = call(server, "POST", f"/api/v1/notes/{note['id']}/email", {"to": "friend@example.org"}, token=token, timeout=60)
            check("the mail server down → 503 with a sentence", status == 503 and body.get("detail"), (status, body))
            server.stop()
        except Exception as error:  # a crash of the harness is a failed check, with its reason
            check("mail run", False, repr(error))
            if server.process and server.process.poll() is None:
                server.process.kill()
        finally:
            try:
                controller.stop()
            except Exception:
                pass
    failed = results.count(False)
    print(f"mail acceptance: {len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

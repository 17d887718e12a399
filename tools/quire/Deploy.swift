import ArgumentParser
import Foundation

/// `quire deploy --app APP [--domain NAME | --lan] --out DIR`: what a Debian server needs to run an
/// app under systemd — a hardened unit (a dynamic user, the system read-only but its state folder),
/// the app's YAML for `/etc/quire/`, its secrets in a file only root reads (systemd hands them to
/// the service), the backup passphrase (a systemd credential only the service reads), and INSTALL.txt (install, upgrade, uninstall, where the data is).
struct Deploy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a systemd unit, the app's YAML, a secrets file and a backup passphrase (0600) and INSTALL.txt for a Debian server.")

    @Option(name: .long, help: "The app: napkin-notes, foreign-note, iremember or ar-notebook.") var app: String
    @Option(name: .long, help: "Serve HTTPS for this domain on 443 (a certificate from Let's Encrypt, obtained and renewed by the server itself), HTTP on 80 redirecting.")
    var domain: String?
    @Option(name: .long, help: "With --domain: the address Let's Encrypt writes to about the certificate.")
    var email: String?
    @Flag(name: .long, help: "Serve HTTPS on the local network with a CA of the machine's own (8443; phone setup on http://…:8080).")
    var lan = false
    @Option(name: .long, help: "Where to write the files (created; existing secrets are kept).") var out: String
    @Option(name: .long, help: "The folder of the apps' YAML files.") var apps = "config/apps"
    @Option(name: .long, help: "Where the quire binary is installed on the server.") var binary = "/usr/local/bin/quire"

    func validate() throws {
        guard app.range(of: #"^[a-z][a-z0-9-]{0,40}$"#, options: .regularExpression) != nil else {
            throw ValidationError("--app is an app's name (lowercase letters, digits and '-'), such as napkin-notes.")
        }
        if domain != nil && lan { throw ValidationError("Choose one of --domain NAME and --lan, not both.") }
        if let domain, domain.range(of: #"^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$"#, options: .regularExpression) == nil {
            throw ValidationError("--domain is a host name such as notes.example.org (lowercase, no scheme, no port).")
        }
        if domain != nil, email?.range(of: #"^[^@\s]+@[^@\s]+\.[^@\s]+$"#, options: .regularExpression) == nil {
            throw ValidationError("--domain needs --email ADDRESS: Let's Encrypt writes there about the certificate (expiry, problems).")
        }
        if domain == nil, email != nil { throw ValidationError("--email goes with --domain (the certificate's contact).") }
    }

    func run() throws {
        let source = "\(apps)/\(app).yaml"
        guard let yaml = try? String(contentsOfFile: source, encoding: .utf8) else {
            throw fail("There is no \(source); --app is one of the files in \(apps)/ (or give --apps DIR).")
        }
        let files = DeployFiles(app: app, domain: domain, email: email, lan: lan, binary: binary)
        guard let config = files.config(from: yaml) else {
            throw fail("\(source) has no one-line 'server:' entry to replace; write server: { host: …, port: … } on one line.")
        }
        let folder = URL(fileURLWithPath: out)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(config.utf8).write(to: folder.appendingPathComponent("\(app).yaml"))
            try Data(files.unit().utf8).write(to: folder.appendingPathComponent("quire-\(app).service"))
            try Data(files.install().utf8).write(to: folder.appendingPathComponent("INSTALL.txt"))
            let passphrase = folder.appendingPathComponent(files.passphraseFile)
            if FileManager.default.fileExists(atPath: passphrase.path) {
                // The backups taken so far are sealed with it: keep it.
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passphrase.path)
                print("kept \(passphrase.path) (the backups' keys are sealed with it)")
            } else {
                guard FileManager.default.createFile(atPath: passphrase.path, contents: Data((DeployFiles.random(32) + "\n").utf8),
                                                     attributes: [.posixPermissions: 0o600]) else {
                    throw fail("Cannot write \(passphrase.path); check that \(out) is writable.")
                }
            }
            let secrets = folder.appendingPathComponent("quire-\(app).env")
            if FileManager.default.fileExists(atPath: secrets.path) {
                // A new auth secret would sign every user out: keep the one there is.
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secrets.path)
                print("kept \(secrets.path) (its secrets are in use)")
            } else {
                guard FileManager.default.createFile(atPath: secrets.path, contents: Data(files.secrets().utf8), attributes: [.posixPermissions: 0o600]) else {
                    throw fail("Cannot write \(secrets.path); check that \(out) is writable.")
                }
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail("Cannot write into \(out): \(error.localizedDescription)")
        }
        print("wrote \(out)/quire-\(app).service, \(app).yaml, quire-\(app).env and \(files.passphraseFile) (0600) and INSTALL.txt; "
              + "keep a copy of \(files.passphraseFile) off this machine (see INSTALL.txt)")
    }

    func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("quire deploy: \(message)\n".utf8))
        return ExitCode(1)
    }
}

/// The files themselves, apart from writing them (so they can be checked).
struct DeployFiles {
    let app: String
    let domain: String?
    var email: String? = nil
    let lan: Bool
    let binary: String

    var state: String { "/var/lib/quire/\(app)" }
    /// The backup passphrase's file in /etc/quire, and its systemd credential's name (the same).
    var passphraseFile: String { "quire-\(app).backup-passphrase" }

    /// The app's YAML with the server line for this machine; the data under the state folder (its
    /// `${QUIRE_DATA}`), the first account the operator.
    func config(from yaml: String) -> String? {
        var lines = yaml.components(separatedBy: "\n")
        guard let index = lines.firstIndex(where: { $0.hasPrefix("server:") && $0.contains("}") }) else { return nil }
        let metrics = #"metrics_token: "${QUIRE_METRICS_TOKEN:-}""#
        if let domain {
            // The certificate by ACME (HTTP-01 on port 80, TLS-ALPN-01 on 443), kept and renewed in the state folder.
            lines[index] = #"server: { host: 0.0.0.0, port: 443, http_port: 80, \#(metrics), "#
                + #"tls: { acme: { domain: "\#(domain)", email: "\#(email ?? "")" }, dir: "\#(state)/tls" } }"#
        } else if lan {
            lines[index] = #"server: { host: 0.0.0.0, port: 8443, http_port: 8080, \#(metrics), tls: { local_ca: true, dir: "\#(state)/ca" } }"#
        } else {
            lines[index] = #"server: { host: 127.0.0.1, port: 8080, \#(metrics) }   # behind your reverse proxy"#
        }
        var text = "# Written by quire deploy for /etc/quire/\(app).yaml. Secrets come from /etc/quire/quire-\(app).env.\n"
            + lines.joined(separator: "\n")
        if !text.contains("first_account_is_admin") {
            text = text.replacingOccurrences(of: "\n  auth:\n", with: "\n  auth:\n    first_account_is_admin: true   # the first sign-up is the operator (/#/admin)\n")
        }
        if !text.contains("\n    backup:") {
            // Backups run by themselves (docs/operations.md, "Backups and upgrades"): daily, into the
            // state folder (the one place the hardened unit may write); INSTALL.txt says to copy them off the disk.
            text = text.replacingOccurrences(
                of: "\n  storage:\n",
                with: "\n  storage:\n    backup: { every: 24h, to: [\"\(state)/backups\"], passphrase_file: \"${CREDENTIALS_DIRECTORY:-/etc/quire}/\(passphraseFile)\" }"
                    + "   # kept 7 daily, 4 weekly, 6 monthly; the server's keys sealed with the passphrase; add an rclone:REMOTE:PATH to copy them off this disk\n")
        }
        if !text.contains("\n  admin:") { text += (text.hasSuffix("\n") ? "" : "\n") + "  admin: {}   # the operator's screen, /#/admin\n" }
        return text
    }

    func unit() -> String {
        let privileged = domain != nil
        var lines = [
            "# Written by quire deploy: /etc/systemd/system/quire-\(app).service",
            "[Unit]",
            "Description=Quire \(app)",
            "Documentation=file:///etc/quire/INSTALL-\(app).txt",
            "After=network-online.target",
            "Wants=network-online.target",
            "",
            "[Service]",
            "Type=simple",
            "ExecStart=\(binary) serve --config /etc/quire/\(app).yaml",
            "EnvironmentFile=/etc/quire/quire-\(app).env",
            "# The backup passphrase, readable by the service alone (in $CREDENTIALS_DIRECTORY).",
            "LoadCredential=\(passphraseFile):/etc/quire/\(passphraseFile)",
            "DynamicUser=yes",
            "StateDirectory=quire quire/\(app)",
            "StateDirectoryMode=0700",
            "WorkingDirectory=\(state)",
            "Restart=on-failure",
            "RestartSec=2s",
            "TimeoutStopSec=30s",
            "UMask=0077",
            "LimitNOFILE=65536",
        ]
        lines += [
            "# Hardening: nothing but the state folder is writable, no privileges to gain.",
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ProtectHome=yes",
            "PrivateTmp=yes",
            "PrivateDevices=yes",
            "ProtectKernelTunables=yes",
            "ProtectKernelModules=yes",
            "ProtectKernelLogs=yes",
            "ProtectControlGroups=yes",
            "ProtectClock=yes",
            "ProtectHostname=yes",
            "ProtectProc=invisible",
            "ProcSubset=pid",
            "RestrictNamespaces=yes",
            "RestrictRealtime=yes",
            "RestrictSUIDSGID=yes",
            "LockPersonality=yes",
            "RemoveIPC=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
            "SystemCallArchitectures=native",
            "SystemCallFilter=@system-service",
            "SystemCallFilter=~@privileged @resources @mount @swap @reboot @debug @obsolete @cpu-emulation",
            "SystemCallErrorNumber=EPERM",
            privileged ? "CapabilityBoundingSet=CAP_NET_BIND_SERVICE" : "CapabilityBoundingSet=",
            privileged ? "AmbientCapabilities=CAP_NET_BIND_SERVICE" : "AmbientCapabilities=",
            "",
            "[Install]",
            "WantedBy=multi-user.target",
            "",
        ]
        return lines.joined(separator: "\n")
    }

    func secrets() -> String {
        """
        # quire-\(app): read by systemd (root) and given to the service; keep it 0600 root.
        # The token-signing key is made by the server in \(state) (so backups carry it, sealed);
        # a QUIRE_AUTH_SECRET set here would be used instead, and a backup would not hold it.
        QUIRE_DATA=\(state)
        QUIRE_METRICS_TOKEN=\(Self.random(32))

        """
    }

    static func random(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let data = Data((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func install() -> String {
        let address = domain.map { "https://\($0)/" } ?? (lan ? "https://<this machine's LAN address>:8443/ (set up each phone at http://<address>:8080/ first)"
                                                                : "http://127.0.0.1:8080/ (put your reverse proxy in front)")
        let certificate = domain.map { domain in
            """

            The certificate: \(domain) must point at this machine (DNS) and ports 80 and 443 reach it.
            At its first start the server asks Let's Encrypt for a certificate (one log line says it
            was issued, or why not), keeps it in \(state)/tls/acme/ and renews it 30 days before it
            expires, without a restart.

            """
        } ?? "\n"
        return """
        Quire \(app) on a Debian server
        ===============================

        Install (as root, from this folder):
          install -m 0755 quire \(binary)              # the binary, built with: swift build -c release --product quire
          install -d -m 0755 /etc/quire
          install -m 0644 \(app).yaml /etc/quire/\(app).yaml
          install -m 0600 quire-\(app).env /etc/quire/quire-\(app).env
          install -m 0600 \(passphraseFile) /etc/quire/\(passphraseFile)   # keep a copy elsewhere (Backups, below)
          install -m 0644 INSTALL.txt /etc/quire/INSTALL-\(app).txt
          install -m 0644 quire-\(app).service /etc/systemd/system/quire-\(app).service
          quire config check /etc/quire/\(app).yaml    # with the env file's values: set -a; . /etc/quire/quire-\(app).env; set +a
        \(certificate)  systemctl daemon-reload && systemctl enable --now quire-\(app)
          systemctl status quire-\(app); journalctl -u quire-\(app) -f

        Then open \(address)
        The first account made is the server's operator: it sees Admin (/#/admin). Another operator later:
          systemctl stop quire-\(app)
          systemd-run --wait --pipe -p DynamicUser=yes -p StateDirectory=quire/\(app) -p EnvironmentFile=/etc/quire/quire-\(app).env \\
            -p WorkingDirectory=\(state) \(binary) admin grant NAME --config /etc/quire/\(app).yaml
          systemctl start quire-\(app)

        Where the data is
          \(state)/ (systemd keeps it in /var/lib/private/quire/\(app), owned by the service's dynamic user):
          the SQLite database (\(app).sqlite), the photos and drawings (blobs/), the backups (backups/), and the
          keys the server makes on first start: the token-signing key (*.auth-secret), the Web Push key (*.vapid-key)\(lan ? " and the phones' CA (ca/)" : domain != nil ? " and the certificate (tls/)" : "").
          Secrets: /etc/quire/quire-\(app).env and /etc/quire/\(passphraseFile) (root only). Logs: journalctl -u quire-\(app).

        Backups
          Every day into \(state)/backups/ (storage.backup in the YAML); the operator's screen (/#/admin)
          shows them, their restore commands, and has Back up now. They are on this disk: add a destination
          off it to storage.backup.to (rclone:REMOTE:PATH; a folder elsewhere also needs ReadWritePaths= in the unit).
          Each backup also holds the server's keys (the token-signing key, the Web Push key\(lan ? ", the phones' CA" : domain != nil ? ", the ACME account and certificate" : "")),
          sealed (scrypt, AES-256-GCM) with the passphrase in /etc/quire/\(passphraseFile), which systemd hands
          to the service alone. KEEP A COPY OF THAT FILE OFF THIS MACHINE (a password manager, a safe), apart from
          the backups: a backup copied off-site does not give the keys away without it, and a restore without it
          brings back the data but not the keys (everyone signs in again, every phone taps Notify me again\(lan ? ", trusts a new CA" : "")).
          Keep a copy of /etc/quire/quire-\(app).env too.

        Restore on a new machine
          Install as above, but put your kept copy at /etc/quire/\(passphraseFile) (0600) before the first start,
          copy the backup folder into \(state)/ (e.g. \(state)/backups/), then:
          systemd-run --wait --pipe -p DynamicUser=yes -p StateDirectory=quire/\(app) -p EnvironmentFile=/etc/quire/quire-\(app).env \\
            -p LoadCredential=\(passphraseFile):/etc/quire/\(passphraseFile) \\
            -p WorkingDirectory=\(state) \(binary) restore --config /etc/quire/\(app).yaml --from \(state)/backups
          It says which keys it put back; exit status 3: the data is back but the keys are not (it says why).
          systemctl enable --now quire-\(app)

        Upgrade
          install -m 0755 quire \(binary) && systemctl restart quire-\(app)
          (the database is migrated at start; take a backup first)

        Uninstall
          systemctl disable --now quire-\(app)
          rm /etc/systemd/system/quire-\(app).service /etc/quire/\(app).yaml /etc/quire/quire-\(app).env /etc/quire/\(passphraseFile) /etc/quire/INSTALL-\(app).txt
          systemctl daemon-reload
          rm -rf /var/lib/private/quire/\(app) /var/lib/quire/\(app)    # the data: only once you have a backup you want

        """
    }
}

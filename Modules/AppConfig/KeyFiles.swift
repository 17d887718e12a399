/// A key the server makes on its first start and keeps in a file (or a folder of them), which a
/// restore onto a new machine needs as much as the data: backups seal these with a passphrase
/// (`storage.backup.passphrase`) and `quire restore` puts them back where the config says.
public struct KeyFile: Sendable, Equatable {
    /// The setting that places it, also its name in a backup: `auth.secret_file`, `push.key_file`,
    /// `server.tls.dir`, `server.tls.dir/acme`.
    public var name: String
    /// The file, or the folder whose files all belong to it.
    public var path: String
    public var isFolder: Bool
    /// What a server restored without it does (said when a restore cannot put it back).
    public var without: String

    public init(name: String, path: String, isFolder: Bool, without: String) {
        self.name = name
        self.path = path
        self.isFolder = isFolder
        self.without = without
    }
}

extension AppConfig {
    /// The key files this config's server makes and keeps: the token-signing key (unless
    /// `auth.secret` gives it), the Web Push key (unless `push.private_key` does), the local CA's
    /// folder (`server.tls.local_ca`) or the ACME account and certificate (`server.tls.acme`).
    public var keyFiles: [KeyFile] {
        func given(_ section: ConfigSection, _ key: String) -> String? {
            guard let value = section.string(key), !value.isEmpty else { return nil }
            return value
        }
        var files: [KeyFile] = []
        if let auth = plugins.first(where: { $0.id == "auth" })?.section, given(auth, "secret") == nil {
            files.append(KeyFile(name: "auth.secret_file", path: given(auth, "secret_file") ?? "./data/\(app).auth-secret", isFolder: false,
                                 without: "a new token-signing key is made at first start: every session token is refused (401) and everyone signs in again (passwords are in the records)"))
        }
        if let push = plugins.first(where: { $0.id == "push" })?.section, given(push, "private_key") == nil {
            files.append(KeyFile(name: "push.key_file", path: given(push, "key_file") ?? "./data/\(app).vapid-key", isFolder: false,
                                 without: "a new Web Push key is made: every phone's subscription names the old one, so each must tap Notify me on this phone again"))
        }
        if let tls = server.tls, tls.localCA {
            files.append(KeyFile(name: "server.tls.dir", path: tls.directory, isFolder: true,
                                 without: "a new local CA is made: every phone must download quire-ca.crt and trust it again"))
        } else if let tls = server.tls, tls.acme != nil {
            files.append(KeyFile(name: "server.tls.dir/acme", path: tls.directory + "/acme", isFolder: true,
                                 without: "the ACME account and certificate are asked of the CA again at first start (its rate limits apply)"))
        }
        return files
    }
}

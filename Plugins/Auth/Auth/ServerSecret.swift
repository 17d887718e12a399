import Foundation
import Secrets
import Logging
import PluginKit

/// The key that signs access tokens: from config (`secret: ${QUIRE_AUTH_SECRET}`), or else generated
/// once and kept in a file readable by the server's user only, so tokens survive a restart.
enum ServerSecret {
    static let minimumBytes = 32

    static func load(configured: String?, file: String, logger: Logger) throws -> Data {
        if let configured {
            guard configured.utf8.count >= minimumBytes else {
                throw PluginSetupError("auth: 'secret' must be at least 32 characters; generate one with: openssl rand -base64 48")
            }
            return Data(configured.utf8)
        }
        let manager = FileManager.default
        if let existing = manager.contents(atPath: file) {
            guard existing.count >= 32 else {
                throw PluginSetupError("auth: the secret file '\(file)' is shorter than 32 bytes; delete it to generate a new one (signs everyone out)")
            }
            return existing
        }
        let directory = (file as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty { try manager.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            let secret = Data(Secrets.random(bytes: 48).utf8)
            let temporary = file + ".tmp"
            guard manager.createFile(atPath: temporary, contents: secret, attributes: [.posixPermissions: 0o600]) else {
                throw PluginSetupError("auth: cannot write the secret file '\(file)'")
            }
            try manager.moveItem(atPath: temporary, toPath: file)
            logger.info("Generated a token-signing secret", metadata: ["file": "\(file)"])
            return secret
        } catch let error as PluginSetupError {
            throw error
        } catch {
            throw PluginSetupError("auth: cannot create the secret file '\(file)': \(error.localizedDescription)")
        }
    }
}

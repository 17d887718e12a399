import Bus
import Foundation
import Secrets
import HummingbirdBcrypt

/// bcrypt, run off the cooperative thread pool: a hash takes a quarter of a second at cost 12 and
/// would otherwise stall every other request on that thread.
struct PasswordHasher: Sendable {
    let cost: UInt8
    /// A hash of a random password, checked when the username is unknown so that a wrong username
    /// takes as long as a wrong password (no account enumeration by timing).
    let decoy: String

    init(cost: Int) {
        self.cost = UInt8(clamping: cost)
        self.decoy = Bcrypt.hash(Secrets.random(bytes: 16), cost: UInt8(clamping: cost))
    }

    func hash(_ password: String) async -> String {
        let cost = self.cost
        return await Self.offload { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String?) async -> Bool {
        let decoy = self.decoy
        let matches = await Self.offload { Bcrypt.verify(password, hash: hash ?? decoy) }
        return matches && hash != nil
    }

    private static func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: work()) }
        }
    }
}

/// Rules for what people type.
enum CredentialRules {
    static func normalizedUsername(_ raw: String) throws(BusError) -> String {
        let username = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard (3...32).contains(username.count),
              username.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) })
        else {
            throw BusError.invalid("A username is 3 to 32 characters: letters, digits, '.', '_' or '-'.", field: "username")
        }
        return username
    }

    static func checkPassword(_ password: String) throws(BusError) {
        guard password.count >= 8 else {
            throw BusError.invalid("A password needs at least 8 characters.", field: "password")
        }
        // bcrypt ignores everything past 72 bytes; refuse rather than silently truncate.
        guard password.utf8.count <= 72 else {
            throw BusError.invalid("A password can be at most 72 bytes long.", field: "password")
        }
    }
}

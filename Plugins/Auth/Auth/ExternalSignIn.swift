import AuthAPI
import Bus
import Foundation
import PluginKit
import Secrets
import StorageAPI

/// Sign-in with an OpenID Connect provider's ID token: the first sign-in creates an account linked
/// to the provider's subject, later ones find it; a signed-in user can link one to their account.
extension AccountService {
    static func externalID(provider: String, subject: String) -> String {
        "x" + Secrets.sha256Hex("\(provider)|\(subject)").prefix(40)
    }

    func signInExternal(provider: String, _ verified: OIDCProvider.Verified) async throws(BusError) -> TokenPair {
        let linkID = Self.externalID(provider: provider, subject: verified.subject)
        for _ in 0..<3 {
            if let link = try await store.get(collection: AuthCollections.external, id: linkID, owner: nil) {
                guard let account = try await store.get(collection: AuthCollections.accounts, id: link.owner, owner: link.owner) else {
                    throw BusError(.unauthenticated, "The account linked to this \(provider) sign-in no longer exists.")
                }
                guard try account.decode(AccountData.self).disabled != true else { throw Self.disabledRefusal }
                return try await startSession(accountID: link.owner)
            }
            let id = "acc_" + Secrets.random(bytes: 12)
            do {
                _ = try await store.write(WriteBatch([
                    .insert(collection: AuthCollections.accounts, id: id, owner: id, data: try JSONDocument(encoding: AccountData(kind: .external))),
                    .insert(collection: AuthCollections.external, id: linkID, owner: id,
                            data: try JSONDocument(encoding: ExternalLink(provider: provider, subject: verified.subject, email: verified.email,
                                                                          linkedAt: clock.now()))),
                ]))
                await promoteIfFirst(id)
                return try await startSession(accountID: id)
            } catch where error.code == .conflict {
                continue  // a concurrent first sign-in linked it: use that account
            }
        }
        throw BusError(.conflict, "Signing in with \(provider) raced with another sign-in; try again.")
    }

    func linkExternal(accountID: String, provider: String, _ verified: OIDCProvider.Verified) async throws(BusError) -> AccountSummary {
        let linkID = Self.externalID(provider: provider, subject: verified.subject)
        if let link = try await store.get(collection: AuthCollections.external, id: linkID, owner: nil) {
            guard link.owner == accountID else {
                throw BusError(.conflict, "This \(provider) identity is already linked to another Quire account.")
            }
            return try await summary(accountID: accountID)
        }
        _ = try await store.insert(ExternalLink(provider: provider, subject: verified.subject, email: verified.email, linkedAt: clock.now()),
                                   into: AuthCollections.external, id: linkID, owner: accountID)
        return try await summary(accountID: accountID)
    }
}

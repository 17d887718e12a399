import AuthAPI
import Bus
import Foundation
import PluginKit
import Secrets
import StorageAPI

/// Skipping sign-in, then signing up (AR Notebook's UI5.1.1): the phone's device account itself
/// becomes the signed-up account — a user name and password, or a provider's identity linked to it —
/// so everything it keeps (notebooks, pages, pictures, shares, pins) is the new account's without a
/// record moving. Only the device account's own session may hand it over, and only once.
extension AccountService {
    static func notYourDeviceAccount() -> BusError {
        BusError(.forbidden, "Only this phone's own account can hand its notebooks over; sign up on the phone that made them.",
                 details: ["reason": "not_your_device_account"])
    }

    static func alreadySignedUp(_ data: AccountData?) -> BusError {
        let name = data?.username.map { " as '\($0)'" } ?? ""
        return BusError(.conflict, "This phone's account is already signed up\(name): its notebooks are kept under that account. "
                        + "Sign in with it instead.", details: ["reason": "already_signed_up"])
    }

    /// The device account `claimed`, as `accountID` (the caller's session) — which must be the same.
    private func deviceAccount(accountID: String, claimed: String) async throws(BusError) -> (AccountData, version: Int64) {
        guard claimed == accountID else { throw Self.notYourDeviceAccount() }
        guard let record = try await store.get(collection: AuthCollections.accounts, id: accountID, owner: accountID) else {
            throw BusError(.unauthenticated, "The account no longer exists; sign up again.")
        }
        let data = try record.decode(AccountData.self)
        guard data.kind == .device else { throw Self.alreadySignedUp(data) }
        return (data, record.version)
    }

    /// Gives the device account a user name and password: it becomes a password account (its
    /// device secret stops signing in; its sessions go on).
    func signUpDevice(accountID: String, claimed: String, username raw: String, password: String) async throws(BusError) -> AccountSummary {
        let username = try CredentialRules.normalizedUsername(raw)
        try CredentialRules.checkPassword(password)
        var (data, version) = try await deviceAccount(accountID: accountID, claimed: claimed)
        data.kind = .password
        data.username = username
        data.passwordHash = await hasher.hash(password)
        do {
            _ = try await store.replace(data, in: AuthCollections.accounts, id: accountID, owner: accountID, expectedVersion: version)
        } catch where error.code == .conflict && error.details["index"] != nil {
            throw BusError.conflict("The username '\(username)' is taken; choose another.")
        } catch where error.code == .preconditionFailed {
            throw Self.alreadySignedUp(nil)  // a concurrent sign-up of the same account won
        }
        return try await summary(accountID: accountID)
    }

    /// Links a provider's identity to the device account, which becomes an external account: the
    /// provider's sign-in finds it from then on, on any phone. An identity already linked to another
    /// account is refused (its notebooks are not merged into this one).
    /// `label` names the provider to people ("Facebook"); `provider` is its name in the YAML.
    func signUpDeviceExternal(accountID: String, claimed: String, provider: String, label: String,
                              _ verified: OIDCProvider.Verified) async throws(BusError) -> AccountSummary {
        var (data, version) = try await deviceAccount(accountID: accountID, claimed: claimed)
        let linkID = Self.externalID(provider: provider, subject: verified.subject)
        if try await store.get(collection: AuthCollections.external, id: linkID, owner: nil) != nil {
            throw BusError(.conflict, "This \(label) sign-in already has its own Quire account, so this phone's notebooks cannot move into it; "
                           + "sign up with a user name and password instead, or with another \(label) account.",
                           details: ["reason": "provider_account_exists"])
        }
        data.kind = .external
        do {
            _ = try await store.write(WriteBatch([
                .replace(collection: AuthCollections.accounts, id: accountID, owner: accountID, data: try JSONDocument(encoding: data),
                         expectedVersion: version),
                .insert(collection: AuthCollections.external, id: linkID, owner: accountID,
                        data: try JSONDocument(encoding: ExternalLink(provider: provider, subject: verified.subject, email: verified.email,
                                                                      linkedAt: clock.now()))),
            ]))
        } catch where error.code == .preconditionFailed {
            throw Self.alreadySignedUp(nil)
        } catch where error.code == .conflict {
            throw BusError(.conflict, "This \(label) sign-in was just linked to another Quire account; sign up with a user name and password instead.",
                           details: ["reason": "provider_account_exists"])
        }
        return try await summary(accountID: accountID)
    }
}

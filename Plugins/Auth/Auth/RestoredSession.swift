import AuthAPI
import Bus
import Foundation
import StorageAPI

/// A new session for an account whose phone lost it (``StartRestoredSession``): refused for an
/// account that is gone or disabled; the account's other sessions go on.
extension AccountService {
    func startRestoredSession(accountID: String) async throws(BusError) -> StartRestoredSession.Reply {
        let record = StorageNames.isValidID(accountID)
            ? try await store.get(collection: AuthCollections.accounts, id: accountID, owner: accountID) : nil
        guard let record else { throw BusError(.notFound, "The account no longer exists.") }
        let data = try record.decode(AccountData.self)
        guard data.disabled != true else { throw Self.disabledRefusal }
        let pair = try await startSession(accountID: accountID)
        let secret = data.kind == .device ? tokens.deviceSecret(account: accountID, version: data.deviceSecretVersion ?? 0) : nil
        return StartRestoredSession.Reply(accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresIn: pair.expiresIn,
                                          accountID: accountID, deviceSecret: secret)
    }
}

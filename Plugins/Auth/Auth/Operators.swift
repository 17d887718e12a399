import AuthAPI
import Bus
import Foundation
import StorageAPI

/// What an operator does to accounts: list and find them, make one an operator, disable and
/// enable one. (Deleting one with all its data is the admin plugin's: storage erases an owner.)
extension AccountService {
    static let disabledRefusal = BusError(.forbidden, "This account has been disabled by the server's operator; ask them to enable it again.")

    func record(_ record: Record) throws(BusError) -> AccountRecord {
        let data = try record.decode(AccountData.self)
        return AccountRecord(accountID: record.id, username: data.username, kind: data.kind.rawValue, createdAt: record.createdAt,
                             isOperator: data.isOperator == true, disabled: data.disabled == true)
    }

    func accountRecord(id: String) async throws(BusError) -> (AccountRecord, AccountData, Int64) {
        guard StorageNames.isValidID(id), let found = try await store.get(collection: AuthCollections.accounts, id: id, owner: id) else {
            throw BusError.notFound("There is no account '\(id.prefix(40))'.")
        }
        return (try record(found), try found.decode(AccountData.self), found.version)
    }

    func list(_ request: ListAccounts) async throws(BusError) -> ListAccounts.Reply {
        let limit = min(max(request.limit, 1), 200)
        let search = request.search?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        if search.hasPrefix("acc_") {
            let found = try? await accountRecord(id: search)
            return .init(accounts: found.map { [$0.0] } ?? [], nextCursor: nil)
        }
        let filters = search.isEmpty ? [] : [Filter("username", .prefix, .string(search))]
        let page = try await store.query(RecordQuery(collection: AuthCollections.accounts, owner: nil, filters: filters,
                                                     limit: limit, cursor: request.cursor))
        var accounts: [AccountRecord] = []
        for found in page.records { accounts.append(try record(found)) }
        return .init(accounts: accounts, nextCursor: page.nextCursor)
    }

    func setOperator(account: String, isOperator: Bool) async throws(BusError) -> AccountRecord {
        let id: String
        if account.hasPrefix("acc_") {
            id = account
        } else if let named = try await self.account(named: account) {
            id = named.id
        } else {
            throw BusError.notFound("There is no user '\(account.prefix(40))'; create one with quire-auth create-user, or sign up first.")
        }
        let (_, data, version) = try await accountRecord(id: id)
        var changed = data
        changed.isOperator = isOperator ? true : nil
        return try record(try await store.replace(changed, in: AuthCollections.accounts, id: id, owner: id, expectedVersion: version))
    }

    func setDisabled(accountID: String, disabled: Bool) async throws(BusError) -> AccountRecord {
        let (_, data, version) = try await accountRecord(id: accountID)
        var changed = data
        changed.disabled = disabled ? true : nil
        let saved = try await store.replace(changed, in: AuthCollections.accounts, id: accountID, owner: accountID, expectedVersion: version)
        if disabled { _ = try await revokeAll(accountID: accountID, reason: "account disabled by an operator") }
        return try record(saved)
    }

    /// With `first_account_is_admin`, the account just made is an operator when it is the only one.
    /// Two first sign-ups at the same moment both see two accounts, and neither is: fail safe
    /// (`quire admin grant` then).
    func promoteIfFirst(_ id: String) async {
        guard firstAccountIsOperator,
              let page = try? await store.query(RecordQuery(collection: AuthCollections.accounts, owner: nil, limit: 2)),
              page.records.count == 1, page.records.first?.id == id else { return }
        _ = try? await setOperator(account: id, isOperator: true)
    }
}

public import Bus

/// Starts a new session for an account on a phone that lost it (iRemember's caregiver "Restore
/// access": the album plugin checks who may ask and that the one-time link is good). The account's
/// other sessions are left alone. A device account's reply carries its device secret, so the new
/// phone signs in again as the old one did; the secret goes only to the phone, in this reply.
public struct StartRestoredSession: BusRequest {
    public static let name: MessageName = "auth.session.restore.v1"
    public struct Reply: Codable, Sendable, Hashable {
        public var accessToken: String
        public var refreshToken: String
        public var expiresIn: Int
        public var accountID: String
        public var deviceSecret: String?
        public init(accessToken: String, refreshToken: String, expiresIn: Int, accountID: String, deviceSecret: String?) {
            (self.accessToken, self.refreshToken, self.expiresIn, self.accountID, self.deviceSecret) = (accessToken, refreshToken, expiresIn, accountID, deviceSecret)
        }
    }
    public var accountID: String
    public init(accountID: String) { self.accountID = accountID }
}

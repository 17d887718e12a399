import Bus
import Crypto
import Foundation
import StorageAPI

/// A phone's push subscription as stored (`push.subscriptions`, one record per owner and
/// endpoint): what `PushManager.subscribe` gave the browser.
struct PushSubscriptionData: Codable, Sendable, Equatable {
    var endpoint: String
    /// The subscription's P-256 public key (65 bytes, uncompressed), base64url.
    var p256dh: String
    /// Its 16-byte auth secret, base64url.
    var auth: String
    /// What the user calls the phone ("Pixel 8", from the client's user agent); shown in the list.
    var device: String
    var createdAt: Date
}

struct SubscriptionInput: Decodable {
    struct Keys: Decodable {
        var p256dh: String?
        var auth: String?
    }
    var endpoint: String?
    var keys: Keys?
    var device: String?
}

/// One subscription as the API shows it: never its keys.
struct SubscriptionJSON: Encodable {
    var id: String
    var endpoint: String
    var device: String
    var createdAt: Date
}

struct PushSubscriptions: Sendable {
    static let collection = "push.subscriptions"
    static let schema = CollectionSchema(name: collection, indexes: [IndexSpec(name: "created", fields: ["createdAt"])])
    static let maxPerUser = 20
    static let maxEndpointBytes = 1024

    let store: any RecordStore
    /// http:// and loopback endpoints (tests' own push service): off unless `allow_test_endpoints`.
    let testEndpoints: Bool

    static func id(owner: String, endpoint: String) -> String {
        "ps_" + SHA256.hash(data: Data((owner + "\u{0}" + endpoint).utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Checks what the client sent: an https endpoint, a P-256 key, a 16-byte secret.
    func validate(_ input: SubscriptionInput) throws(BusError) -> (endpoint: String, p256dh: Data, auth: Data) {
        guard let endpoint = input.endpoint, !endpoint.isEmpty else {
            throw BusError.invalid("A subscription needs 'endpoint' (PushSubscription.endpoint).", field: "endpoint")
        }
        guard endpoint.utf8.count <= Self.maxEndpointBytes, let url = URL(string: endpoint), url.host?.isEmpty == false,
              url.scheme == "https" || (testEndpoints && url.scheme == "http") else {
            throw BusError.invalid("A subscription's endpoint is the push service's https:// address (at most \(Self.maxEndpointBytes) bytes).",
                                   field: "endpoint")
        }
        guard let text = input.keys?.p256dh, let key = WebPushCrypto.fromBase64URL(text), key.count == 65,
              (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil else {
            throw BusError.invalid("'keys.p256dh' is the subscription's P-256 public key, base64url of 65 bytes (getKey(\"p256dh\")).", field: "keys.p256dh")
        }
        guard let secretText = input.keys?.auth, let auth = WebPushCrypto.fromBase64URL(secretText), auth.count == 16 else {
            throw BusError.invalid("'keys.auth' is the subscription's auth secret, base64url of 16 bytes (getKey(\"auth\")).", field: "keys.auth")
        }
        return (endpoint, key, auth)
    }

    /// Saves (or refreshes) the caller's subscription; answers it as the API shows it.
    func save(owner: String, _ input: SubscriptionInput, now: Date) async throws(BusError) -> SubscriptionJSON {
        let (endpoint, key, auth) = try validate(input)
        let device = String((input.device ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(80))
        let id = Self.id(owner: owner, endpoint: endpoint)
        let data = PushSubscriptionData(endpoint: endpoint, p256dh: WebPushCrypto.base64URL(key), auth: WebPushCrypto.base64URL(auth),
                                        device: device.isEmpty ? "A phone" : device, createdAt: now)
        let document = try JSONDocument(encoding: data)
        if try await store.get(collection: Self.collection, id: id, owner: owner) != nil {
            _ = try await store.write(WriteBatch([.replace(collection: Self.collection, id: id, owner: owner, data: document, expectedVersion: nil)]))
        } else {
            guard try await list(owner: owner).count < Self.maxPerUser else {
                throw BusError(.conflict, "Notifications are on for \(Self.maxPerUser) phones already; turn them off on one you no longer use (Settings) and try again.",
                               details: ["reason": "too_many_subscriptions"])
            }
            do {
                _ = try await store.write(WriteBatch([.insert(collection: Self.collection, id: id, owner: owner, data: document)]))
            } catch where error.code == .conflict {
                // The same phone, twice at once: the other write stands.
            }
        }
        return SubscriptionJSON(id: id, endpoint: endpoint, device: data.device, createdAt: now)
    }

    func list(owner: String) async throws(BusError) -> [(id: String, data: PushSubscriptionData)] {
        let page = try await store.query(RecordQuery(collection: Self.collection, owner: owner, order: [SortKey("createdAt")], limit: Self.maxPerUser * 2))
        return page.records.compactMap { record in (try? record.decode(PushSubscriptionData.self)).map { (record.id, $0) } }
    }

    /// Deletes the caller's subscription of `endpoint`; answers whether there was one.
    @discardableResult
    func delete(owner: String, endpoint: String) async throws(BusError) -> Bool {
        try await delete(owner: owner, id: Self.id(owner: owner, endpoint: endpoint))
    }

    @discardableResult
    func delete(owner: String, id: String) async throws(BusError) -> Bool {
        guard try await store.get(collection: Self.collection, id: id, owner: owner) != nil else { return false }
        do {
            try await store.delete(from: Self.collection, id: id, owner: owner)
        } catch where error.code == .notFound {
            return false
        }
        return true
    }
}

public import Bus
public import Foundation

/// A kind of resource that can be shared, and the plugin that shows it. The plugin that owns the
/// resource declares its kinds in its descriptor's `offers` (the album: `SharedPhoto`,
/// `SharedPhotoSearch`) and handles ``ShowShared`` of each: share-link learns the kinds from what
/// the app's plugins offer, and never reads another plugin's records.
public protocol SharedKind: PluginOffer {
    /// `album.photo`, `album.search`, `notebooks.notebook`.
    static var id: String { get }
}

/// Asks the owning plugin what a shared resource shows now, read-only. `notFound` when it is gone
/// or not the owner's. Also asked when a link is created, to refuse links to nothing.
public struct ShowShared<Kind: SharedKind>: BusRequest {
    public static var name: MessageName { MessageName(stringLiteral: "share.show.\(Kind.id).v1") }
    public typealias Reply = SharedView
    public var owner: String
    public var resource: [String: String]
    public init(owner: String, resource: [String: String]) {
        self.owner = owner
        self.resource = resource
    }
}

/// What a shared page shows: a title, a description, items (one for a photo, many for a search).
/// Images are named by the SHA-256 of their original; share-link serves them only as a rendition,
/// which media writes without EXIF (no GPS), and only through the link.
public struct SharedView: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        public var id: String
        public var title: String?
        public var text: String?
        /// RFC 3339, with its offset.
        public var takenAt: String?
        public var place: String?
        public var tags: [String]
        public var image: String?
        /// A drawing (by its blob's SHA-256) the page shows drawn over `image`: a photo's mark-up,
        /// when the sharer chose to share it.
        public var overlay: String?
        public init(id: String, title: String? = nil, text: String? = nil, takenAt: String? = nil, place: String? = nil, tags: [String] = [],
                    image: String? = nil, overlay: String? = nil) {
            self.id = id
            self.title = title
            self.text = text
            self.takenAt = takenAt
            self.place = place
            self.tags = tags
            self.image = image
            self.overlay = overlay
        }
    }

    public var title: String
    public var description: String?
    public var items: [Item]
    public init(title: String, description: String? = nil, items: [Item]) {
        self.title = title
        self.description = description
        self.items = items
    }
}

/// A link as its owner sees it (never the token, which only its creation answers).
public struct ShareLinkInfo: Codable, Sendable, Equatable {
    public var id: String
    public var kind: String
    public var resource: [String: String]
    public var title: String?
    public var createdAt: Date
    public var expiresAt: Date?
    public var revokedAt: Date?
    public var hasPassword: Bool
    /// The token's first characters, to tell links apart.
    public var tokenHint: String
    public init(id: String, kind: String, resource: [String: String], title: String?, createdAt: Date, expiresAt: Date?, revokedAt: Date?,
                hasPassword: Bool, tokenHint: String) {
        self.id = id
        self.kind = kind
        self.resource = resource
        self.title = title
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.hasPassword = hasPassword
        self.tokenHint = tokenHint
    }
}

public struct CreateShareLink: BusRequest {
    public static let name: MessageName = "share.link.create.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var link: ShareLinkInfo
        /// The secret part of the URL; shown once, stored only as a hash.
        public var token: String
        /// `/api/v1/share-link/s/<token>`, relative to the server.
        public var path: String
        public init(link: ShareLinkInfo, token: String, path: String) {
            self.link = link
            self.token = token
            self.path = path
        }
    }
    public var owner: String
    public var kind: String
    public var resource: [String: String]
    public var title: String?
    public var expiresAt: Date?
    public var password: String?
    public init(owner: String, kind: String, resource: [String: String], title: String? = nil, expiresAt: Date? = nil, password: String? = nil) {
        self.owner = owner
        self.kind = kind
        self.resource = resource
        self.title = title
        self.expiresAt = expiresAt
        self.password = password
    }
}

public struct ListShareLinks: BusRequest {
    public static let name: MessageName = "share.link.list.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var links: [ShareLinkInfo]
        public init(links: [ShareLinkInfo]) { self.links = links }
    }
    public var owner: String
    public init(owner: String) { self.owner = owner }
}

public struct RevokeShareLink: BusRequest {
    public static let name: MessageName = "share.link.revoke.v1"
    public typealias Reply = ShareLinkInfo
    public var owner: String
    public var id: String
    public init(owner: String, id: String) {
        self.owner = owner
        self.id = id
    }
}

/// Checks a token (and password) and answers what it grants, read-only: for plugins that let a
/// signed-in recipient open a shared resource (AR Notebook). `notFound` for an unknown token, `gone`
/// for an expired or revoked one, `unauthenticated` for a missing or wrong password.
public struct ResolveShareLink: BusRequest {
    public static let name: MessageName = "share.link.resolve.v1"
    public struct Reply: Codable, Sendable, Equatable {
        public var linkID: String
        public var owner: String
        public var kind: String
        public var resource: [String: String]
        public init(linkID: String, owner: String, kind: String, resource: [String: String]) {
            self.linkID = linkID
            self.owner = owner
            self.kind = kind
            self.resource = resource
        }
    }
    public var token: String
    public var password: String?
    public init(token: String, password: String? = nil) {
        self.token = token
        self.password = password
    }
}

public enum ShareLinkMessages {
    public static let all: [any BusMessage.Type] = [
        CreateShareLink.self, ListShareLinks.self, RevokeShareLink.self, ResolveShareLink.self,
    ]
}

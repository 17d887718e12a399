import AppConfig
import Bus
import PluginKit
import SyncAPI

// A second test plugin that claims what the bookmarks plugin already offers: one kind for the same
// collection, one with the same feed id. Sync keeps what the plugin starting first offered (this
// one depends on bookmarks, so it starts after), says so in its log, and the app runs.

enum MirroredBookmark: SyncKind {
    static let id = "mirror.bookmark"
    static let collection = SyncedBookmark.collection
}

enum SameIDBookmark: SyncKind {
    static let id = SyncedBookmark.id
    static let collection = "mirror.items"
}

struct MirrorPlugin: Plugin {
    struct Config: Sendable {}
    static let descriptor = PluginDescriptor(
        id: "mirror", summary: "Claims the bookmarks' collection and feed id again (a test plugin)", dependencies: ["bookmarks"],
        offers: [MirroredBookmark.self, SameIDBookmark.self])
    static func configure(_ section: ConfigSection) -> Config { Config() }
    init(config: Config, context: PluginContext) async throws {}
}

/// A kind of record that other plugins may keep something about — a geotag, a reminder — named
/// `kind/id` (`notes/n_…`, `album.photos/…`). The plugin that owns the records declares the kind in
/// its descriptor's `offers`, answers ``CheckSubject`` of it and publishes ``SubjectDeleted`` when
/// one goes; a plugin that stores data about subjects asks the owner before it writes (see
/// ``SubjectRules``) and forgets what it stored when the event comes. Neither knows the other.
public protocol SubjectKind: PluginOffer {
    /// The `kind` of `kind/id`: `notes`, `album.photos`, `notebooks.notebook`.
    static var kind: String { get }
}

/// What a caller may do with a subject, as its owning plugin answers.
public enum SubjectAccess: String, Codable, Sendable {
    /// It does not exist, or the caller may not see it (the two are not told apart).
    case none
    /// The caller may see it but not change it (a notebook shared read-only).
    case read
    /// The caller may change it: their own, or shared with them to edit.
    case write
}

/// Asks the plugin that owns a kind of subject what `caller` may do with one of them. Read-only.
public struct CheckSubject<Kind: SubjectKind>: BusRequest {
    public static var name: MessageName { MessageName(stringLiteral: "subject.check.\(Kind.kind).v1") }
    public typealias Reply = SubjectAccess
    public static var repeatable: Bool { true }
    /// The account asking (the user a geotag or reminder would belong to).
    public var caller: String
    /// The `id` of `kind/id`.
    public var id: String
    public init(caller: String, id: String) {
        self.caller = caller
        self.id = id
    }
}

/// Published by the plugin that owns a subject once it is deleted, so that whatever other plugins
/// keep about it (geotags, reminders) goes too — of every account, for a subject others could see.
public struct SubjectDeleted: BusEvent {
    public static let name: MessageName = "subject.deleted.v1"
    /// The account that owned the subject.
    public var owner: String
    /// `kind/id`.
    public var subject: String
    public init(owner: String, subject: String) {
        self.owner = owner
        self.subject = subject
    }
}

/// The subject kinds an app's plugins offer (``PluginDescriptor/offers``), to check a `kind/id`
/// a user sent before anything is stored about it.
public struct SubjectRules: Sendable {
    private let checks: [String: @Sendable (any MessageBus, String, String) async throws(BusError) -> SubjectAccess]

    public init(offers: [any PluginOffer.Type]) {
        var checks: [String: @Sendable (any MessageBus, String, String) async throws(BusError) -> SubjectAccess] = [:]
        for case let kind as any SubjectKind.Type in offers where checks[kind.kind] == nil {
            checks[kind.kind] = Self.check(kind)
        }
        self.checks = checks
    }

    private static func check<K: SubjectKind>(_: K.Type) -> @Sendable (any MessageBus, String, String) async throws(BusError) -> SubjectAccess {
        { bus, caller, id throws(BusError) in try await bus.request(CheckSubject<K>(caller: caller, id: id), timeout: .seconds(10)) }
    }

    /// The kinds offered, sorted.
    public var kinds: [String] { checks.keys.sorted() }

    /// Checks that `caller` may write `subject` (`kind/id`): `invalid` (field `subject`) for a kind
    /// no plugin of this app offers, `notFound` for one that does not exist or is not the caller's
    /// to see (never telling which), `forbidden` for one the caller may only read.
    public func requireWritable(_ subject: String, caller: String, on bus: any MessageBus) async throws(BusError) {
        guard let slash = subject.firstIndex(of: "/"), slash != subject.startIndex, subject.index(after: slash) < subject.endIndex else {
            throw BusError.invalid("A subject is 'kind/id' (notes/n_…).", field: "subject")
        }
        let kind = String(subject[..<slash])
        let id = String(subject[subject.index(after: slash)...])
        guard let check = checks[kind] else {
            let offered = kinds.isEmpty ? "none" : kinds.joined(separator: ", ")
            throw BusError.invalid("No plugin of this app keeps subjects of kind '\(kind.prefix(40))'; the kinds here are: \(offered).",
                                   field: "subject")
        }
        switch try await check(bus, caller, id) {
        case .write:
            return
        case .read:
            throw BusError(.forbidden, "You may see '\(subject.prefix(300))' but not change it, so nothing can be attached to it.",
                           details: ["field": "subject"])
        case .none:
            throw BusError(.notFound, "There is no '\(subject.prefix(300))' of yours: check the id (it may have been deleted).",
                           details: ["field": "subject"])
        }
    }
}

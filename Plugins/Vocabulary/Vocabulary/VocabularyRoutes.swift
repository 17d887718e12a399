import Bus
import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import NIOCore
import PluginKit
import StorageAPI
import VocabularyAPI
import VocabularyFormats

/// The HTTP face of the vocabulary plugin, under `/api/v1/vocabulary`. Every route needs a signed-in
/// user and sees only that user's data: another user's ids answer 404.
struct VocabularyRoutes: Sendable {
    let service: VocabularyService
    let jobs: ImportExport
    let purger: CollectionPurger
    let review: ReviewService
    let config: VocabularyPlugin.Config

    func add(to routes: PluginRoutes) throws {
        let service = self.service
        let jobs = self.jobs
        let purger = self.purger
        let pageSize = config.pageSize
        let maxImport = config.maxImportBytes

        // Collections
        try routes.add(.get, "collections", query: ["limit", "cursor"], summary: "My collections, by name") { request, _, identity in
            try .json(try ListPage.slice(try await service.collections(owner: identity.accountID).map(NamedJSON.init), request: request,
                                         pageSize: pageSize, max: 1000))
        }
        try routes.add(.post, "collections", summary: "Create a collection: {\"name\"}; a name I already have is 409; honours Idempotency-Key") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NameInput.self, context: context)
            let record = try await service.createCollection(owner: identity.accountID, name: input.name,
                                                            idempotencyKey: try request.idempotencyKey())
            return try .json(try NamedJSON(record), status: .created,
                             headers: [.location: "/api/v1/vocabulary/collections/\(record.id)"])
        }
        try routes.add(.get, "collections/{id}", summary: "One collection") { _, context, identity in
            try .json(try NamedJSON(try await service.collection(owner: identity.accountID, id: try Self.id(context))))
        }
        try routes.add(.patch, "collections/{id}", summary: "Rename a collection: {\"name\"}; a duplicate is 409 naming it") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NameInput.self, context: context)
            return try .json(try NamedJSON(try await service.renameCollection(owner: identity.accountID, id: try Self.id(context),
                                                                          name: input.name, expectedVersion: try request.ifMatchVersion())))
        }
        try routes.add(.delete, "collections/{id}", summary: "Delete a collection and its entries: gone at once, the entries deleted in the background") {
            _, context, identity in
            let owner = identity.accountID
            let id = try Self.id(context)
            try await service.deleteCollection(owner: owner, id: id)
            purger.start(owner: owner, collection: id)
            return .noContent
        }
        try routes.add(.get, "collections/{id}/entries", query: ["limit", "cursor"], summary: "A collection's entries by word (cursor pages)") { request, context, identity in
            let page = try await service.entries(owner: identity.accountID, collection: try Self.id(context),
                                                 limit: try request.limit(default: pageSize, max: 1000),
                                                 cursor: request.uri.queryParameters["cursor"].map(String.init))
            return try .json(ListPage(items: try page.records.map(EntryJSON.init), nextCursor: page.nextCursor))
        }

        // Tags
        try routes.add(.get, "tags", query: ["limit", "cursor"], summary: "My tags, by name") { request, _, identity in
            try .json(try ListPage.slice(try await service.tags(owner: identity.accountID).map(NamedJSON.init), request: request,
                                         pageSize: pageSize, max: 1000))
        }
        try routes.add(.post, "tags", summary: "Create a tag: {\"name\"} (one word); a duplicate is 409; honours Idempotency-Key") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NameInput.self, context: context)
            let record = try await service.createTag(owner: identity.accountID, name: input.name, idempotencyKey: try request.idempotencyKey())
            return try .json(try NamedJSON(record), status: .created, headers: [.location: "/api/v1/vocabulary/tags/\(record.id)"])
        }
        try routes.add(.patch, "tags/{id}", summary: "Rename a tag; a duplicate is 409 naming it") { request, context, identity in
            var request = request
            let input = try await request.decodeJSON(NameInput.self, context: context)
            return try .json(try NamedJSON(try await service.renameTag(owner: identity.accountID, id: try Self.id(context),
                                                                   name: input.name, expectedVersion: try request.ifMatchVersion())))
        }
        try routes.add(.delete, "tags/{id}", summary: "Delete a tag; entries keep existing without it") { _, context, identity in
            _ = try await service.deleteTag(owner: identity.accountID, id: try Self.id(context))
            return .noContent
        }

        // Entries
        try routes.add(.post, "entries", summary: "Create an entry: collection, word, definitions, languages, note, example, tags; honours Idempotency-Key") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(EntryInput.self, context: context)
            let record = try await service.createEntry(owner: identity.accountID, input: input, idempotencyKey: try request.idempotencyKey())
            return try .json(try EntryJSON(record), status: .created, headers: [.location: "/api/v1/vocabulary/entries/\(record.id)"])
        }
        try routes.add(.get, "entries/{id}", summary: "One entry") { _, context, identity in
            try .json(try EntryJSON(try await service.entry(owner: identity.accountID, id: try Self.id(context))))
        }
        try routes.add(.patch, "entries/{id}", summary: "Edit an entry (fields sent are replaced; null clears note or example); honours Idempotency-Key") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(EntryInput.self, context: context)
            let updated = try await service.updateEntry(owner: identity.accountID, id: try Self.id(context), input: input,
                                                        expectedVersion: try request.ifMatchVersion(), idempotencyKey: try request.idempotencyKey())
            var json = try EntryJSON(updated.record)
            json.replaced = updated.replaced.isEmpty ? nil : updated.replaced
            return try .json(json)
        }
        try routes.add(.delete, "entries/{id}", summary: "Delete an entry; restorable for the undo window") { request, context, identity in
            try await service.deleteEntry(owner: identity.accountID, id: try Self.id(context), expectedVersion: try request.ifMatchVersion())
            return .noContent
        }
        try routes.add(.post, "entries/{id}/restore", summary: "Undo a delete; 410 after the undo window") { _, context, identity in
            try .json(try EntryJSON(try await service.restoreEntry(owner: identity.accountID, id: try Self.id(context))))
        }
        try routes.add(.post, "entries/{id}/relations", summary: "Relate two entries: {\"kind\": related|alternative, \"entry\"}; both list it") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(RelationInput.self, context: context)
            return try .json(try EntryJSON(try await service.relate(owner: identity.accountID, id: try Self.id(context), input: input)))
        }
        try routes.add(.delete, "entries/{id}/relations/{other}", summary: "Remove a relation, from both entries") { _, context, identity in
            guard let other = context.parameters.get("other") else { throw Problem.badRequest("The related entry's id is missing from the path.") }
            return try .json(try EntryJSON(try await service.unrelate(owner: identity.accountID, id: try Self.id(context), other: other)))
        }

        // Search
        try routes.add(.get, "search", query: ["q", "collection", "all", "any", "none", "limit", "cursor"],
                       summary: "Search as you type: q, collection, all/any/none (tag ids or names, comma-separated), limit, cursor; without q, browse by word") {
            request, _, identity in
            let query = request.uri.queryParameters
            func list(_ name: Substring) -> [String] {
                (query[name].map(String.init) ?? "").split(separator: ",").map { $0.trimmed }.filter { !$0.isEmpty }
            }
            let words = query["q"].map(String.init) ?? ""
            let limit = try request.limit(default: 20, max: SearchQuery.maxLimit)
            let cursor = try request.query("cursor")
            if SearchText.terms(words).isEmpty {
                // Browsing: every entry that passes the filters, by word, in keyset pages.
                var after: String?
                if let cursor {
                    guard let text = OpaqueCursor.decode(cursor, maxLength: 2000), text.hasPrefix("b:") else {
                        throw Problem.badRequest("The cursor is not one this list gave; start from the first page.", field: "cursor")
                    }
                    after = String(text.dropFirst(2))
                }
                let result = try await service.search(SearchVocabulary(
                    owner: identity.accountID, query: "", collection: query["collection"].map(String.init),
                    allTags: list("all"), anyTags: list("any"), noTags: list("none"), limit: limit, after: after))
                return try .json(ListPage(items: result.hits, nextCursor: result.next.map { OpaqueCursor.encode("b:" + $0) }))
            }
            // Ranked results: a page is the next stretch of the same ranking, found by asking for one
            // more than it needs (the top SearchQuery.maxLimit are reachable).
            let offset = try OffsetCursor.decode(cursor)
            guard offset < SearchQuery.maxLimit else { return try .json(ListPage<VocabularySearchResult.Hit>(items: [], nextCursor: nil)) }
            let result = try await service.search(SearchVocabulary(
                owner: identity.accountID, query: words, collection: query["collection"].map(String.init),
                allTags: list("all"), anyTags: list("any"), noTags: list("none"), limit: min(SearchQuery.maxLimit, offset + limit + 1)))
            let end = min(result.hits.count, offset + limit)
            return try .json(ListPage(items: offset < end ? Array(result.hits[offset..<end]) : [],
                                      nextCursor: result.hits.count > end ? OffsetCursor.encode(end) : nil))
        }

        // Review (FSRS-6)
        try addReview(to: routes)
        try Tips.add(to: routes, store: service.store)

        // Import and export
        try routes.add(.post, "imports", query: ["format", "collection"], summary: "Import a CSV or Anki .apkg (the body); ?format=csv|apkg&collection=NAME; 202 with the job") {
            request, _, identity in
            let format = try Self.format(request)
            // A place in the job queue first: a full queue is refused before the body is read. The
            // body goes straight to a file of the job's, a piece at a time, never whole in memory.
            let scratch = jobs.scratch()
            let job = try await jobs.runner.admit(owner: identity.accountID, scratch: scratch, bringIn: { scratch in
                try await request.spoolUpload(limit: maxImport, what: "an import file", into: scratch) { _ in }.file
            }) { file, ticket in
                try await jobs.start(file: file, scratch: scratch, owner: identity.accountID, format: format,
                                     collection: request.uri.queryParameters["collection"].map(String.init), ticket: ticket)
            }
            return try .json(job, status: .accepted, headers: [.location: "/api/v1/vocabulary/imports/\(job.id)"])
        }
        try routes.add(.get, "imports/{id}", summary: "An import's state: running, succeeded or failed, progress and row errors") {
            _, context, identity in
            try .json(try await jobs.job(owner: identity.accountID, id: try Self.id(context)))
        }
        try routes.add(.get, "export", query: ["format", "collection"], summary: "My vocabulary as ?format=csv|apkg, all of it or ?collection=NAME") { request, _, identity in
            guard let raw = request.uri.queryParameters["format"], let format = VocabularyFormat(rawValue: String(raw)) else {
                throw Problem.badRequest("Say which format: ?format=csv or ?format=apkg.", field: "format")
            }
            let reply = try await jobs.export(ExportVocabulary(owner: identity.accountID, format: format,
                                                               collection: request.uri.queryParameters["collection"].map(String.init)))
            let headers: HTTPFields = [
                .contentType: format == .csv ? "text/csv; charset=utf-8" : "application/apkg",
                .contentDisposition: "attachment; filename=\"vocabulary.\(format.rawValue)\"",
            ]
            let (blobs, bus) = (jobs.blobs, jobs.bus)
            return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: reply.file.size) { writer in
                do {
                    try await reply.file.forEach(from: blobs) { bytes in try await writer.write(ByteBuffer(bytes: bytes)) }
                } catch {
                    await reply.file.release(on: bus)
                    throw error
                }
                await reply.file.release(on: bus)
                try await writer.finish(nil)
            })
        }
    }

    private func addReview(to routes: PluginRoutes) throws {
        let review = self.review
        try routes.add(.get, "review/next", query: ["collection", "limit", "tzOffset"],
                       summary: "Cards to review now: due ones first, then new entries up to today's new-card limit; each with its entry and the interval each rating would give") {
            request, _, identity in
            let limit = try request.limit(default: 20, max: 100)
            let dayStart = ReviewService.dayStart(of: review.clock.now(), offsetMinutes: try Self.tzOffset(request))
            let cards = try await review.next(owner: identity.accountID, collection: try request.query("collection"), limit: limit, dayStart: dayStart)
            return try .json(ListPage(items: cards, nextCursor: nil))
        }
        try routes.add(.post, "review", summary: "Record a review: {\"entry\", \"rating\": again|hard|good|easy, \"id\"?, \"reviewedAt\"?, \"durationMs\"?}; the same id twice applies once") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(ReviewInput.self, context: context)
            let result = try await review.review(owner: identity.accountID, input: input)
            return try .json(result, status: result.replayed ? .ok : .created)
        }
        try routes.add(.get, "review/stats", query: ["tzOffset"],
                       summary: "Today's due and reviewed counts, and retention over the last 30 days (tzOffset: minutes east of UTC)") {
            request, _, identity in
            let dayStart = ReviewService.dayStart(of: review.clock.now(), offsetMinutes: try Self.tzOffset(request))
            return try .json(try await review.stats(owner: identity.accountID, dayStart: dayStart))
        }
        try routes.add(.get, "review/settings", summary: "My review settings: desiredRetention, fuzz, newPerDay") { _, _, identity in
            try .json(try await review.settings(owner: identity.accountID))
        }
        try routes.add(.patch, "review/settings", summary: "Change review settings: {\"desiredRetention\": 0.7-0.99, \"fuzz\": bool, \"newPerDay\": 0-1000}") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(ReviewSettingsInput.self, context: context)
            return try .json(try await review.update(settings: input, owner: identity.accountID))
        }
        try routes.add(.put, "collections/{id}/cards", summary: "Which cards a collection's words get: {\"cardKinds\": [forward, reverse, cloze]} (forward alone by default)") {
            request, context, identity in
            var request = request
            let input = try await request.decodeJSON(CardKindsInput.self, context: context)
            return try .json(try NamedJSON(try await review.setCardKinds(owner: identity.accountID, collection: try Self.id(context), kinds: input.cardKinds,
                                                                     expectedVersion: try request.ifMatchVersion())))
        }
    }

    /// `?tzOffset=`: the client's minutes east of UTC, for where its day starts (0 when absent).
    static func tzOffset(_ request: Request) throws -> Int {
        guard let raw = request.uri.queryParameters["tzOffset"] else { return 0 }
        guard let minutes = Int(raw), (-840...840).contains(minutes) else {
            throw Problem.badRequest("tzOffset is the device's minutes east of UTC, -840 to 840; not '\(raw)'.", field: "tzOffset")
        }
        return minutes
    }

    /// The import's format: `?format=`, else from the Content-Type.
    static func format(_ request: Request) throws -> VocabularyFormat {
        if let raw = request.uri.queryParameters["format"] {
            guard let format = VocabularyFormat(rawValue: String(raw)) else {
                throw Problem.badRequest("'format' is csv or apkg, not '\(raw)'.", field: "format")
            }
            return format
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("text/csv") { return .csv }
        if type.hasPrefix("application/zip") || type.hasPrefix("application/apkg") { return .apkg }
        throw Problem.badRequest("Say what the file is: ?format=csv or ?format=apkg (or Content-Type text/csv or application/zip).", field: "format")
    }

    static func id(_ context: QuireContext) throws -> String {
        guard let id = context.parameters.get("id") else { throw Problem.badRequest("The id is missing from the path.") }
        return id
    }
}

/// A collection or a tag.
struct NamedJSON: Encodable, VersionedRepresentation {
    var id: String
    var name: String
    var version: Int64
    var createdAt: Date
    var updatedAt: Date
    /// A collection's card kinds when it has more than forward.
    var cardKinds: [String]?

    init(_ record: Record) throws {
        struct Named: Decodable { var name: String; var cardKinds: [String]? }
        id = record.id
        let named = try record.decode(Named.self)
        name = named.name
        cardKinds = named.cardKinds
        version = record.version
        createdAt = record.createdAt
        updatedAt = record.updatedAt
    }
}

struct EntryJSON: Encodable, VersionedRepresentation {
    var id: String
    var version: Int64
    var createdAt: Date
    var updatedAt: Date
    var word: String
    var definitions: [String]
    var languages: [String]
    var note: String?
    var example: String?
    var collection: String
    var tags: [String]
    var relations: [Relation]
    /// The recorded pronunciation: its SHA-256 and length (GET …/pronunciation plays it).
    var pronunciation: String?
    var pronunciationMs: Int?
    /// After an edit merged into newer changes: what it overwrote of them.
    var replaced: [String: JSONValue]?

    init(_ record: Record) throws {
        let data = try record.decode(EntryData.self)
        id = record.id
        version = record.version
        createdAt = record.createdAt
        updatedAt = record.updatedAt
        word = data.word
        definitions = data.definitions
        languages = data.languages
        note = data.note
        example = data.example
        collection = data.collection
        tags = data.tags
        relations = data.relations
        (pronunciation, pronunciationMs) = (data.pronunciation, data.pronunciationMs)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(version, forKey: .version)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(word, forKey: .word)
        try container.encode(definitions, forKey: .definitions)
        try container.encode(languages, forKey: .languages)
        try container.encode(note, forKey: .note)
        try container.encode(example, forKey: .example)
        try container.encode(collection, forKey: .collection)
        try container.encode(tags, forKey: .tags)
        try container.encode(relations, forKey: .relations)
        try container.encodeIfPresent(pronunciation, forKey: .pronunciation)
        try container.encodeIfPresent(pronunciationMs, forKey: .pronunciationMs)
        try container.encodeIfPresent(replaced, forKey: .replaced)
    }

    enum CodingKeys: String, CodingKey {
        case id, version, createdAt, updatedAt, word, definitions, languages, note, example, collection, tags, relations, pronunciation, pronunciationMs, replaced
    }
}


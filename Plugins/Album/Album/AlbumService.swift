import AlbumAPI
import Bus
import Foundation
import GeoAPI
import Logging
import MediaAPI
import PluginKit
import SafeFetch
import StorageAPI

/// iRemember's album: photos with their time taken, notes, tags, mark-up and place; tag and time
/// searches, month and place folders, recent days, slideshows.
///
/// Every change to a photo is one storage batch: the photo, its postings under each tag (what a tag
/// search walks, in time order) and the counters of its tags and folders. A crash never leaves a
/// count that disagrees with the photos.
struct AlbumService: Sendable {
    static let photos = SyncedPhoto.collection
    static let tagged = "album.tagged"
    static let counts = "album.counts"

    static let schemas = [
        CollectionSchema(name: photos, indexes: [IndexSpec(name: "time", fields: ["sortKey"]),
                                                 IndexSpec(name: "place", fields: ["placeKey", "sortKey"])],
                         blobFields: ["image", "markup", "original", "voice"], history: true, forgetsOnDelete: true),
        CollectionSchema(name: tagged, indexes: [IndexSpec(name: "tag_time", fields: ["tag", "sortKey"])]),
        CollectionSchema(name: counts, indexes: [IndexSpec(name: "by_count", fields: ["kind", "count"]),
                                                 IndexSpec(name: "by_key", fields: ["kind", "key"])]),
    ]

    let store: BusRecordStore
    let bus: any MessageBus
    /// The time and the ids' randomness, from the plugin's context.
    let clock: PluginClock
    let ids: IDSource
    let timeZone: TimeZone
    let fetcher: SafeFetcher
    /// Where failures that must not fail a request (a geotag after the photo is stored) are told.
    var logger = Logger(label: "quire.album")

    // MARK: Adding

    /// What the client knows at capture: its clock and its location.
    struct Capture: Sendable {
        var takenAt: String?
        var latitude: Double?
        var longitude: Double?
        var accuracy: Double?
        var tags: [String] = []
        var notes: String?
        var source: String
        var sourceURL: String?
        /// A caregiver adding to the user's album (AlbumCaregiving.swift).
        var addedBy: Contributor? = nil
    }

    /// With an `idempotencyKey`, the same upload sent again (a phone whose answer was lost, sending
    /// from its outbox again) answers the photo the first one made instead of adding a copy.
    func add(owner: String, bytes: Data, capture: Capture, idempotencyKey: String? = nil) async throws(BusError) -> Record {
        try await add(owner: owner, upload: try await BlobPayload.wrap(bytes, in: BusBlobStore(bus: bus)), capture: capture, idempotencyKey: idempotencyKey)
    }

    /// `upload`: the image, inline or as the blob an upload was streamed into (which goes again
    /// when the photo is refused).
    func add(owner: String, upload: BlobPayload, capture: Capture, idempotencyKey: String? = nil) async throws(BusError) -> Record {
        let tags: [String], clientTime: String?, clientLocation: PhotoData.Location?
        do throws(BusError) {
            tags = try TagRules.normalize(capture.tags)
            clientTime = try capture.takenAt.map { text throws(BusError) in
                guard let time = TakenTime.normalize(text, zone: timeZone) else {
                    throw BusError.invalid("'takenAt' is a time such as 2024-05-03T14:22.", field: "takenAt")
                }
                return time
            }
            clientLocation = try Self.location(capture.latitude, capture.longitude, capture.accuracy, source: "device")
            try Self.checkNotes(capture.notes)
        } catch {
            await upload.release(on: bus)
            throw error
        }

        let image = try await bus.request(IngestImage(owner: owner, image: upload, geotagsItself: true), timeout: IngestImage.timeout)
        let info = image.info
        let id = newID()
        let oriented = info.orientation >= 5 ? (info.height, info.width) : (info.width, info.height)
        var photo = PhotoData(image: image.sha256, format: info.format.rawValue, width: oriented.0, height: oriented.1, takenAt: "",
                              takenAtSource: "", sortKey: "", month: "", day: "", notes: capture.notes ?? "", tags: tags, markup: nil,
                              location: nil, placeKey: nil, place: nil, source: capture.source, sourceURL: capture.sourceURL,
                              uploadedAt: clock.now())
        photo.addedBy = capture.addedBy
        // Time taken: EXIF, else the client's clock at capture, else now on the server's.
        if let exif = info.takenAt.flatMap({ TakenTime.normalize($0, zone: timeZone) }) {
            photo.setTakenAt(exif, source: "exif", id: id)
        } else if let clientTime {
            photo.setTakenAt(clientTime, source: "device", id: id)
        } else {
            photo.setTakenAt(TakenTime.now(in: timeZone, at: clock.now()), source: "upload", id: id)
        }
        // Where: EXIF GPS, else the client's location at capture.
        if let gps = info.gps, GeoPointCheck.isValid(gps.latitude, gps.longitude) {
            photo.location = PhotoData.Location(latitude: gps.latitude, longitude: gps.longitude, accuracy: nil,
                                                altitude: gps.altitude.flatMap { (-11_000...50_000).contains($0) ? $0 : nil }, source: "exif")
        } else {
            photo.location = clientLocation
        }
        try await place(&photo)
        let added = photo
        let claim = idempotencyKey.map { key in
            IdempotencyClaim(owner: owner, scope: "album.add", key: key, fingerprint: Self.fingerprint(image.sha256, capture))
        }
        let committed = try await commit(owner: owner, id: id, expectedVersion: nil, idempotency: claim, { _ in added })
        guard let record = committed.record else {
            throw BusError(committed.replayed ? .conflict : .internal, committed.replayed
                ? "The photo added with this Idempotency-Key has since been deleted." : "The new photo was not stored.")
        }
        if committed.replayed { return record }
        await geotag(owner: owner, id: id, photo.location)
        await bus.publish(PhotoAdded(owner: owner, photoID: id, image: photo.image, takenAt: photo.takenAt, placeKey: photo.placeKey))
        return record
    }

    /// Downloads a picture the user pointed at (see ``SafeFetcher``) and adds it.
    func importURL(owner: String, url: String, capture: Capture) async throws(BusError) -> Record {
        let fetched = try await fetcher.fetch(url)
        var capture = capture
        capture.source = "url"
        capture.sourceURL = url
        return try await add(owner: owner, bytes: fetched.bytes, capture: capture)
    }

    /// A new photo's id: `p` and 64 random bits in hex.
    func newID() -> String { "p" + ids.hex() }

    static func location(_ latitude: Double?, _ longitude: Double?, _ accuracy: Double?, source: String) throws(BusError) -> PhotoData.Location? {
        switch (latitude, longitude) {
        case (nil, nil): return nil
        case (let latitude?, let longitude?):
            try Geotag(subject: "album.photos/x", latitude: latitude, longitude: longitude, accuracy: accuracy, source: source).validate()
            return PhotoData.Location(latitude: latitude, longitude: longitude, accuracy: accuracy, altitude: nil, source: source)
        default:
            throw BusError.invalid("Give both a latitude and a longitude, or neither.", field: "latitude")
        }
    }

    static func checkNotes(_ notes: String?) throws(BusError) {
        if let notes, notes.count > 10_000 { throw BusError.invalid("Notes are at most 10,000 characters.", field: "notes") }
    }

    /// Names the photo's place folder from geo's gazetteer.
    private func place(_ photo: inout PhotoData) async throws(BusError) {
        guard let location = photo.location else {
            photo.placeKey = nil
            photo.place = nil
            return
        }
        let place = try await bus.request(LookUpPlace(latitude: location.latitude, longitude: location.longitude))
        photo.placeKey = String(place.geonameID)
        photo.place = PhotoData.PlaceName(label: place.label, city: place.city, region: place.region, country: place.country,
                                          countryCode: place.countryCode)
    }

    /// Geotags the photo for geo's queries. Called after the photo is stored, so it cannot fail the
    /// request: a client told "failed" would upload the photo again. A busy database or a racing
    /// write is tried again (a few times, spread out); what still fails is logged, and the photo keeps
    /// its location and place: a missing geotag only hides it from radius searches until it is edited.
    private func geotag(owner: String, id: String, _ location: PhotoData.Location?) async {
        let subject = "album.photos/\(id)"
        var failure: BusError?
        for attempt in 0..<Self.geotagAttempts {
            await Contention.backOff(before: attempt * 3)
            do throws(BusError) {
                if let location {
                    _ = try await bus.request(SetGeotag(owner: owner, geotag: Geotag(subject: subject, latitude: location.latitude,
                                                                                     longitude: location.longitude, accuracy: location.accuracy,
                                                                                     altitude: location.altitude, source: location.source)))
                } else {
                    _ = try await bus.request(RemoveGeotag(owner: owner, subject: subject))
                }
                return
            } catch where error.code == .unavailable || error.code == .conflict || error.code == .deadlineExceeded {
                failure = error
            } catch {
                failure = error
                break
            }
        }
        logger.warning("album: the photo's geotag was not updated; it is missing from radius searches until the photo is edited",
                       metadata: ["photo": "\(id)", "code": "\(failure?.code.rawValue ?? "")", "error": "\(failure?.message ?? "")"])
    }

    /// Tries of a geotag write that met a busy database or another process.
    static let geotagAttempts = 4

    /// Adds photos whose images are already stored, as many per storage batch as fit.
    func importRecords(owner: String, _ photos: [ImportPhotoRecords.Photo]) async throws(BusError) -> [String] {
        guard (1...ImportPhotoRecords.maxPhotos).contains(photos.count) else {
            throw BusError.invalid("Import 1 to \(ImportPhotoRecords.maxPhotos) photos at a time.", field: "photos")
        }
        var sizes: [String: (format: String, width: Int, height: Int)] = [:]
        var prepared: [(id: String, photo: PhotoData)] = []
        for (index, item) in photos.enumerated() {
            guard let time = TakenTime.normalize(item.takenAt, zone: timeZone) else {
                throw BusError.invalid("Photo \(index + 1): 'takenAt' is a time such as 2024-05-03T14:22.", field: "takenAt")
            }
            try Self.checkNotes(item.notes)
            let tags = try TagRules.normalize(item.tags)
            let location = try Self.location(item.latitude, item.longitude, nil, source: "import")
            if sizes[item.image] == nil {
                guard BlobRef.isValidHash(item.image), try await bus.request(StatBlob(sha256: item.image)).blob != nil else {
                    throw BusError(.notFound, "Photo \(index + 1): no stored image '\(item.image)'; upload it first.", details: ["field": "image"])
                }
                let original = try await bus.request(RenderImage(sha256: item.image, rendition: RenderImage.original))
                let size = try await bus.request(DescribeImage(sha256: item.image))
                sizes[item.image] = (original.format.rawValue, size.width, size.height)
            }
            guard let size = sizes[item.image] else { continue }
            let id = newID()
            var photo = PhotoData(image: item.image, format: size.format, width: size.width, height: size.height, takenAt: "", takenAtSource: "",
                                  sortKey: "", month: "", day: "", notes: item.notes, tags: tags, markup: nil, location: location, placeKey: nil,
                                  place: nil, source: "import", sourceURL: nil, uploadedAt: clock.now())
            photo.setTakenAt(time, source: "import", id: id)
            try await place(&photo)
            prepared.append((id, photo))
        }
        try await commitNew(owner: owner, prepared[...])
        let geotags = prepared.compactMap { item in
            item.photo.location.map { Geotag(subject: "album.photos/\(item.id)", latitude: $0.latitude, longitude: $0.longitude, source: "import") }
        }
        if !geotags.isEmpty { _ = try await bus.request(SetGeotags(owner: owner, geotags: geotags)) }
        return prepared.map(\.id)
    }

    /// New photos in one batch with their postings and the counters summed; halves until it fits
    /// a batch, and reads the counters again when another write got there first.
    private func commitNew(owner: String, _ photos: ArraySlice<(id: String, photo: PhotoData)>) async throws(BusError) {
        guard !photos.isEmpty else { return }
        try await AlbumRetry.policy.run(gaveUp: BusError(.conflict, "The album kept changing while these photos were added; try again.")) {
            () async throws(BusError) -> UpdateStep<Void> in
            var operations: [WriteOperation] = []
            var deltas: CounterDeltas = [:]
            for (id, photo) in photos {
                operations.append(.insert(collection: Self.photos, id: id, owner: owner, data: try JSONDocument(encoding: photo)))
                operations += try postingChanges(owner: owner, id: id, old: nil, new: photo)
                counterDeltas(old: nil, new: photo, into: &deltas)
            }
            if operations.count + deltas.count > WriteBatch.maxOperations, photos.count > 1 {
                let middle = photos.startIndex + photos.count / 2
                try await commitNew(owner: owner, photos[..<middle])
                try await commitNew(owner: owner, photos[middle...])
                return .done(())
            }
            operations += try await counterOperations(owner: owner, deltas)
            return try await .write(retryingOn: AlbumRetry.lost) { () async throws(BusError) in
                _ = try await store.write(WriteBatch(operations))
            }
        }
    }

    // MARK: Changing

    /// Stored fields derived from others (never reported as replaced: their source field is).
    static let derivedFields: Set<String> = ["sortKey", "placeKey", "takenAtSource", "month", "day", "captionBy"]

    struct Edit: Sendable {
        var notes: String?
        var tags: [String]?
        var takenAt: String?
        /// nil: unchanged; .some(nil): removed.
        var location: PhotoData.Location??
        /// Who writes the caption: a caregiver, or nil for the user. Kept as `captionBy` when the
        /// words change.
        var by: Contributor? = nil
    }

    func photo(owner: String, id: String) async throws(BusError) -> Record {
        guard StorageNames.isValidID(id), let record = try await store.get(collection: Self.photos, id: id, owner: owner) else {
            throw BusError(.notFound, "This photo is not in your album: it was deleted, maybe on another device.")
        }
        return record
    }

    /// Changes notes, tags, time or place; merged by field into what changed since `expectedVersion`.
    /// Once per `idempotencyKey`: the same edit sent again (a phone's outbox after a reload cut the
    /// first answer off) is answered with the photo as it is (`replayed`), not merged again over what
    /// another phone or a helper wrote since.
    func edit(owner: String, id: String, _ edit: Edit, expectedVersion: Int64?, idempotencyKey: String? = nil) async throws(BusError)
        -> (record: Record, replaced: [String: JSONValue], replacedBy: String?, replayed: Bool) {
        try Self.checkNotes(edit.notes)
        let tags = try edit.tags.map { tags throws(BusError) in try TagRules.normalize(tags) }
        let time = try edit.takenAt.map { text throws(BusError) in
            guard let time = TakenTime.normalize(text, zone: timeZone) else {
                throw BusError.invalid("'takenAt' is a time such as 2024-05-03T14:22.", field: "takenAt")
            }
            return time
        }
        var placed: PhotoData?
        if let location = edit.location {
            // Named before the batch: the gazetteer is read once, not at every retry.
            var probe = try await photo(owner: owner, id: id).decode(PhotoData.self)
            probe.location = location
            try await place(&probe)
            placed = probe
        }
        let relocated = placed
        let claim = IdempotencyClaim.edit(owner: owner, collection: Self.photos, key: idempotencyKey, id: id, basedOn: expectedVersion,
                                          [String(describing: edit)])
        let record = try await commit(owner: owner, id: id, expectedVersion: expectedVersion, idempotency: claim) { current throws(BusError) in
            guard var photo = current else { throw BusError(.notFound, "This photo is not in your album: it was deleted, maybe on another device.") }
            if let notes = edit.notes, notes != photo.notes {
                photo.notes = notes
                photo.captionBy = notes.isEmpty ? nil : edit.by
            }
            if let tags { photo.tags = tags }
            if let time { photo.setTakenAt(time, source: "user", id: id) }
            if let placed = relocated {
                photo.location = placed.location
                photo.placeKey = placed.placeKey
                photo.place = placed.place
            }
            return photo
        }
        guard let saved = record.record else {
            if record.replayed { throw BusError(.notFound, "This photo was changed with this Idempotency-Key and has since been deleted.") }
            throw BusError(.internal, "The photo was not stored.")
        }
        if record.replayed { return (saved, [:], nil, true) }
        if let location = edit.location { await geotag(owner: owner, id: id, location) }
        return (saved, record.replaced, record.replacedBy, false)
    }

    func setMarkup(owner: String, id: String, sha256: String?, expectedVersion: Int64?) async throws(BusError) -> Record {
        let record = try await commit(owner: owner, id: id, expectedVersion: expectedVersion) { current throws(BusError) in
            guard var photo = current else { throw BusError(.notFound, "This photo is not in your album: it was deleted, maybe on another device.") }
            photo.markup = sha256
            return photo
        }
        guard let record = record.record else { throw BusError(.internal, "The photo was not stored.") }
        return record
    }

    /// Crops, rotates (90° steps) and/or straightens the photo as it looks now, as a new version of
    /// it: the first edit keeps the uploaded picture as `original`, so ``revert(owner:id:expectedVersion:)``
    /// can bring it back. Thumbnails follow (they are renditions of `image`).
    func editImage(owner: String, id: String, _ edit: ImageEdit, expectedVersion: Int64?) async throws(BusError) -> Committed {
        try edit.validate()
        guard edit.rotate != 0 || (edit.straighten ?? 0) != 0 || edit.cropFractions != nil else {
            throw BusError.invalid("Say what to change: 'rotate' (90, 180 or 270), 'straighten' (-45 to 45 degrees) or 'crop' ({x, y, width, height} in fractions).")
        }
        let record = try await photo(owner: owner, id: id)
        let current = try record.decode(PhotoData.self)
        // The very edit sent again on the version it was made from (a phone whose answer a reload cut
        // off sends it once more from its outbox): answered as made, neither refused as "changed" nor
        // made a second time on the picture it already made.
        if let expectedVersion, record.version == expectedVersion + 1, current.edits?.last == edit {
            return Committed(record: record, replayed: true)
        }
        guard (current.edits?.count ?? 0) < MarkupFollow.maxEdits else {
            throw BusError(.conflict, "This photo has been edited \(MarkupFollow.maxEdits) times since it was added; go back to the original "
                           + "(POST …/revert) before editing it again.", details: ["reason": "too_many_edits"])
        }
        let edited = try await bus.request(EditImage(owner: owner, sha256: current.image, edit: edit, geotagsItself: true), timeout: .seconds(60))
        // The mark-up follows the picture (moved as the picture was, onto its new size).
        let size = (width: Double(current.width), height: Double(current.height))
        let followed = try await followMarkup(current.markup, by: MarkupFollow.map(edit, width: size.width, height: size.height).map, from: size,
                                              to: (Double(edited.info.width), Double(edited.info.height)))
        return try await commit(owner: owner, id: id, expectedVersion: expectedVersion) { photo throws(BusError) in
            guard var photo else { throw BusError(.notFound, "This photo is not in your album: it was deleted, maybe on another device.") }
            guard photo.image == current.image, photo.markup == current.markup else {
                throw BusError(.conflict, "The photo changed while it was being edited; reload it and edit again.", details: ["reason": "changed"])
            }
            if photo.original == nil {
                photo.original = photo.image
                photo.originalFormat = photo.format
                photo.edits = []
            }
            photo.image = edited.sha256
            photo.format = edited.info.format.rawValue
            (photo.width, photo.height) = (edited.info.width, edited.info.height)
            photo.markup = followed
            photo.edits = (photo.edits ?? []) + [edit]
            return photo
        }
    }

    /// Brings back the picture as it was uploaded; 409 when the photo was never edited.
    func revert(owner: String, id: String, expectedVersion: Int64?) async throws(BusError) -> Committed {
        let current = try await photo(owner: owner, id: id).decode(PhotoData.self)
        guard let original = current.original else {
            throw BusError(.conflict, "This photo has not been edited: it is the picture as it was added.", details: ["reason": "not_edited"])
        }
        let size = try await bus.request(DescribeImage(sha256: original))
        // The mark-up goes back with the picture: through every edit since the original, backwards.
        var chain = MarkupFollow.Map()
        var edited = (width: Double(size.width), height: Double(size.height))
        for edit in current.edits ?? [] {
            let step = MarkupFollow.map(edit, width: edited.width, height: edited.height)
            chain = chain.then(step.map)
            edited = (step.width, step.height)
        }
        let followed = try await followMarkup(current.markup, by: chain.inverse, from: (Double(current.width), Double(current.height)),
                                              to: (Double(size.width), Double(size.height)))
        return try await commit(owner: owner, id: id, expectedVersion: expectedVersion) { photo throws(BusError) in
            guard var photo else { throw BusError(.notFound, "This photo is not in your album: it was deleted, maybe on another device.") }
            guard photo.original == original, photo.image == current.image, photo.markup == current.markup else {
                throw BusError(.conflict, "The photo changed meanwhile; reload it and try again.", details: ["reason": "changed"])
            }
            photo.image = original
            photo.format = photo.originalFormat ?? photo.format
            (photo.width, photo.height) = (size.width, size.height)
            photo.original = nil
            photo.originalFormat = nil
            photo.edits = nil
            photo.markup = followed
            return photo
        }
    }

    func delete(owner: String, id: String, expectedVersion: Int64?) async throws(BusError) {
        let image = try await store.get(collection: Self.photos, id: id, owner: owner).map { record throws(BusError) in
            try record.decode(PhotoData.self).image
        }
        _ = try await commit(owner: owner, id: id, expectedVersion: expectedVersion) { current throws(BusError) in
            guard current != nil else { throw BusError(.notFound, "This photo is not in your album: it was deleted, maybe on another device.") }
            return nil
        }
        await geotag(owner: owner, id: id, nil)
        // Photos stored before album geotagged them itself also had their image geotagged from EXIF.
        if let image {
            _ = try? await bus.request(RemoveGeotag(owner: owner, subject: "media.image/\(image)"))
        }
    }

    /// A photo as a change left it, and what the change overwrote of a concurrent one.
    struct Committed: Sendable {
        var record: Record?
        var replaced: [String: JSONValue] = [:]
        /// The caregiver who wrote the caption this change replaced ("Anna"); nil when the user did,
        /// or when no caption was replaced.
        var replacedBy: String?
        /// The batch was an earlier run's, replayed for its Idempotency-Key.
        var replayed = false
    }

    /// What makes two uploads the same request: the picture and everything said with it.
    static func fingerprint(_ image: String, _ capture: Capture) -> String {
        [image, capture.takenAt ?? "", capture.latitude.map { "\($0)" } ?? "", capture.longitude.map { "\($0)" } ?? "",
         capture.accuracy.map { "\($0)" } ?? "", capture.tags.joined(separator: ","), capture.notes ?? "", capture.source]
            .joined(separator: "\u{1}")
    }

    /// Reads the photo, applies `change` (nil: the photo is gone), and writes the photo, its
    /// postings and the counters in one batch; a concurrent change to any of them makes it read
    /// and try again. With `expectedVersion` older than the photo, an edit (not a delete) based on
    /// a version history keeps merges field by field (``FieldMerge``); else 412.
    func commit(owner: String, id: String, expectedVersion: Int64?, idempotency: IdempotencyClaim? = nil,
                        _ change: @Sendable (PhotoData?) throws(BusError) -> PhotoData?) async throws(BusError) -> Committed {
        return try await store.update(collection: Self.photos, id: id, owner: owner, retry: AlbumRetry.policy,
                                      gaveUp: BusError(.conflict, "The album kept changing while this photo was saved; try again.")) {
            existing throws(BusError) in
            let old = try existing?.decode(PhotoData.self)
            var new = try change(old)
            var replaced: [String: JSONValue] = [:]
            var replacedBy: String?
            if let expectedVersion, let existing, existing.version != expectedVersion {
                let stale = BusError(.preconditionFailed, "The photo changed since you read it (version \(existing.version), not \(expectedVersion)), "
                                     + "and that version is no longer kept; reload it and try again.",
                                     details: ["version": String(existing.version)])
                guard new != nil, expectedVersion < existing.version,
                      let base = try await store.version(expectedVersion, collection: Self.photos, id: id, owner: owner),
                      let edited = try change(try base.decode(PhotoData.self)) else { throw stale }
                let merge = FieldMerge.merge(base: try base.data.parsed(), edited: try JSONDocument(encoding: edited).parsed(),
                                             current: try existing.data.parsed())
                new = try JSONDocument(encoding: merge.merged).decode(PhotoData.self)
                // Who wrote the caption follows the caption: where this edit's words won over words
                // written meanwhile, its author goes with them (a field merge kept "Caption by Anna"
                // on Mum's words when Anna's caption came after the version Mum edited).
                if var merged = new, merged.notes == edited.notes, merged.notes != old?.notes {
                    merged.captionBy = edited.captionBy
                    new = merged
                }
                replaced = merge.replaced.filter { !Self.derivedFields.contains($0.key) }
                // Who wrote the caption replaced: the user's notice names Anna, not "another device".
                if replaced["notes"] != nil { replacedBy = old?.captionBy?.name }
            }
            var operations: [WriteOperation] = []
            switch (old, new) {
            case (nil, let new?):
                operations.append(.insert(collection: Self.photos, id: id, owner: owner, data: try JSONDocument(encoding: new)))
            case (_?, let new?):
                operations.append(.replace(collection: Self.photos, id: id, owner: owner, data: try JSONDocument(encoding: new),
                                           expectedVersion: existing?.version))
            case (_?, nil):
                operations.append(.delete(collection: Self.photos, id: id, owner: owner, expectedVersion: existing?.version))
            case (nil, nil):
                return .done(Committed(record: nil))
            }
            operations += try postingChanges(owner: owner, id: id, old: old, new: new)
            operations += try await counterChanges(owner: owner, old: old, new: new)
            return try await .write(retryingOn: AlbumRetry.lost) { () async throws(BusError) in
                let result = try await store.write(WriteBatch(operations, idempotency: idempotency))
                return Committed(record: result.records.first ?? nil, replaced: replaced, replacedBy: replacedBy, replayed: result.replayed)
            }
        }
    }

    private func postings(id: String, _ photo: PhotoData?) -> [String: Posting] {
        guard let photo else { return [:] }
        var postings: [String: Posting] = [:]
        // Indexed by each tag's key (a search for "tom" finds "Tom"); `tags` as typed, to show.
        for tag in Set(photo.tags.map(TagRules.key)) {
            postings[Posting.id(photo: id, tag: tag)] = Posting(tag: tag, sortKey: photo.sortKey, photo: id, tags: photo.tags, image: photo.image,
                                                                takenAt: photo.takenAt, placeKey: photo.placeKey)
        }
        return postings
    }

    private func postingChanges(owner: String, id: String, old: PhotoData?, new: PhotoData?) throws(BusError) -> [WriteOperation] {
        let before = postings(id: id, old), after = postings(id: id, new)
        var operations: [WriteOperation] = []
        for (postingID, _) in before where after[postingID] == nil {
            operations.append(.delete(collection: Self.tagged, id: postingID, owner: owner, expectedVersion: nil))
        }
        for (postingID, posting) in after.sorted(by: { $0.key < $1.key }) {
            if let previous = before[postingID] {
                if previous != posting {
                    operations.append(.replace(collection: Self.tagged, id: postingID, owner: owner, data: try JSONDocument(encoding: posting),
                                               expectedVersion: nil))
                }
            } else {
                operations.append(.insert(collection: Self.tagged, id: postingID, owner: owner, data: try JSONDocument(encoding: posting)))
            }
        }
        return operations
    }

    /// The folders and tags a photo counts in, with their labels.
    private func memberships(_ photo: PhotoData?) -> [String: (Counter.Kind, String, String)] {
        guard let photo else { return [:] }
        var result: [String: (Counter.Kind, String, String)] = [:]
        // Counted by the tag's key, labelled as first typed.
        for tag in photo.tags { result["tag:\(TagRules.key(tag))"] = (.tag, TagRules.key(tag), tag) }
        result["month:\(photo.month)"] = (.month, photo.month, photo.month)
        result["day:\(photo.day)"] = (.day, photo.day, photo.day)
        if let key = photo.placeKey { result["place:\(key)"] = (.place, key, photo.place?.label ?? key) }
        return result
    }

    typealias CounterDeltas = [String: (kind: Counter.Kind, key: String, label: String, delta: Int)]

    private func counterDeltas(old: PhotoData?, new: PhotoData?, into deltas: inout CounterDeltas) {
        let before = memberships(old), after = memberships(new)
        for (id, member) in before where after[id] == nil { deltas[id, default: (member.0, member.1, member.2, 0)].delta -= 1 }
        for (id, member) in after where before[id] == nil { deltas[id, default: (member.0, member.1, member.2, 0)].delta += 1 }
    }

    private func counterChanges(owner: String, old: PhotoData?, new: PhotoData?) async throws(BusError) -> [WriteOperation] {
        var deltas: CounterDeltas = [:]
        counterDeltas(old: old, new: new, into: &deltas)
        return try await counterOperations(owner: owner, deltas)
    }

    /// Reads each counter and writes it changed by its delta (a count of 0 deletes it).
    private func counterOperations(owner: String, _ deltas: CounterDeltas) async throws(BusError) -> [WriteOperation] {
        // A place keeps its count but may get a better label: left as first named.
        var operations: [WriteOperation] = []
        for (_, change) in deltas.sorted(by: { $0.key < $1.key }) where change.delta != 0 {
            let id = Counter.id(owner: owner, change.kind, change.key)
            let record = try await store.get(collection: Self.counts, id: id, owner: owner)
            var counter = try record?.decode(Counter.self) ?? Counter(kind: change.kind, key: change.key, label: change.label, count: 0)
            counter.count += change.delta
            if let record {
                operations.append(counter.count <= 0
                    ? .delete(collection: Self.counts, id: id, owner: owner, expectedVersion: record.version)
                    : .replace(collection: Self.counts, id: id, owner: owner, data: try JSONDocument(encoding: counter), expectedVersion: record.version))
            } else if counter.count > 0 {
                operations.append(.insert(collection: Self.counts, id: id, owner: owner, data: try JSONDocument(encoding: counter)))
            }
        }
        return operations
    }
}

extension AlbumService {
    /// Moves counters stored under the old shared ids (one per tag or folder for everyone) to their
    /// owner's own ids. Idempotent; run at start before any request. Under the old ids only the
    /// first owner of a tag or month could have a counter, so no two records merge here.
    func migrateCounterIDs() async throws(BusError) -> Int {
        var moved = 0
        var cursor: String?
        repeat {
            let page = try await store.query(RecordQuery(collection: Self.counts, owner: nil, limit: WriteBatch.maxOperations / 2, cursor: cursor))
            var operations: [WriteOperation] = []
            for record in page.records {
                let counter = try record.decode(Counter.self)
                let id = Counter.id(owner: record.owner, counter.kind, counter.key)
                guard id != record.id else { continue }
                operations.append(.delete(collection: Self.counts, id: record.id, owner: record.owner, expectedVersion: record.version))
                operations.append(.insert(collection: Self.counts, id: id, owner: record.owner, data: try JSONDocument(encoding: counter)))
            }
            if !operations.isEmpty {
                _ = try await store.write(WriteBatch(operations))
                moved += operations.count / 2
            }
            cursor = page.nextCursor
        } while cursor != nil
        return moved
    }
}

enum GeoPointCheck {
    static func isValid(_ latitude: Double, _ longitude: Double) -> Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}

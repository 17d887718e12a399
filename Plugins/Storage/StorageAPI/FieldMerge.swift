/// Merging an edit made on an older version into the record as it is now, field by field (the
/// payload's top-level members): what sync promises a client whose edit was queued offline.
///
/// A field the edit changed (its value differs from the base version's) is taken from the edit when
/// nobody changed it since; when somebody did, the edit still wins (it is the later write) and the
/// value it replaced is reported, so that nothing is lost silently. Fields the edit did not change
/// keep their current values.
public enum FieldMerge {
    public struct Result: Sendable, Equatable {
        public var merged: JSONValue
        /// Per field both sides changed to different values: the value the edit replaced.
        public var replaced: [String: JSONValue]
    }

    /// - Parameters:
    ///   - base: the payload at the version the edit was based on
    ///   - edited: `base` with the edit applied
    ///   - current: the payload now
    public static func merge(base: JSONValue, edited: JSONValue, current: JSONValue) -> Result {
        guard case .object(let baseFields) = base, case .object(let editedFields) = edited,
              case .object(var currentFields) = current else {
            return Result(merged: edited, replaced: [:])
        }
        var replaced: [String: JSONValue] = [:]
        for name in Set(baseFields.keys).union(editedFields.keys) where baseFields[name] != editedFields[name] {
            let now = currentFields[name]
            if now != baseFields[name], now != editedFields[name] { replaced[name] = now ?? .null }
            currentFields[name] = editedFields[name]
        }
        return Result(merged: .object(currentFields), replaced: replaced)
    }
}

/// An edit's outcome: the payload to write and, per field, the value a concurrent edit had that this
/// one replaced.
public struct MergedEdit<Payload: Sendable>: Sendable {
    public var payload: Payload
    public var replaced: [String: JSONValue]
}

extension RecordStore {
    /// Applies `change` to the record as it is now when `basedOn` is nil or its version; when the
    /// client based its edit on an earlier version, applies it to that version and merges the result
    /// into the current payload field by field (see ``FieldMerge``).
    ///
    /// - Returns: nil when `basedOn` is later than the record or older than the versions the store
    ///   keeps: the caller answers 412 with the record as it is.
    public func mergedEdit<Payload: Codable & Sendable>(
        _ current: Record, basedOn: Int64?, as type: Payload.Type, _ change: (inout Payload) throws(StorageError) -> Void
    ) async throws(StorageError) -> MergedEdit<Payload>? {
        guard let basedOn, basedOn != current.version else {
            var payload = try current.decode(Payload.self)
            try change(&payload)
            return MergedEdit(payload: payload, replaced: [:])
        }
        guard basedOn < current.version,
              let base = try await version(basedOn, collection: current.collection, id: current.id, owner: current.owner) else { return nil }
        var edited = try base.decode(Payload.self)
        try change(&edited)
        let result = FieldMerge.merge(base: try base.data.parsed(), edited: try JSONDocument(encoding: edited).parsed(),
                                      current: try current.data.parsed())
        return MergedEdit(payload: try JSONDocument(encoding: result.merged).decode(Payload.self), replaced: result.replaced)
    }
}

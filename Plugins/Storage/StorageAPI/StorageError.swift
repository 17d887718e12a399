public import Bus

/// Storage reports errors as ``BusError`` values, so that they cross the bus unchanged.
public typealias StorageError = BusError

extension BusError {
    /// The storage backend cannot be reached or written right now (disk full, file locked).
    public static func unavailable(_ message: String) -> BusError {
        BusError(.unavailable, message)
    }
}

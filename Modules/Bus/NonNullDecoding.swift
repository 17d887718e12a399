extension KeyedDecodingContainer {
    /// A member that may be left out but, when given, is not `null`: absent answers nil, `null`
    /// throws `valueNotFound` naming the member (a 400 that says which field, as for a wrong type).
    /// For members whose absence means "keep it" or "the default", where `null` would otherwise be
    /// taken silently as absence though the schema does not allow it.
    public func decodeUnlessNull<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: codingPath + [key],
                                                                           debugDescription: "'\(key.stringValue)' may be left out, but not null."))
        }
        return try decode(type, forKey: key)
    }
}

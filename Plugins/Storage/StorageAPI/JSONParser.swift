import Bus
import Foundation
import JSONBytes

/// Parses JSON text into a ``JSONValue`` in one pass over the bytes.
///
/// `JSONDecoder` can only reach a `JSONValue` by trying each type in turn, and every miss throws an
/// error: parsing a record that way was 13 % of a small list request (BENCHMARKS.md).
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    static func parse(_ data: Data) throws(StorageError) -> JSONValue {
        var parser = JSONParser(bytes: Array(data))
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("trailing characters") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func failure(_ what: String) -> StorageError {
        StorageError.invalid("The record data is not valid JSON (\(what) at byte \(index)).")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func value() throws(StorageError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: String) throws(StorageError) {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw failure("unknown literal")
        }
        index += expected.count
    }

    private mutating func nest() throws(StorageError) {
        depth += 1
        guard depth <= 512 else { throw failure("nesting deeper than 512") }
    }

    private mutating func object() throws(StorageError) -> JSONValue {
        try nest()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            members[key] = try value()
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            index += 1
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws(StorageError) -> JSONValue {
        try nest()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            index += 1
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func number() throws(StorageError) -> Double {
        let start = index
        while index < bytes.count, (48...57).contains(bytes[index]) || bytes[index] == UInt8(ascii: "-")
            || bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e")
            || bytes[index] == UInt8(ascii: "E") {
            index += 1
        }
        guard index > start, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            throw failure("invalid number")
        }
        return value
    }

    /// A string, its escapes undone (JSONBytes's reader, shared with the bus and the notes' create).
    private mutating func string() throws(StorageError) -> String {
        var at = index
        let read = bytes.withUnsafeBytes { JSONBytes.readString($0, at: &at) }
        index = at
        switch read {
        case .success(let text): return text
        case .failure(let error): throw failure(error.description)
        }
    }
}

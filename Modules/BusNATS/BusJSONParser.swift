import JSONBytes

/// Parses JSON text (RFC 8259, UTF-8) into a ``BusJSONNode``, strictly: anything else throws
/// ``BusJSONFallback`` (and Foundation's decoder words the refusal).
struct BusJSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The one value the bytes hold, with nothing but whitespace around it.
    mutating func document() throws -> BusJSONNode {
        let node = try value()
        skipWhitespace()
        guard index == bytes.count else { throw BusJSONFallback() }
        return node
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws -> BusJSONNode {
        skipWhitespace()
        guard index < bytes.count else { throw BusJSONFallback() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal(0x74, 0x72, 0x75, 0x65); return .bool(true)
        case UInt8(ascii: "f"): try literal(0x66, 0x61, 0x6C, 0x73, 0x65); return .bool(false)
        case UInt8(ascii: "n"): try literal(0x6E, 0x75, 0x6C, 0x6C); return .null
        default: return try number()
        }
    }

    private mutating func literal(_ expected: UInt8...) throws {
        guard index + expected.count <= bytes.count else { throw BusJSONFallback() }
        for byte in expected {
            guard bytes[index] == byte else { throw BusJSONFallback() }
            index += 1
        }
    }

    private mutating func nest() throws {
        depth += 1
        guard depth <= 512 else { throw BusJSONFallback() }
    }

    private mutating func object() throws -> BusJSONNode {
        try nest()
        index += 1
        var members: [(key: String, value: BusJSONNode)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw BusJSONFallback() }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw BusJSONFallback() }
            index += 1
            members.append((key, try value()))
            skipWhitespace()
            guard index < bytes.count else { throw BusJSONFallback() }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw BusJSONFallback() }
            index += 1
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws -> BusJSONNode {
        try nest()
        index += 1
        var elements: [BusJSONNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw BusJSONFallback() }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw BusJSONFallback() }
            index += 1
            depth -= 1
            return .array(elements)
        }
    }

    /// A string from its opening quote; its UTF-8 checked, its escapes undone (JSONBytes's reader).
    private mutating func string() throws -> String {
        guard case .success(let text) = JSONBytes.readString(bytes, at: &index) else { throw BusJSONFallback() }
        return text
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`; an integer that fits in `Int` as its value.
    private mutating func number() throws -> BusJSONNode {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let digitsStart = index
        var magnitude: UInt64 = 0
        var overflow = false
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            overflow = overflow || o1 || o2
            magnitude = sum
            index += 1
        }
        let digits = index - digitsStart
        guard digits > 0, !(digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")) else { throw BusJSONFallback() }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            try someDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            try someDigits()
        }
        if integral, !overflow, !(negative && magnitude == 0) {
            if negative, magnitude <= UInt64(Int.max) + 1 { return .integer(magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)) }
            if !negative, magnitude <= UInt64(Int.max) { return .integer(Int(magnitude)) }
        }
        return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private mutating func someDigits() throws {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        guard index > start else { throw BusJSONFallback() }
    }
}

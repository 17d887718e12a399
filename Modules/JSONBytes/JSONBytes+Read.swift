extension JSONBytes {
    /// Why a JSON string could not be read; `description` is the words storage's parser reports.
    public enum StringError: Error, Equatable, CustomStringConvertible {
        case unterminated, controlCharacter, invalidEscape, invalidHex, loneSurrogate, invalidUTF8

        public var description: String {
            switch self {
            case .unterminated: "unterminated string"
            case .controlCharacter: "control character in a string"
            case .invalidEscape: "invalid escape"
            case .invalidHex: "invalid \\u escape"
            case .loneSurrogate: "lone surrogate"
            case .invalidUTF8: "a string that is not UTF-8"
            }
        }
    }

    /// Reads a JSON string whose opening quote is at `index`, and moves `index` past its closing
    /// quote: the one copy of how Quire's hand-written parsers (storage's, the bus's, the notes'
    /// create route) undo escapes (`\uXXXX` pairs joined) and check the UTF-8. Most strings have no
    /// escape and are validated as one slice.
    public static func readString(_ bytes: UnsafeRawBufferPointer, at index: inout Int) -> Result<String, StringError> {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return .failure(.unterminated) }
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text.map { .success($0) } ?? .failure(.invalidUTF8)
            }
            if byte == UInt8(ascii: "\\") { return escaped(bytes, from: start, at: &index) }
            guard byte >= 0x20 else { return .failure(.controlCharacter) }
            index += 1
        }
        return .failure(.unterminated)
    }

    private static func escaped(_ bytes: UnsafeRawBufferPointer, from start: Int, at index: inout Int) -> Result<String, StringError> {
        var utf8 = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: utf8, as: UTF8.self).map { .success($0) } ?? .failure(.invalidUTF8)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return .failure(.unterminated) }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4(bytes, at: &index) else { return .failure(.invalidHex) }
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate: its low half must follow as \uDC00–\uDFFF.
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            return .failure(.loneSurrogate)
                        }
                        index += 2
                        guard let low = hex4(bytes, at: &index) else { return .failure(.invalidHex) }
                        guard (0xDC00..<0xE000).contains(low) else { return .failure(.loneSurrogate) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return .failure(.loneSurrogate) }
                    appendUTF8(unicode, to: &utf8)
                default:
                    return .failure(.invalidEscape)
                }
            default:
                guard byte >= 0x20 else { return .failure(.controlCharacter) }
                utf8.append(byte)
            }
        }
        return .failure(.unterminated)
    }

    private static func appendUTF8(_ scalar: Unicode.Scalar, to utf8: inout [UInt8]) {
        if let encoded = UTF8.encode(scalar) { utf8.append(contentsOf: encoded) }
    }

    private static func hex4(_ bytes: UnsafeRawBufferPointer, at index: inout Int) -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}

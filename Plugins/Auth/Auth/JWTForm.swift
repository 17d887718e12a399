/// The compact form of a JWS (RFC 7515 §7.1): three base64url parts joined by dots, with no `=`
/// padding (§2: "with all trailing '=' characters omitted"). jwt-kit's decoder tolerates padding,
/// so a token can be re-spelt without changing what it decodes to; such a token is refused before
/// its signature is looked at.
enum JWTForm {
    static func isCompact(_ token: String) -> Bool {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return false }
        return parts.allSatisfy { part in part.allSatisfy(isBase64URL) }
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}

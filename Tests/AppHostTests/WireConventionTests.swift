import Foundation
import Testing
import Yams

/// The wire format's one convention, checked on `docs/openapi.yaml`: camelCase members (OAuth's
/// own names aside), one list envelope, problem codes from one list. The acceptance runs check the
/// bodies they receive against the same rules (`tools/acceptance/napkin_notes.py`).
@Suite("Wire format: one convention in docs/openapi.yaml")
struct WireConventionTests {
    static let oauthMembers: Set<String> = ["access_token", "refresh_token", "expires_in", "token_type", "id_token"]
    /// List envelopes used before there was one.
    static let oldEnvelopes: Set<String> = ["collections", "entries", "hits", "links", "photos", "notebooks", "next_cursor"]

    func document() throws -> [String: Any] {
        let text = try String(contentsOfFile: RepositoryRoot.path + "/docs/openapi.yaml", encoding: .utf8)
        return try Yams.load(yaml: text) as? [String: Any] ?? [:]
    }

    /// Every `properties` map in the document, with where it is.
    func propertyMaps(_ node: Any, at path: String, into found: inout [(path: String, properties: [String: Any])]) {
        if let map = node as? [String: Any] {
            if let properties = map["properties"] as? [String: Any] { found.append((path, properties)) }
            for (key, value) in map { propertyMaps(value, at: path + "/" + key, into: &found) }
        } else if let list = node as? [Any] {
            for (index, value) in list.enumerated() { propertyMaps(value, at: path + "/\(index)", into: &found) }
        }
    }

    static func isCamelCase(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    @Test("every member is camelCase, except OAuth's own; no list uses an old envelope")
    func members() throws {
        var maps: [(path: String, properties: [String: Any])] = []
        propertyMaps(try document(), at: "", into: &maps)
        #expect(maps.count > 40)
        for (path, properties) in maps {
            for name in properties.keys where !Self.oauthMembers.contains(name) {
                #expect(Self.isCamelCase(name), "\(path): '\(name)' is not camelCase")
                let isList = (properties[name] as? [String: Any])?["type"] as? String == "array"
                #expect(!(isList && Self.oldEnvelopes.contains(name)), "\(path): '\(name)' is an old list envelope; use {items, nextCursor}")
            }
            // A list is {items, nextCursor}: a schema with an items array says where the next page is.
            // (A notebook page is a record whose member `items` is what the page holds, not a list response.)
            if let items = properties["items"] as? [String: Any], items["type"] as? String == "array", !path.hasSuffix("/schemas/NotebookPage") {
                #expect(properties["nextCursor"] != nil, "\(path): a list without nextCursor")
            }
        }
    }

    @Test("every query parameter is camelCase")
    func queryParameters() throws {
        let document = try document()
        var names: [String] = []
        func collect(_ node: Any) {
            if let map = node as? [String: Any] {
                if map["in"] as? String == "query", let name = map["name"] as? String { names.append(name) }
                map.values.forEach(collect)
            } else if let list = node as? [Any] {
                list.forEach(collect)
            }
        }
        collect(document)
        #expect(names.count > 30)
        for name in names { #expect(Self.isCamelCase(name), "query parameter '\(name)' is not camelCase") }
    }

    @Test("problem codes are one list, and the API page's table (docs/api.md) names each of them")
    func problemCodes() throws {
        let schemas = (try document()["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let problem = (schemas?["Problem"] as? [String: Any])?["properties"] as? [String: Any]
        let codes = Set(((problem?["code"] as? [String: Any])?["enum"] as? [String]) ?? [])
        let readme = try String(contentsOfFile: RepositoryRoot.path + "/docs/api.md", encoding: .utf8)
        // The rows of the table whose header is "| code | status | …".
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let start = (lines.firstIndex { $0.hasPrefix("| code | status |") } ?? lines.endIndex)
        let rows = lines[start...].dropFirst(2).prefix { $0.hasPrefix("|") }
        let table = Set(rows.compactMap { line -> String? in
            let cell = line.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            return cell.hasPrefix("`") && cell.hasSuffix("`") ? String(cell.dropFirst().dropLast()) : nil
        })
        #expect(codes.count >= 15)
        // `cancelled` is the bus's own (a request whose caller went away): never answered over HTTP.
        let missing = codes.subtracting(["cancelled"]).subtracting(table).sorted(), extra = table.subtracting(codes).sorted()
        #expect(missing.isEmpty && extra.isEmpty, "in the document but not docs/api.md: \(missing); in docs/api.md but not the document: \(extra)")
        #expect(!codes.contains("unsupported_media"), "one code per condition: 415 is unsupported_media_type")
    }
}

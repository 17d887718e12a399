import Foundation
import PostgresNIO
import StorageAPI

/// A statement's text and its parameters, built together so that every value is bound (`$n`) and
/// only validated names (collections, field paths) are ever written into the SQL.
struct Statement {
    private(set) var sql = ""
    private(set) var binds = PostgresBindings()

    init(_ sql: String = "") {
        self.sql = sql
    }

    mutating func append(_ text: String) {
        sql += text
    }

    /// Binds a value; answers its placeholder.
    mutating func bind(_ value: String) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    mutating func bind(_ value: Int64) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    mutating func bind(_ value: Double) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    mutating func bind(_ value: String?) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    mutating func appendBind(_ values: [String]) {
        binds.append(values)
    }

    mutating func appendBind(_ values: [Double]) {
        binds.append(values)
    }

    /// A JSON value, as `jsonb`.
    mutating func bindJSON(_ value: JSONValue) -> String {
        bind(value.canonicalJSONText) + "::jsonb"
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}

/// The SQL of record queries on PostgreSQL. Payload fields are `jsonb` paths with JSON null read as
/// SQL NULL (`NULLIF(data #> '{a,b}', 'null')`), so that absent and null are one thing, as the
/// contract says, and a declared index's expression is the one queries repeat (PostgreSQL uses an
/// expression index only for the same expression, and a partial index only for the same
/// `collection = '…'` literal: both are written as literals, from validated names).
enum PostgresSQL {
    static let recordColumns = "collection, id, owner, version, created_at, updated_at, data::text"

    /// A field's SQL: a column for meta fields, a jsonb path for payload fields.
    static func expression(_ field: String) -> String {
        MetaField(rawValue: field)?.column ?? "NULLIF(data #> '{\(field.split(separator: ".").joined(separator: ","))}', 'null'::jsonb)"
    }

    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A quoted identifier.
    static func identifier(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static let indexPrefix = "ix_"

    static func indexName(collection: String, index: String) -> String {
        let safe = (collection + "__" + index).map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        // PostgreSQL cuts names at 63 bytes; a long one keeps its start and a hash of the whole.
        let name = indexPrefix + safe
        guard name.utf8.count > 63 else { return name }
        return String(name.prefix(50)) + "_" + String(UInt32(truncatingIfNeeded: stableHash(name)), radix: 16)
    }

    /// A hash that is the same in every process (FNV-1a; Swift's `hashValue` is seeded per process).
    static func stableHash(_ text: String) -> UInt64 {
        text.utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    }

    static func createIndex(_ index: IndexSpec, collection: String) -> String {
        // NULLS FIRST, as queries order (absent and null sort lowest, as on every backend): read
        // forwards the index gives `ASC NULLS FIRST`, backwards `DESC NULLS LAST`; with PostgreSQL's
        // default (NULLS LAST) neither matches and every ordered query sorts all it matches.
        var columns = index.fields.map { "(\(expression($0))) NULLS FIRST" }
        if index.scope == .perOwner { columns.insert("owner", at: 0) }
        // Ties are broken by id: with it in the index, `ORDER BY field, id LIMIT n` reads n entries.
        if !index.unique { columns.append("id") }
        return """
            CREATE \(index.unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(indexName(collection: collection, index: index.name)) \
            ON records (\(columns.joined(separator: ", "))) WHERE collection = \(literal(collection))
            """
    }

    /// Binds a value compared with `field`: typed for meta fields, jsonb for payload fields.
    static func bind(_ value: JSONValue, for field: String, into statement: inout Statement) -> String {
        switch (MetaField(rawValue: field), value) {
        case (.id?, .string(let text)): return statement.bind(text)
        case (.version?, .number(let number)): return statement.bind(Int64(number)) + "::bigint"
        case (.created?, .number(let number)), (.updated?, .number(let number)): return statement.bind(number) + "::float8"
        case (nil, _): return statement.bindJSON(value)
        // A meta field compared with a value of another type matches nothing.
        case (.some, _): return "NULL"
        }
    }

    /// `SELECT … WHERE … ORDER BY … LIMIT n+1`.
    static func select(_ query: RecordQuery, cursor: QueryCursor?) -> Statement {
        var statement = Statement()
        var conditions = ["collection = \(literal(query.collection))"]
        if let owner = query.owner { conditions.append("owner = \(statement.bind(owner))") }
        for filter in query.filters {
            let expr = expression(filter.field)
            let payload = MetaField(rawValue: filter.field) == nil
            switch filter.op {
            case .eq:
                if case .null = filter.value {
                    conditions.append("\(expr) IS NULL")
                } else {
                    conditions.append("\(expr) = \(bind(filter.value, for: filter.field, into: &statement))")
                }
            case .ne:
                conditions.append("\(expr) IS DISTINCT FROM \(filter.value == .null ? "NULL" : bind(filter.value, for: filter.field, into: &statement))")
            case .lt, .lte, .gt, .gte:
                let op = [Filter.Op.lt: "<", .lte: "<=", .gt: ">", .gte: ">="][filter.op] ?? "="
                if case .null = filter.value {
                    conditions.append("FALSE")
                    continue
                }
                let placeholder = bind(filter.value, for: filter.field, into: &statement)
                // Values of one JSON type compare; a number never compares with a string.
                conditions.append(payload ? "(jsonb_typeof(\(expr)) = jsonb_typeof(\(placeholder)) AND \(expr) \(op) \(placeholder))"
                                          : "\(expr) \(op) \(placeholder)")
            case .in:
                guard case .array(let values) = filter.value, !values.isEmpty else {
                    conditions.append("FALSE")
                    continue
                }
                let list = values.filter { $0 != .null }.map { bind($0, for: filter.field, into: &statement) }
                var alternatives = list.isEmpty ? [] : ["\(expr) IN (\(list.joined(separator: ", ")))"]
                if values.contains(.null) { alternatives.append("\(expr) IS NULL") }
                conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
            case .prefix:
                guard case .string(let prefix) = filter.value else { continue }
                let pattern = statement.bind(likeEscaped(prefix) + "%")
                conditions.append(payload ? "(jsonb_typeof(\(expr)) = 'string' AND (\(expr) #>> '{}') LIKE \(pattern))"
                                          : "\(expr)::text LIKE \(pattern)")
            case .contains:
                let placeholder = statement.bindJSON(.array([filter.value]))
                let array = payload ? expr : "to_jsonb(\(expr))"
                conditions.append("(jsonb_typeof(\(array)) = 'array' AND \(array) @> \(placeholder))")
            }
        }
        if let cursor {
            // Keyset pagination: rows strictly after the cursor in (k0, …, kn, id) order; nulls
            // first ascending, last descending.
            var alternatives: [String] = []
            var equalPrefix: [String] = []
            for (key, value) in zip(query.order, cursor.values) {
                let expr = expression(key.field)
                let after: String
                switch (key.descending, value) {
                case (false, .null): after = "\(expr) IS NOT NULL"
                case (false, _): after = "\(expr) > \(bind(value, for: key.field, into: &statement))"
                case (true, .null): after = "FALSE"
                case (true, _): after = "(\(expr) < \(bind(value, for: key.field, into: &statement)) OR \(expr) IS NULL)"
                }
                alternatives.append("(" + (equalPrefix + [after]).joined(separator: " AND ") + ")")
                equalPrefix.append(value == .null ? "\(expr) IS NULL" : "\(expr) = \(bind(value, for: key.field, into: &statement))")
            }
            alternatives.append("(" + (equalPrefix + ["id > \(statement.bind(cursor.id))"]).joined(separator: " AND ") + ")")
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        let orderBy = (query.order.map { "\(expression($0.field))\($0.descending ? " DESC NULLS LAST" : " ASC NULLS FIRST")" } + ["id"])
            .joined(separator: ", ")
        let limit = statement.bind(Int64(query.limit + 1))
        statement.append("""
            SELECT \(recordColumns) FROM records WHERE \(conditions.joined(separator: " AND ")) \
            ORDER BY \(orderBy) LIMIT \(limit)
            """)
        return statement
    }

    /// The cursor after `record`: its sort values as the query compares them (payload values as
    /// JSON, absent as null) and its id.
    static func cursor(after record: StorageAPI.Record, order: [SortKey]) -> String {
        let parsed = order.allSatisfy({ MetaField(rawValue: $0.field) != nil }) ? JSONValue.null : ((try? record.data.parsed()) ?? .null)
        let values = order.map { key -> JSONValue in
            guard MetaField(rawValue: key.field) == nil else { return CursorKeys.value(of: key.field, record: record, parsed: parsed) }
            return parsed.value(at: key.field.split(separator: "."))
        }
        return QueryCursor(values: values, id: record.id).encoded()
    }

    /// `text` with LIKE's wildcards escaped (the default escape character is the backslash).
    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}

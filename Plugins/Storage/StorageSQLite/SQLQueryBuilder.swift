import Foundation
import GRDB
import StorageAPI

/// Builds the SQL of record queries. Field paths and collection names are validated by
/// `StorageNames` before they get here and are written into the SQL as literals on purpose: SQLite
/// only uses an expression index or a partial index when the query repeats its expression and its
/// `WHERE collection = '…'` literally.
enum SQLQueryBuilder {
    static let recordColumns = "collection, id, owner, version, created_at, updated_at, data"

    /// The SQL expression of a field: a column for meta fields, `json_extract` for payload paths.
    static func expression(_ field: String) -> String {
        MetaField(rawValue: field)?.column ?? "json_extract(data, '$.\(field)')"
    }

    static func literal(_ text: String) -> String {
        // Names rarely hold a quote; Foundation's replacingOccurrences was a visible part of a create.
        guard text.utf8.contains(UInt8(ascii: "'")) else { return "'" + text + "'" }
        return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    static func indexName(collection: String, index: String) -> String {
        let safe = (collection + "__" + index).map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        return "ix_" + safe
    }

    /// A sparse index holds only records whose first field is set (`… IS NOT NULL`), so a record
    /// without it costs the index nothing (no B-tree insert, no page into the WAL). SQLite still
    /// uses it for `field = ?` (which implies the field is not null), not for orders.
    static func createIndex(_ index: IndexSpec, collection: String) -> String {
        var columns = index.fields.map(expression)
        if index.scope == .perOwner { columns.insert("owner", at: 0) }
        // Queries break ties by id: with it in the index, `ORDER BY field, id LIMIT n` reads n
        // entries in order instead of sorting every matching row. (Not in unique indexes, where it
        // would make every key unique.)
        if !index.unique { columns.append("id") }
        // A covering index carries the rest of the record after its keys: a page in its order is
        // read from the index alone, not by a primary-key lookup per row (WITHOUT ROWID: a second
        // B-tree descent each). Keys are unique before `data` (id is in them), which SQLite then
        // never compares. Not for unique indexes, whose uniqueness would span the extra columns.
        if index.covering && !index.unique { columns += ["version", "created_at", "updated_at", "data"] }
        let skipping = index.sparse ? index.fields.first.map { " AND \(expression($0)) IS NOT NULL" } ?? "" : ""
        return """
            CREATE \(index.unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(indexName(collection: collection, index: index.name)) \
            ON records(\(columns.joined(separator: ", "))) WHERE collection = \(literal(collection))\(skipping)
            """
    }

    static func databaseValue(_ value: JSONValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .bool(let flag): (flag ? 1 : 0).databaseValue
        case .number(let number): number.databaseValue
        case .string(let text): text.databaseValue
        case .array, .object: value.canonicalJSONText.databaseValue
        }
    }

    /// `SELECT … WHERE … ORDER BY … LIMIT n+1`.
    static func select(_ query: RecordQuery, cursor: QueryCursor?) -> (sql: String, arguments: StatementArguments) {
        let (sql, values) = selectValues(query, cursor: cursor)
        return (sql, StatementArguments(values))
    }

    /// ``select(_:cursor:)`` with its arguments as values, for a statement bound by hand (``SQLiteReaders``).
    static func selectValues(_ query: RecordQuery, cursor: QueryCursor?) -> (sql: String, arguments: [DatabaseValue]) {
        var conditions = ["collection = \(literal(query.collection))"]
        var arguments: [DatabaseValue] = []
        if let owner = query.owner {
            conditions.append("owner = ?")
            arguments.append(owner.databaseValue)
        }
        for filter in query.filters {
            let expr = expression(filter.field)
            switch filter.op {
            case .eq:
                conditions.append("\(expr) IS ?")
                arguments.append(databaseValue(filter.value))
            case .ne:
                conditions.append("\(expr) IS NOT ?")
                arguments.append(databaseValue(filter.value))
            case .lt, .lte, .gt, .gte:
                let op = [Filter.Op.lt: "<", .lte: "<=", .gt: ">", .gte: ">="][filter.op] ?? "="
                conditions.append("\(expr) \(op) ?")
                arguments.append(databaseValue(filter.value))
            case .in:
                guard case .array(let values) = filter.value, !values.isEmpty else {
                    conditions.append("0")
                    continue
                }
                conditions.append("\(expr) IN (\(values.map { _ in "?" }.joined(separator: ", ")))")
                arguments += values.map(databaseValue)
            case .prefix:
                conditions.append("(typeof(\(expr)) = 'text' AND instr(\(expr), ?) = 1)")
                arguments.append(databaseValue(filter.value))
            case .contains:
                let path = MetaField(rawValue: filter.field) == nil ? "$.\(filter.field)" : "$"
                conditions.append("(json_type(data, '\(path)') = 'array' AND EXISTS (SELECT 1 FROM json_each(data, '\(path)') AS e WHERE e.value IS ?))")
                arguments.append(databaseValue(filter.value))
            }
        }
        if let cursor {
            // Keyset pagination: rows strictly after the cursor in (k0, …, kn, id) order.
            var alternatives: [String] = []
            var equalPrefix: [String] = []
            var prefixArguments: [DatabaseValue] = []
            for (key, value) in zip(query.order, cursor.values) {
                let expr = expression(key.field)
                let after: (String, [DatabaseValue])
                switch (key.descending, value) {
                case (false, .null): after = ("\(expr) IS NOT NULL", [])
                case (false, _): after = ("\(expr) > ?", [databaseValue(value)])
                case (true, .null): after = ("0", [])
                case (true, _): after = ("(\(expr) < ? OR \(expr) IS NULL)", [databaseValue(value)])
                }
                alternatives.append("(" + (equalPrefix + [after.0]).joined(separator: " AND ") + ")")
                arguments += prefixArguments + after.1
                equalPrefix.append("\(expr) IS ?")
                prefixArguments.append(databaseValue(value))
            }
            alternatives.append("(" + (equalPrefix + ["id > ?"]).joined(separator: " AND ") + ")")
            arguments += prefixArguments + [cursor.id.databaseValue]
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        let orderBy = (query.order.map { "\(expression($0.field))\($0.descending ? " DESC" : "")" } + ["id"])
            .joined(separator: ", ")
        arguments.append((query.limit + 1).databaseValue)
        let sql = """
            SELECT \(recordColumns) FROM records WHERE \(conditions.joined(separator: " AND ")) \
            ORDER BY \(orderBy) LIMIT ?
            """
        return (sql, arguments)
    }
}

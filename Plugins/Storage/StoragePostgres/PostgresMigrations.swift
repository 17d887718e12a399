import Foundation

/// The PostgreSQL schema, as numbered migrations: each runs once, in order, in a transaction of its
/// own, recorded in `quire_migrations`. Nodes starting together take turns (an advisory lock), so
/// exactly one of them migrates.
enum PostgresMigrations {
    struct Migration {
        var version: Int
        var name: String
        var sql: String

        /// Its statements, one by one (the extended protocol runs one statement per query).
        var statements: [String] {
            sql.components(separatedBy: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }.joined(separator: "\n")
                .components(separatedBy: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        }
    }

    /// The advisory lock key nodes take while migrating ("quire" in ASCII).
    static let lockKey: Int64 = 0x71_75_69_72_65

    static let all: [Migration] = [
        Migration(version: 1, name: "records, changes, idempotency, versions", sql: """
            CREATE TABLE records (
                collection text NOT NULL,
                id text NOT NULL,
                owner text NOT NULL,
                version bigint NOT NULL,
                created_at double precision NOT NULL,
                updated_at double precision NOT NULL,
                data jsonb NOT NULL,
                PRIMARY KEY (collection, id)
            );
            CREATE INDEX records_by_owner ON records (collection, owner, id);
            CREATE TABLE changes (
                sequence bigint PRIMARY KEY,
                owner text NOT NULL,
                collection text NOT NULL,
                record_id text NOT NULL,
                kind text NOT NULL,
                version bigint NOT NULL,
                scope text,
                at double precision NOT NULL
            );
            CREATE INDEX changes_by_owner ON changes (owner, sequence);
            CREATE INDEX changes_by_record ON changes (collection, record_id, sequence);
            CREATE INDEX changes_by_scope ON changes (owner, scope, sequence) WHERE scope IS NOT NULL;
            CREATE TABLE idempotency (
                owner text NOT NULL,
                scope text NOT NULL,
                key text NOT NULL,
                fingerprint text NOT NULL,
                results text NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (owner, scope, key)
            );
            CREATE TABLE collections (name text PRIMARY KEY, schema text NOT NULL);
            CREATE TABLE versions (
                collection text NOT NULL,
                id text NOT NULL,
                owner text NOT NULL,
                version bigint NOT NULL,
                created_at double precision NOT NULL,
                updated_at double precision NOT NULL,
                data jsonb NOT NULL,
                superseded_at double precision NOT NULL,
                PRIMARY KEY (collection, id, version)
            );
            -- The change log's counter: a writer takes the next sequences by updating this row at
            -- the end of its transaction, so sequences follow commit order and have no gaps.
            CREATE TABLE log_meta (key text PRIMARY KEY, value bigint NOT NULL);
            INSERT INTO log_meta (key, value) VALUES ('sequence', 0), ('horizon', 0);
            """),
        // Points of collections with a spatial index, as earthdistance's `earth` (a 3D `cube`): a
        // GiST index per collection answers "within r of" and "nearest first" (`<->`); distances
        // are then the contract's great-circle ones, computed by the store.
        Migration(version: 2, name: "spatial points", sql: """
            CREATE EXTENSION IF NOT EXISTS cube SCHEMA public;
            CREATE EXTENSION IF NOT EXISTS earthdistance SCHEMA public;
            CREATE TABLE points (
                collection text NOT NULL,
                id text NOT NULL,
                owner text NOT NULL,
                latitude double precision NOT NULL,
                longitude double precision NOT NULL,
                position cube NOT NULL,
                PRIMARY KEY (collection, id)
            );
            """),
        // Search rows: what the shared rules fold (SearchText, the same code every backend runs),
        // kept beside each record of a collection with a search index. The folded key in byte
        // order ("C") answers browsing and key prefixes from a b-tree; every folded word, in an
        // array with a GIN index, answers "has these words"; the filter fields' values are jsonb.
        Migration(version: 3, name: "search rows", sql: """
            CREATE TABLE search_rows (
                collection text NOT NULL,
                id text COLLATE "C" NOT NULL,
                owner text NOT NULL,
                key text COLLATE "C" NOT NULL,
                words text[] NOT NULL,
                filters jsonb NOT NULL,
                PRIMARY KEY (collection, id)
            );
            CREATE INDEX search_by_key ON search_rows (collection, owner, key, id);
            CREATE INDEX search_by_word ON search_rows USING gin (words);
            """),
        // Search by tsvector: every folded word once, the key's weighted A, GIN-indexed (a prefix is
        // `:*`); the length of the indexed text ranks word matches. GIN's pending list (new
        // entries not yet merged) is read by every search: 256 kB, not the default 4 MB, keeps
        // that read under a millisecond after a big import (at 4 MB, 7 ms). Collections' search specs are
        // forgotten, so that each is indexed anew when its plugin declares it at start.
        Migration(version: 4, name: "search by tsvector", sql: """
            DROP TABLE search_rows;
            CREATE TABLE search_rows (
                collection text NOT NULL,
                id text COLLATE "C" NOT NULL,
                owner text NOT NULL,
                key text COLLATE "C" NOT NULL,
                terms tsvector NOT NULL,
                size int NOT NULL,
                filters jsonb NOT NULL,
                PRIMARY KEY (collection, id)
            );
            CREATE INDEX search_by_key ON search_rows (collection, owner, key, id);
            CREATE INDEX search_by_term ON search_rows USING gin (terms) WITH (gin_pending_list_limit = 256);
            UPDATE collections SET schema = (schema::jsonb - 'search')::text WHERE schema::jsonb ? 'search';
            """),
        // btree_gist lets a GiST index start with the owner: a user's points nearest first, without
        // walking everyone's (PostgreSQL's own contrib, trusted: a database owner may create it).
        Migration(version: 5, name: "owner-first spatial indexes", sql: """
            CREATE EXTENSION IF NOT EXISTS btree_gist SCHEMA public;
            """),
        // A word of the key is a marked lexeme (`=hund`) instead of one weighted A: GIN keeps no
        // weights, so a weighted query re-read every candidate row. Rows are written anew, so
        // collections' search specs are forgotten again (each is indexed when declared at start).
        Migration(version: 6, name: "key words as lexemes of their own", sql: """
            UPDATE collections SET schema = (schema::jsonb - 'search')::text WHERE schema::jsonb ? 'search';
            """),
        // A key's words are kept as they are too, so "every word anywhere" reads one posting list
        // a word. Rows are written anew, as for version 6.
        Migration(version: 7, name: "key words also unmarked", sql: """
            UPDATE collections SET schema = (schema::jsonb - 'search')::text WHERE schema::jsonb ? 'search';
            """),
    ]
}

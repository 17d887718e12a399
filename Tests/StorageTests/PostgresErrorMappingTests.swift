import Bus
import PostgresNIO
import StorageAPI
@testable import StoragePostgres
import Testing

/// A connection lost whichever way (the postmaster killed mid-query shows up on the client's end as
/// `clientClosedConnection`) is the database being unreachable for now: 503 with Retry-After, as
/// the README promises, never a 500.
@Suite("PostgreSQL errors as storage errors")
struct PostgresErrorMappingTests {
    @Test("every lost-connection code is unreachable (503); a query's own failure is not", arguments: [
        (PSQLError.Code.clientClosedConnection, true), (.serverClosedConnection, true), (.connectionError, true), (.poolClosed, true),
        (.uncleanShutdown, true), (.tooManyParameters, false), (.invalidCommandTag, false),
    ])
    func lostConnection(_ code: PSQLError.Code, _ unreachable: Bool) {
        #expect(PostgresRecordStore.isUnreachable(code) == unreachable, "\(code)")
    }

    @Test("unreachable says to try again, with Retry-After")
    func unreachableError() {
        #expect(PostgresRecordStore.unreachable.code == .unavailable)
        #expect(PostgresRecordStore.unreachable.details["retryAfter"] != nil)
    }
}

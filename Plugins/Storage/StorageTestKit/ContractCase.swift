import Bus
import StorageAPI

/// One behaviour every backend must have, runnable against any store.
///
/// Test targets run each case against each backend (`@Test(arguments: RecordStoreContract.cases)`),
/// so a new backend joins by adding one line, and a behaviour is specified once for all of them.
public struct ContractCase<Store: Sendable>: Sendable, CustomStringConvertible {
    public let description: String
    public let run: @Sendable (Store) async throws -> Void

    public init(_ description: String, _ run: @escaping @Sendable (Store) async throws -> Void) {
        self.description = description
        self.run = run
    }
}

/// A contract expectation that did not hold.
public struct ContractFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: Int = #line) throws {
    if !condition { throw ContractFailure("line \(line): \(message())") }
}

func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String, line: Int = #line) throws {
    if actual != expected {
        throw ContractFailure("line \(line): \(what): expected \(expected), got \(actual)")
    }
}

/// Expects `body` to fail with a storage error of `code` (and, when given, these details).
func expectError<T>(_ code: BusError.Code, _ what: String, details: [String: String] = [:], line: Int = #line,
                    _ body: () async throws -> T) async throws {
    do {
        _ = try await body()
    } catch let error as BusError {
        if error.code != code {
            throw ContractFailure("line \(line): \(what): expected error \(code.rawValue), got \(error.code.rawValue): \(error.message)")
        }
        for (key, value) in details where error.details[key] != value {
            throw ContractFailure("line \(line): \(what): expected details[\(key)] = \(value), got \(error.details[key] ?? "nothing")")
        }
        return
    }
    throw ContractFailure("line \(line): \(what): expected error \(code.rawValue), but it succeeded")
}

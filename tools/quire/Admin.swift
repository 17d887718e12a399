import ArgumentParser
import AuthAPI
import Bus
import ToolKit

/// `quire admin grant|revoke USER --config FILE`: make an account the server's operator (the
/// `/#/admin` screen and `/api/v1/admin`), or no longer one. Safe beside a running server.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Make an account an operator of the server, or no longer one.",
        subcommands: [Grant.self, Revoke.self])

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make USER (a username or an account id acc_…) an operator. Exit 3 when there is no such user.")
        @Option(name: .long, help: "The app's YAML file.") var config: String
        @Argument(help: "A username, or an account id (acc_…) for an account without one.") var user: String

        func run() async throws {
            let account = try await AdminCommand.set(user, operator: true, config: config)
            print("\(account.username ?? account.accountID) (\(account.accountID)) is an operator: sign in and open /#/admin")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "USER is no longer an operator (their admin routes answer 404 from their next request). Exit 3 when there is no such user.")
        @Option(name: .long, help: "The app's YAML file.") var config: String
        @Argument(help: "A username, or an account id (acc_…).") var user: String

        func run() async throws {
            let account = try await AdminCommand.set(user, operator: false, config: config)
            print("\(account.username ?? account.accountID) (\(account.accountID)) is no longer an operator")
        }
    }

    static func set(_ user: String, operator isOperator: Bool, config: String) async throws -> AccountRecord {
        try await AppSession(tool: "quire admin", config: config).run { bus in
            try await bus.request(SetOperator(account: user, isOperator: isOperator), timeout: .seconds(30))
        }
    }
}

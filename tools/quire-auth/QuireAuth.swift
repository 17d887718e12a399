import ArgumentParser
import AuthAPI
import Bus
import Foundation
import ToolKit

/// `quire-auth`: manage an app's accounts from the shell, on the storage its config names. Safe to
/// run while the server runs (SQLite in WAL mode takes a second process).
@main
struct QuireAuth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-auth",
        abstract: "Create users, reset passwords and revoke sessions of a Quire app.",
        subcommands: [CreateUser.self, ResetPasswordCommand.self, RevokeSessionsCommand.self])
}

struct AppOptions: ParsableArguments {
    @Option(name: .long, help: "The app's YAML file.")
    var config: String

    /// Builds the app's plugins (no HTTP server), runs `body` against its bus, then stops them
    /// cleanly so that the database is closed.
    func withBus<T: Sendable>(_ body: @Sendable (any MessageBus) async throws -> T) async throws -> T {
        try await AppSession(tool: "quire-auth", config: config).run(body)
    }
}

/// Reads a password from standard input (one line), or makes one up.
func password(fromStandardInput: Bool) -> (String, generated: Bool) {
    if fromStandardInput, let line = readLine(strippingNewline: true) { return (line, false) }
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    return (String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }), true)
}

struct CreateUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-user",
        abstract: "Create a password account. Without --password-stdin a password is generated and printed once.")

    @OptionGroup var app: AppOptions
    @Argument(help: "The username: 3 to 32 of a-z 0-9 . _ -") var username: String
    @Flag(help: "Read the password from standard input (one line).") var passwordStdin = false

    func run() async throws {
        let (secret, generated) = password(fromStandardInput: passwordStdin)
        let username = self.username
        let account = try await app.withBus { bus in
            try await bus.request(CreateAccount(username: username, password: secret), timeout: .seconds(30))
        }
        print("created \(account.username ?? username) (\(account.accountID))")
        if generated { print("password: \(secret)") }
    }
}

struct ResetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password",
        abstract: "Set a new password and sign the user out everywhere. Exit 3 when there is no such user.")

    @OptionGroup var app: AppOptions
    @Argument var username: String
    @Flag(help: "Read the new password from standard input (one line).") var passwordStdin = false

    func run() async throws {
        let (secret, generated) = password(fromStandardInput: passwordStdin)
        let username = self.username
        _ = try await app.withBus { bus in
            try await bus.request(ResetPassword(username: username, newPassword: secret), timeout: .seconds(30))
        }
        print("password of \(username) reset; every session revoked")
        if generated { print("password: \(secret)") }
    }
}

struct RevokeSessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke-sessions",
        abstract: "Sign a user out everywhere: refresh and access tokens stop working at once.")

    @OptionGroup var app: AppOptions
    @Argument var username: String

    func run() async throws {
        let username = self.username
        let reply = try await app.withBus { bus in
            try await bus.request(RevokeSessions(username: username), timeout: .seconds(30))
        }
        print("revoked \(reply.revoked) session(s) of \(username)")
    }
}

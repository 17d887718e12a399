import ArgumentParser
import Bus
import Foundation
import ShareLinkAPI
import ToolKit

/// `quire-share`: create, list and revoke a user's read-only share links from the shell.
@main
struct QuireShare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-share",
        abstract: "Create, list and revoke read-only share links.",
        subcommands: [Create.self, List.self, Revoke.self])
}

struct UserOptions: ParsableArguments {
    @Option(help: "The app's YAML file.") var config: String
    @Option(help: "Whose links: a user name, or an account id acc_….") var user: String

    func run<T: Sendable>(_ body: @Sendable (any MessageBus, String) async throws -> T) async throws -> T {
        try await AppSession(tool: "quire-share", config: config).run(as: user, body)
    }
}

func describe(_ link: ShareLinkInfo) -> String {
    let formatter = ISO8601DateFormatter()
    let state = link.revokedAt.map { "revoked \(formatter.string(from: $0))" }
        ?? link.expiresAt.map { $0 <= Date() ? "expired \(formatter.string(from: $0))" : "until \(formatter.string(from: $0))" } ?? "no expiry"
    let resource = link.resource.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    return "\(link.id)\t\(link.kind)\t\(resource)\t\(state)\(link.hasPassword ? "\tpassword" : "")\t\(link.tokenHint)…"
}

struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Share a resource read-only; prints the link's path and token once.")

    @Argument(help: "The kind: album.photo, album.search or notebooks.notebook.") var kind: String
    @Option(name: .customLong("resource"), help: "A parameter of the resource, key=value (repeat): photo=ID, tags='beach -work', from=2024-05-01.")
    var parameters: [String] = []
    @Option(name: .customLong("expires-in"), help: "Lifetime: seconds, or with a unit: 30m, 12h, 7d.") var expiresIn: String?
    @Option(help: "A title for the page.") var title: String?
    @Flag(name: .customLong("password-stdin"), help: "Read a password for the link from standard input (one line).") var passwordStdin = false
    @OptionGroup var user: UserOptions

    func run() async throws {
        var resource: [String: String] = [:]
        for parameter in parameters {
            guard let equals = parameter.firstIndex(of: "="), equals != parameter.startIndex else {
                throw ValidationError("--resource takes key=value, not '\(parameter)'.")
            }
            resource[String(parameter[..<equals])] = String(parameter[parameter.index(after: equals)...])
        }
        let lifetime = try expiresIn.map(Self.seconds)
        let password = passwordStdin ? readLine(strippingNewline: true) : nil
        let request = CreateShareLink(owner: "", kind: kind, resource: resource, title: title,
                                      expiresAt: lifetime.map { Date().addingTimeInterval($0) }, password: password)
        let created = try await user.run { bus, owner in
            var request = request
            request.owner = owner
            return try await bus.request(request, timeout: .seconds(30))
        }
        print(created.path)
        FileHandle.standardError.write(Data("created \(describe(created.link))\nthe token is shown only now: \(created.token)\n".utf8))
    }

    static func seconds(_ text: String) throws -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let value = Double(text), value > 0 { return value }
        if let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()), value > 0 { return value * unit }
        throw ValidationError("--expires-in is seconds or a number with s, m, h or d (7d), not '\(text)'.")
    }
}

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The user's links, newest first (tokens are never shown again).")
    @OptionGroup var user: UserOptions

    func run() async throws {
        let links = try await user.run { bus, owner in try await bus.request(ListShareLinks(owner: owner), timeout: .seconds(30)).links }
        for link in links { print(describe(link)) }
        if links.isEmpty { FileHandle.standardError.write(Data("no share links\n".utf8)) }
    }
}

struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Revoke a link: it answers 410 from now on.")
    @Argument(help: "The link's id (from list).") var id: String
    @OptionGroup var user: UserOptions

    func run() async throws {
        let id = self.id
        let link = try await user.run { bus, owner in try await bus.request(RevokeShareLink(owner: owner, id: id), timeout: .seconds(30)) }
        print("revoked \(describe(link))")
    }
}

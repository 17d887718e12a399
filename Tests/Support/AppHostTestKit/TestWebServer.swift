public import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A real HTTP server on a loopback address for tests that fetch URLs (URL import): serves files,
/// redirects anywhere, and endless or huge bodies. By default on 127.0.0.2, which a test app lets
/// through with `import_allow_networks: [127.0.0.2/32]` while 127.0.0.1 stays refused.
public struct TestWebServer: Sendable {
    public let host: String
    public let port: Int

    /// `http://host:port`.
    public var base: String { "http://\(host):\(port)" }

    /// A URL of this server that redirects (302) to `target`.
    public func redirect(to target: String) -> String {
        "\(base)/redirect?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target)"
    }

    /// Runs a server with `files` (served at `/files/<name>`) while `body` runs.
    public static func run(host: String = "127.0.0.2", files: [String: Data] = [:],
                           _ body: @Sendable (TestWebServer) async throws -> Void) async throws {
        let router = Router()
        router.get("files/{name}") { _, context -> Response in
            guard let name = context.parameters.get("name"), let data = files[name] else { return Response(status: .notFound) }
            return Response(status: .ok, headers: [.contentType: name.hasSuffix(".png") ? "image/png" : "image/jpeg"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.get("redirect") { request, _ -> Response in
            Response(status: .found, headers: [.location: request.uri.queryParameters["to"].map(String.init) ?? "/"])
        }
        // ?bytes=N of 0xFF; ?declared=1 sends a Content-Length, else the body is chunked.
        router.get("big") { request, _ -> Response in
            let total = request.uri.queryParameters["bytes"].flatMap { Int($0) } ?? 0
            let declared = request.uri.queryParameters["declared"] == "1"
            return Response(status: .ok, headers: [.contentType: "image/jpeg"], body: ResponseBody(contentLength: declared ? total : nil) { writer in
                let chunk = ByteBuffer(repeating: 0xFF, count: 1 << 16)
                var sent = 0
                while sent < total {
                    let count = min(chunk.readableBytes, total - sent)
                    try await writer.write(chunk.getSlice(at: 0, length: count) ?? chunk)
                    sent += count
                }
                try await writer.finish(nil)
            })
        }
        let port = Mutex<Int?>(nil)
        var logger = Logger(label: "test-web-server")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: 0)),
                              onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var bound: Int?
            var waited = 0
            while bound == nil, waited < 500 {
                try await Task.sleep(for: .milliseconds(10))
                bound = port.withLock { $0 }
                waited += 1
            }
            guard let bound else { throw TestAppFailure("The test web server did not start on \(host).") }
            try await body(TestWebServer(host: host, port: bound))
            group.cancelAll()
        }
    }
}

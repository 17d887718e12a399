import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// ``ACMETransport`` over HTTPS with AsyncHTTPClient: the system's roots, and a private CA's when given.
public final class HTTPACMETransport: ACMETransport {
    let client: HTTPClient

    /// - Parameter caFile: a PEM file of a CA trusted besides the system's (a test CA such as Pebble's).
    public init(caFile: String?) {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(15), read: .seconds(30))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func send(method: String, url: String, body: Data?) async throws -> ACMEHTTPResponse {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "User-Agent", value: "Quire-ACME/1")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/jose+json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = method == "HEAD" ? ByteBuffer() : try await response.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for (name, value) in response.headers where headers[name.lowercased()] == nil { headers[name.lowercased()] = value }
        return ACMEHTTPResponse(status: Int(response.status.code), headers: headers, body: Data(bytes.readableBytesView))
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}

extension HTTPACMETransport {
    /// What is wrong with `server.tls.acme.directory_ca_file` (nil: it holds PEM certificates).
    public static func problem(caFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else {
            return "cannot read \(path); give the PEM certificate of the CA that signed the directory's HTTPS certificate "
                + "(relative paths start from the directory quire runs in)"
        }
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(data)), !certificates.isEmpty else {
            return "\(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA's certificate in PEM"
        }
        return nil
    }
}

public import Hummingbird
import NIOCore

/// The request context of every Quire route.
public struct QuireContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by the host before a signed-in route's handler runs.
    public var identity: Identity?
    /// The client's IP address, for throttling; nil for non-IP transports (tests). Behind a trusted
    /// proxy (`server.trusted_proxies`), the address its `X-Forwarded-For` names.
    public var remoteAddress: String?
    public var maxUploadSize: Int

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
        self.maxUploadSize = 1 << 20
    }
}

/// The id of the client request that work is being done for, carried across the bus: every log line
/// written while answering a request (in the HTTP route, in a plugin it asked, on another node)
/// names it, and so does the problem document a client gets.
public enum RequestTrace {
    /// Set by the host around each HTTP request and by a networked bus around each handler it runs.
    @TaskLocal public static var id: String?
    /// When this process received the client request (set by the host with ``id``): what had been
    /// acknowledged anywhere before it must be seen (``MessageBus/catchUp()``). Never sent to
    /// another process: two machines' clocks are not compared.
    @TaskLocal public static var arrival: ContinuousClock.Instant?
}

/// This process among the nodes of a cluster: events that keep nodes coherent name the node that
/// sent them, so that it skips its own (it applied them already).
public enum ThisNode {
    public static let id: String = {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 36) + String(generator.next() as UInt64, radix: 36)
    }()
}

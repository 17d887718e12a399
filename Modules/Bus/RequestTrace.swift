/// The id of the client request that work is being done for, carried across the bus: every log line
/// written while answering a request (in the HTTP route, in a plugin it asked, on another node)
/// names it, and so does the problem document a client gets.
public enum RequestTrace {
    /// Set by the host around each HTTP request and by a networked bus around each handler it runs.
    @TaskLocal public static var id: String?
}

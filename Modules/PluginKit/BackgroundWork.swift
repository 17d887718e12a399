import Metrics
import Synchronization
public import ServiceLifecycle

/// Work a plugin starts in the background — an import, a purge — run inside the host's
/// `ServiceGroup` instead of a detached task: the host's shutdown cancels what is running and waits
/// for it to end (each job's own cancellation path cleans up), and nothing outlives the server.
///
/// Put it in the plugin's ``Plugin/services``; work started before the service runs waits for it.
public final class BackgroundWork: Service, Sendable {
    public typealias Work = @Sendable () async -> Void

    private let stream: AsyncStream<Work>
    private let continuation: AsyncStream<Work>.Continuation
    /// `quire_background_jobs{plugin}` on /metrics: the jobs running now.
    private let running: Meter

    /// - Parameter plugin: whose work it is, in the metrics.
    public init(plugin: String) {
        (stream, continuation) = AsyncStream.makeStream(of: Work.self)
        running = Meter(label: "quire_background_jobs", dimensions: [("plugin", plugin)])
    }

    /// Runs `work` in the background; false when the host is shutting down and it was not started.
    @discardableResult
    public func start(_ work: @escaping Work) -> Bool {
        if case .terminated = continuation.yield(work) { return false }
        return true
    }

    public func run() async {
        await withDiscardingTaskGroup { group in
            for await work in stream.cancelOnGracefulShutdown() {
                let running = self.running
                group.addTask {
                    running.increment()
                    await work()
                    running.decrement()
                }
            }
            // Shutting down: what runs is cancelled, and awaited before the host goes on stopping.
            continuation.finish()
            group.cancelAll()
        }
    }
}

/// The ids of the jobs running in this process: a job a stopped process left "running" in storage
/// is one that is not here (and is rolled back), never one that still runs.
public final class RunningJobs: Sendable {
    private let ids = Mutex<Set<String>>([])
    public init() {}
    public func insert(_ id: String) { ids.withLock { _ = $0.insert(id) } }
    public func remove(_ id: String) { ids.withLock { _ = $0.remove(id) } }
    public func contains(_ id: String) -> Bool { ids.withLock { $0.contains(id) } }
}

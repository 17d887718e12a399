public import Bus

/// A bus that forwards everything to another bus, giving every request at least `patience` to be
/// answered. Tests check what a plugin does, not how fast: under a parallel test run on a small
/// machine, a five-second deadline is a timing assertion that fails for reasons of its own.
/// Deadlines themselves are tested on the plain bus (`BusTests`).
public struct PatientBus: ForwardingBus {
    private let inner: any MessageBus
    public var forwardee: any MessageBus { inner }
    private let patience: Duration

    public init(wrapping inner: any MessageBus, patience: Duration = .seconds(120)) {
        self.inner = inner
        self.patience = patience
    }

    public func request<Request: BusRequest>(_ request: Request, deadline: ContinuousClock.Instant) async throws(BusError) -> Request.Reply {
        try await inner.request(request, deadline: max(deadline, ContinuousClock.now + patience))
    }
}

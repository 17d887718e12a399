import Bus

struct Ping: BusRequest {
    static let name: MessageName = "test.ping.v1"
    typealias Reply = Pong
    var value: Int
}

struct Pong: Codable, Sendable, Equatable {
    var value: Int
}

struct Sleepy: BusRequest {
    static let name: MessageName = "test.sleepy.v1"
    typealias Reply = Empty
    var seconds: Int
}

struct Failing: BusRequest {
    static let name: MessageName = "test.failing.v1"
    typealias Reply = Empty
    var useBusError: Bool
}

struct Tick: BusEvent {
    static let name: MessageName = "test.tick.v1"
    var number: Int
}

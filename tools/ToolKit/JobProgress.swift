import Foundation

/// Follows a background job (an import) until it ends, its progress on stderr: one line redrawn
/// on a terminal, a line every 2 s otherwise (a log).
/// - Parameters:
///   - next: the job as it is now (asked five times a second)
///   - line: what to say of it
public func followJob<Job: Sendable>(_ job: Job, running: (Job) -> Bool, next: (Job) async throws -> Job,
                                     line: (Job) -> String) async throws -> Job {
    var job = job
    let interactive = isatty(STDERR_FILENO) != 0
    var lastLine = Date.distantPast
    while running(job) {
        try await Task.sleep(for: .milliseconds(200))
        job = try await next(job)
        if interactive || Date().timeIntervalSince(lastLine) >= 2 {
            FileHandle.standardError.write(Data(((interactive ? "\r" : "") + line(job) + (interactive ? "" : "\n")).utf8))
            lastLine = Date()
        }
    }
    if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
    return job
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A point on the monotonic clock after which a probe stops reading: every `FileSource` read and
/// libavformat's I/O (through its interrupt callback) check it, so a file that would take too long ends
/// with a `timed-out` error instead of holding a worker. The ingest's watchdog (`Pipeline.FileWorkPool`)
/// is the hard bound for what cannot be interrupted (libheif, a read stuck in the kernel).
public struct Deadline: Sendable, Equatable, CustomStringConvertible {
    /// CLOCK_MONOTONIC nanoseconds.
    public let nanoseconds: UInt64
    /// The budget it was made from, for messages.
    public let seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
        self.nanoseconds = Deadline.now() &+ UInt64(max(0, seconds) * 1e9)
    }

    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    public var hasPassed: Bool { Deadline.now() >= nanoseconds }

    /// Throws `timed-out` when the deadline has passed; `what` says where the probe was.
    public func check(_ what: @autoclosure () -> String) throws(ProbeError) {
        if hasPassed { throw ProbeError(.timedOut, "time budget of \(description) used up \(what())") }
    }

    public var description: String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

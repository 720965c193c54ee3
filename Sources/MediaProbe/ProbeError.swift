/// An error from a reader or a C library, naming what failed so a user can act on it.
///
/// The prober turns these into `ProbeIssue`s (file, stage, reason); they never escape as crashes.
public struct ProbeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Kinds of failure. A struct with static members, so new codes never break a `switch`.
    public struct Code: RawRepresentable, Sendable, Equatable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let truncated = Code(rawValue: "truncated")
        public static let malformed = Code(rawValue: "malformed")
        public static let tooLarge = Code(rawValue: "too-large")
        public static let tooDeep = Code(rawValue: "too-deep")
        public static let unreadable = Code(rawValue: "unreadable")
        public static let notRegularFile = Code(rawValue: "not-a-regular-file")
        public static let ioError = Code(rawValue: "io-error")
        public static let unsupported = Code(rawValue: "unsupported")
        public static let library = Code(rawValue: "library")
        public static let timedOut = Code(rawValue: "timed-out")
        /// Valid JSON that is not a Google Takeout sidecar.
        public static let notTakeout = Code(rawValue: "not-takeout")
    }

    public var code: Code
    public var message: String
    /// The C function that failed, when a C call did.
    public var function: String?

    public init(_ code: Code, _ message: String, function: String? = nil) {
        self.code = code
        self.message = message
        self.function = function
    }

    public var description: String {
        if let f = function { return "\(code.rawValue): \(message) (\(f))" }
        return "\(code.rawValue): \(message)"
    }
}

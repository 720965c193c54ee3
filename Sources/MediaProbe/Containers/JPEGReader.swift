/// JPEG segment reader: SOF size, APP1 Exif, APP1 XMP (+ Extended XMP), APP2 MPF, data after EOI.
public enum JPEGReader {
    public struct Result: Sendable, Equatable {
        public var facts = JPEGFacts()
        /// The XMP packet (standard + extended joined), when present.
        public var xmpPacket: [UInt8]?
        public var warnings: [String] = []
        public init() {}
    }

    public static func read(_ source: any ByteSource) throws(ProbeError) -> Result {
        // TODO(helper): implement.
        return Result()
    }
}

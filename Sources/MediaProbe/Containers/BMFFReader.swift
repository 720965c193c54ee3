/// ISO-BMFF reader (QuickTime/MP4 movies, HEIF/AVIF, CR3): boxes with 32/64-bit sizes and size 0 =
/// to end; never trusts a length field, never reads past the end.
public enum BMFFReader {
    public struct Result: Sendable, Equatable {
        public var brands: [String] = []
        public var quickTime: QuickTimeFacts?
        public var heif: HEIFFacts?
        /// TIFF blocks inside a CR3 `moov/uuid` (CMT1…CMT4), for the EXIF reader.
        public var tiffBlocks: [ByteRange] = []
        public var warnings: [String] = []
        public init() {}
    }

    /// Reads the box tree of `source`.
    public static func read(_ source: any ByteSource) throws(ProbeError) -> Result {
        // TODO(helper): implement.
        return Result()
    }
}

/// WebP RIFF reader: VP8/VP8L/VP8X size, ANIM/ANMF animation, EXIF and XMP chunks.
public enum WebPReader {
    public struct Result: Sendable, Equatable {
        public var facts = WebPFacts()
        public var xmpPacket: [UInt8]?
        public var warnings: [String] = []
        public init() {}
    }

    public static func read(_ source: any ByteSource) throws(ProbeError) -> Result {
        // TODO(helper): implement.
        return Result()
    }
}

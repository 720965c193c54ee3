/// PNG chunk reader: IHDR, acTL (APNG), eXIf, tEXt/zTXt/iTXt (XMP in `XML:com.adobe.xmp`).
public enum PNGReader {
    public struct Result: Sendable, Equatable {
        public var facts = PNGFacts()
        public var xmpPacket: [UInt8]?
        public var warnings: [String] = []
        public init() {}
    }

    public static func read(_ source: any ByteSource) throws(ProbeError) -> Result {
        // TODO(helper): implement.
        return Result()
    }
}

/// Samsung SEFT trailer reader (JPEG/HEIC files ending in `SEFT`).
public enum SamsungTrailerReader {
    /// The trailer's entries, or nil when the file does not end with a SEFT block.
    public static func read(_ source: any ByteSource) throws(ProbeError) -> SamsungTrailer? {
        // TODO(helper): implement.
        return nil
    }
}

/// Parses the raw Apple MakerNote bytes ("Apple iOS\0", version, byte order, IFD; reference §1.1).
/// Offsets of values longer than 4 bytes are relative to the start of the MakerNote.
public enum AppleMakerNoteReader {
    /// Whether `bytes` start like an Apple maker note.
    public static func isAppleMakerNote(_ bytes: [UInt8]) -> Bool { bytes.matches("Apple iOS") }

    public static func parse(_ bytes: [UInt8]) throws(ProbeError) -> AppleMakerNote {
        // TODO(helper): implement.
        throw ProbeError(.unsupported, "Apple maker note reader not implemented")
    }
}

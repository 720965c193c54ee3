/// Text from bytes that must be valid UTF-8.
public enum UTF8Text {
    /// The bytes as a `String`, or nil when they are not valid UTF-8. `String(validating:as:)` is generic over
    /// the encoding and is not specialized for callers here: each call looked up type metadata at run time
    /// (2.4 % of a re-ingest of a 30,000-file folder, in the stored facts' strings). ASCII — most names and
    /// most strings of the facts — goes through `String(decoding:as:)`, which is exact for it.
    @inlinable
    public static func validated(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var high: UInt8 = 0
        for b in bytes { high |= b }
        if high < 0x80 { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }
}

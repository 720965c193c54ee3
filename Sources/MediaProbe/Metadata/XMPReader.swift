/// A small, bounded XMP reader: no DTDs, no entity expansion, no network. Extracts the fields Shoebox
/// uses (see `XMPFacts`) from attributes and simple elements.
public enum XMPReader {
    public static func parse(_ packet: [UInt8], source: String) -> XMPFacts {
        // TODO(helper): implement.
        return XMPFacts(source: source)
    }
}

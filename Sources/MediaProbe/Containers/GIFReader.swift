/// GIF block reader: logical screen size, frame count, NETSCAPE2.0 loop count.
public enum GIFReader {
    public static func read(_ source: any ByteSource) throws(ProbeError) -> GIFFacts {
        // TODO(helper): implement.
        throw ProbeError(.unsupported, "GIF reader not implemented")
    }
}

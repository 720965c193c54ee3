/// Samsung SEFT trailer reader (JPEG/HEIC files ending in `SEFT`).
///
/// Layout (ExifTool `Samsung.pm`): the file ends with `[u32 LE directory length]["SEFT"]`; the directory
/// is `"SEFH"`, version u32, count u32, then 12-byte entries (u16 0, u16 type, u32 offset counted back
/// from the `SEFH`, u32 length), all little-endian. Each block starts with u16 0, u16 type, u32 name
/// length and the name; the payload follows.
public enum SamsungTrailerReader {
    /// Largest SEFT directory read.
    static let maxDirectory = 1 << 20

    /// The trailer's entries, or nil when the file does not end with a SEFT block.
    public static func read(_ source: any ByteSource) throws(ProbeError) -> SamsungTrailer? {
        let size = source.size
        guard size >= 8 else { return nil }
        let tail = try source.readExactly(at: size - 8, count: 8, what: "SEFT tail")
        guard tail.matches("SEFT", at: 4), let dirLength = BinaryReader.uint(tail, at: 0, size: 4, bigEndian: false)
        else { return nil }
        guard dirLength >= 12, dirLength <= UInt64(maxDirectory), dirLength <= size - 8 else {
            throw ProbeError(.malformed, "SEFT: directory length \(dirLength) does not fit a \(size)-byte file")
        }
        let dirStart = size - 8 - dirLength
        let dir = try source.readExactly(at: dirStart, count: Int(dirLength), what: "SEFT directory")
        guard dir.matches("SEFH") else { throw ProbeError(.malformed, "SEFT: no SEFH at offset \(dirStart)") }
        var trailer = SamsungTrailer()
        let declared = Int(BinaryReader.uint(dir, at: 8, size: 4, bigEndian: false) ?? 0)
        let count = min(declared, (dir.count - 12) / 12)
        if count < declared { trailer.warnings.append("SEFT: \(declared) entries declared, \(count) fit") }
        for i in 0..<count {
            let e = 12 + i * 12
            guard let type = BinaryReader.uint(dir, at: e + 2, size: 2, bigEndian: false),
                let back = BinaryReader.uint(dir, at: e + 4, size: 4, bigEndian: false),
                let length = BinaryReader.uint(dir, at: e + 8, size: 4, bigEndian: false)
            else { break }
            guard back <= dirStart, length >= 8, length <= back else {
                trailer.warnings.append("SEFT: entry 0x\(String(type, radix: 16)) points outside the file")
                continue
            }
            let start = dirStart - back
            let h = try source.readExactly(at: start, count: 8, what: "SEFT block header")
            let nameLength = BinaryReader.uint(h, at: 4, size: 4, bigEndian: false) ?? 0
            guard BinaryReader.uint(h, at: 2, size: 2, bigEndian: false) == type, nameLength <= min(length - 8, 1024) else {
                trailer.warnings.append("SEFT: block 0x\(String(type, radix: 16)) at offset \(start) has a bad header")
                continue
            }
            let name = String(decoding: try source.readExactly(at: start + 8, count: Int(nameLength), what: "SEFT name"),
                              as: UTF8.self)
            let payload = ByteRange(offset: start + 8 + nameLength, length: length - 8 - nameLength)
            trailer.entries.append(SamsungTrailer.Entry(type: UInt16(type), name: name, data: payload))
            if name == "MotionPhoto_Data", trailer.motionPhotoVideo == nil {
                trailer.motionPhotoVideo = try motionPhoto(source, payload)
            }
        }
        return trailer
    }

    /// The video of a `MotionPhoto_Data` block: the payload itself, or where a 12-byte `mpv2` payload
    /// (u32 BE offset, u32 BE length, used in HEIC) points.
    static func motionPhoto(_ source: any ByteSource, _ payload: ByteRange) throws(ProbeError) -> ByteRange? {
        guard payload.length > 0 else { return nil }
        if payload.length == 12 {
            let b = try source.readExactly(at: payload.offset, count: 12, what: "SEFT mpv2")
            if b.matches("mpv2"), let off = BinaryReader.uint(b, at: 4, size: 4, bigEndian: true),
                let len = BinaryReader.uint(b, at: 8, size: 4, bigEndian: true)
            {
                return off + len <= source.size ? ByteRange(offset: off, length: len) : nil
            }
        }
        return payload
    }
}

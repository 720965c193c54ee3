/// What the header of a still format without EXIF-style IFDs says: its size and, where the format has
/// them, embedded metadata blocks (PSD resources, JPEG 2000 / JPEG XL boxes) and a creation time (TGA 2.0).
public struct StillImageFacts: Sendable, Equatable, Codable {
    /// The format's name as the header gives it (`BMP`, `PSB`, `JP2`, `JPEG XL`…).
    public var format: String
    public var width: Int?
    public var height: Int?
    /// Where width and height were read.
    public var sizeSource: String
    /// Number of images in the file (ICO entries), when more than one.
    public var imageCount: Int?
    /// Bits per pixel (BMP, TGA, ICO), when the header states it.
    public var bitsPerPixel: Int?

    public init(format: String, width: Int? = nil, height: Int? = nil, sizeSource: String) {
        self.format = format
        self.width = width
        self.height = height
        self.sizeSource = sizeSource
    }
}

/// One still-format read: the facts, and metadata blocks for the prober to interpret.
struct StillImageReading {
    var facts: StillImageFacts
    /// TIFF/Exif blocks with where they came from.
    var exif: [(ByteRange, String)] = []
    var xmp: [(ByteRange, String)] = []
    /// A PSD image resource section.
    var photoshopResources: ByteRange?
    /// TGA 2.0 extension area date/time stamp (local time, no offset).
    var created: Sourced<FileDate>?
    var warnings: [String] = []
}

/// Header readers for BMP, PSD/PSB, JPEG 2000, JPEG XL, ICO/CUR, TGA and Netpbm. Every read is bounded
/// (headers are a few hundred bytes; box walks visit at most `maxBoxes` boxes and check every size
/// against the file); nothing is decoded.
public enum StillImageHeaders {
    static let maxBoxes = 1024

    /// The header facts of a BMP, PSD, JPEG 2000, JPEG XL, ICO, TGA or Netpbm file.
    public static func facts(_ kind: ContainerKind, _ src: any ByteSource) throws(ProbeError) -> StillImageFacts {
        try read(kind, src).facts
    }

    static func read(_ kind: ContainerKind, _ src: any ByteSource) throws(ProbeError) -> StillImageReading {
        switch kind {
        case .bmp: return try bmp(src)
        case .psd: return try psd(src)
        case .jp2, .jxl: return try boxes(src, jxl: kind == .jxl)
        case .j2k: return try j2k(src, at: 0, format: "J2K")
        case .ico: return try ico(src)
        case .tga: return try tga(src)
        case .pnm: return try pnm(src)
        default: throw ProbeError(.unsupported, "no still-image header reader for \(kind.rawValue)")
        }
    }

    // MARK: - BMP

    static func bmp(_ src: any ByteSource) throws(ProbeError) -> StillImageReading {
        let h = try src.readExactly(at: 0, count: 30, what: "BMP headers")
        let dib = BinaryReader.uint(h, at: 14, size: 4, bigEndian: false) ?? 0
        var f = StillImageFacts(format: "BMP", sizeSource: "")
        if dib == 12 {
            f.width = BinaryReader.uint(h, at: 18, size: 2, bigEndian: false).map { Int($0) }
            f.height = BinaryReader.uint(h, at: 20, size: 2, bigEndian: false).map { Int($0) }
            f.bitsPerPixel = BinaryReader.uint(h, at: 24, size: 2, bigEndian: false).map { Int($0) }
            f.sizeSource = "BMP BITMAPCOREHEADER bcWidth/bcHeight"
        } else {
            // Signed: a negative height is a top-down bitmap.
            f.width = BinaryReader.uint(h, at: 18, size: 4, bigEndian: false).map { Int(Int32(bitPattern: UInt32($0)).magnitude) }
            f.height = BinaryReader.uint(h, at: 22, size: 4, bigEndian: false).map {
                Int(Int32(bitPattern: UInt32($0)).magnitude)
            }
            f.bitsPerPixel = BinaryReader.uint(h, at: 28, size: 2, bigEndian: false).map { Int($0) }
            f.sizeSource = "BMP BITMAPINFOHEADER biWidth/biHeight"
        }
        return StillImageReading(facts: f)
    }

    // MARK: - PSD / PSB

    static func psd(_ src: any ByteSource) throws(ProbeError) -> StillImageReading {
        let h = try src.readExactly(at: 0, count: 30, what: "PSD header")
        let version = BinaryReader.uint(h, at: 4, size: 2, bigEndian: true) ?? 1
        var f = StillImageFacts(format: version == 2 ? "PSB" : "PSD", sizeSource: "PSD header width/height")
        f.height = BinaryReader.uint(h, at: 14, size: 4, bigEndian: true).map { Int($0) }
        f.width = BinaryReader.uint(h, at: 18, size: 4, bigEndian: true).map { Int($0) }
        var r = StillImageReading(facts: f)
        // Colour mode data (length-prefixed), then the image resource section.
        let modeLength = BinaryReader.uint(h, at: 26, size: 4, bigEndian: true) ?? 0
        let resAt = 30 + modeLength
        guard src.size >= 4, resAt <= src.size - 4 else {
            r.warnings.append("PSD colour mode data (\(modeLength) bytes) runs past the end of the file")
            return r
        }
        let lb = try src.readExactly(at: resAt, count: 4, what: "PSD image resource section length")
        let resLength = BinaryReader.uint(lb, at: 0, size: 4, bigEndian: true) ?? 0
        if resAt + 4 + resLength > src.size {
            r.warnings.append("PSD image resource section (\(resLength) bytes) runs past the end of the file")
        } else if resLength > 0 {
            r.photoshopResources = ByteRange(offset: resAt + 4, length: resLength)
        }
        return r
    }

    // MARK: - JPEG 2000 and JPEG XL (ISO-BMFF-style boxes)

    /// Exif in JP2: the `uuid` box "JpgTiffExif->JP2"; XMP: the `uuid` BE7ACFCB-97A9-42E8-9C71-999491E3AFAC.
    static let jp2ExifUUID: [UInt8] = Array("JpgTiffExif->JP2".utf8)
    static let xmpUUID: [UInt8] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
    ]

    static func boxes(_ src: any ByteSource, jxl: Bool) throws(ProbeError) -> StillImageReading {
        var r = StillImageReading(facts: StillImageFacts(format: jxl ? "JPEG XL" : "JP2", sizeSource: ""))
        if jxl, let h = try? src.read(at: 0, count: 2), h == [0xFF, 0x0A] {
            try jxlCodestream(src, at: 0, into: &r, how: "JPEG XL codestream SizeHeader")
            return r
        }
        var at: UInt64 = 0
        var n = 0
        while at + 8 <= src.size, n < maxBoxes {
            n += 1
            let h = try src.readExactly(at: at, count: 8, what: "box header at \(at)")
            var size = BinaryReader.uint(h, at: 0, size: 4, bigEndian: true) ?? 0
            let type = BinaryReader.fourCC(h[4..<8])
            var header: UInt64 = 8
            if size == 1 {
                let l = try src.readExactly(at: at + 8, count: 8, what: "\(type) box large size")
                size = BinaryReader.uint(l, at: 0, size: 8, bigEndian: true) ?? 0
                header = 16
            } else if size == 0 {
                size = src.size - at
            }
            guard size >= header, size <= src.size - at else {
                r.warnings.append("'\(type)' box at \(at) declares \(size) bytes; the file has \(src.size - at) left")
                break
            }
            let payload = ByteRange(offset: at + header, length: size - header)
            switch type {
            case "jp2h":
                // Image header box: height, width (each 4 bytes), components…
                if let ihdr = try findBox("ihdr", in: payload, src), ihdr.length >= 8 {
                    let b = try src.readExactly(at: ihdr.offset, count: 8, what: "JP2 ihdr")
                    r.facts.height = BinaryReader.uint(b, at: 0, size: 4, bigEndian: true).map { Int($0) }
                    r.facts.width = BinaryReader.uint(b, at: 4, size: 4, bigEndian: true).map { Int($0) }
                    r.facts.sizeSource = "JPEG 2000 jp2h/ihdr width/height"
                }
            case "ftyp":
                if let b = try? src.read(at: payload.offset, count: 4), b.count == 4, BinaryReader.fourCC(b) == "jpx " {
                    r.facts.format = "JPX"
                }
            case "jp2c" where r.facts.width == nil:
                let c = try j2k(src, at: payload.offset, format: "JP2")
                r.facts.width = c.facts.width
                r.facts.height = c.facts.height
                r.facts.sizeSource = "JPEG 2000 jp2c codestream SIZ"
            case "jxlc" where r.facts.width == nil:
                try jxlCodestream(src, at: payload.offset, into: &r, how: "JPEG XL jxlc codestream SizeHeader")
            case "jxlp" where r.facts.width == nil && payload.length > 4:
                try jxlCodestream(src, at: payload.offset + 4, into: &r, how: "JPEG XL jxlp codestream SizeHeader")
            case "Exif" where payload.length > 4:
                // A 4-byte offset to the TIFF header within the payload.
                let o = try src.readExactly(at: payload.offset, count: 4, what: "JPEG XL Exif box offset")
                let skip = (BinaryReader.uint(o, at: 0, size: 4, bigEndian: true) ?? 0) + 4
                if skip < payload.length {
                    r.exif.append((ByteRange(offset: payload.offset + skip, length: payload.length - skip), "JPEG XL Exif box"))
                }
            case "xml ":
                r.xmp.append((payload, "\(r.facts.format) 'xml ' box"))
            case "uuid" where payload.length > 16:
                let id = try src.readExactly(at: payload.offset, count: 16, what: "uuid box identifier")
                let body = ByteRange(offset: payload.offset + 16, length: payload.length - 16)
                if id == jp2ExifUUID { r.exif.append((body, "JPEG 2000 uuid JpgTiffExif->JP2")) }
                if id == xmpUUID { r.xmp.append((body, "JPEG 2000 uuid XMP")) }
            default: break
            }
            at += size
        }
        return r
    }

    /// The payload of the first box of `type` directly inside `range`.
    static func findBox(_ type: String, in range: ByteRange, _ src: any ByteSource) throws(ProbeError) -> ByteRange? {
        var at = range.offset
        var n = 0
        while at + 8 <= range.end, n < maxBoxes {
            n += 1
            let h = try src.readExactly(at: at, count: 8, what: "box header at \(at)")
            let size = BinaryReader.uint(h, at: 0, size: 4, bigEndian: true) ?? 0
            guard size >= 8, size <= range.end - at else { return nil }
            if BinaryReader.fourCC(h[4..<8]) == type { return ByteRange(offset: at + 8, length: size - 8) }
            at += size
        }
        return nil
    }

    /// A raw JPEG 2000 codestream: SOC, then SIZ with the reference grid size and the image offset.
    static func j2k(_ src: any ByteSource, at: UInt64, format: String) throws(ProbeError) -> StillImageReading {
        let b = try src.readExactly(at: at, count: 24, what: "J2K SOC + SIZ")
        guard b[0] == 0xFF, b[1] == 0x4F, b[2] == 0xFF, b[3] == 0x51 else {
            throw ProbeError(.malformed, "JPEG 2000 codestream does not start with SOC + SIZ")
        }
        func u(_ i: Int) -> UInt64 { BinaryReader.uint(b, at: i, size: 4, bigEndian: true) ?? 0 }
        var f = StillImageFacts(format: format, sizeSource: "JPEG 2000 codestream SIZ Xsiz−XOsiz/Ysiz−YOsiz")
        if u(8) >= u(16), u(12) >= u(20) {
            f.width = Int(u(8) - u(16))
            f.height = Int(u(12) - u(20))
        }
        return StillImageReading(facts: f)
    }

    /// JPEG XL codestream: signature FF 0A, then the bit-packed SizeHeader and the start of ImageMetadata
    /// (its orientation).
    static func jxlCodestream(_ src: any ByteSource, at: UInt64, into r: inout StillImageReading, how: String) throws(ProbeError)
    {
        let b = try src.read(at: at, count: 32)
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0x0A else {
            r.warnings.append("JPEG XL codestream at \(at) does not start with FF 0A")
            return
        }
        var bits = LSBBits(Array(b[2...]))
        guard let size = bits.jxlSize() else {
            r.warnings.append("JPEG XL SizeHeader at \(at) is cut")
            return
        }
        r.facts.width = size.width
        r.facts.height = size.height
        r.facts.sizeSource = how
    }

    // MARK: - ICO / CUR

    /// A plausible icon directory: reserved 0, type 1 (icon) or 2 (cursor), 1–256 entries, each entry's
    /// data after the directory.
    static func isICO(_ h: [UInt8], fileSize: UInt64) -> Bool {
        guard h.count >= 22, h[0] == 0, h[1] == 0, h[2] == 1 || h[2] == 2, h[3] == 0,
            let n = BinaryReader.uint(h, at: 4, size: 2, bigEndian: false), (1...256).contains(n)
        else { return false }
        guard h[9] == 0, let size = BinaryReader.uint(h, at: 14, size: 4, bigEndian: false),
            let off = BinaryReader.uint(h, at: 18, size: 4, bigEndian: false)
        else { return false }
        return size > 0 && off >= 6 + 16 * n && off + size <= fileSize
    }

    static func ico(_ src: any ByteSource) throws(ProbeError) -> StillImageReading {
        let h = try src.readExactly(at: 0, count: 6, what: "ICO header")
        let n = Int(BinaryReader.uint(h, at: 4, size: 2, bigEndian: false) ?? 0)
        let dir = try src.readExactly(at: 6, count: 16 * n, what: "ICO directory")
        var r = StillImageReading(
            facts: StillImageFacts(format: h[2] == 2 ? "CUR" : "ICO", sizeSource: "ICO directory entry (largest)"))
        var best: (Int, Int, Int) = (0, 0, 0)
        for i in 0..<n {
            let e = i * 16
            var w = Int(dir[e]) == 0 ? 256 : Int(dir[e])
            var ht = Int(dir[e + 1]) == 0 ? 256 : Int(dir[e + 1])
            let bpp = Int(BinaryReader.uint(dir, at: e + 6, size: 2, bigEndian: false) ?? 0)
            // A PNG-compressed entry states its real size in its IHDR (a 0 byte only says "256 or more").
            if let off = BinaryReader.uint(dir, at: e + 12, size: 4, bigEndian: false), off < src.size,
                let png = try? src.read(at: off, count: 24), png.count == 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47]),
                let pw = BinaryReader.uint(png, at: 16, size: 4, bigEndian: true),
                let ph = BinaryReader.uint(png, at: 20, size: 4, bigEndian: true),
                pw > 0, ph > 0, pw < 1 << 24, ph < 1 << 24
            {
                w = Int(pw)
                ht = Int(ph)
            }
            if w * ht > best.0 * best.1 { best = (w, ht, bpp) }
        }
        r.facts.width = best.0
        r.facts.height = best.1
        r.facts.bitsPerPixel = best.2 > 0 ? best.2 : nil
        r.facts.imageCount = n > 1 ? n : nil
        return r
    }

    // MARK: - TGA

    /// A TGA header that holds together: colour-map type 0/1, a known image type, no colour-map fields
    /// without a map, a known pixel depth, reserved descriptor bits clear, a size.
    static func isTGA(_ h: [UInt8]) -> Bool {
        guard h.count >= 18 else { return false }
        let mapType = h[1], type = h[2], depth = h[16], descriptor = h[17]
        guard mapType <= 1, [1, 2, 3, 9, 10, 11].contains(type), [8, 15, 16, 24, 32].contains(depth), descriptor & 0xC0 == 0
        else { return false }
        if mapType == 0, h[3..<8].contains(where: { $0 != 0 }) { return false }
        if (type == 1 || type == 9) != (mapType == 1) { return false }
        let w = BinaryReader.uint(h, at: 12, size: 2, bigEndian: false) ?? 0
        let ht = BinaryReader.uint(h, at: 14, size: 2, bigEndian: false) ?? 0
        return w > 0 && ht > 0
    }

    static func tga(_ src: any ByteSource) throws(ProbeError) -> StillImageReading {
        let h = try src.readExactly(at: 0, count: 18, what: "TGA header")
        var f = StillImageFacts(format: "TGA", sizeSource: "TGA header width/height")
        f.width = BinaryReader.uint(h, at: 12, size: 2, bigEndian: false).map { Int($0) }
        f.height = BinaryReader.uint(h, at: 14, size: 2, bigEndian: false).map { Int($0) }
        f.bitsPerPixel = Int(h[16])
        var r = StillImageReading(facts: f)
        // TGA 2.0: a 26-byte footer points at the extension area, whose date/time stamp is at 367.
        if src.size >= 18 + 26, let foot = try? src.read(at: src.size - 26, count: 26), foot.count == 26,
            foot.matches("TRUEVISION-XFILE", at: 8),
            let ext = BinaryReader.uint(foot, at: 0, size: 4, bigEndian: false), ext >= 18, ext + 495 <= src.size,
            let stamp = try? src.read(at: ext + 367, count: 12), stamp.count == 12
        {
            let v = (0..<6).map { Int(BinaryReader.uint(stamp, at: $0 * 2, size: 2, bigEndian: false) ?? 0) }
            let two = FileDate.twoDigits
            let local =
                String(v[2]).leftPadded(4) + "-" + two(v[0]) + "-" + two(v[1]) + "T" + two(v[3]) + ":" + two(v[4]) + ":"
                + two(v[5])
            if v[2] > 0, ExifDate.isPlausible(local) {
                r.created = Sourced(FileDate(local: local), "TGA 2.0 extension area date/time stamp")
            }
        }
        return r
    }

    // MARK: - Netpbm

    static func pnm(_ src: any ByteSource) throws(ProbeError) -> StillImageReading {
        let h = try src.read(at: 0, count: 4096)
        let magic = h.count > 1 ? h[1] : 0
        let names: [UInt8: String] = [0x31: "PBM", 0x32: "PGM", 0x33: "PPM", 0x34: "PBM", 0x35: "PGM", 0x36: "PPM", 0x37: "PAM"]
        var f = StillImageFacts(format: names[magic] ?? "PNM", sizeSource: "Netpbm header width/height")
        if magic == 0x37 { f.sizeSource = "Netpbm PAM header WIDTH/HEIGHT" }
        if let size = pnmSize(h) {
            f.width = size.width
            f.height = size.height
        }
        return StillImageReading(facts: f)
    }

    /// The size in a Netpbm header (`P1`–`P6`: the two numbers after the magic, comments skipped; `P7`:
    /// the WIDTH and HEIGHT lines before ENDHDR). The sniffer wants it too: "P1 " alone is not an image.
    static func pnmSize(_ h: [UInt8]) -> (width: Int, height: Int)? {
        guard h.count > 2 else { return nil }
        let text = String(decoding: h, as: UTF8.self)
        func positive(_ s: Substring) -> Int? { Int(s).flatMap { $0 > 0 ? $0 : nil } }
        if h[1] == 0x37 {
            var w: Int?, ht: Int?
            for line in text.split(separator: "\n").prefix(64) {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.count >= 2, parts[0] == "WIDTH" { w = positive(parts[1]) }
                if parts.count >= 2, parts[0] == "HEIGHT" { ht = positive(parts[1]) }
                if line.hasPrefix("ENDHDR") { break }
            }
            guard let w, let ht else { return nil }
            return (w, ht)
        }
        var tokens: [Int] = []
        var current = ""
        var comment = false
        for ch in text.dropFirst(2) {
            if comment {
                if ch == "\n" || ch == "\r" { comment = false }
                continue
            }
            if ch == "#" {
                comment = true
            } else if ch.isNumber {
                current.append(ch)
            } else if ch.isWhitespace {
                if !current.isEmpty {
                    guard let v = positive(Substring(current)) else { return nil }
                    tokens.append(v)
                }
                current = ""
                if tokens.count == 2 { return (tokens[0], tokens[1]) }
            } else {
                return nil
            }
        }
        return nil
    }

    // MARK: - MPEG audio

    /// The length of the MPEG audio frame whose header is at `i`, nil when there is none.
    static func mpegAudioFrameLength(_ h: [UInt8], at i: Int) -> Int? {
        guard i + 4 <= h.count, h[i] == 0xFF, h[i + 1] & 0xE0 == 0xE0 else { return nil }
        let version = (h[i + 1] >> 3) & 3, layer = (h[i + 1] >> 1) & 3
        let bitrateIndex = Int(h[i + 2] >> 4), rateIndex = Int((h[i + 2] >> 2) & 3), padding = Int((h[i + 2] >> 1) & 1)
        guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let mpeg1 = version == 3
        let rates = [44100, 48000, 32000]
        let rate = rates[rateIndex] / (mpeg1 ? 1 : (version == 2 ? 2 : 4))
        let kbps: [Int]
        switch (mpeg1, layer) {
        case (true, 3): kbps = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 3): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        default: kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let bitrate = kbps[bitrateIndex] * 1000
        if layer == 3 { return (12 * bitrate / rate + padding) * 4 }
        return (layer == 1 && !mpeg1 ? 72 : 144) * bitrate / rate + padding
    }
}

/// A little-endian bit reader (JPEG XL packs fields from the least significant bit).
struct LSBBits {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ n: Int) -> UInt64? {
        var v: UInt64 = 0
        for i in 0..<n {
            let byte = position >> 3
            guard byte < bytes.count else { return nil }
            v |= UInt64((bytes[byte] >> UInt8(position & 7)) & 1) << UInt64(i)
            position += 1
        }
        return v
    }

    /// JPEG XL `U32(1 + u(9), 1 + u(13), 1 + u(18), 1 + u(30))`, the distribution of sizes.
    mutating func jxlSizeU32() -> Int? {
        guard let sel = read(2), let v = read([9, 13, 18, 30][Int(sel)]) else { return nil }
        return Int(v) + 1
    }

    /// The SizeHeader: small sizes are multiples of 8; the width may be implied by an aspect ratio.
    mutating func jxlSize() -> (width: Int, height: Int)? {
        guard let small = read(1) else { return nil }
        let height: Int
        if small == 1 {
            guard let v = read(5) else { return nil }
            height = (Int(v) + 1) * 8
        } else {
            guard let v = jxlSizeU32() else { return nil }
            height = v
        }
        guard let ratio = read(3) else { return nil }
        let ratios: [(Int, Int)] = [(1, 1), (1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]
        if ratio != 0 { return (height * ratios[Int(ratio)].0 / ratios[Int(ratio)].1, height) }
        if small == 1 {
            guard let v = read(5) else { return nil }
            return ((Int(v) + 1) * 8, height)
        }
        guard let w = jxlSizeU32() else { return nil }
        return (w, height)
    }
}

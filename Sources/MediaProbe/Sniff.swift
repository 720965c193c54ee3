/// What a file is, by its magic bytes. The extension is never trusted; a disagreement is a warning.
public enum ContainerKind: String, Sendable, Codable, CaseIterable {
    case jpeg, png, gif, webp, tiff, dng
    case cr2, nef, arw, orf, rw2, pef, srw, cr3, raf
    /// Windows bitmap, Photoshop (PSD/PSB), JPEG 2000 (JP2/JPX file, raw J2K codestream), JPEG XL
    /// (codestream or container), Windows icon/cursor, Truevision TGA, Netpbm (PBM/PGM/PPM/PAM).
    case bmp, psd, jp2, j2k, jxl, ico, tga, pnm
    case heic, avif
    case mov, mp4, m4v, threeGP = "3gp"
    case avi, matroska, webm
    case mpegTS = "mpeg-ts"
    /// Audio: MPEG-4 audio (`M4A `/`M4B `/`M4P ` brands), MP3, WAVE, AIFF/AIFC.
    case m4a, mp3, wav, aiff
    case aae, xmp, json
    case empty, unknown

    public var isImage: Bool {
        switch self {
        case .jpeg, .png, .gif, .webp, .tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .srw, .cr3, .raf, .heic, .avif,
            .bmp, .psd, .jp2, .j2k, .jxl, .ico, .tga, .pnm:
            return true
        default: return false
        }
    }

    public var isVideo: Bool {
        switch self {
        case .mov, .mp4, .m4v, .threeGP, .avi, .matroska, .webm, .mpegTS: return true
        default: return false
        }
    }

    public var isAudio: Bool {
        switch self {
        case .m4a, .mp3, .wav, .aiff: return true
        default: return false
        }
    }

    public var isRAW: Bool {
        switch self {
        case .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .srw, .cr3, .raf: return true
        default: return false
        }
    }

    public var isSidecar: Bool { self == .aae || self == .xmp || self == .json }

    /// Whether the ISO-BMFF reader applies.
    public var isBMFF: Bool {
        switch self {
        case .heic, .avif, .mov, .mp4, .m4v, .threeGP, .cr3, .m4a: return true
        default: return false
        }
    }

    /// Whether the TIFF/EXIF structure starts at byte 0.
    public var isTIFFBased: Bool {
        switch self {
        case .tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .srw: return true
        default: return false
        }
    }

    /// Extensions that are normal for this kind (lower-case).
    public var extensions: Set<String> {
        switch self {
        case .jpeg: return ["jpg", "jpeg", "jpe", "jfif", "mpo"]
        case .png: return ["png", "apng"]
        case .gif: return ["gif"]
        case .webp: return ["webp"]
        case .tiff: return ["tif", "tiff", "btf", "tf8"]
        case .dng: return ["dng"]
        case .cr2: return ["cr2"]
        case .nef: return ["nef", "nrw"]
        case .arw: return ["arw", "srf", "sr2"]
        case .orf: return ["orf"]
        case .rw2: return ["rw2", "raw"]
        case .pef: return ["pef"]
        case .srw: return ["srw"]
        case .bmp: return ["bmp", "dib"]
        case .psd: return ["psd", "psb"]
        case .jp2: return ["jp2", "jpx", "jpf", "jph"]
        case .j2k: return ["j2k", "j2c", "jpc", "jp2"]
        case .jxl: return ["jxl"]
        case .ico: return ["ico", "cur"]
        case .tga: return ["tga", "icb", "vda", "vst"]
        case .pnm: return ["pbm", "pgm", "ppm", "pnm", "pam"]
        case .m4a: return ["m4a", "m4b", "m4p", "mp4"]
        case .mp3: return ["mp3"]
        case .wav: return ["wav", "wave"]
        case .aiff: return ["aif", "aiff", "aifc"]
        case .cr3: return ["cr3"]
        case .raf: return ["raf"]
        case .heic: return ["heic", "heif", "hif"]
        case .avif: return ["avif"]
        case .mov: return ["mov", "qt"]
        case .mp4: return ["mp4", "m4v", "mov", "m4a"]
        case .m4v: return ["m4v", "mp4"]
        case .threeGP: return ["3gp", "3g2", "mp4"]
        case .avi: return ["avi"]
        case .matroska: return ["mkv", "mka", "webm"]
        case .webm: return ["webm", "mkv"]
        case .mpegTS: return ["mts", "m2ts", "ts", "m2t"]
        case .aae: return ["aae", "plist"]
        case .xmp: return ["xmp"]
        case .json: return ["json"]
        case .empty, .unknown: return []
        }
    }
}

/// Magic-byte sniffing.
public enum Sniffer {
    /// How many leading bytes `sniff` wants.
    public static let headerSize = 512

    /// The kind of a file from its first bytes (up to `headerSize`) and its size.
    public static func sniff(_ h: [UInt8], fileSize: UInt64) -> ContainerKind {
        if fileSize == 0 || h.isEmpty { return .empty }
        if h.count >= 3, h[0] == 0xFF, h[1] == 0xD8, h[2] == 0xFF { return .jpeg }
        if h.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }  // not a String: U+0089 is 2 bytes in UTF-8
        if h.matches("GIF87a") || h.matches("GIF89a") { return .gif }
        if h.matches("RIFF"), h.matches("WEBP", at: 8) { return .webp }
        if h.matches("RIFF"), h.matches("AVI ", at: 8) { return .avi }
        if h.matches("FUJIFILMCCD-RAW") { return .raf }
        if let kind = sniffStill(h, fileSize: fileSize) ?? sniffAudio(h) { return kind }
        if h.count >= 4, h[0] == 0x1A, h[1] == 0x45, h[2] == 0xDF, h[3] == 0xA3 {
            return h.firstIndex(of: Array("webm".utf8)) != nil ? .webm : .matroska
        }
        if h.count >= 189, h[0] == 0x47, h[188] == 0x47 { return .mpegTS }
        if h.count >= 389, h[4] == 0x47, h[196] == 0x47, h[388] == 0x47 { return .mpegTS }  // M2TS: 192-byte packets with a 4-byte timecode
        if let kind = sniffBMFF(h) { return kind }
        if let kind = sniffTIFF(h) { return kind }
        let text = sniffText(h)
        if text == .unknown, StillImageHeaders.isTGA(h) { return .tga }
        return text
    }

    /// Still formats with a signature of their own (TGA has none: it is tried last, by its header).
    static func sniffStill(_ h: [UInt8], fileSize: UInt64) -> ContainerKind? {
        guard h.count >= 4 else { return nil }
        if h.matches("BM"), h.count >= 18, let dib = BinaryReader.uint(h, at: 14, size: 4, bigEndian: false),
            [12, 16, 40, 52, 56, 64, 108, 124].contains(dib)
        {
            return .bmp
        }
        if h.matches("8BPS"), let v = BinaryReader.uint(h, at: 4, size: 2, bigEndian: true), v == 1 || v == 2 { return .psd }
        if h.starts(with: [0, 0, 0, 0x0C]), h.matches("jP  \r\n", at: 4) { return .jp2 }
        if h.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) { return .j2k }
        if h.starts(with: [0xFF, 0x0A]) { return .jxl }
        if h.starts(with: [0, 0, 0, 0x0C]), h.matches("JXL \r\n", at: 4) { return .jxl }
        if StillImageHeaders.isICO(h, fileSize: fileSize) { return .ico }
        if h[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(h[1]), [0x20, 0x09, 0x0A, 0x0D].contains(h[2]),
            StillImageHeaders.pnmSize(h) != nil
        {
            return .pnm
        }
        return nil
    }

    /// WAVE, AIFF and MP3 (an ID3v2 tag, or two consecutive MPEG audio frame headers).
    static func sniffAudio(_ h: [UInt8]) -> ContainerKind? {
        guard h.count >= 12 else { return nil }
        if h.matches("RIFF"), h.matches("WAVE", at: 8) { return .wav }
        if h.matches("FORM"), h.matches("AIFF", at: 8) || h.matches("AIFC", at: 8) { return .aiff }
        if h.matches("ID3"), h[3] < 5 { return .mp3 }
        if let n = StillImageHeaders.mpegAudioFrameLength(h, at: 0), n > 0, StillImageHeaders.mpegAudioFrameLength(h, at: n) != nil { return .mp3 }
        return nil
    }

    static func sniffBMFF(_ h: [UInt8]) -> ContainerKind? {
        guard h.count >= 12 else { return nil }
        let type = BinaryReader.fourCC(h[4..<8])
        if type == "ftyp" {
            let size = Int(BinaryReader.uint(h, at: 0, size: 4, bigEndian: true) ?? 0)
            var brands = [BinaryReader.fourCC(h[8..<12])]
            var i = 16
            while i + 4 <= min(size, h.count) {
                brands.append(BinaryReader.fourCC(h[i..<i + 4]))
                i += 4
            }
            return kind(forBrands: brands)
        }
        // Old QuickTime files may start with other atoms.
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(type),
            BinaryReader.uint(h, at: 0, size: 4, bigEndian: true).map({ $0 >= 8 || $0 == 1 }) == true
        {
            return .mov
        }
        return nil
    }

    /// The container kind for an `ftyp` major brand followed by its compatible brands.
    public static func kind(forBrands brands: [String]) -> ContainerKind {
        let major = brands.first ?? ""
        switch major {
        case "crx ": return .cr3
        case "M4A ", "M4B ", "M4P ": return .m4a
        case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "mif2":
            if major == "mif1" || major == "msf1", brands.contains("avif") || brands.contains("avis") { return .avif }
            return .heic
        case "avif", "avis": return .avif
        case "qt  ": return .mov
        case "M4V ", "M4VH", "M4VP": return .m4v
        case _ where major.hasPrefix("3g"): return .threeGP
        default:
            if brands.contains("heic") || brands.contains("mif1") { return .heic }
            if brands.contains("qt  ") { return .mov }
            return .mp4
        }
    }

    static func sniffTIFF(_ h: [UInt8]) -> ContainerKind? {
        guard h.count >= 8 else { return nil }
        let ii = h[0] == 0x49 && h[1] == 0x49
        let mm = h[0] == 0x4D && h[1] == 0x4D
        guard ii || mm else { return nil }
        let magic = BinaryReader.uint(h, at: 2, size: 2, bigEndian: mm) ?? 0
        switch magic {
        case 42:
            if h.count >= 10, h[8] == 0x43, h[9] == 0x52 { return .cr2 }  // "CR" after the header
            return .tiff  // refined by the TIFF reader (DNG, NEF, ARW, PEF, SRW) from its structure
        case 43: return .tiff  // BigTIFF
        case 0x55: return .rw2  // Panasonic "IIU\0"
        case 0x4F52, 0x5352: return .orf  // Olympus "IIRO" / "IIRS"
        default: return nil
        }
    }

    static func sniffText(_ h: [UInt8]) -> ContainerKind {
        var i = 0
        if h.matches("\u{FEFF}") { i = 3 }  // UTF-8 BOM
        while i < h.count, [0x20, 0x09, 0x0A, 0x0D].contains(h[i]) { i += 1 }
        guard i < h.count else { return .unknown }
        if h[i] == UInt8(ascii: "{") || h[i] == UInt8(ascii: "[") { return .json }
        if h.matches("bplist00", at: i) { return .aae }
        if h[i] == UInt8(ascii: "<") {
            if textContains(h, from: i, "<plist") || textContains(h, from: i, "PropertyList") { return .aae }
            if textContains(h, from: i, "x:xmpmeta") || textContains(h, from: i, "<?xpacket") || textContains(h, from: i, "adobe:ns:meta") {
                return .xmp
            }
        }
        return .unknown
    }

    /// Whether the text of `h[from...]` (decoded as UTF-8) contains `needle`, as `String.contains` answers,
    /// searched by bytes (the string search over a decoded header was ~100k instructions a text file): a
    /// match between ASCII bytes (or the text's ends) is a match of whole characters, and a needle of ASCII
    /// without `K`, `;` or `` ` `` (whose singleton canonical equivalents are beyond ASCII), not starting with
    /// a line feed nor ending with a carriage return (CR LF is one character), has no other spelling. Anything else is left to the string search.
    static func textContains(_ h: [UInt8], from: Int, _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        let plain = !n.isEmpty && n.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "K") && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: "`") }
            && n[0] != 0x0A && n[n.count - 1] != 0x0D
        guard plain else { return decodedContains(h, from: from, needle) }
        guard let k = h.firstIndex(of: n, from: from) else { return false }
        let before = k > from ? h[k - 1] : 0
        let after = k + n.count < h.count ? h[k + n.count] : 0
        if before < 0x80 && after < 0x80 { return true }
        return decodedContains(h, from: from, needle)
    }

    /// The string search the byte search stands for: the standard library's `contains` over characters
    /// (this module does not import Foundation, whose `contains` compares differently, e.g. it finds "OK"
    /// in "OK\u{200D}" where the characters are "O" and "K\u{200D}").
    static func decodedContains(_ h: [UInt8], from: Int, _ needle: String) -> Bool {
        String(decoding: h[from...], as: UTF8.self).contains(needle)
    }
}

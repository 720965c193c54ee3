/// What a file is, by its magic bytes. The extension is never trusted; a disagreement is a warning.
public enum ContainerKind: String, Sendable, Codable, CaseIterable {
    case jpeg, png, gif, webp, tiff, dng
    case cr2, nef, arw, orf, rw2, pef, cr3, raf
    case heic, avif
    case mov, mp4, m4v, threeGP = "3gp"
    case avi, matroska, webm
    case mpegTS = "mpeg-ts"
    case aae, xmp, json
    case empty, unknown

    public var isImage: Bool {
        switch self {
        case .jpeg, .png, .gif, .webp, .tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .cr3, .raf, .heic, .avif:
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

    public var isRAW: Bool {
        switch self {
        case .dng, .cr2, .nef, .arw, .orf, .rw2, .pef, .cr3, .raf: return true
        default: return false
        }
    }

    public var isSidecar: Bool { self == .aae || self == .xmp || self == .json }

    /// Whether the ISO-BMFF reader applies.
    public var isBMFF: Bool {
        switch self {
        case .heic, .avif, .mov, .mp4, .m4v, .threeGP, .cr3: return true
        default: return false
        }
    }

    /// Whether the TIFF/EXIF structure starts at byte 0.
    public var isTIFFBased: Bool {
        switch self {
        case .tiff, .dng, .cr2, .nef, .arw, .orf, .rw2, .pef: return true
        default: return false
        }
    }

    /// Extensions that are normal for this kind (lower-case).
    public var extensions: Set<String> {
        switch self {
        case .jpeg: return ["jpg", "jpeg", "jpe", "jfif"]
        case .png: return ["png", "apng"]
        case .gif: return ["gif"]
        case .webp: return ["webp"]
        case .tiff: return ["tif", "tiff"]
        case .dng: return ["dng"]
        case .cr2: return ["cr2"]
        case .nef: return ["nef", "nrw"]
        case .arw: return ["arw", "srf", "sr2"]
        case .orf: return ["orf"]
        case .rw2: return ["rw2", "raw"]
        case .pef: return ["pef"]
        case .cr3: return ["cr3"]
        case .raf: return ["raf"]
        case .heic: return ["heic", "heif", "hif"]
        case .avif: return ["avif"]
        case .mov: return ["mov", "qt"]
        case .mp4: return ["mp4", "m4v", "mov"]
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
        if h.count >= 4, h[0] == 0x1A, h[1] == 0x45, h[2] == 0xDF, h[3] == 0xA3 {
            return h.firstIndex(of: Array("webm".utf8)) != nil ? .webm : .matroska
        }
        if h.count >= 189, h[0] == 0x47, h[188] == 0x47 { return .mpegTS }
        if h.count >= 389, h[4] == 0x47, h[196] == 0x47, h[388] == 0x47 { return .mpegTS }  // M2TS: 192-byte packets with a 4-byte timecode
        if let kind = sniffBMFF(h) { return kind }
        if let kind = sniffTIFF(h) { return kind }
        return sniffText(h)
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
            return .tiff  // refined by the TIFF reader (DNG, NEF, ARW, PEF) from its tags
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
            let text = String(decoding: h[i...], as: UTF8.self)
            if text.contains("<plist") || text.contains("PropertyList") { return .aae }
            if text.contains("x:xmpmeta") || text.contains("<?xpacket") || text.contains("adobe:ns:meta") { return .xmp }
        }
        return .unknown
    }
}

import CExif

/// What libexif gives us from one EXIF block: standard IFDs (0, Exif, GPS) and the raw MakerNote bytes.
struct ExifReading: Sendable {
    var exif: ExifFacts
    var dates = DateFacts()
    var camera = CameraFacts()
    var location: Sourced<GeoLocation>?
    var orientation: Sourced<Int>?
    /// TIFF IFD0 image size (RAW/TIFF files), when present.
    var imageWidth: Sourced<Int>?
    var imageHeight: Sourced<Int>?
    /// DNGVersion (0xC612) present: the TIFF is a DNG.
    var isDNG = false
    var makerNote: [UInt8]?
    /// Where the image data referenced by IFD0/IFD1 (strips, JPEG thumbnail) ends, for truncation checks.
    var dataEnd: UInt64?
    var byteOrder: String = "MM"
}

/// Reads standard EXIF through libexif 0.6.24.
///
/// libexif is used for the standard IFDs only; its Apple maker-note parser is wrong (reference C1) so the
/// raw MakerNote bytes are handed to `AppleMakerNoteReader`. libexif caps a block at 0xFFFE bytes (the
/// size of a JPEG APP1 segment), so TIFF-based RAW files are read from their first 64 KiB.
enum ExifReader {
    /// The largest EXIF block libexif will look at.
    static let maxBlock = 0xFFFE + 6

    /// What the first IFD of a block holds. Canon CR3 stores the Exif and GPS IFDs as separate TIFF
    /// blocks (CMT2, CMT4) whose IFD0 *is* that IFD.
    enum FirstIFD { case ifd0, exif, gps }

    /// Reads an EXIF block that starts with `Exif\0\0` or directly with a TIFF header.
    static func read(_ block: [UInt8], container: String, firstIFD: FirstIFD = .ifd0) throws(ProbeError) -> ExifReading {
        var data = block
        if !data.matches("Exif\0\0") {
            guard data.matches("II*\0") || data.matches("MM\0*") else {
                throw ProbeError(.malformed, "EXIF block in \(container) has neither an Exif header nor a TIFF header")
            }
            data = Array("Exif\0\0".utf8) + data
        }
        guard data.count >= 14 else { throw ProbeError(.truncated, "EXIF block in \(container) is \(data.count) bytes") }

        // libexif allocates from this thread's arena for the read (an entry, its data, each IFD's entry array
        // grown one at a time: ~100 callocs and frees per photo), all given back when it ends.
        let mark = shoebox_exif_arena_mark()
        guard let ed = shoebox_exif_data_new_arena() else {
            shoebox_exif_arena_release(mark)
            throw ProbeError(.library, "out of memory", function: "exif_data_new_mem")
        }
        defer {
            exif_data_unref(ed)
            shoebox_exif_arena_release(mark)
        }
        exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(ed, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_set_option(ed, EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE)
        data.withUnsafeBufferPointer { buf in
            exif_data_load_data(ed, buf.baseAddress, UInt32(buf.count))
        }
        let order = exif_data_get_byte_order(ed)
        let ifds = ed.pointee.ifd
        let ifd0 = ifds.0
        let ifdExif = firstIFD == .exif ? ifds.0 : ifds.2
        let ifdGPS = firstIFD == .gps ? ifds.0 : ifds.3
        let ifdCount = [ifds.0, ifds.1, ifds.2, ifds.3, ifds.4].reduce(0) { $0 + Int($1?.pointee.count ?? 0) }
        guard ifdCount > 0 else {
            throw ProbeError(.malformed, "libexif found no EXIF entries in \(container)", function: "exif_data_load_data")
        }

        var r = ExifReading(exif: ExifFacts(container: container))
        r.byteOrder = order == EXIF_BYTE_ORDER_INTEL ? "II" : "MM"
        let lib = "(libexif)"
        func entry(_ c: UnsafeMutablePointer<ExifContent>?, _ tag: ExifTag) -> Entry? {
            guard let c, let e = exif_content_get_entry(c, tag) else { return nil }
            return Entry(e.pointee, order: order)
        }
        func src(_ tag: ExifTag, _ name: String) -> String { ExifReader.source(tag: UInt32(tag.rawValue), name) }
        func text(_ c: UnsafeMutablePointer<ExifContent>?, _ tag: ExifTag, _ name: String) -> Sourced<String>? {
            guard let s = entry(c, tag)?.string, !s.isEmpty else { return nil }
            return Sourced(s, src(tag, name))
        }
        func int(_ c: UnsafeMutablePointer<ExifContent>?, _ tag: ExifTag, _ name: String) -> Sourced<Int>? {
            guard let v = entry(c, tag)?.integers.first else { return nil }
            return Sourced(Int(v), src(tag, name))
        }

        r.camera.make = text(ifd0, EXIF_TAG_MAKE, "Make")
        r.camera.model = text(ifd0, EXIF_TAG_MODEL, "Model")
        r.camera.software = text(ifd0, EXIF_TAG_SOFTWARE, "Software")
        r.camera.lensMake = text(ifdExif, EXIF_TAG_LENS_MAKE, "LensMake")
        r.camera.lensModel = text(ifdExif, EXIF_TAG_LENS_MODEL, "LensModel")
        r.orientation = int(ifd0, EXIF_TAG_ORIENTATION, "Orientation")
        r.imageWidth = int(ifd0, EXIF_TAG_IMAGE_WIDTH, "ImageWidth")
        r.imageHeight = int(ifd0, EXIF_TAG_IMAGE_LENGTH, "ImageHeight")
        r.isDNG = ifd0.flatMap { exif_content_get_entry($0, ExifTag(rawValue: 0xC612)) } != nil

        r.exif.customRendered = int(ifdExif, EXIF_TAG_CUSTOM_RENDERED, "CustomRendered")
        r.exif.exifPixelWidth = int(ifdExif, EXIF_TAG_PIXEL_X_DIMENSION, "ExifImageWidth")
        r.exif.exifPixelHeight = int(ifdExif, EXIF_TAG_PIXEL_Y_DIMENSION, "ExifImageHeight")
        r.exif.imageUniqueID = text(ifdExif, EXIF_TAG_IMAGE_UNIQUE_ID, "ImageUniqueID")
        r.exif.imageDescription = text(ifd0, EXIF_TAG_IMAGE_DESCRIPTION, "ImageDescription")
        r.exif.focalLengthIn35mm = int(ifdExif, EXIF_TAG_FOCAL_LENGTH_IN_35MM_FILM, "FocalLengthIn35mmFormat")
        if let uc = entry(ifdExif, EXIF_TAG_USER_COMMENT)?.userComment, !uc.isEmpty {
            r.exif.userComment = Sourced(uc, src(EXIF_TAG_USER_COMMENT, "UserComment"))
        }

        // Dates: the local time, its sub-seconds and its offset, each from its own tag; the source names the
        // tags the value was made of ("EXIF DateTimeOriginal (libexif)" for a date without either).
        func date(
            _ dt: ExifTag, _ sub: ExifTag, _ off: ExifTag, _ names: (date: String, sub: String, offset: String),
            in c: UnsafeMutablePointer<ExifContent>?
        ) -> Sourced<FileDate>? {
            guard let raw = entry(c, dt)?.string ?? entry(ifd0, dt)?.string,
                let d = ExifDate.parseNamingParts(raw, subSeconds: entry(ifdExif, sub)?.string, offset: entry(ifdExif, off)?.string)
            else { return nil }
            let name = names.date + (d.subSeconds ? " + " + names.sub : "") + (d.offset ? " + " + names.offset : "")
            return Sourced(d.date, "EXIF \(name) \(lib)")
        }
        r.dates.original = date(
            EXIF_TAG_DATE_TIME_ORIGINAL, EXIF_TAG_SUB_SEC_TIME_ORIGINAL, ExifTag(rawValue: 0x9011),
            ("DateTimeOriginal", "SubSecTimeOriginal", "OffsetTimeOriginal"), in: ifdExif)
        r.dates.digitized = date(
            EXIF_TAG_DATE_TIME_DIGITIZED, EXIF_TAG_SUB_SEC_TIME_DIGITIZED, ExifTag(rawValue: 0x9012),
            ("CreateDate", "SubSecTimeDigitized", "OffsetTimeDigitized"), in: ifdExif)
        r.dates.modified = date(
            EXIF_TAG_DATE_TIME, EXIF_TAG_SUB_SEC_TIME, ExifTag(rawValue: 0x9010),
            ("ModifyDate", "SubSecTime", "OffsetTime"), in: ifd0)

        // GPS.
        if let lat = entry(ifdGPS, ExifTag(rawValue: 0x0002))?.rationals, lat.count >= 1,
            let lon = entry(ifdGPS, ExifTag(rawValue: 0x0004))?.rationals, lon.count >= 1
        {
            let latRef = entry(ifdGPS, ExifTag(rawValue: 0x0001))?.string ?? "N"
            let lonRef = entry(ifdGPS, ExifTag(rawValue: 0x0003))?.string ?? "E"
            var la = dms(lat), lo = dms(lon)
            if latRef.hasPrefix("S") { la = -la }
            if lonRef.hasPrefix("W") { lo = -lo }
            var alt: Double?
            if let a = entry(ifdGPS, ExifTag(rawValue: 0x0006))?.rationals.first, a.isFinite {
                let below = entry(ifdGPS, ExifTag(rawValue: 0x0005))?.integers.first == 1
                alt = below ? -a : a
            }
            if la.isFinite, lo.isFinite, abs(la) <= 90, abs(lo) <= 180, !(la == 0 && lo == 0 && lat.allSatisfy { $0 == 0 }) {
                r.location = Sourced(
                    GeoLocation(latitude: la, longitude: lo, altitude: alt),
                    "EXIF GPS IFD GPSLatitude/GPSLongitude/GPSAltitude \(lib)")
            }
        }
        if let ds = entry(ifdGPS, ExifTag(rawValue: 0x001D))?.string,
            let ts = entry(ifdGPS, ExifTag(rawValue: 0x0007))?.rationals, ts.count == 3,
            ts.allSatisfy({ $0.isFinite && $0 >= 0 && $0 < 61 })
        {
            let h = Int(ts[0]), m = Int(ts[1]), sec = ts[2]
            let whole = Int(sec)
            let frac = sec - Double(whole)
            var local = ds.replacingColons() + "T" + FileDate.twoDigits(h) + ":" + FileDate.twoDigits(m) + ":"
                + FileDate.twoDigits(whole)
            if frac > 0.0005 { local += "." + String(Int((frac * 1000).rounded())).leftPadded(3) }
            if ExifDate.isPlausible(local) {
                r.dates.gps = Sourced(FileDate(local: local, offsetSeconds: 0), "EXIF GPSDateStamp + GPSTimeStamp (UTC) \(lib)")
            }
        }

        // The end of the image data IFD0 and IFD1 point at (offsets are TIFF-relative).
        var end: UInt64 = 0
        for ifd in [ifd0, ifds.1] {
            if let offs = entry(ifd, EXIF_TAG_STRIP_OFFSETS)?.integers, let counts = entry(ifd, EXIF_TAG_STRIP_BYTE_COUNTS)?.integers {
                for (o, c) in zip(offs, counts) where o >= 0 && c >= 0 { end = max(end, UInt64(o) + UInt64(c)) }
            }
            if let o = entry(ifd, EXIF_TAG_JPEG_INTERCHANGE_FORMAT)?.integers.first,
                let c = entry(ifd, EXIF_TAG_JPEG_INTERCHANGE_FORMAT_LENGTH)?.integers.first, o >= 0, c >= 0
            {
                end = max(end, UInt64(o) + UInt64(c))
            }
        }
        if end > 0 { r.dataEnd = end }

        if let mn = entry(ifdExif, EXIF_TAG_MAKER_NOTE), !mn.bytes.isEmpty {
            r.makerNote = mn.bytes
            r.exif.makerNoteSize = mn.bytes.count
        }
        return r
    }

    static func dms(_ v: [Double]) -> Double {
        var d = v[0]
        if v.count > 1, v[1].isFinite { d += v[1] / 60 }
        if v.count > 2, v[2].isFinite { d += v[2] / 3600 }
        return d
    }

    /// A copy of one libexif entry's value, decoded by format in the block's byte order.
    struct Entry {
        let format: ExifFormat
        let components: Int
        let bytes: [UInt8]
        let bigEndian: Bool

        init(_ e: ExifEntry, order: ExifByteOrder) {
            format = e.format
            components = Int(e.components)
            bigEndian = order == EXIF_BYTE_ORDER_MOTOROLA
            if let d = e.data, e.size > 0 {
                bytes = Array(UnsafeBufferPointer(start: d, count: Int(e.size)))
            } else {
                bytes = []
            }
        }

        var string: String? {
            guard format == EXIF_FORMAT_ASCII || format == EXIF_FORMAT_UNDEFINED || format == EXIF_FORMAT_BYTE else {
                return nil
            }
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<end], as: UTF8.self).trimmingWhitespace()
        }

        var integers: [Int64] {
            var out: [Int64] = []
            let size: Int
            let signed: Bool
            switch format {
            case EXIF_FORMAT_BYTE, EXIF_FORMAT_UNDEFINED: size = 1; signed = false
            case EXIF_FORMAT_SBYTE: size = 1; signed = true
            case EXIF_FORMAT_SHORT: size = 2; signed = false
            case EXIF_FORMAT_SSHORT: size = 2; signed = true
            case EXIF_FORMAT_LONG: size = 4; signed = false
            case EXIF_FORMAT_SLONG: size = 4; signed = true
            default: return []
            }
            var i = 0
            while i + size <= bytes.count && out.count < max(components, 1) {
                let u = BinaryReader.uint(bytes, at: i, size: size, bigEndian: bigEndian) ?? 0
                if signed {
                    let shift = UInt64(64 - size * 8)
                    out.append(Int64(bitPattern: u << shift) >> Int64(shift))
                } else {
                    out.append(Int64(u))
                }
                i += size
            }
            return out
        }

        var rationals: [Double] {
            guard format == EXIF_FORMAT_RATIONAL || format == EXIF_FORMAT_SRATIONAL else {
                return integers.map(Double.init)
            }
            var out: [Double] = []
            var i = 0
            while i + 8 <= bytes.count {
                let n = BinaryReader.uint(bytes, at: i, size: 4, bigEndian: bigEndian) ?? 0
                let d = BinaryReader.uint(bytes, at: i + 4, size: 4, bigEndian: bigEndian) ?? 0
                if format == EXIF_FORMAT_SRATIONAL {
                    let sn = Double(Int32(bitPattern: UInt32(truncatingIfNeeded: n)))
                    let sd = Double(Int32(bitPattern: UInt32(truncatingIfNeeded: d)))
                    out.append(sd == 0 ? (sn == 0 ? 0 : .nan) : sn / sd)
                } else {
                    // 0/0 is how many writers say "0" (GPS seconds); n/0 is no value.
                    out.append(d == 0 ? (n == 0 ? 0 : .nan) : Double(n) / Double(d))
                }
                i += 8
            }
            return out
        }

        /// EXIF UserComment: an 8-byte character-code prefix, then the text.
        var userComment: String? {
            guard bytes.count >= 8 else { return string }
            let code = bytes[0..<8]
            let body = Array(bytes[8...])
            if code.elementsEqual(Array("UNICODE\0".utf8)) {
                var units: [UInt16] = []
                var i = 0
                while i + 1 < body.count {
                    let u = UInt16(BinaryReader.uint(body, at: i, size: 2, bigEndian: bigEndian) ?? 0)
                    if u == 0 { break }
                    units.append(u)
                    i += 2
                }
                return String(decoding: units, as: UTF16.self).trimmingWhitespace()
            }
            let end = body.firstIndex(of: 0) ?? body.count
            return String(decoding: body[..<end], as: UTF8.self).trimmingWhitespace()
        }
    }
}

/// EXIF-style date text (`YYYY:MM:DD HH:MM:SS`) to `FileDate`.
extension ExifReader {
    /// `EXIF 0x10F Make (libexif)`: a tag's source text (uppercase hex, no padding), made in one allocation
    /// (the interpolation was ~2,600 instructions, eight per photo).
    static func source(tag: UInt32, _ name: String) -> String {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            var v = tag
            repeat {
                let x = UInt8(truncatingIfNeeded: v & 0xF)
                d[7 - count] = x < 10 ? UInt8(ascii: "0") + x : UInt8(ascii: "A") + x - 10
                count += 1
                v >>= 4
            } while v != 0
        }
        let head: StaticString = "EXIF 0x", tail: StaticString = " (libexif)"
        var n = name
        return n.withUTF8 { nameBytes in
            withUnsafeBytes(of: &digits) { d in
                let hex = UnsafeRawBufferPointer(rebasing: d[(8 - count)...])
                let total = head.utf8CodeUnitCount + hex.count + 1 + nameBytes.count + tail.utf8CodeUnitCount
                return String(unsafeUninitializedCapacity: total) { out in
                    var i = 0
                    func put(_ b: UnsafeRawBufferPointer) {
                        for byte in b {
                            out[i] = byte
                            i += 1
                        }
                    }
                    put(UnsafeRawBufferPointer(start: head.utf8Start, count: head.utf8CodeUnitCount))
                    put(hex)
                    out[i] = UInt8(ascii: " ")
                    i += 1
                    put(UnsafeRawBufferPointer(nameBytes))
                    put(UnsafeRawBufferPointer(start: tail.utf8Start, count: tail.utf8CodeUnitCount))
                    return i
                }
            }
        }
    }
}

enum ExifDate {
    /// Parses the date, appending sub-seconds and the `±HH:MM` offset when given.
    static func parse(_ raw: String, subSeconds: String?, offset: String?) -> FileDate? {
        parseNamingParts(raw, subSeconds: subSeconds, offset: offset)?.date
    }

    /// `parse`, telling whether the sub-seconds and the offset given were used (a fraction or an offset
    /// written in the date's own text is the date tag's).
    static func parseNamingParts(_ raw: String, subSeconds: String?, offset: String?) -> (date: FileDate, subSeconds: Bool, offset: Bool)? {
        let t = raw.trimmingWhitespace()
        let chars = Array(t.utf8)
        guard chars.count >= 19 else { return nil }
        // YYYY:MM:DD HH:MM:SS, with ':' or '-' in the date part and ' ' or 'T' between.
        var local = String(decoding: chars[0..<10], as: UTF8.self).replacingColons()
        local += "T" + String(decoding: chars[11..<19], as: UTF8.self)
        guard isPlausible(local) else { return nil }
        var usedSub = false
        if let s = subSeconds?.trimmingWhitespace(), !s.isEmpty, s.allSatisfy(\.isNumber) {
            local += "." + s
            usedSub = true
        } else if chars.count > 20, chars[19] == UInt8(ascii: "."),
            let fracEnd = chars[20...].firstIndex(where: { !(48...57).contains($0) }) ?? Optional(chars.count),
            fracEnd > 20
        {
            local += "." + String(decoding: chars[20..<fracEnd], as: UTF8.self)
        }
        var off = offset.flatMap(parseOffset)
        let usedOffset = off != nil
        if off == nil, chars.count > 19 {
            // An offset written inline after the time (XMP/QuickTime style).
            let tail = String(decoding: chars[19...], as: UTF8.self)
            if let idx = tail.firstIndex(where: { $0 == "+" || $0 == "-" || $0 == "Z" }) {
                off = parseOffset(String(tail[idx...]))
            }
        }
        return (FileDate(local: local, offsetSeconds: off), usedSub, usedOffset)
    }

    /// `+05:30`, `-0500`, `Z` → seconds east of UTC.
    static func parseOffset(_ s: String) -> Int? {
        let t = s.trimmingWhitespace()
        if t == "Z" { return 0 }
        let c = Array(t.utf8)
        guard c.count >= 3, c[0] == UInt8(ascii: "+") || c[0] == UInt8(ascii: "-") else { return nil }
        let digits = c[1...].filter { (48...57).contains($0) }.map { Int($0 - 48) }
        guard digits.count == 4 || digits.count == 2 else { return nil }
        let h = digits[0] * 10 + digits[1]
        let m = digits.count == 4 ? digits[2] * 10 + digits[3] : 0
        guard h <= 14, m < 60 else { return nil }
        let v = (h * 3600 + m * 60)
        return c[0] == UInt8(ascii: "-") ? -v : v
    }

    /// Rejects zeros (`0000:00:00`) and out-of-range fields.
    static func isPlausible(_ local: String) -> Bool {
        let c = Array(local.utf8)
        guard c.count >= 19 else { return false }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard (48...57).contains(c[i]) else { return nil }
                v = v * 10 + Int(c[i] - 48)
            }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13),
            let mi = num(14..<16), let s = num(17..<19)
        else { return false }
        return y >= 1800 && y <= 2200 && (1...12).contains(mo) && (1...31).contains(d) && h < 24 && mi < 60 && s < 61
    }
}

extension String {
    /// `2023:03:08` → `2023-03-08` (only the date part is given).
    func replacingColons() -> String {
        // ASCII (every well-formed date): byte for byte; otherwise a character at a time, as before.
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return String(map { $0 == ":" ? "-" : $0 }) }
        return String(decoding: utf8.map { $0 == UInt8(ascii: ":") ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
    }

    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

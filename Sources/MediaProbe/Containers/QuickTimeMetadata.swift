/// Decoding of QuickTime metadata: `keys` tables, `ilst` items with typed `data` boxes, `udta` strings.
enum QuickTimeMetadata {
    /// Well-known data types (QuickTime File Format, "Well-known types").
    static func decode(type: UInt32, _ v: ArraySlice<UInt8>) -> MetadataValue {
        let b = Array(v)
        switch type {
        case 1:
            return .string(String(decoding: trimNULs(b), as: UTF8.self))
        case 2:
            var units: [UInt16] = []
            units.reserveCapacity(b.count / 2)
            var i = 0
            while i + 1 < b.count {
                units.append(UInt16(b[i]) << 8 | UInt16(b[i + 1]))
                i += 2
            }
            while units.last == 0 { units.removeLast() }
            return .string(String(decoding: units, as: UTF16.self))
        case 21, 65, 66, 67, 74:
            guard [1, 2, 3, 4, 8].contains(b.count), let u = BinaryReader.uint(b, at: 0, size: b.count, bigEndian: true) else {
                return .data(type: type, count: b.count)
            }
            let shift = UInt64(64 - 8 * b.count)
            return .int(Int64(bitPattern: u << shift) >> Int64(shift))
        case 22, 75, 76, 77, 78:
            guard [1, 2, 3, 4, 8].contains(b.count), let u = BinaryReader.uint(b, at: 0, size: b.count, bigEndian: true) else {
                return .data(type: type, count: b.count)
            }
            return .uint(u)
        case 23:
            guard b.count == 4, let u = BinaryReader.uint(b, at: 0, size: 4, bigEndian: true) else { return .data(type: type, count: b.count) }
            return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: u))))
        case 24:
            guard b.count == 8, let u = BinaryReader.uint(b, at: 0, size: 8, bigEndian: true) else { return .data(type: type, count: b.count) }
            return .float(Double(bitPattern: u))
        case 0:
            if let s = printableUTF8(b) { return .string(s) }
            return .data(type: type, count: b.count)
        default:
            return .data(type: type, count: b.count)
        }
    }

    /// 3GPP `loci` (TS 26.244): full box, language, name, role, then longitude, latitude and altitude as
    /// signed 16.16 fixed point. Returned as ISO 6709 text (`+52.36929+006.67609+10.53/`).
    static func location(_ buf: BoxBuffer, _ box: BMFFBox, path: String) -> String? {
        var r = buf.reader(box, what: path, " loci")
        do {
            _ = try r.fullBoxHeader()
            _ = try r.u16()  // language
            _ = try r.cString(maxLength: 1024)  // place name
            _ = try r.u8()  // role
            let lon = Double(try r.i32()) / 65536
            let lat = Double(try r.i32()) / 65536
            let alt = Double(try r.i32()) / 65536
            guard abs(lat) <= 90, abs(lon) <= 180 else { return nil }
            func f(_ v: Double, _ digits: Int) -> String {
                let scaled = (v * 100_000).rounded() / 100_000
                return (v < 0 ? "" : "+") + String(scaled)
            }
            return f(lat, 2) + f(lon, 3) + f(alt, 0) + "/"
        } catch {
            return nil
        }
    }

    static func trimNULs(_ b: [UInt8]) -> ArraySlice<UInt8> {
        var e = b.count
        while e > 0 && b[e - 1] == 0 { e -= 1 }
        return b[0..<e]
    }

    /// Text when the bytes are valid UTF-8 without control characters (other than tab/newline).
    static func printableUTF8(_ b: [UInt8]) -> String? {
        let t = trimNULs(b)
        guard !t.isEmpty, t.allSatisfy({ $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }), !t.contains(0x7F) else { return nil }
        let s = String(decoding: t, as: UTF8.self)
        guard !s.unicodeScalars.contains("\u{FFFD}") else { return nil }
        return s
    }

    /// Key names of a `keys` box (index 0 = key 1). Entries whose namespace is not `mdta` keep their
    /// namespace as a prefix (`udta:©xyz`).
    static func keys(_ buf: BoxBuffer, _ box: BMFFBox, path: String, warnings: inout [String]) -> [String] {
        var r = buf.reader(box, what: path, "/keys")
        var out: [String] = []
        do {
            _ = try r.fullBoxHeader()
            let count = try r.u32()
            // Each entry needs at least 8 bytes: never trust the count beyond what the box holds.
            let possible = r.remaining / 8
            if Int(count) > possible {
                warnings.append("\(path)/keys: entry count \(count) exceeds what \(r.remaining) bytes can hold")
            }
            for _ in 0..<min(Int(count), possible) {
                let size = try r.u32()
                guard size >= 8, Int(size) - 4 <= r.remaining else {
                    warnings.append("\(path)/keys: entry \(out.count + 1) has bad size \(size)")
                    break
                }
                let ns = try r.fourCC()
                let name = String(decoding: try r.bytes(Int(size) - 8), as: UTF8.self)
                out.append(ns == "mdta" ? name : "\(ns):\(name)")
            }
        } catch {
            warnings.append("\(path)/keys: \(error.message)")
        }
        return out
    }

    /// Items of an `ilst` whose item types are 1-based indices into `keys` (or four-character codes
    /// when `keys` is nil, as in iTunes-style `mdir` lists).
    static func items(_ buf: BoxBuffer, _ ilst: BMFFBox, keys: [String]?, path: String, warnings: inout [String]) -> [MetadataItem] {
        var out: [MetadataItem] = []
        for item in buf.children(of: ilst, path: "\(path)/ilst", warnings: &warnings) {
            let key: String
            if let keys {
                let idx = Int(item.typeCode)
                if idx >= 1 && idx <= keys.count {
                    key = keys[idx - 1]
                } else {
                    warnings.append("\(path)/ilst: item refers to key \(item.typeCode), table has \(keys.count)")
                    key = "#\(item.typeCode)"
                }
            } else {
                key = item.type
            }
            for d in buf.children(of: item, path: "\(path)/ilst/\(key)", warnings: &warnings) where d.type == "data" {
                var r = buf.reader(d, what: "\(path)/ilst/\(key)/data")
                guard let indicator = try? r.u32(), (try? r.u32()) != nil else {
                    warnings.append("\(path)/ilst/\(key): data box is truncated")
                    continue
                }
                let type = indicator & 0x00FF_FFFF
                out.append(MetadataItem(key: key, value: decode(type: type, r.rest()), source: path))
            }
        }
        return out
    }

    /// A `udta` entry: a `data`-box list, or QuickTime international text (size16, language16, text).
    static func userDataItem(_ buf: BoxBuffer, _ box: BMFFBox, path: String, warnings: inout [String]) -> [MetadataItem] {
        if box.type == "loci", let s = location(buf, box, path: path) {
            return [MetadataItem(key: "loci", value: .string(s), source: path)]
        }
        let p = box.payload
        if p.count >= 16, buf.bytes.matches("data", at: p.lowerBound + 4) {
            var ws: [String] = []
            let kids = buf.children(of: box, path: path, warnings: &ws)
            var out: [MetadataItem] = []
            for d in kids where d.type == "data" {
                var r = buf.reader(d, what: path, "/data")
                guard let indicator = try? r.u32(), (try? r.u32()) != nil else { continue }
                out.append(MetadataItem(key: box.type, value: decode(type: indicator & 0x00FF_FFFF, r.rest()), source: path))
            }
            if !out.isEmpty { return out }
        }
        var r = buf.reader(box, what: path)
        guard let len = try? r.u16(), (try? r.u16()) != nil, Int(len) <= r.remaining, let text = try? r.bytes(Int(len)) else {
            let raw = Array(buf.bytes[p])
            if let s = printableUTF8(raw) { return [MetadataItem(key: box.type, value: .string(s), source: path)] }
            return [MetadataItem(key: box.type, value: .data(type: 0, count: raw.count), source: path)]
        }
        let value: MetadataValue = printableUTF8(Array(text)).map { .string($0) } ?? .data(type: 0, count: text.count)
        return [MetadataItem(key: box.type, value: value, source: path)]
    }
}

/// Parses a loaded top-level HEIF `meta` box into `HEIFFacts`.
struct HEIFMetaParser {
    struct Extent: Sendable, Equatable {
        var offset: UInt64
        var length: UInt64
    }

    /// An item's location: its first extent (the only one `itemRange` uses) and how many it declares.
    struct Location: Sendable {
        var method: Int
        var baseOffset: UInt64
        var firstExtent: Extent?
        var extentCount: Int
    }

    let buf: BoxBuffer
    let source: any ByteSource
    var warnings: [String] = []
    /// Item extents outside the file: the file was cut.
    var damage: [String] = []

    var locations: [UInt32: Location] = [:]
    /// Property boxes of `ipco`, in order (index 1 = first).
    var properties: [BMFFBox] = []
    /// Item id → its 1-based property indices: a run of `associationStore` (one array for every item, not
    /// one per item: those were ~36k allocations of a 3,000-file first ingest).
    var associations: [UInt32: Range<Int>] = [:]
    var associationStore: [Int] = []
    /// (reference type, from, to).
    var references: [(type: String, from: UInt32, to: [UInt32])] = []
    /// File offset of the `idat` payload.
    var idat: ByteRange?

    static let maxItems = 100_000

    init(buf: BoxBuffer, source: any ByteSource) {
        self.buf = buf
        self.source = source
    }

    mutating func parse() -> HEIFFacts {
        var facts = HEIFFacts()
        let kids = buf.children(min(4, buf.bytes.count)..<buf.bytes.count, path: "meta", warnings: &warnings)
        for box in kids {
            switch box.type {
            case "pitm":
                var r = buf.reader(box, what: "meta/pitm")
                if let (v, _) = try? r.fullBoxHeader() {
                    facts.primaryItemID = v == 0 ? (try? r.u16()).map(UInt32.init) : try? r.u32()
                }
            case "iinf": facts.items = itemInfos(box)
            case "iloc": parseLocations(box)
            case "iref": parseReferences(box)
            case "iprp": parseProperties(box)
            case "idat": idat = ByteRange(offset: buf.fileOffset(box.payload.lowerBound), length: UInt64(box.payload.count))
            case "grpl": facts.entityGroups = entityGroups(box)
            default: break
            }
        }
        // Primary item properties.
        if let primary = facts.primaryItemID {
            for i in propertyIndices(primary) {
                guard let p = property(i) else { continue }
                var r = buf.reader(p, what: "meta/iprp/ipco/", p.type)
                switch p.type {
                case "ispe" where facts.width == nil:
                    if (try? r.fullBoxHeader()) != nil, let w = try? r.u32(), let h = try? r.u32() {
                        facts.width = Int(w)
                        facts.height = Int(h)
                    }
                case "irot" where facts.rotation == nil:
                    if let v = try? r.u8() { facts.rotation = Int(v & 3) }
                case "imir" where facts.mirror == nil:
                    if let v = try? r.u8() { facts.mirror = Int(v & 1) }
                case "colr" where facts.transferCharacteristics == nil:
                    facts.transferCharacteristics = transferCharacteristics(of: primary)
                default: break
                }
            }
        }
        // A grid primary often carries no nclx of its own: use its first tile's.
        if facts.transferCharacteristics == nil, let primary = facts.primaryItemID,
            let tile = references.first(where: { $0.type == "dimg" && $0.from == primary })?.to.first
        {
            facts.transferCharacteristics = transferCharacteristics(of: tile)
        }
        // Auxiliary images: every item with an auxC property, and what its auxl reference points to.
        for item in facts.items {
            for i in propertyIndices(item.id) {
                guard let p = property(i), p.type == "auxC" else { continue }
                var r = buf.reader(p, what: "meta/iprp/ipco/auxC")
                guard (try? r.fullBoxHeader()) != nil, let urn = try? r.cString(maxLength: 1024) else { continue }
                let target = references.first { $0.type == "auxl" && $0.from == item.id }?.to.first
                facts.auxiliaries.append(HEIFAuxiliary(itemID: item.id, type: urn, forItem: target))
            }
        }
        // Exif and XMP items.
        for item in facts.items {
            if item.type == "Exif", facts.exifRange == nil, let range = itemRange(item.id, what: "Exif item \(item.id)") {
                facts.exifRange = exifTIFFRange(range, item: item.id)
            } else if item.type == "mime", item.contentType == "application/rdf+xml", facts.xmpRange == nil {
                facts.xmpRange = itemRange(item.id, what: "XMP item \(item.id)")
            }
        }
        return facts
    }

    // MARK: iinf

    mutating func itemInfos(_ box: BMFFBox) -> [HEIFItem] {
        var r = buf.reader(box, what: "meta/iinf")
        guard let (v, _) = try? r.fullBoxHeader() else { return [] }
        let skip = v == 0 ? 6 : 8
        var out: [HEIFItem] = []
        for infe in buf.children(of: box, skip: skip, path: "meta/iinf", warnings: &warnings) where infe.type == "infe" {
            if out.count >= Self.maxItems { break }
            var r = buf.reader(infe, what: "meta/iinf/infe")
            do {
                let (version, flags) = try r.fullBoxHeader()
                var item: HEIFItem
                if version >= 2 {
                    let id = version == 2 ? UInt32(try r.u16()) : try r.u32()
                    _ = try r.u16()
                    let type = try r.fourCC()
                    item = HEIFItem(id: id, type: type, hidden: flags & 1 != 0)
                    let name = try r.cString()
                    item.name = name.isEmpty ? nil : name
                    if type == "mime", !r.isAtEnd { item.contentType = try r.cString() }
                } else {
                    let id = UInt32(try r.u16())
                    _ = try r.u16()
                    item = HEIFItem(id: id, type: "", hidden: flags & 1 != 0)
                    let name = try r.cString()
                    item.name = name.isEmpty ? nil : name
                    if !r.isAtEnd { item.contentType = try r.cString() }
                }
                out.append(item)
            } catch {
                warnings.append(error.message)
            }
        }
        return out
    }

    // MARK: iloc

    mutating func parseLocations(_ box: BMFFBox) {
        var r = buf.reader(box, what: "meta/iloc")
        do throws(ProbeError) {
            let (version, _) = try r.fullBoxHeader()
            guard version <= 2 else {
                warnings.append("meta/iloc: version \(version) not supported")
                return
            }
            let a = try r.u8()
            let b = try r.u8()
            let offsetSize = Int(a >> 4), lengthSize = Int(a & 15), baseSize = Int(b >> 4)
            let indexSize = version >= 1 ? Int(b & 15) : 0
            for s in [offsetSize, lengthSize, baseSize, indexSize] where ![0, 4, 8].contains(s) {
                warnings.append("meta/iloc: field size \(s) is not 0, 4 or 8")
                return
            }
            let count = version < 2 ? Int(try r.u16()) : Int(try r.u32())
            locations.reserveCapacity(min(count, Self.maxItems, r.remaining / 4))
            for _ in 0..<min(count, Self.maxItems) {
                let id = version < 2 ? UInt32(try r.u16()) : try r.u32()
                var method = 0
                if version >= 1 { method = Int(try r.u16() & 15) }
                _ = try r.u16()
                let base = baseSize > 0 ? try r.uint(baseSize) : 0
                let extentCount = Int(try r.u16())
                let per = indexSize + offsetSize + lengthSize
                if per > 0 && extentCount > r.remaining / per {
                    throw ProbeError(.truncated, "meta/iloc: item \(id) declares \(extentCount) extents, the box is too short")
                }
                var first: Extent?
                for _ in 0..<extentCount {
                    if indexSize > 0 { _ = try r.uint(indexSize) }
                    let o = offsetSize > 0 ? try r.uint(offsetSize) : 0
                    let l = lengthSize > 0 ? try r.uint(lengthSize) : 0
                    if first == nil { first = Extent(offset: o, length: l) }
                }
                locations[id] = Location(method: method, baseOffset: base, firstExtent: first, extentCount: extentCount)
            }
        } catch {
            warnings.append(error.message)
        }
    }

    /// The file range of a single-extent item (construction method 0 or 1), checked against the file.
    mutating func itemRange(_ id: UInt32, what: String) -> ByteRange? {
        guard let loc = locations[id] else {
            warnings.append("\(what): no iloc entry")
            return nil
        }
        guard let first = loc.firstExtent else {
            warnings.append("\(what): no extents")
            return nil
        }
        if loc.extentCount > 1 { warnings.append("\(what): \(loc.extentCount) extents, only the first is used") }
        var start: UInt64
        var (o1, o2) = (false, false)
        switch loc.method {
        case 0:
            (start, o1) = loc.baseOffset.addingReportingOverflow(first.offset)
        case 1:
            guard let idat else {
                warnings.append("\(what): construction method 1 without an idat box")
                return nil
            }
            (start, o1) = loc.baseOffset.addingReportingOverflow(first.offset)
            (start, o2) = start.addingReportingOverflow(idat.offset)
            if !o1 && !o2 && (start < idat.offset || start > idat.end || first.length > idat.end - start) {
                warnings.append("\(what): extent lies outside idat")
                return nil
            }
        default:
            warnings.append("\(what): construction method \(loc.method) not supported")
            return nil
        }
        let size = source.size
        var length = first.length
        if length == 0, !o1, !o2, start <= size { length = size - start }
        guard !o1, !o2, start <= size, length <= size - start else {
            damage.append("\(what): extent \(first.offset)+\(first.length) lies outside the file (\(size) bytes)")
            return nil
        }
        return ByteRange(offset: start, length: length)
    }

    /// The TIFF data of an Exif item: after the 4-byte header-offset field and the offset it gives, so the
    /// range starts at `II*\0` or `MM\0*`.
    mutating func exifTIFFRange(_ range: ByteRange, item: UInt32) -> ByteRange? {
        guard range.length >= 12, let head = try? source.readExactly(at: range.offset, count: 4, what: "Exif item \(item)"),
            let skip = BinaryReader.uint(head, at: 0, size: 4, bigEndian: true)
        else {
            warnings.append("Exif item \(item): too short")
            return nil
        }
        func isTIFF(_ at: UInt64) -> Bool {
            guard at <= range.end, range.end - at >= 8, let b = try? source.read(at: at, count: 4), b.count == 4 else { return false }
            return b == [0x49, 0x49, 0x2A, 0x00] || b == [0x4D, 0x4D, 0x00, 0x2A]
        }
        var candidates: [UInt64] = []
        if skip <= range.length - 4 { candidates.append(range.offset + 4 + skip) }
        candidates += [range.offset + 4 + 6, range.offset + 4, range.offset + 6, range.offset]
        for c in candidates where isTIFF(c) {
            if c != candidates.first { warnings.append("Exif item \(item): header offset \(skip) does not point at a TIFF header") }
            return ByteRange(offset: c, length: range.end - c)
        }
        warnings.append("Exif item \(item): no TIFF header found")
        return nil
    }

    // MARK: iref

    mutating func parseReferences(_ box: BMFFBox) {
        var r = buf.reader(box, what: "meta/iref")
        guard let (version, _) = try? r.fullBoxHeader() else { return }
        let idSize = version == 0 ? 2 : 4
        for ref in buf.children(of: box, skip: 4, path: "meta/iref", warnings: &warnings) {
            var r = buf.reader(ref, what: "meta/iref/", ref.type)
            guard let from = try? r.uint(idSize), let count = try? r.u16() else { continue }
            var to: [UInt32] = []
            for _ in 0..<min(Int(count), r.remaining / idSize) {
                if let v = try? r.uint(idSize) { to.append(UInt32(truncatingIfNeeded: v)) }
            }
            references.append((ref.type, UInt32(truncatingIfNeeded: from), to))
        }
    }

    // MARK: iprp

    mutating func parseProperties(_ box: BMFFBox) {
        for k in buf.children(of: box, path: "meta/iprp", warnings: &warnings) {
            if k.type == "ipco" {
                properties = buf.children(of: k, path: "meta/iprp/ipco", warnings: &warnings)
            } else if k.type == "ipma" {
                var r = buf.reader(k, what: "meta/iprp/ipma")
                do {
                    let (version, flags) = try r.fullBoxHeader()
                    let count = try r.u32()
                    associations.reserveCapacity(min(Int(count), r.remaining / 3))
                    for _ in 0..<min(Int(count), r.remaining / 3) {
                        let id = version < 1 ? UInt32(try r.u16()) : try r.u32()
                        let n = Int(try r.u8())
                        // An item already listed (a second ipma box) gets its earlier indices moved to the end of
                        // the store, so that its run stays contiguous.
                        let start = associationStore.count
                        if let earlier = associations[id] { associationStore.append(contentsOf: associationStore[earlier]) }
                        for _ in 0..<n {
                            if flags & 1 != 0 {
                                associationStore.append(Int(try r.u16() & 0x7FFF))
                            } else {
                                associationStore.append(Int(try r.u8() & 0x7F))
                            }
                        }
                        associations[id] = start..<associationStore.count
                    }
                } catch {
                    warnings.append(error.message)
                }
            }
        }
    }

    /// The transfer characteristics of an item's `colr` nclx property.
    func transferCharacteristics(of id: UInt32) -> Int? {
        for i in propertyIndices(id) {
            guard let p = property(i), p.type == "colr" else { continue }
            var r = buf.reader(p, what: "meta/iprp/ipco/colr")
            if (try? r.fourCC()) == "nclx", (try? r.u16()) != nil, let tc = try? r.u16() { return Int(tc) }
        }
        return nil
    }

    /// The property boxes associated with an item, in association order: its 1-based indices into
    /// `properties` (the stored array: walking it allocates nothing, where building an array of the boxes
    /// for every item was most of this parser's allocations), each resolved by `property(_:)`.
    func propertyIndices(_ id: UInt32) -> ArraySlice<Int> { associations[id].map { associationStore[$0] } ?? [] }

    /// The property box of a 1-based index, nil when out of range.
    func property(_ index: Int) -> BMFFBox? { index >= 1 && index <= properties.count ? properties[index - 1] : nil }

    // MARK: grpl

    mutating func entityGroups(_ box: BMFFBox) -> [HEIFEntityGroup] {
        var out: [HEIFEntityGroup] = []
        for g in buf.children(of: box, path: "meta/grpl", warnings: &warnings) {
            var r = buf.reader(g, what: "meta/grpl/", g.type)
            do {
                _ = try r.fullBoxHeader()
                let gid = try r.u32()
                let n = try r.u32()
                var ids: [UInt32] = []
                for _ in 0..<min(Int(n), r.remaining / 4) { ids.append(try r.u32()) }
                out.append(HEIFEntityGroup(type: g.type, groupID: gid, entityIDs: ids))
            } catch {
                warnings.append(error.message)
            }
        }
        return out
    }
}

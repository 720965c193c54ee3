/// A camera's name as Photos shows it: "Canon EOS 350D", not "Canon Canon EOS 350D DIGITAL".
public enum CameraName {
    /// The model alone when it already names the maker (its first word starts the model, ignoring case:
    /// "NIKON CORPORATION" + "NIKON D70"), else make and model; a trailing " DIGITAL" is dropped
    /// (Canon's EXIF spelling). Nil when neither is known.
    public static func display(make: String?, model: String?) -> String? {
        if make?.utf8.allSatisfy({ $0 < 0x80 }) ?? true, model?.utf8.allSatisfy({ $0 < 0x80 }) ?? true {
            return asciiDisplay(make: make, model: model)
        }
        return characterDisplay(make: make, model: model)
    }

    /// `display` by Characters (any text).
    static func characterDisplay(make: String?, model: String?) -> String? {
        let make = make.flatMap(characterTrimmed)
        var model = model.flatMap(characterTrimmed)
        if let m = model, m.uppercased().hasSuffix(" DIGITAL") { model = String(m.dropLast(8)) }
        guard let model else { return make }
        guard let make else { return model }
        let brand = make.split(separator: " ").first.map(String.init) ?? make
        if model.lowercased().hasPrefix(brand.lowercased()) { return model }
        return make + " " + model
    }

    /// `display` for ASCII names, on their bytes (the places step asks for every asset's camera, and the
    /// Character-wise trimming and case mapping of `display` were most of that step's time at 100k files).
    /// The same result: for ASCII, a Character is a byte and case mapping is ASCII's.
    static func asciiDisplay(make: String?, model: String?) -> String? {
        let make = make.flatMap(asciiTrimmed)
        var model = model.flatMap(asciiTrimmed)
        if let m = model, m.utf8.count >= 8, asciiEqualIgnoringCase(m.utf8.suffix(8), " DIGITAL".utf8) {
            model = String(m.utf8.dropLast(8))!
        }
        guard let model else { return make }
        guard let make else { return model }
        let brand = make.utf8.split(separator: UInt8(ascii: " "), maxSplits: 1, omittingEmptySubsequences: true).first ?? make.utf8[...]
        if model.utf8.count >= brand.count, asciiEqualIgnoringCase(model.utf8.prefix(brand.count), brand) { return model }
        return make + " " + model
    }

    static func asciiEqualIgnoringCase<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        return a.count == b.count && zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    /// ASCII `s` without surrounding spaces and NULs, on its bytes; nil when nothing is left.
    static func asciiTrimmed(_ s: String) -> String? {
        let u = s.utf8
        func pad(_ b: UInt8) -> Bool { b == 0x20 || b == 0 }
        guard let first = u.firstIndex(where: { !pad($0) }), let last = u.lastIndex(where: { !pad($0) }) else { return nil }
        if first == u.startIndex && u.index(after: last) == u.endIndex { return s }
        return String(u[first...last])!
    }

    /// `s` without surrounding spaces and NULs, by Characters (a space may start a grapheme cluster); nil
    /// when nothing is left.
    static func characterTrimmed(_ s: String) -> String? {
        let t = s.drop(while: { $0 == " " || $0 == "\0" }).reversed().drop(while: { $0 == " " || $0 == "\0" }).reversed()
        return t.isEmpty ? nil : String(t)
    }
}

extension Asset {
    /// How `creationDateSource` begins when no file or sidecar held a date (the file's modification time).
    public static let fileTimeDateSource = "file modification time"

    /// The creation date is only the file's modification time: an undated asset.
    public var isUndated: Bool { creationDate == nil || creationDateSource?.hasPrefix(Self.fileTimeDateSource) == true }

    /// "Canon EOS 350D" (see `CameraName`).
    public var cameraName: String? { CameraName.display(make: make, model: model) }

    /// Bytes of every resource together; nil when no size is known.
    public var totalFileSize: UInt64? {
        let sizes = resources.compactMap(\.fileSize)
        return sizes.isEmpty ? nil : sizes.reduce(0, +)
    }
}

/// A camera's name as Photos shows it: "Canon EOS 350D", not "Canon Canon EOS 350D DIGITAL".
public enum CameraName {
    /// The model alone when it already names the maker (its first word starts the model, ignoring case:
    /// "NIKON CORPORATION" + "NIKON D70"), else make and model; a trailing " DIGITAL" is dropped
    /// (Canon's EXIF spelling). Nil when neither is known.
    public static func display(make: String?, model: String?) -> String? {
        let make = make.flatMap(trimmed)
        var model = model.flatMap(trimmed)
        if let m = model, m.uppercased().hasSuffix(" DIGITAL") { model = String(m.dropLast(8)) }
        guard let model else { return make }
        guard let make else { return model }
        let brand = make.split(separator: " ").first.map(String.init) ?? make
        if model.lowercased().hasPrefix(brand.lowercased()) { return model }
        return make + " " + model
    }

    /// `s` without surrounding spaces and NULs; nil when nothing is left.
    static func trimmed(_ s: String) -> String? {
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

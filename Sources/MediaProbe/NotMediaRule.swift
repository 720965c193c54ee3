/// Decides whether a file the sniffer did not recognise is simply *not media* (skipped, never an error)
/// or media we failed to read (an error).
///
/// The rule: a name that says "media" (an image, video or sidecar extension) is held to it — unreadable
/// content behind `IMG_1.JPG` is an error. Anything else that is not a format we read is skipped and
/// counted by category: system litter (`Thumbs.db`, `desktop.ini`, `.DS_Store`, `.picasa.ini`) whatever
/// its content, text, documents, archives, databases, and other.
public enum NotMediaRule {
    /// Extensions that claim a photo, video or sidecar: every extension of a kind we read, plus media
    /// formats we do not read yet (their failure is worth an error row).
    public static let mediaExtensions: Set<String> = {
        var s = Set(ContainerKind.allCases.filter { $0 != .json }.flatMap(\.extensions))
        s.formUnion([
            "jpg", "jpeg", "heic", "heif", "png", "gif", "webp", "tif", "tiff", "bmp", "psd", "psb", "jp2", "j2k", "jpx", "jxl",
            "ico",
            "tga", "pbm", "pgm", "ppm", "pnm", "mpo", "srw", "3fr", "erf", "mef", "mos", "iiq", "rwl", "x3f", "kdc", "dcr", "crw",
            "mov", "mp4", "m4v", "3gp", "3g2", "avi", "mkv", "webm", "mts", "m2ts", "mpg", "mpeg", "wmv", "asf", "flv", "vob",
            "insv",
            "lrv", "aae", "xmp",
        ])
        return s
    }()

    /// File names (lower-case) written by operating systems and photo tools, never media.
    public static let systemNames: Set<String> = [
        "thumbs.db", "ehthumbs.db", "ehthumbs_vista.db", "desktop.ini", ".ds_store", ".picasa.ini", "picasa.ini", ".localized",
        "icon\r", ".directory", ".nomedia", "zbthumbnail.info", "albumart.jpg.db",
    ]

    static let categories: [(String, Set<String>)] = [
        (
            "text",
            [
                "txt", "md", "markdown", "rst", "rtf", "csv", "tsv", "log", "ini", "cfg", "conf", "nfo", "html", "htm", "xml",
                "yml", "yaml", "toml",
            ]
        ),
        ("json", ["json", "geojson"]),
        (
            "document",
            ["pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "pages", "numbers", "key", "epub"]
        ),
        ("archive", ["zip", "tar", "gz", "tgz", "bz2", "xz", "7z", "rar", "zst"]),
        ("database", ["db", "sqlite", "sqlite3", "sqlite-wal", "sqlite-shm", "photoslibrary", "lrcat", "lrdata"]),
        ("audio", ["mp3", "m4a", "aac", "wav", "aif", "aiff", "flac", "ogg", "opus", "wma"]),
    ]

    /// The name's extension, lower-case (nil without one; a leading dot alone is not an extension).
    public static func fileExtension(_ name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        return ext.isEmpty ? nil : ext
    }

    /// Whether the name is one of the operating systems' and photo tools' own files.
    public static func isSystemFile(_ name: String) -> Bool {
        systemNames.contains(name.lowercased()) || name.hasPrefix("._")
    }

    /// Not media, for a file whose content the sniffer did not recognise (or that is empty); nil when the
    /// name claims media, so the caller reports an error instead.
    public static func classify(name: String, empty: Bool) -> NotMedia? {
        if isSystemFile(name) {
            return NotMedia(
                category: "system", reason: "\(name) is written by an operating system or photo tool, not a photo or video")
        }
        let ext = fileExtension(name)
        if let ext, mediaExtensions.contains(ext) { return nil }
        if empty { return NotMedia(category: "empty", reason: "empty file (0 bytes) without a photo or video extension") }
        let category = category(ofName: name)
        let what = ext.map { ".\($0) file" } ?? "file without an extension"
        return NotMedia(category: category, reason: "not a photo, video or sidecar (\(what), content not recognised)")
    }

    /// What a file that is not media looks like, by its extension: `text`, `json`, `document`, … or `other`.
    public static func category(ofName name: String) -> String {
        fileExtension(name).flatMap { e in categories.first { $0.1.contains(e) }?.0 } ?? "other"
    }

    /// Whether a JSON file's name has the shape of a Google Takeout sidecar (`IMG_1.jpg.json`,
    /// `IMG_1.jpg.supplemental-metadata.json`, `metadata.json`): then a file that cannot be read is an error.
    public static func looksLikeTakeoutSidecar(_ name: String) -> Bool {
        let lower = name.lowercased()
        guard lower.hasSuffix(".json") else { return false }
        if lower == "metadata.json" || lower.hasPrefix("metadata(") || lower.contains(".supplemental-metadata") { return true }
        let stem = String(lower.dropLast(5))
        guard let inner = fileExtension(stem) else { return false }
        // Takeout cuts long names, so `IMG_1234.HE.json` counts too: a prefix of a media extension.
        return mediaExtensions.contains(inner) || mediaExtensions.contains { $0.hasPrefix(inner) && inner.count >= 2 }
    }
}

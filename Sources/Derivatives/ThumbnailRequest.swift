import Catalog
import Foundation

/// What to make: PhotoKit's `PHImageRequestOptions` vocabulary for files on disk.
public struct ThumbnailRequest: Sendable, Equatable {
    /// `fit`: the longest side is the size, aspect kept (PHImageContentMode.aspectFit).
    /// `fill`: exactly size×size, centre-cropped (aspectFill).
    public enum Mode: String, Sendable, CaseIterable { case fit, fill }
    /// `exact`: the output is the requested size, small sources are upscaled.
    /// `fast`: never upscales; a source smaller than the size is written at its own size.
    public enum Resize: String, Sendable, CaseIterable { case exact, fast }
    /// `current`: the full-size render when the asset has one, else the photo (or video).
    /// `unadjusted` / `original`: the photo (or video) resource.
    public enum Version: String, Sendable, CaseIterable { case current, unadjusted, original }
    public enum Format: String, Sendable, CaseIterable {
        case jpeg, webp, heic
        public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    }

    /// A crop in the oriented image's unit square, origin top-left (PhotoKit's `normalizedCropRect`).
    public struct Crop: Sendable, Equatable {
        public var x: Double, y: Double, width: Double, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) throws(DerivativeError) {
            guard [x, y, width, height].allSatisfy(\.isFinite), x >= 0, y >= 0, width > 0, height > 0,
                x + width <= 1.000001, y + height <= 1.000001
            else { throw DerivativeError("crop must lie inside the unit square: \(x),\(y),\(width),\(height)") }
            self.x = x; self.y = y; self.width = width; self.height = height
        }
        /// "x,y,w,h"
        public init(parsing text: String) throws(DerivativeError) {
            let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else {
                throw DerivativeError("crop is x,y,w,h in 0…1, got '\(text)'")
            }
            try self.init(x: x, y: y, width: w, height: h)
        }
        /// For file names: stable and free of separators.
        var key: String {
            func f(_ v: Double) -> String { String(Int((v * 10000).rounded())) }
            return "c\(f(x))-\(f(y))-\(f(width))-\(f(height))"
        }
    }

    public var sizes: [Int]
    public var mode: Mode
    public var resize: Resize
    public var crop: Crop?
    public var version: Version
    public var format: Format
    public var outputDirectory: URL
    /// JPEG/WebP/HEIF quality.
    public var quality: Int

    public init(
        sizes: [Int], mode: Mode = .fit, resize: Resize = .exact, crop: Crop? = nil, version: Version = .current,
        format: Format = .jpeg, outputDirectory: URL, quality: Int? = nil
    ) {
        self.sizes = sizes
        self.mode = mode
        self.resize = resize
        self.crop = crop
        self.version = version
        self.format = format
        self.outputDirectory = outputDirectory
        self.quality = quality ?? (format == .heic ? 50 : 85)
    }

    /// `out/ab/<cloudId>_<size>_<mode>_<version>[_fast][_<crop>][_<source hash>].<ext>`: keyed by the
    /// cloud identifier, so a re-run finds its files and a changed asset (new identifier) gets new ones.
    /// The cloud identifier survives an in-place change of a file (and a new edit render), so the first
    /// 12 hex digits of the source resource's content hash are part of the name too: a changed source
    /// gets a new file rather than a stale one being skipped.
    public func outputURL(cloudIdentifier: String, size: Int, sourceHash: String? = nil) -> URL {
        let key = ThumbnailKey(cloudIdentifier: cloudIdentifier, sourceHash: sourceHash)
        var stem = "\(key.name)_\(size)_\(mode.rawValue)_\(version.rawValue)"
        if resize == .fast { stem += "_fast" }
        if let crop { stem += "_" + crop.key }
        if let hash = key.hash { stem += "_" + hash }
        return outputDirectory.appendingPathComponent(key.shard, isDirectory: true)
            .appendingPathComponent(stem + "." + format.fileExtension)
    }
}

/// What ties a thumbnail file to an asset: the cloud identifier as written in file names, and the first 12 hex
/// digits of the source resource's content hash.
public struct ThumbnailKey: Hashable, Sendable {
    /// Appended to a Live Photo's cloud identifier for the poster frame of its motion (`shoebox report`), so
    /// that the movie's pictures never collide with the still's; `--prune` keeps them with their asset.
    public static let motionSuffix = "-motion"

    /// The cloud identifier with every character but letters, digits and '-' replaced by '-'.
    public var name: String
    public var hash: String?

    public init(cloudIdentifier: String, sourceHash: String?) {
        name = String(cloudIdentifier.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
        let hex = sourceHash.flatMap { $0.split(separator: ":").last.map { $0.filter(\.isHexDigit).prefix(12) } } ?? ""
        hash = hex.isEmpty ? nil : hex.lowercased()
    }

    init(name: String, hash: String?) {
        self.name = name
        self.hash = hash
    }

    /// The shard directory: the name's first two characters, lowercased.
    var shard: String { String(name.prefix(2)).lowercased() }

    /// The key of a file name that follows the scheme of `outputURL` (any size, mode, version, crop and
    /// format), else nil: `<name>_<size>_<mode>_<version>[_fast][_c…][_<hash12>].<jpg|webp|heic>`.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."),
            ThumbnailRequest.Format.allCases.contains(where: { $0.fileExtension == fileName[fileName.index(after: dot)...] })
        else { return nil }
        var parts = fileName[..<dot].split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }),
            let size = Int(parts[1]), size >= 1, String(size) == parts[1],
            ThumbnailRequest.Mode(rawValue: parts[2]) != nil, ThumbnailRequest.Version(rawValue: parts[3]) != nil
        else { return nil }
        let name = parts[0]
        parts.removeFirst(4)
        if parts.first == "fast" { parts.removeFirst() }
        if let c = parts.first, c.hasPrefix("c"),
            c.dropFirst().split(separator: "-", omittingEmptySubsequences: false).count == 4,
            c.dropFirst().allSatisfy({ $0.isNumber || $0 == "-" })
        {
            parts.removeFirst()
        }
        var hash: String?
        if let h = parts.first, h.count == 12, h.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
            hash = h
            parts.removeFirst()
        }
        guard parts.isEmpty else { return nil }
        self.init(name: name, hash: hash)
    }
}

extension ThumbnailRequest {
    /// Where the thumbnail of `asset` at `size` goes (nil when the asset has nothing to render).
    public func outputURL(for asset: StoredAsset, size: Int) -> URL? {
        guard let r = Thumbnailer.source(of: asset.asset, version: version) else { return nil }
        return outputURL(cloudIdentifier: asset.cloudIdentifier, size: size, sourceHash: Thumbnailer.hash(of: r, in: asset))
    }
}

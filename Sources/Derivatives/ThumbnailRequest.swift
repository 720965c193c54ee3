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
        let id = cloudIdentifier.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" }
        let name = String(id)
        var stem = "\(name)_\(size)_\(mode.rawValue)_\(version.rawValue)"
        if resize == .fast { stem += "_fast" }
        if let crop { stem += "_" + crop.key }
        if let sourceHash {
            let hex = sourceHash.split(separator: ":").last.map { $0.filter(\.isHexDigit).prefix(12) } ?? ""
            if !hex.isEmpty { stem += "_" + hex.lowercased() }
        }
        let shard = String(name.prefix(2)).lowercased()
        return outputDirectory.appendingPathComponent(shard, isDirectory: true)
            .appendingPathComponent(stem + "." + format.fileExtension)
    }
}

extension ThumbnailRequest {
    /// Where the thumbnail of `asset` at `size` goes (nil when the asset has nothing to render).
    public func outputURL(for asset: StoredAsset, size: Int) -> URL? {
        guard let r = Thumbnailer.source(of: asset.asset, version: version) else { return nil }
        return outputURL(cloudIdentifier: asset.cloudIdentifier, size: size, sourceHash: Thumbnailer.hash(of: r, in: asset))
    }
}

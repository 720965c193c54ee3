import Foundation
import Organize

/// A populated place of the gazetteer (GeoNames `cities1000`).
public struct GazetteerPlace: Sendable, Equatable, Hashable, Codable {
    /// GeoNames' identifier: stable across data updates, so a renamed place is the same place.
    public var geonameID: Int
    public var name: String
    /// The first-level administrative region (`Lisbon`, `Castille and León`); empty when unnamed.
    public var admin1: String
    /// ISO 3166 alpha-2 (`PT`).
    public var countryCode: String
    public var countryName: String
    /// IANA time zone (`Europe/Lisbon`).
    public var timeZone: String
    public var latitude: Double
    public var longitude: Double
    public var population: Int

    /// `Lisbon, Lisbon, Portugal` (the admin region left out when empty or equal to the name's country).
    public var fullName: String {
        ([name] + (admin1.isEmpty ? [] : [admin1]) + [countryName]).joined(separator: ", ")
    }
}

/// A gazetteer place and how far it is from the point looked up.
public struct PlaceMatch: Sendable, Equatable {
    public var place: GazetteerPlace
    public var distanceKm: Double
}

/// Why a gazetteer file could not be used: the path and what is wrong, one line.
public struct GazetteerError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "gazetteer \(path): \(reason)" }
}

/// The offline gazetteer: GeoNames places in a compact binary file built by `Tools/gazetteer.py`
/// (docs/places.md), mapped into memory once and searched by 1-degree cells.
///
/// The file is mapped read-only, not read: only the pages the lookups touch are resident (a library's
/// photos touch a few cells and the strings of the places they name), where reading it put all 7.4 MB on
/// the heap at the organize stage's busiest moment for memory. The mapping is immutable and lives as long as
/// the gazetteer (`@unchecked Sendable`). `Tools/gazetteer.py` and `make install` replace the file by a new
/// one, so a mapped file is never cut short under a running process.
public final class Gazetteer: @unchecked Sendable {
    static let magic: [UInt8] = Array("SBGAZ".utf8) + [0, 0, 1]
    static let cells = 180 * 360
    static let recordSize = 32

    let bytes: UnsafeRawBufferPointer
    let count: Int
    let recordsAt: Int
    let stringsAt: Int
    /// The data's sources and a digest of its content: changes when the data is rebuilt from other data.
    public let identity: String
    /// The licence notice for `--version` and the README.
    public let attribution: String
    public let path: String

    /// The default search radius of `place(at:)`: a photo farther than this from any place has none.
    public static let placeRadiusKm = 25.0
    /// How far `zonePlace(at:)` looks for the nearest place before giving up (open sea).
    public static let zoneRadiusKm = 500.0

    public init(contentsOf path: String) throws(GazetteerError) {
        guard let b = Self.mapWhole(path) else {
            throw GazetteerError(path: path, reason: "cannot be read")
        }
        func fail(_ reason: String) -> GazetteerError {
            Self.unmap(b)
            return GazetteerError(path: path, reason: reason)
        }
        func u32(_ at: Int) -> Int { Int(Self.u32(b, at)) }
        guard b.count >= 24 + (Self.cells + 1) * 4, b.prefix(8).elementsEqual(Self.magic) else {
            throw fail("not a Shoebox gazetteer (rebuild it with `make deps`)")
        }
        let n = u32(8), slen = u32(12)
        let records = 24 + (Self.cells + 1) * 4
        let strings = records + n * Self.recordSize
        guard strings + slen == b.count, u32(24 + Self.cells * 4) == n else {
            throw fail("truncated or damaged (\(b.count) bytes; rebuild it with `make deps`)")
        }
        // Each cell's records run from its offset to the next cell's: offsets that go back or past the
        // records would read outside them (`forEach(near:)` trusts them).
        var previous = 0
        for cell in 0...Self.cells {
            let at = u32(24 + cell * 4)
            guard at >= previous, at <= n else {
                throw fail("damaged: cell \(cell) starts at record \(at), outside \(previous)...\(n) (rebuild it with `make deps`)")
            }
            previous = at
        }
        self.path = path
        bytes = b
        count = n
        recordsAt = records
        stringsAt = strings
        identity = Self.string(b, strings + u32(16))
        attribution = Self.string(b, strings + u32(20))
    }

    deinit { Self.unmap(bytes) }

    /// Where the gazetteer is looked for, first found wins: `$SHOEBOX_GAZETTEER`; `gazetteer.bin` next to
    /// the executable; `<prefix>/share/shoebox/gazetteer.bin` (prefix = the executable's folder's parent);
    /// `/usr/local/share/shoebox`, `/usr/share/shoebox`; and for development `.build/gazetteer/gazetteer.bin`
    /// in the current folder or above the executable.
    public static func candidatePaths(
        environment: [String: String] = ProcessInfo.processInfo.environment, executable: String? = nil
    )
        -> [String]
    {
        if let p = environment["SHOEBOX_GAZETTEER"], !p.isEmpty { return [p] }
        // The running executable: /proc/self/exe on Linux (argv[0] is a bare name when run from PATH).
        let running =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
            ?? "shoebox"
        let exe = URL(fileURLWithPath: executable ?? running).resolvingSymlinksInPath()
        let dir = exe.deletingLastPathComponent()
        var out = [
            dir.appendingPathComponent("gazetteer.bin").path,
            dir.deletingLastPathComponent().appendingPathComponent("share/shoebox/gazetteer.bin").path,
            "/usr/local/share/shoebox/gazetteer.bin", "/usr/share/shoebox/gazetteer.bin",
            FileManager.default.currentDirectoryPath + "/.build/gazetteer/gazetteer.bin",
        ]
        // .build/<triple>/<config>/shoebox (or .build/<config>/…) → .build/gazetteer/gazetteer.bin
        var up = dir
        for _ in 0..<3 {
            if up.lastPathComponent == ".build" { out.append(up.appendingPathComponent("gazetteer/gazetteer.bin").path) }
            up = up.deletingLastPathComponent()
        }
        return out
    }

    /// The gazetteer found at the first of `candidatePaths` that exists, or why there is none (one line).
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<
        Gazetteer, GazetteerError
    > {
        let paths = candidatePaths(environment: environment)
        guard let p = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            return .failure(
                GazetteerError(
                    path: paths[0],
                    reason: "not found (no place names or inferred time zones; `make deps` builds it, SHOEBOX_GAZETTEER names it)"
                ))
        }
        do { return .success(try Gazetteer(contentsOf: p)) } catch { return .failure(error) }
    }

    /// The file mapped read-only (private: nothing is ever written through it); nil when it cannot be
    /// opened or mapped, or is not a regular file or is empty.
    static func mapWhole(_ path: String) -> UnsafeRawBufferPointer? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size > 0 else { return nil }
        let size = Int(st.st_size)
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else { return nil }
        return UnsafeRawBufferPointer(start: p, count: size)
    }

    /// Drops the pages of the mapping that are resident in this process; they stay in the page cache, and a
    /// later lookup maps again what it touches. Each fault maps the 64 KiB around it, so every derivation
    /// left its cells and strings resident: at 100k files the 30 ranges of the places step ended with ~4 MB
    /// of the file in the process, part of organize's peak (Benchmarks/README.md, session 17).
    public func releaseResidentPages() {
        if let base = bytes.baseAddress { _ = madvise(UnsafeMutableRawPointer(mutating: base), bytes.count, MADV_DONTNEED) }
    }

    /// Gives back a mapping `mapWhole` made.
    static func unmap(_ b: UnsafeRawBufferPointer) {
        if let base = b.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), b.count) }
    }

    // MARK: Reading

    @inline(__always) func u32(_ at: Int) -> UInt32 { Self.u32(bytes, at) }

    /// The little-endian 32-bit number at `at` (the file's one integer format).
    @inline(__always) static func u32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        b.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian
    }

    static func string(_ b: UnsafeRawBufferPointer, _ at: Int) -> String {
        guard at >= 0, at < b.count else { return "" }  // a damaged offset: no text, not a crash
        var end = at
        while end < b.count, b[end] != 0 { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: b[at..<end]), as: UTF8.self)
    }

    func coordinate(_ i: Int) -> (Double, Double) {
        let at = recordsAt + i * Self.recordSize
        return (Double(Int32(bitPattern: u32(at))) / 1e5, Double(Int32(bitPattern: u32(at + 4))) / 1e5)
    }

    func population(_ i: Int) -> Int { Int(u32(recordsAt + i * Self.recordSize + 12)) }

    /// The record `i` as a value.
    public func place(_ i: Int) -> GazetteerPlace {
        let at = recordsAt + i * Self.recordSize
        let (lat, lon) = coordinate(i)
        let country = Self.string(bytes, stringsAt + Int(u32(at + 24))).split(separator: "\t", maxSplits: 1).map(String.init)
        return GazetteerPlace(
            geonameID: Int(u32(at + 8)), name: Self.string(bytes, stringsAt + Int(u32(at + 16))),
            admin1: Self.string(bytes, stringsAt + Int(u32(at + 20))), countryCode: country.first ?? "",
            countryName: country.count > 1 ? country[1] : (country.first ?? ""),
            timeZone: Self.string(bytes, stringsAt + Int(u32(at + 28))),
            latitude: lat, longitude: lon, population: population(i))
    }

    public var placeCount: Int { count }

    // MARK: Searching

    /// Calls `body(record, km)` for every place within `radiusKm` of the point (cells that can hold one).
    func forEach(near lat: Double, _ lon: Double, radiusKm: Double, _ body: (Int, Double) -> Void) {
        let dLat = radiusKm / 111.0
        let lat0 = max(-90, Int((lat - dLat).rounded(.down))), lat1 = min(89, Int((lat + dLat).rounded(.down)))
        guard lat0 <= lat1 else { return }
        let maxAbsLat = min(89.9, max(abs(lat - dLat), abs(lat + dLat)))
        let dLon = radiusKm / (111.0 * cos(maxAbsLat * .pi / 180))
        // Longitude cells, wrapped at the antimeridian, each once, in order (the visiting order never
        // decides a result: ties are broken by record number).
        let lonCells: [Int] =
            dLon >= 180
            ? Array(-180..<180)
            : Array(
                Set(
                    (Int((lon - dLon).rounded(.down))...Int((lon + dLon).rounded(.down))).map {
                        (($0 + 180) % 360 + 360) % 360 - 180
                    })
            )
            .sorted()
        let here = Coordinate(latitude: lat, longitude: lon)
        for la in lat0...lat1 {
            for lo in lonCells {
                let cell = (la + 90) * 360 + (lo + 180)
                let a = Int(u32(24 + cell * 4)), b = Int(u32(24 + (cell + 1) * 4))
                for i in a..<b {
                    let (pla, plo) = coordinate(i)
                    if abs(pla - lat) > dLat { continue }  // cheaper than the haversine, and as exact
                    let d = here.distanceKm(to: Coordinate(latitude: pla, longitude: plo))
                    if d <= radiusKm { body(i, d) }
                }
            }
        }
    }

    /// A city of at least this population names the points inside its urban radius.
    public static let cityPopulation = 100_000

    /// The urban radius of a city: 0.01 km × √population, at most 30 km (Lisbon 7 km, Rome 17 km, London 30 km).
    public static func urbanRadiusKm(population: Int) -> Double { min(30, 0.01 * Double(population).squareRoot()) }

    /// The place a photo taken here is named after:
    /// 1. the most populous city (≥ `cityPopulation`) whose urban radius covers the point, so that a
    ///    neighbourhood in GeoNames (Ajuda, Testaccio) gives way to its city (Lisbon, Rome);
    /// 2. else, among places within `radiusKm`, the one with the smallest distance ÷ weight,
    ///    weight = 1 + log10(population / 1000) (at least 1): a town 6 km away (pop. 50,000: weight 2.7)
    ///    wins over a village 2 km away.
    /// Nil when no place is within `radiusKm`.
    public func place(at lat: Double, _ lon: Double, radiusKm: Double = Gazetteer.placeRadiusKm) -> PlaceMatch? {
        var best: (i: Int, d: Double, score: Double)?
        var city: (i: Int, d: Double, pop: Int)?
        forEach(near: lat, lon, radiusKm: max(radiusKm, 30)) { i, d in
            let pop = population(i)
            if pop >= Self.cityPopulation, d <= Self.urbanRadiusKm(population: pop),
                city == nil || pop > city!.pop || (pop == city!.pop && i < city!.i)
            {
                city = (i, d, pop)
            }
            guard d <= radiusKm else { return }
            let w = 1 + max(0, log10(Double(max(pop, 1000)) / 1000))
            let s = d / w
            if best == nil || s < best!.score || (s == best!.score && i < best!.i) { best = (i, d, s) }
        }
        if let city { return PlaceMatch(place: place(city.i), distanceKm: city.d) }
        return best.map { PlaceMatch(place: place($0.i), distanceKm: $0.d) }
    }

    /// The nearest place whatever its size, searched in growing circles up to `zoneRadiusKm`: its time
    /// zone stands for the zone at the point (docs/places.md measures how often that differs from the
    /// zone's borders). Nil at open sea.
    public func nearest(at lat: Double, _ lon: Double, maxKm: Double = Gazetteer.zoneRadiusKm) -> PlaceMatch? {
        var r = 25.0
        while true {
            var best: (i: Int, d: Double)?
            forEach(near: lat, lon, radiusKm: min(r, maxKm)) { i, d in
                if best == nil || d < best!.d || (d == best!.d && i < best!.i) { best = (i, d) }
            }
            if let best { return PlaceMatch(place: place(best.i), distanceKm: best.d) }
            if r >= maxKm { return nil }
            r *= 4
        }
    }
}

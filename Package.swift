// swift-tools-version:6.0
import Foundation
import PackageDescription

/// glib's headers (libvips' headers include them): pkg-config would name these folders, but a system library
/// with `pkgConfig` also links its libraries, and the media libraries are loaded lazily (CMediaLibs).
let glibHeaders = ["/usr/include/glib-2.0"] + ["x86_64-linux-gnu", "aarch64-linux-gnu", "arm-linux-gnueabihf", "lib64", ""]
    .map { "/usr/lib/\($0)/glib-2.0/include".replacingOccurrences(of: "//", with: "/") }
    .filter { FileManager.default.fileExists(atPath: $0) }
/// For Swift targets that import CVips, directly or through Derivatives.
let vipsHeaders: [SwiftSetting] = [.unsafeFlags(glibHeaders.flatMap { ["-Xcc", "-I" + $0] })]

let package = Package(
    name: "Shoebox",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "shoebox", targets: ["shoebox"]),
        .library(name: "MediaProbe", targets: ["MediaProbe"]),
        .library(name: "PhotoModel", targets: ["PhotoModel"]),
        .library(name: "Catalog", targets: ["Catalog"]),
        .library(name: "Derivatives", targets: ["Derivatives"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // System libraries' headers: a module map and a shim header each, nothing else; nothing linked.
        .systemLibrary(name: "CExif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CFFmpeg", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev"])]),
        .systemLibrary(name: "CVips", providers: [.apt(["libvips-dev"])]),

        // The functions of the four above, each a stub that loads its library by soname on first use (so a
        // command that never probes or decodes never maps them), and the CVips wrappers of variadic calls.
        .target(
            name: "CMediaLibs",
            exclude: ["gen-stubs.py"],
            cSettings: [.unsafeFlags(glibHeaders.map { "-I" + $0 })]),

        // PhotoKit's vocabulary as plain values; depends on nothing.
        .target(name: "PhotoModel"),

        .systemLibrary(
            name: "CXXHash", pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]),

        // XXH3 over a mapped file range, with a SIGBUS guard for a file that shrinks while mapped.

        // path -> ProbeReport. One of two modules that import the C modules (Derivatives is the other).
        .target(
            name: "MediaProbe",
            dependencies: ["CExif", "CHeif", "CFFmpeg", "CXXHash", "CMediaLibs"]),

        // ProbeReport -> judgement with reasons. Pure.
        .target(
            name: "Classify",
            dependencies: ["MediaProbe", "PhotoModel"]),

        // Classified files -> assets and resources. Pure.
        .target(
            name: "Assemble",
            dependencies: ["Classify", "MediaProbe", "PhotoModel"]),

        .target(name: "Organize", dependencies: ["PhotoModel"]),

        // The offline gazetteer (GeoNames, built by Tools/gazetteer.py) and IANA zone rules: place names and
        // time zones for dates without an offset. Values in, values out; reads only the gazetteer file.
        .target(name: "Places", dependencies: ["Organize", "PhotoModel"]),

        // The catalog: SQLite through GRDB. Never imports MediaProbe's readers: it stores values.
        .target(
            name: "Catalog",
            dependencies: [
                "PhotoModel", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),

        // Stages, crawling, bounded concurrency.
        .target(
            name: "Pipeline",
            dependencies: [
                "MediaProbe", "Classify", "Assemble", "PhotoModel", "Catalog", "Organize", "Derivatives", "Places",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: vipsHeaders),

        // Catalog assets -> thumbnails. The second module allowed to import C modules (pixels, not metadata).
        .target(
            name: "Derivatives",
            dependencies: ["CVips", "CHeif", "CFFmpeg", "CMediaLibs", "Catalog", "PhotoModel"],
            swiftSettings: vipsHeaders),

        // Catalog values -> a static HTML site (pages are pure functions; pictures from the thumbnails stage).
        .target(
            name: "Report",
            dependencies: ["Catalog", "Derivatives", "PhotoModel"],
            swiftSettings: vipsHeaders),

        .executableTarget(
            name: "shoebox",
            dependencies: [
                "MediaProbe",
                "Assemble",
                "Catalog",
                "Pipeline",
                "Derivatives",
                "Report",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: vipsHeaders),

        .target(
            name: "TestSupport", dependencies: ["PhotoModel", .product(name: "GRDB", package: "GRDB.swift")], path: "Tests/TestSupport"),
        .testTarget(
            name: "MediaProbeTests",
            dependencies: ["MediaProbe", "TestSupport"],
            exclude: ["FuzzRegressions"]),
        .testTarget(
            name: "AssembleTests",
            dependencies: ["Assemble", "Classify", "MediaProbe", "PhotoModel", "TestSupport"]),
        .testTarget(name: "OrganizeTests", dependencies: ["Organize", "PhotoModel", "TestSupport"]),
        .testTarget(name: "PlacesTests", dependencies: ["Places", "Organize", "PhotoModel", "TestSupport"]),
        .testTarget(
            name: "CatalogTests",
            dependencies: ["Catalog", "PhotoModel", "TestSupport"]),
        .testTarget(
            name: "PipelineTests",
            dependencies: ["Pipeline", "Assemble", "Catalog", "Derivatives", "TestSupport"],
            exclude: ["FuzzRegressions"],
            swiftSettings: vipsHeaders),
        .testTarget(
            name: "DerivativesTests",
            dependencies: ["Derivatives", "CVips", "Catalog", "Pipeline", "PhotoModel", "TestSupport"],
            swiftSettings: vipsHeaders),
        .testTarget(name: "ReportTests", dependencies: ["Report", "Catalog", "PhotoModel"], swiftSettings: vipsHeaders),
        .testTarget(
            name: "ShoeboxCLITests",
            dependencies: [
                "shoebox", "Assemble", "Catalog", "MediaProbe", "PhotoModel", "Pipeline", "TestSupport",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: vipsHeaders),
    ],
    swiftLanguageModes: [.v6]
)

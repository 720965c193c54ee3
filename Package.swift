// swift-tools-version:6.0
import PackageDescription

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
        // System libraries: a module map and a shim header each, nothing else.
        .systemLibrary(
            name: "CExif", pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]),
        .systemLibrary(
            name: "CHeif", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev"])]),

        .systemLibrary(
            name: "CVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]),

        // PhotoKit's vocabulary as plain values; depends on nothing.
        .target(name: "PhotoModel"),

        .systemLibrary(
            name: "CXXHash", pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]),

        // path -> ProbeReport. One of two modules that import the C modules (Derivatives is the other).
        .target(
            name: "MediaProbe",
            dependencies: ["CExif", "CHeif", "CFFmpeg", "CXXHash"]),

        // ProbeReport -> judgement with reasons. Pure.
        .target(
            name: "Classify",
            dependencies: ["MediaProbe", "PhotoModel"]),

        // Classified files -> assets and resources. Pure.
        .target(
            name: "Assemble",
            dependencies: ["Classify", "MediaProbe", "PhotoModel"]),

        .target(name: "Organize", dependencies: ["PhotoModel"]),

        // The catalog: SQLite through GRDB. Never imports MediaProbe's readers: it stores values.
        .target(
            name: "Catalog",
            dependencies: ["PhotoModel", .product(name: "GRDB", package: "GRDB.swift")]),

        // Stages, crawling, bounded concurrency.
        .target(
            name: "Pipeline",
            dependencies: [
                "MediaProbe", "Classify", "Assemble", "PhotoModel", "Catalog", "Organize", "Derivatives",
                .product(name: "Yams", package: "Yams"),
            ]),

        // Catalog assets -> thumbnails. The second module allowed to import C modules (pixels, not metadata).
        .target(
            name: "Derivatives",
            dependencies: ["CVips", "CHeif", "CFFmpeg", "Catalog", "PhotoModel"]),

        .executableTarget(
            name: "shoebox",
            dependencies: [
                "MediaProbe",
                "Assemble",
                "Catalog",
                "Pipeline",
                "Derivatives",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

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
        .testTarget(
            name: "CatalogTests",
            dependencies: ["Catalog", "TestSupport"]),
        .testTarget(
            name: "PipelineTests",
            dependencies: ["Pipeline", "Assemble", "Catalog", "Derivatives", "TestSupport"],
            exclude: ["FuzzRegressions"]),
        .testTarget(
            name: "DerivativesTests",
            dependencies: ["Derivatives", "CVips", "Catalog", "Pipeline", "PhotoModel", "TestSupport"]),
        .testTarget(
            name: "ShoeboxCLITests",
            dependencies: ["shoebox", "Catalog", "MediaProbe", "Pipeline", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

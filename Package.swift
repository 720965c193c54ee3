// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Shoebox",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "shoebox", targets: ["shoebox"]),
        .library(name: "MediaProbe", targets: ["MediaProbe"]),
        .library(name: "PhotoModel", targets: ["PhotoModel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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

        // PhotoKit's vocabulary as plain values; depends on nothing.
        .target(name: "PhotoModel"),

        // path -> ProbeReport. The only module that imports the C modules.
        .target(
            name: "MediaProbe",
            dependencies: ["CExif", "CHeif", "CFFmpeg"]),

        // ProbeReport -> judgement with reasons. Pure.
        .target(
            name: "Classify",
            dependencies: ["MediaProbe", "PhotoModel"]),

        // Classified files -> assets and resources. Pure.
        .target(
            name: "Assemble",
            dependencies: ["Classify", "MediaProbe", "PhotoModel"]),

        // Stages, crawling, bounded concurrency.
        .target(
            name: "Pipeline",
            dependencies: ["MediaProbe", "Classify", "Assemble", "PhotoModel"]),

        .executableTarget(
            name: "shoebox",
            dependencies: [
                "MediaProbe",
                "Assemble",
                "Pipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "MediaProbeTests",
            dependencies: ["MediaProbe", "TestSupport"]),
        .testTarget(
            name: "AssembleTests",
            dependencies: ["Assemble", "Classify", "MediaProbe", "PhotoModel", "TestSupport"]),
        .testTarget(
            name: "ShoeboxCLITests",
            dependencies: ["shoebox", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
// libFuzzer targets for Shoebox's byte readers. A separate package so that the main package's
// `swift build` / `swift test` never build it. Build and run with ./run.sh (see README.md); each target's
// main.swift hands control to libFuzzer (LLVMFuzzerRunDriver), so they only link with `-sanitize=fuzzer`.
import PackageDescription

let names = [
    "FuzzBMFF", "FuzzJPEG", "FuzzPNG", "FuzzGIF", "FuzzWebP", "FuzzMakerNote", "FuzzXMP", "FuzzTIFF",
    "FuzzAAE", "FuzzTakeout", "FuzzInflate", "FuzzProbe", "FuzzPredicate", "FuzzRawPreview", "FuzzTIFFDirectories",
    "FuzzStill", "FuzzMPEGTS", "FuzzFacts",
]

let package = Package(
    name: "ShoeboxFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Shoebox", path: ".."),
    ],
    targets: [.target(name: "FuzzDriver")] + names.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                "FuzzDriver",
                name == "FuzzPredicate"
                    ? .product(name: "Catalog", package: "Shoebox")
                    : name == "FuzzRawPreview"
                        ? .product(name: "Derivatives", package: "Shoebox")
                        : .product(name: "MediaProbe", package: "Shoebox"),
            ])
    },
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.1
// Benchmarks for Shoebox. A separate package so that the main package's `swift build` / `swift test`
// never build package-benchmark. Run from this directory:
//   swift package benchmark
//   swift package benchmark --filter "Probe corpus.*"
//   SHOEBOX_CORPUS=/path/to/corpus swift package benchmark
// package-benchmark was renamed ordo-one/benchmark (same 1.38.1 commit); the old URL and the
// identifier "package-benchmark" still resolve but make SwiftPM print a deprecation warning.
import PackageDescription

let package = Package(
    name: "ShoeboxBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "Shoebox", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "ProbeBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MediaProbe", package: "Shoebox"),
            ],
            path: "Benchmarks/ProbeBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        )
    ]
)

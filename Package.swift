// swift-tools-version:5.9
// The Concordia Swift package: the UniFFI-generated Swift API (`Sources/Concordia`, committed
// and drift-checked by tools/ci/uniffi.sh) over `ConcordiaFFI.xcframework`, the static
// libconcordia_uniffi of concordia-rs for iOS, the iOS simulator and macOS, which
// `./build-xcframework.sh` builds next to this file.
//
// For a release, replace the `path:` of the binary target by
// `url: "<release asset URL of ConcordiaFFI.xcframework.zip>", checksum: "<swift package compute-checksum>"`.
import PackageDescription

let package = Package(
    name: "Concordia",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "Concordia", targets: ["Concordia"]),
    ],
    targets: [
        // The C module `ConcordiaFFI` (header + module map) and the static library.
        .binaryTarget(name: "ConcordiaFFI", path: "ConcordiaFFI.xcframework"),
        .target(
            name: "Concordia",
            dependencies: ["ConcordiaFFI"],
            path: "Sources/Concordia"
        ),
        .testTarget(
            name: "ConcordiaTests",
            dependencies: ["Concordia"],
            path: "Tests/ConcordiaTests",
            resources: [.copy("Fixtures")]
        ),
    ]
)

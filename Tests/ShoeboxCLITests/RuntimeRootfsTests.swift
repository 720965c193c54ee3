import Catalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The Docker image's runtime stage without a Docker engine: `mmdebstrap` builds bookworm (minbase, what
/// `debian:bookworm-slim` is made from) with exactly `deploy/runtime-packages.txt` — the list the
/// Dockerfile installs — and the Dockerfile's `shoebox` user; the release binary goes in and runs
/// `shoebox ingest --cross-check --thumbnails` on the corpus as that user (uid 10001) with the corpus
/// bind-mounted read-only. A package name that does not exist fails the build; a library the binary loads
/// that no package provides fails the run (exit 127, `cannot load …`).
///
/// Slow the first time (the packages are downloaded: about a minute here); the root file system is kept
/// under `.build/rootfs/<hash of the list>` and rebuilt only when the list changes. Opt out with
/// `SHOEBOX_SKIP_ROOTFS=1`. Needs root (chroot, mounts), `mmdebstrap` (Debian package, in `make deps`),
/// the release binary (`make release`; `make test` builds it) and, for the first build, deb.debian.org.
enum RuntimeRootfs {
    static let listPath = Corpus.packageRoot.appendingPathComponent("deploy/runtime-packages.txt").path

    /// The package names of the list (comments and blank lines left out).
    static func packages() throws -> [String] {
        try String(contentsOfFile: listPath, encoding: .utf8).split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// What makes a root file system: the list and the steps below (a change to either builds a new one).
    static let recipe =
        "mmdebstrap --variant=minbase bookworm; useradd --system --uid 10001 --home-dir /work --create-home shoebox; v1"

    static var cacheKey: String {
        let text = ((try? packages()) ?? []).joined(separator: ",") + "|" + recipe
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return String(h, radix: 16)
    }

    static var root: String { Corpus.packageRoot.appendingPathComponent(".build/rootfs/\(cacheKey)/root").path }

    static var releaseBinary: String? {
        let candidates = [
            ".build/release/shoebox", ".build/x86_64-unknown-linux-gnu/release/shoebox",
            ".build/aarch64-unknown-linux-gnu/release/shoebox",
        ]
        return candidates.map { Corpus.packageRoot.appendingPathComponent($0).path }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Why the test cannot run here, or nil.
    static let unavailable: String? = {
        if ProcessInfo.processInfo.environment["SHOEBOX_SKIP_ROOTFS"] == "1" {
            return "SHOEBOX_SKIP_ROOTFS=1: the Docker rootfs test is switched off"
        }
        if getuid() != 0 { return "the Docker rootfs test needs root (mmdebstrap, chroot, bind mounts)" }
        guard Subprocess.which("mmdebstrap") != nil else {
            return "mmdebstrap is not installed (apt-get install mmdebstrap; make deps installs it)"
        }
        guard Subprocess.which("unshare") != nil, Subprocess.which("chroot") != nil else { return "unshare or chroot is missing" }
        let probe = try? Subprocess.run("/usr/bin/unshare", ["--mount", "--fork", "/bin/sh", "-c", "mount -t tmpfs none /mnt"])
        if probe?.status != 0 { return "mount namespaces are not permitted here (unshare --mount): \(probe?.stderr ?? "")" }
        guard releaseBinary != nil else {
            return "no release binary: run 'make release' (make test does) before the Docker rootfs test"
        }
        if !Corpus.isAvailable { return Corpus.skipMessage }
        if !FileManager.default.fileExists(atPath: root + "/usr/bin/apt-get") {
            let net = try? Subprocess.run("/usr/bin/getent", ["hosts", "deb.debian.org"])
            if net?.status != 0 { return "deb.debian.org cannot be resolved: the rootfs (not cached yet) cannot be built here" }
        }
        return nil
    }()

    /// Builds the root file system when it is not cached: into a temporary folder, then renamed into place.
    static func build() throws -> (built: Bool, seconds: Double, log: String) {
        if FileManager.default.fileExists(atPath: root + "/usr/bin/apt-get") { return (false, 0, "") }
        let start = Date()
        let parent = (root as NSString).deletingLastPathComponent
        let temp = parent + ".tmp-\(getpid())"
        try? FileManager.default.removeItem(atPath: temp)
        try FileManager.default.createDirectory(atPath: temp, withIntermediateDirectories: true)
        let r = try Subprocess.run(
            try #require(Subprocess.which("mmdebstrap")),
            [
                "--variant=minbase", "--include=" + (try packages()).joined(separator: ","),
                "--customize-hook=chroot \"$1\" useradd --system --uid 10001 --home-dir /work --create-home shoebox",
                "bookworm", temp + "/root", "http://deb.debian.org/debian",
            ])
        guard r.status == 0 else {
            try? FileManager.default.removeItem(atPath: temp)
            return (true, Date().timeIntervalSince(start), r.stderr)
        }
        try? FileManager.default.removeItem(atPath: parent)
        try FileManager.default.moveItem(atPath: temp, toPath: parent)
        return (true, Date().timeIntervalSince(start), r.stderr)
    }

    /// Runs `command` in the root file system as the `shoebox` user, with `photos` bind-mounted read-only at
    /// /photos and /proc mounted, in a mount namespace of its own; `hide` bind-mounts /dev/null over a
    /// library (a package that would be missing).
    static func run(_ command: [String], photos: String, hide: String? = nil) throws -> Subprocess.Run {
        func q(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var script = """
            set -e
            R=\(q(root))
            mkdir -p "$R/photos" "$R/proc"
            mount --bind \(q(photos)) "$R/photos"
            mount -o remount,bind,ro "$R/photos"
            mount -t proc proc "$R/proc"

            """
        if let hide { script += "mount --bind /dev/null \"$R\"\(q(hide))\n" }
        script +=
            "exec chroot --userspec=10001:10001 \"$R\" /usr/bin/env HOME=/work " + command.map(q).joined(separator: " ") + "\n"
        return try Subprocess.run("/usr/bin/unshare", ["--mount", "--fork", "/bin/sh", "-c", script])
    }
}

@Suite(.serialized) struct RuntimeRootfsTests {
    @Test(.enabled(if: RuntimeRootfs.unavailable == nil, "\(RuntimeRootfs.unavailable ?? "")"), .timeLimit(.minutes(20)))
    func releaseBinaryRunsInTheRuntimeRootfsAsNonRoot() throws {
        let built = try RuntimeRootfs.build()
        #expect(
            !built.built || FileManager.default.fileExists(atPath: RuntimeRootfs.root + "/usr/bin/apt-get"),
            "mmdebstrap failed:\n\(built.log.suffix(3000))")
        guard FileManager.default.fileExists(atPath: RuntimeRootfs.root + "/usr/bin/apt-get") else { return }
        if built.built { print("rootfs built in \(Int(built.seconds)) s at \(RuntimeRootfs.root)") }
        let root = RuntimeRootfs.root
        let binary = try #require(RuntimeRootfs.releaseBinary)
        let target = root + "/usr/local/bin/shoebox"
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: binary, toPath: target)
        // The gazetteer where the Dockerfile puts it (`make install` under /usr/local).
        let gazetteer = root + "/usr/local/share/shoebox/gazetteer.bin"
        try? FileManager.default.removeItem(atPath: gazetteer)
        if GazetteerFile.isAvailable {
            try FileManager.default.createDirectory(atPath: root + "/usr/local/share/shoebox", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: GazetteerFile.path, toPath: gazetteer)
        } else {
            print("rootfs: \(GazetteerFile.skipMessage); place names are not compared")
        }
        let work = root + "/work"
        for name in [
            "c.sqlite", "c.sqlite-wal", "c.sqlite-shm", "thumbs", "hidden.sqlite", "hidden.sqlite-wal", "hidden.sqlite-shm",
        ] { try? FileManager.default.removeItem(atPath: work + "/" + name) }
        let corpus = try #require(Corpus.root).path

        let who = try RuntimeRootfs.run(["/usr/bin/id", "-u"], photos: corpus)
        #expect(who.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "10001", "\(who.stdout) \(who.stderr)")
        let write = try RuntimeRootfs.run(["/bin/sh", "-c", "touch /photos/x"], photos: corpus)
        #expect(write.status != 0, "the sources are writable inside the rootfs")

        // Every library: HEIF and movies opened by libheif and libavformat (--cross-check), thumbnails through
        // libvips, posters through libavcodec/libswscale.
        let ingest = [
            "/usr/local/bin/shoebox", "ingest", "/photos", "--catalog", "/work/c.sqlite", "--cross-check", "--thumbnails",
            "/work/thumbs", "--progress", "none", "--summary", "json",
        ]
        let r = try RuntimeRootfs.run(ingest, photos: corpus)
        #expect(r.status == 0 || r.status == 1, "exit \(r.status):\n\(r.stderr.suffix(2000))")
        #expect(!r.stderr.contains("cannot load"), "\(r.stderr.suffix(2000))")
        let catalog = try Catalog(path: work + "/c.sqlite", mode: .readOnly)
        let counts = Dictionary(try catalog.summaryCounts(), uniquingKeysWith: { a, _ in a })
        #expect((counts["assets"] ?? 0) > 50, "\(counts)")
        let thumbs = (try? FileManager.default.contentsOfDirectory(atPath: work + "/thumbs")) ?? []
        #expect(thumbs.count > 50, "\(thumbs.count) thumbnails")

        // The same binary on this host (every -dev package installed) sees the same library.
        let s = try TestScratch("rootfs-host")
        let host = try Subprocess.run(
            binary,
            Array(ingest.dropFirst()).map {
                $0 == "/photos"
                    ? corpus : $0 == "/work/c.sqlite" ? s.path("c.sqlite") : $0 == "/work/thumbs" ? s.path("thumbs") : $0
            })
        #expect(host.status == r.status, "\(host.stderr.suffix(1000))")
        let hostCounts = Dictionary(
            try Catalog(path: s.path("c.sqlite"), mode: .readOnly).summaryCounts(), uniquingKeysWith: { a, _ in a })
        #expect(counts == hostCounts)
        #expect(thumbs.count == ((try? FileManager.default.contentsOfDirectory(atPath: s.path("thumbs")).count) ?? -1))

        // Place names and inferred zones (the gazetteer at /usr/local/share/shoebox, tzdata from the list): as
        // many inside as on the host.
        if GazetteerFile.isAvailable {
            #expect(!r.stderr.contains("gazetteer"), "\(r.stderr.suffix(1000))")
            for predicate in ["placeName != nil", "timeZone != nil"] {
                let inside = try RuntimeRootfs.run(
                    ["/usr/local/bin/shoebox", "query", "--catalog", "/work/c.sqlite", "--count", predicate], photos: corpus)
                let onHost = try Subprocess.run(binary, ["query", "--catalog", s.path("c.sqlite"), "--count", predicate])
                let n = Int(inside.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
                #expect(n > 0 && inside.stdout == onHost.stdout, "\(predicate): \(inside.stdout) \(inside.stderr) vs \(onHost.stdout)")
            }
        }

        // A library the list would not provide fails the run, with the package to install.
        let fresh = [
            "/usr/local/bin/shoebox", "ingest", "/photos", "--catalog", "/work/hidden.sqlite", "--cross-check", "--progress",
            "none",
        ]
        let hidden = try RuntimeRootfs.run(fresh, photos: corpus, hide: "/usr/lib/x86_64-linux-gnu/libheif.so.1")
        #expect(hidden.status == 127 && hidden.stderr.contains("libheif1"), "exit \(hidden.status): \(hidden.stderr.suffix(500))")
    }
}

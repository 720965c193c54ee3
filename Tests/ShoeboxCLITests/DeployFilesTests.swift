import Catalog
import Foundation
import TestSupport
import Testing
import Yams

/// Issue 20: the deploy files run as they are. The Kubernetes manifests validate against the OpenAPI
/// schemas offline (`kubernetes-validate`, installed by `make deps`), and their shell lines, run here with
/// the real binary on the generated library, ingest every shard and merge them; the compose file has the
/// structure a one-host run needs (its engine is absent here), and its shard line too runs as written.
@Suite(.serialized) struct DeployFilesTests {
    static let deploy = Corpus.packageRoot.appendingPathComponent("deploy")
    static let kubernetesVersion = "1.30.0"

    /// `kubernetes-validate`: the one `make deps` installs in .build/venv, else one on PATH.
    static let validator: String? = {
        let venv = Corpus.packageRoot.appendingPathComponent(".build/venv/bin/kubernetes-validate").path
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        return ReadOnlyAndLimitsTests.which("kubernetes-validate")
    }()
    static let skipValidator = "kubernetes-validate is not installed (make deps installs it into .build/venv from PyPI)"

    static func manifests() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: deploy.appendingPathComponent("kubernetes").path).filter {
            $0.hasSuffix(".yaml")
        }.sorted()
            .map { deploy.appendingPathComponent("kubernetes/" + $0).path }
    }

    @Test(.enabled(if: validator != nil, "\(skipValidator)"))
    func manifestsValidateAgainstTheKubernetesSchemas() throws {
        let files = try Self.manifests()
        #expect(files.count >= 3, "\(files)")
        let r = try Subprocess.run(try #require(Self.validator), ["--strict", "--quiet", "-k", Self.kubernetesVersion] + files)
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        // The validator is not vacuous: a misspelt field and a value of the wrong type are refused.
        let s = try TestScratch("k8s-bad")
        let job = try String(contentsOfFile: files.first { $0.hasSuffix("shards-job.yaml") }!, encoding: .utf8)
        for (name, text) in [
            ("typo.yaml", job.replacingOccurrences(of: "completionMode: Indexed", with: "completionMod: Indexed")),
            ("type.yaml", job.replacingOccurrences(of: "completions: 50", with: "completions: fifty")),
        ] {
            try text.write(toFile: s.path(name), atomically: true, encoding: .utf8)
            let bad = try Subprocess.run(
                try #require(Self.validator), ["--strict", "--quiet", "-k", Self.kubernetesVersion, s.path(name)])
            #expect(bad.status != 0, "\(name) passed validation")
        }
    }

    /// The documents of a YAML file.
    static func documents(_ path: String) throws -> [[String: Any]] {
        try Yams.load_all(yaml: String(contentsOfFile: path, encoding: .utf8)).compactMap { $0 as? [String: Any] }
    }

    static func dig(_ v: Any?, _ keys: String...) -> Any? {
        var cur = v
        for k in keys {
            if let i = Int(k), let a = cur as? [Any] { cur = i < a.count ? a[i] : nil } else { cur = (cur as? [String: Any])?[k] }
        }
        return cur
    }

    /// A shell line of a deploy file run with `/bin/sh` and the real binary on PATH, paths moved into `scratch`.
    static func runLine(_ line: String, env: [String: String], moving paths: [String: String]) throws -> Subprocess.Run {
        var text = line
        for (from, to) in paths { text = text.replacingOccurrences(of: from, with: to) }
        var e = Subprocess.environment.merging(env) { $1 }
        e["PATH"] = ProbeCommandTests.binary.deletingLastPathComponent().path + ":/usr/bin:/bin"
        return try Subprocess.run("/bin/sh", ["-c", text], environment: e)
    }

    @Test func kubernetesJobsRunAsWritten() throws {
        let shardsJob = try #require(Self.documents(Self.deploy.appendingPathComponent("kubernetes/shards-job.yaml").path).first)
        let mergeJob = try #require(Self.documents(Self.deploy.appendingPathComponent("kubernetes/merge-job.yaml").path).first)
        #expect(Self.dig(shardsJob, "spec", "completionMode") as? String == "Indexed")
        let completions = try #require(Self.dig(shardsJob, "spec", "completions") as? Int)
        let shardPod = try #require(Self.dig(shardsJob, "spec", "template", "spec") as? [String: Any])
        let container = try #require(Self.dig(shardPod, "containers", "0") as? [String: Any])
        let env = (container["env"] as? [[String: Any]] ?? []).reduce(into: [String: Any]()) { $0[$1["name"] as! String] = $1 }
        #expect(Self.dig(env["SHOEBOX_SHARDS"], "value") as? String == String(completions), "SHOEBOX_SHARDS ≠ completions")
        #expect(
            Self.dig(env["JOB_COMPLETION_INDEX"], "valueFrom", "fieldRef", "fieldPath") as? String
                == "metadata.annotations['batch.kubernetes.io/job-completion-index']")
        let mergeContainer = try #require(Self.dig(mergeJob, "spec", "template", "spec", "containers", "0") as? [String: Any])
        let mergeEnv = (mergeContainer["env"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "SHOEBOX_SHARDS" }
        #expect(mergeEnv?["value"] as? String == String(completions), "the merge Job expects another number of shards")
        // Sources read-only, in the volume and in the mount; limits set; never root.
        #expect(Self.dig(shardPod, "volumes", "0", "persistentVolumeClaim", "readOnly") as? Bool == true)
        let mounts = container["volumeMounts"] as? [[String: Any]] ?? []
        #expect(mounts.first { $0["mountPath"] as? String == "/photos" }?["readOnly"] as? Bool == true)
        #expect(
            Self.dig(container, "resources", "limits", "memory") != nil
                && Self.dig(container, "resources", "limits", "cpu") != nil)
        #expect(Self.dig(shardPod, "securityContext", "runAsNonRoot") as? Bool == true)

        // The shard line and the merge line, as written, on the generated library with 3 shards.
        let s = try TestScratch("k8s-run")
        try FileManager.default.createDirectory(atPath: s.path("shards"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: s.path("catalog"), withIntermediateDirectories: true)
        let library = Corpus.fixtures.appendingPathComponent("generated/library").path
        let moves = ["/photos": library, "/shards/": s.path("shards") + "/", "/catalog/": s.path("catalog") + "/"]
        let shardLine = try #require((container["args"] as? [String])?.first)
        for i in 0..<3 {
            let r = try Self.runLine(shardLine, env: ["JOB_COMPLETION_INDEX": String(i), "SHOEBOX_SHARDS": "3"], moving: moves)
            #expect(r.status == 0, "index \(i): \(r.stderr.suffix(500))")
            #expect(Catalog.isCatalog(atPath: s.path("shards/shard-\(i).sqlite")))
        }
        let mergeLine = try #require((mergeContainer["args"] as? [String])?.first)
        let short = try Self.runLine(mergeLine, env: ["SHOEBOX_SHARDS": "4"], moving: moves)
        #expect(short.status == 2 && short.stderr.contains("3 shard catalogs"), "\(short.stderr)")
        let merged = try Self.runLine(mergeLine, env: ["SHOEBOX_SHARDS": "3"], moving: moves)
        #expect(merged.status == 0, "\(merged.stderr)")
        let all = try Catalog(path: s.path("catalog/all.sqlite"), mode: .readOnly)
        #expect(try all.allAssets().count > 10)
    }

    @Test func composeFileHasTheShardsAndTheMerge() throws {
        let doc = try #require(Self.documents(Self.deploy.appendingPathComponent("compose.yml").path).first)
        let services = try #require(doc["services"] as? [String: Any])
        let shards = services.keys.filter { $0.hasPrefix("shard-") }.sorted()
        #expect(shards.count >= 2)
        var assignments: [String] = []
        for name in shards {
            let svc = try #require(services[name] as? [String: Any])
            let shard = try #require(Self.dig(svc, "environment", "SHARD") as? String)
            assignments.append(shard)
            #expect(svc["read_only"] as? Bool == true && (svc["user"] as? String).map { !$0.hasPrefix("0") } == true, "\(name)")
            #expect(svc["mem_limit"] != nil && svc["cpus"] != nil, "\(name): no limits")
            let volumes = svc["volumes"] as? [[String: Any]] ?? []
            #expect(
                volumes.first { $0["target"] as? String == "/photos" }?["read_only"] as? Bool == true,
                "\(name): sources not read-only")
            // The entrypoint as compose hands it to the container ($$ is a literal $), with a stand-in binary.
            let entry = try #require(svc["entrypoint"] as? [String])
            let line = entry[2].replacingOccurrences(of: "$$", with: "$")
            let r = try Subprocess.run(
                "/bin/sh", ["-c", "shoebox() { printf '%s\\n' \"$@\"; return 1; }; " + line], environment: ["SHARD": shard])
            #expect(r.status == 0, "\(name): exit 1 (some files damaged) must end the shard successfully")
            let args = r.stdout.split(separator: "\n").map(String.init)
            let index = shard.split(separator: "/")[0]
            #expect(args.contains("/shards/shard-\(index).sqlite") && args.contains(shard), "\(name): \(args)")
        }
        let n = shards.count
        #expect(Set(assignments) == Set((0..<n).map { "\($0)/\(n)" }), "shards \(assignments) are not 0/\(n)…\(n - 1)/\(n)")
        let merge = try #require(services["merge"] as? [String: Any])
        let deps = try #require(merge["depends_on"] as? [String: Any])
        for name in shards {
            #expect(
                Self.dig(deps, name, "condition") as? String == "service_completed_successfully",
                "merge does not wait for \(name)")
        }
        let command = merge["command"] as? [String] ?? []
        #expect(command.first == "merge" && (0..<n).allSatisfy { command.contains("/shards/shard-\($0).sqlite") }, "\(command)")
        let declared = Set((doc["volumes"] as? [String: Any] ?? [:]).keys)
        #expect(declared.isSuperset(of: ["shards", "catalog"]))
    }

    @Test func dockerfileAndRootfsTestReadOnePackageList() throws {
        let dockerfile = try String(contentsOf: Corpus.packageRoot.appendingPathComponent("Dockerfile"), encoding: .utf8)
        #expect(dockerfile.contains("COPY deploy/runtime-packages.txt"))
        let runtime = try #require(dockerfile.components(separatedBy: "FROM debian:bookworm-slim").last)
        // No package named in the runtime stage besides the list (its names must not drift apart).
        for p in try RuntimeRootfs.packages() { #expect(!runtime.contains(" \(p) "), "\(p) is named in the Dockerfile too") }
    }
}

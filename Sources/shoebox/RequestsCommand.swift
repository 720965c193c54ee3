import ArgumentParser
import Catalog
import Foundation

/// `shoebox requests`: write a creation-request manifest (JSON Lines; docs/requests.schema.json), or
/// `--replay` one into a catalog in one transaction.
struct RequestsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requests",
        abstract: "Write the catalog as PhotoKit creation requests (JSON Lines), or replay such a manifest into a catalog.",
        discussion: """
            Line 1 is a header; then one assetCreationRequest per asset, then folders (collectionListCreationRequest,
            parent before child), then albums (collectionCreationRequest). Every line refers only to placeholders of
            earlier lines. Moments and smart albums are computed, so they are not written.

            Examples:
              shoebox requests --out all.jsonl
              shoebox requests | gzip > all.jsonl.gz
              shoebox requests 'mediaType == video' --out videos.jsonl --root /photos
              shoebox requests --replay all.jsonl --catalog copy.sqlite
            """)

    @Argument(help: "A predicate (docs/predicates.md) limiting the assets; albums keep only those members.") var predicate: String?
    @Option(name: .customLong("arg"), parsing: .unconditionalSingleValue, help: "A value for %@, %d or %K in the predicate (repeatable, in order).")
    var args: [String] = []
    @Option(help: "Write the manifest here ('-' or none: standard output; a link, FIFO or terminal is written through).") var out: String?
    @Option(help: "Paths are written relative to this folder (default: the assets' catalog root); with --replay, read relative to it (default: the header's root).")
    var root: String?
    @Option(help: "Write the placeholder → local identifier mapping here (JSON Lines; '-': standard output).") var mapping: String?
    @Option(help: "Validate a manifest and perform it against --catalog in one transaction.") var replay: String?
    @Flag(help: "With --replay: validate only, change nothing.") var check = false
    @OptionGroup var catalogOption: CatalogOption

    func validate() throws {
        if replay != nil {
            if out != nil || predicate != nil || !args.isEmpty || mapping != nil {
                throw ValidationError("--replay reads a manifest: it takes no predicate, --arg, --out or --mapping.")
            }
        } else {
            if mapping == "-" && (out ?? "-") == "-" {
                throw ValidationError("The manifest goes to standard output: give --mapping a file (or --out FILE).")
            }
            if check { throw ValidationError("--check goes with --replay.") }
            if predicate == nil && !args.isEmpty { throw ValidationError("--arg is given but there is no predicate to fill.") }
        }
    }

    func run() throws {
        if let replay { return try runReplay(replay) }
        let out = out ?? "-"
        let target = try CommandOutput.check(out, allowStandardOutput: true)
        if let mapping { try CommandOutput.check(mapping, allowStandardOutput: true) }
        let catalog = try catalogOption.open()
        let options = try compileCommandPredicate(predicate, arguments: args).map { FetchOptions(predicate: $0) }
        let requests: CreationRequests
        do {
            requests = try catalog.creationRequests(matching: options, root: root)
        } catch let e as RequestsError {
            FileHandle.standardError.write(Data("error: \(e.message)\n".utf8))
            throw ExitCode(1)
        }
        try CommandOutput.write(requests.text, to: out, allowStandardOutput: true)
        if let mapping {
            let lines = requests.placeholders.sorted { $0.key < $1.key }.map {
                JSONValue.object(["placeholder": .string($0.key), "localIdentifier": .string($0.value)]).serialized(keyOrder: ["placeholder"]) + "\n"
            }
            try CommandOutput.write(lines.joined(), to: mapping, allowStandardOutput: true)
        }
        let name = target == .descriptor(1) ? "standard output" : out
        FileHandle.standardError.write(
            Data("wrote \(name): \(requests.assetCount) assets, \(requests.folderCount) folders, \(requests.albumCount) albums\n".utf8))
    }

    func runReplay(_ file: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read \(file): \(error.localizedDescription)")
        }
        do {
            if check {
                try RequestsManifest.validate(text, file: file)
                print("\(file): valid")
                return
            }
            try RequestsManifest.validate(text, file: file)  // before opening: a rejected manifest creates no catalog
            let catalog = try catalogOption.open(.readWrite(create: true))
            let records = try catalog.replayCreationRequests(text, file: file, root: root)
            catalog.checkpoint()
            let count = { (t: String) in records.filter { $0.objectType == t }.count }
            print("replayed \(file): \(count("asset")) assets, \(count("collectionList")) folders, \(count("assetCollection")) albums")
        } catch let e as ManifestError {
            FileHandle.standardError.write(Data((e.description + "\nnothing was applied\n").utf8))
            throw ExitCode(1)
        }
    }
}

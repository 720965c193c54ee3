import Catalog
import Foundation
import PhotoModel

/// Where the catalog is, and which setting chose it.
///
/// Precedence, first that applies: `--catalog`, `SHOEBOX_CATALOG`, the config file's `catalog:` (the
/// `--pipeline` file when given, else `$XDG_CONFIG_HOME/shoebox/config.yml`), `./shoebox.sqlite` when it
/// exists (the old default), `$XDG_DATA_HOME/shoebox/catalog.sqlite` (`~/.local/share/shoebox/…`).
/// See docs/config.md.
public struct CatalogLocation: Sendable, Equatable, CustomStringConvertible {
    public enum Source: String, Sendable, Equatable {
        case option = "--catalog"
        case environment = "SHOEBOX_CATALOG"
        case configFile = "the config file"
        case workingDirectory = "./shoebox.sqlite in the working directory"
        case dataHome = "the default location"
    }

    public var path: String
    public var source: Source

    public init(path: String, source: Source) {
        self.path = path
        self.source = source
    }

    /// `PATH (from SOURCE)`, for help texts and summaries.
    public var description: String { "\(path) (from \(source.rawValue))" }

    public static let environmentVariable = "SHOEBOX_CATALOG"
    /// The catalog's name in the working directory before the XDG default (still found there).
    public static let legacyName = "shoebox.sqlite"

    /// Resolves the catalog location. `configCatalog` is the config file's `catalog:` (already absolute).
    public static func resolve(
        option: String?, configCatalog: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> CatalogLocation {
        if let option, !option.isEmpty { return CatalogLocation(path: option, source: .option) }
        if let env = environment[environmentVariable], !env.isEmpty { return CatalogLocation(path: env, source: .environment) }
        if let configCatalog, !configCatalog.isEmpty { return CatalogLocation(path: configCatalog, source: .configFile) }
        if fileExists(legacyName) { return CatalogLocation(path: legacyName, source: .workingDirectory) }
        return CatalogLocation(path: dataHome(environment) + "/shoebox/catalog.sqlite", source: .dataHome)
    }

    /// `$XDG_DATA_HOME`, or `$HOME/.local/share` (a relative `XDG_DATA_HOME` is ignored, as the spec says).
    public static func dataHome(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        xdg("XDG_DATA_HOME", fallback: ".local/share", environment)
    }

    /// `$XDG_CONFIG_HOME`, or `$HOME/.config`.
    public static func configHome(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        xdg("XDG_CONFIG_HOME", fallback: ".config", environment)
    }

    /// `$XDG_CONFIG_HOME/shoebox/config.yml`.
    public static func configFile(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        configHome(environment) + "/shoebox/config.yml"
    }

    static func xdg(_ name: String, fallback: String, _ environment: [String: String]) -> String {
        if let v = environment[name], v.hasPrefix("/") { return v }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/" + fallback
    }

    /// Before a command creates the catalog: makes the default location's folder (mode 0700) when it is
    /// missing. Other locations are used as given (a missing folder there is the user's mistake).
    public func prepareForCreating() throws(CatalogError) {
        guard source == .dataHome else { return }
        let dir = (path as NSString).deletingLastPathComponent
        guard !FileManager.default.fileExists(atPath: dir) else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CatalogError(.open, "cannot create \(dir) for the catalog: \(error.localizedDescription)")
        }
    }
}

/// The config file (`$XDG_CONFIG_HOME/shoebox/config.yml`): a pipeline definition whose `roots` may be
/// left out; its values are the defaults of `shoebox ingest` when no `--pipeline` is given.
public enum ShoeboxConfig {
    /// The config file's definition; nil when there is none. A malformed file throws (with its line).
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(PipelineDefinitionError)
        -> PipelineDefinition?
    {
        let path = CatalogLocation.configFile(environment)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try PipelineDefinition.load(path: path, requireRoots: false)
    }
}

/// What an ingest read: its roots and crawl options, stored in the catalog (`meta` key `ingest_scope`)
/// so that `shoebox ingest` without roots scans them again and `shoebox roots` lists them.
public struct IngestScope: Codable, Sendable, Equatable {
    /// Absolute paths.
    public var roots: [String]
    public var include: [String]
    public var exclude: [String]
    public var includeHidden: Bool
    public var followSymlinks: Bool
    /// `--hash` of the run (`full`, `sampled`, `none`); absent in scopes stored before it existed (full).
    public var hash: String?

    public init(
        roots: [String], include: [String] = [], exclude: [String] = [], includeHidden: Bool = false, followSymlinks: Bool = true
    ) {
        self.roots = roots
        self.include = include
        self.exclude = exclude
        self.includeHidden = includeHidden
        self.followSymlinks = followSymlinks
    }

    static let metaKey = "ingest_scope"

    /// The scope stored by the last ingest; nil when none was (a catalog from before, or made by `change --create`).
    public static func stored(in catalog: Catalog) throws(CatalogError) -> IngestScope? {
        guard let text = try catalog.metaValue(metaKey) else { return nil }
        return try? JSONDecoder().decode(IngestScope.self, from: Data(text.utf8))
    }

    /// Records this scope as the catalog's (replacing the previous run's).
    public func store(in catalog: Catalog) throws(CatalogError) {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? enc.encode(self) else { return }
        try catalog.setMetaValue(Self.metaKey, String(decoding: data, as: UTF8.self))
    }

    /// A crawler with these rules.
    public func makeCrawler() throws(GlobPattern.SyntaxError) -> Crawler {
        var crawler = Crawler(includeHidden: includeHidden)
        crawler.followSymlinks = followSymlinks
        crawler.include = try include.map { (p) throws(GlobPattern.SyntaxError) in try GlobPattern(p) }
        crawler.exclude = try exclude.map { (p) throws(GlobPattern.SyntaxError) in try GlobPattern(p) }
        return crawler
    }
}

extension IngestScope {
    /// The scope after an ingest of `run`: the stored roots plus the run's (a root inside another is
    /// dropped for the outer one), with the run's include/exclude and options.
    public func merged(with run: IngestScope) -> IngestScope {
        var all = roots
        for r in run.roots where !all.contains(where: { PathText.isInside(r, $0) }) {
            all.removeAll { PathText.isInside($0, r) }
            all.append(r)
        }
        var next = run
        next.roots = all
        return next
    }
}

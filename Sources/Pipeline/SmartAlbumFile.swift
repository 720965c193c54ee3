import Catalog
import Foundation
import Organize
import PhotoModel
import Yams

/// Users' own smart albums from a YAML file (`userSmartAlbums:` in `Pipelines/smart-albums.yml`, same keys
/// as the built-ins). Each predicate is compiled when the file is read, so a mistake is reported with the
/// album's title and the caret, before anything is stored.
public enum SmartAlbumFile {
    public struct Error: Swift.Error, CustomStringConvertible {
        public var description: String
    }

    public static func load(path: String) throws -> [SmartAlbumDefinition] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw Error(description: "\(path): cannot read: \(error.localizedDescription)")
        }
        guard text.utf8.count <= 1 << 20 else { throw Error(description: "\(path): larger than 1 MiB") }
        let doc: Any?
        do { doc = try Yams.load(yaml: text) } catch { throw Error(description: "\(path): \(error)") }
        guard let top = doc as? [String: Any] else { throw Error(description: "\(path): expected a mapping with 'userSmartAlbums'") }
        let list = top["userSmartAlbums"] as? [Any] ?? []
        var out: [SmartAlbumDefinition] = []
        for (k, entry) in list.enumerated() {
            guard let e = entry as? [String: Any], let title = e["title"] as? String, let predicate = e["predicate"] as? String else {
                throw Error(description: "\(path): userSmartAlbums[\(k)] needs 'title' and 'predicate'")
            }
            let args = (e["arguments"] as? [Any] ?? []).map { "\($0)" }
            do {
                _ = try PredicateCompiler.compile(predicate, arguments: args.map(Catalog.resolveSmartAlbumArgument))
            } catch {
                throw Error(description: "\(path): smart album '\(title)': \(error)")
            }
            let scope = (e["scope"] as? String).flatMap(SmartAlbumDefinition.Scope.init(rawValue:)) ?? .library
            out.append(
                SmartAlbumDefinition(
                    subtype: AssetCollectionSubtype(rawValue: e["subtype"] as? Int ?? 200), name: "user", title: title, scope: scope,
                    predicate: predicate, arguments: args))
        }
        return out
    }
}

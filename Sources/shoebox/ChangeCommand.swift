import ArgumentParser
import Catalog
import Foundation
import Pipeline

/// `shoebox change`: PhotoKit change requests on the catalog (never on the source files). One change per
/// invocation from the flags, or a JSON change set with `--apply FILE`, performed all-or-nothing.
struct ChangeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change",
        abstract: "Change assets, albums and folders in the catalog (PhotoKit change requests; source files are never touched).",
        discussion: """
            One action per invocation; the identifiers (local identifiers) follow it as arguments:
              --favorite ID…            --no-favorite ID…
              --hidden ID…              --no-hidden ID…
              --creation-date 2021-06-01T12:00:00+02:00 ID…
              --location=-33.86,151.21[,ALT] ID…       --no-location ID…
              --delete ID… (to Recently Deleted)        --restore ID…
              --purge ID… (only from Recently Deleted)
              --create-album TITLE [--in-folder FOLDER]
              --create-folder TITLE [--in-folder FOLDER]
              --rename ID TITLE         --delete-collection ID…
              --add ASSET… --to ALBUM   --remove ASSET… --from ALBUM
              --reorder ALBUM ASSET…    (these first, in this order)
              --apply changes.json
            A change set is {"changes":[{"op":"createAlbum","placeholder":"$a","title":"Trip"},
            {"op":"addAssets","album":"$a","assets":["…"]},{"op":"favorite","asset":"…","value":true}]}; see
            docs/changes.md. Everything is recorded in the change history ('shoebox changes').
            Exit status: 0 applied, 1 a change failed (nothing was applied), 2 usage errors.

            Examples:
              shoebox change --create-album "Best of"
              shoebox change --favorite "$(shoebox query --live --limit 1 --format csv \\
                  --fields localIdentifier | tail -n 1)"
            """)

    @Argument(help: "The identifiers the action applies to (assets, or collections for --delete-collection; the title for --rename).")
    var targets: [String] = []

    @Flag(help: "Mark assets as favorites.") var favorite = false
    @Flag(help: "Unmark favorites.") var noFavorite = false
    @Flag(help: "Hide assets.") var hidden = false
    @Flag(help: "Unhide assets.") var noHidden = false
    @Option(help: "Set the creation date (ISO-8601; an offset or Z is kept).") var creationDate: String?
    @Option(parsing: .unconditional, help: "Set the location: LAT,LON[,ALT] (write --location=-33.8,151.2 for a negative latitude).")
    var location: String?
    @Flag(help: "Remove the location.") var noLocation = false
    @Flag(help: "Move assets to Recently Deleted.") var delete = false
    @Flag(help: "Restore assets from Recently Deleted.") var restore = false
    @Flag(help: "Remove assets (already in Recently Deleted) from the catalog.") var purge = false
    @Option(help: "Create an album with this title.") var createAlbum: String?
    @Option(help: "Create a folder with this title.") var createFolder: String?
    @Option(help: "With --create-album/--create-folder: inside this folder.") var inFolder: String?
    @Option(help: "Rename this album or folder (the new title follows).") var rename: String?
    @Flag(help: "Delete albums or (empty) folders.") var deleteCollection = false
    @Flag(help: "Add the assets to the album given by --to.") var add = false
    @Option(help: "The album for --add.") var to: String?
    @Flag(help: "Remove the assets from the album given by --from.") var remove = false
    @Option(help: "The album for --remove.") var from: String?
    @Option(help: "Reorder this album: the assets given come first, in that order.") var reorder: String?
    @Option(help: "Perform a JSON change set, all or nothing.") var apply: String?
    @Flag(help: "Create the catalog when --catalog names none (e.g. to make albums before any ingest).") var create = false
    @Flag(help: "Print the changes the history would record, and apply nothing.") var dryRun = false
    @OptionGroup var catalogOption: CatalogOption

    /// The chosen action's name (validation: exactly one).
    var actions: [String] {
        var a: [String] = []
        if favorite { a.append("--favorite") }
        if noFavorite { a.append("--no-favorite") }
        if hidden { a.append("--hidden") }
        if noHidden { a.append("--no-hidden") }
        if creationDate != nil { a.append("--creation-date") }
        if location != nil { a.append("--location") }
        if noLocation { a.append("--no-location") }
        if delete { a.append("--delete") }
        if restore { a.append("--restore") }
        if purge { a.append("--purge") }
        if createAlbum != nil { a.append("--create-album") }
        if createFolder != nil { a.append("--create-folder") }
        if rename != nil { a.append("--rename") }
        if deleteCollection { a.append("--delete-collection") }
        if add { a.append("--add") }
        if remove { a.append("--remove") }
        if reorder != nil { a.append("--reorder") }
        if apply != nil { a.append("--apply") }
        return a
    }

    func validate() throws {
        let a = actions
        guard a.count == 1 else {
            throw ValidationError(a.isEmpty ? "Give one action (see 'shoebox change --help')." : "One action at a time: \(a.joined(separator: ", ")).")
        }
        let action = a[0]
        if inFolder != nil && createAlbum == nil && createFolder == nil { throw ValidationError("--in-folder goes with --create-album or --create-folder.") }
        if to != nil && !add { throw ValidationError("--to goes with --add.") }
        if from != nil && !remove { throw ValidationError("--from goes with --remove.") }
        if add && to == nil { throw ValidationError("--add needs --to ALBUM.") }
        if remove && from == nil { throw ValidationError("--remove needs --from ALBUM.") }
        switch action {
        case "--apply", "--create-album", "--create-folder":
            if !targets.isEmpty { throw ValidationError("\(action) takes no further arguments (got \(targets.joined(separator: " "))).") }
        case "--rename":
            if targets.count != 1 { throw ValidationError("--rename ID TITLE: give exactly one new title.") }
        default:
            if targets.isEmpty { throw ValidationError("\(action) needs at least one identifier.") }
        }
        if let location, Self.parseLocation(location) == nil { throw ValidationError("--location wants LAT,LON[,ALT] (numbers), got '\(location)'.") }
    }

    /// `--dry-run`: the set performed on a copy of the catalog; its change records, one per line.
    func preview(_ set: ChangeSet) throws {
        let location = catalogOption.location
        let records: [ChangeRecord]
        let catalog = create && !FileManager.default.fileExists(atPath: location.path) ? nil : try catalogOption.open()
        let empty = catalog == nil ? try ScratchCatalog(copying: nil) : nil  // --create on no catalog: an empty one
        defer { withExtendedLifetime(empty) {} }
        do throws(CatalogError) {
            records = try (catalog ?? empty!.catalog).preview(set)
        } catch {
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
        print("dry run: nothing was applied to \(location.path); the change history would record:")
        for r in records {
            print("  \(r.changeType) \(r.objectType) \(r.localIdentifier)\(r.properties.isEmpty ? "" : " (" + r.properties.joined(separator: ", ") + ")")")
        }
    }

    static func parseLocation(_ s: String) -> (Double, Double, Double?)? {
        let parts = s.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2 || parts.count == 3, let lat = parts[0], let lon = parts[1] else { return nil }
        if parts.count == 3 { guard let alt = parts[2] else { return nil }; return (lat, lon, alt) }
        return (lat, lon, nil)
    }

    /// The change set the flags stand for.
    func changeSet() -> ChangeSet {
        func each(_ make: (String) -> Change) -> [Change] { targets.map(make) }
        let changes: [Change]
        if favorite || noFavorite {
            changes = each { Change(op: .favorite, asset: $0, value: favorite) }
        } else if hidden || noHidden {
            changes = each { Change(op: .hide, asset: $0, value: hidden) }
        } else if let creationDate {
            changes = each { Change(op: .setCreationDate, asset: $0, date: creationDate) }
        } else if let location, let (lat, lon, alt) = Self.parseLocation(location) {
            changes = each { Change(op: .setLocation, asset: $0, latitude: lat, longitude: lon, altitude: alt) }
        } else if noLocation {
            changes = each { Change(op: .setLocation, asset: $0) }
        } else if delete {
            changes = each { Change(op: .delete, asset: $0) }
        } else if restore {
            changes = each { Change(op: .restore, asset: $0) }
        } else if purge {
            changes = each { Change(op: .purge, asset: $0) }
        } else if let createAlbum {
            changes = [Change(op: .createAlbum, placeholder: "$new", folder: inFolder, title: createAlbum)]
        } else if let createFolder {
            changes = [Change(op: .createFolder, placeholder: "$new", folder: inFolder, title: createFolder)]
        } else if let rename {
            changes = [Change(op: .rename, collection: rename, title: targets[0])]
        } else if deleteCollection {
            changes = each { Change(op: .deleteCollection, collection: $0) }
        } else if add {
            changes = [Change(op: .addAssets, assets: targets, album: to)]
        } else if remove {
            changes = [Change(op: .removeAssets, assets: targets, album: from)]
        } else if let reorder {
            changes = [Change(op: .reorder, assets: targets, album: reorder)]
        } else {
            changes = []
        }
        return ChangeSet(changes: changes)
    }

    func run() throws {
        let set: ChangeSet
        if let apply {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: apply))
            } catch {
                throw ValidationError("Cannot read \(apply): \(error.localizedDescription)")
            }
            do {
                set = try ChangeSet.decode(data)
            } catch {
                throw ValidationError("\(apply): \(error.message)")
            }
            if set.changes.isEmpty { throw ValidationError("\(apply): the change set has no changes.") }
        } else {
            set = changeSet()
        }
        if dryRun {
            try preview(set)
            return
        }
        let catalog = try catalogOption.open(.readWrite(create: create))
        let placeholders: [String: String]
        do {
            placeholders = try catalog.perform(set)
            catalog.checkpoint()
        } catch {
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
        if apply != nil {
            for (p, lid) in placeholders.sorted(by: { $0.key < $1.key }) { print("\(p)\t\(lid)") }
        } else if let lid = placeholders["$new"] {
            print(lid)
        }
        FileHandle.standardError.write(Data("applied \(set.changes.count) change\(set.changes.count == 1 ? "" : "s")\n".utf8))
        // Organize's collections are derived: they follow at the next ingest (docs/changes.md).
        let organized: Set<Change.Op> = [.setCreationDate, .setLocation, .delete, .restore, .purge]
        if set.changes.contains(where: { organized.contains($0.op) }) {
            FileHandle.standardError.write(
                Data("note: moments, places and bursts follow at the next 'shoebox ingest' (or 'shoebox rederive')\n".utf8))
        }
    }
}

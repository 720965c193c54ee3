import ArgumentParser
import Foundation

/// The `shoebox` command line. Thin: parsing, output and exit codes; the work is in the libraries.
struct Shoebox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shoebox",
        abstract: "Catalogue folders of photos and videos the way Apple's PhotoKit sees them.",
        version: "0.1.0\nPlace names and time zones: GeoNames (https://www.geonames.org), CC BY 4.0 (docs/places.md)",
        subcommands: [
            ProbeCommand.self, InspectCommand.self, IngestCommand.self, MergeCommand.self, QueryCommand.self, ShowCommand.self, StatsCommand.self,
            ChangesCommand.self, ErrorsCommand.self, SkippedCommand.self, RederiveCommand.self, IdCommand.self, CollectionsCommand.self, MomentsCommand.self, BurstsCommand.self,
            RequestsCommand.self, ChangeCommand.self, ThumbnailsCommand.self, ReportCommand.self, RootsCommand.self,
        ])
}

@main
enum Main {
    static func main() async {
        let arguments = Arguments.expandingAliases(Array(CommandLine.arguments.dropFirst()))
        if let mistake = unknownCommand(arguments) {
            FileHandle.standardError.write(Data("error: \(mistake)\n".utf8))
            exit(2)
        }
        do {
            var command = try Shoebox.parseAsRoot(arguments)
            if var async = command as? any AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch {
            let code = Shoebox.exitCode(for: error)
            if code == .success {
                Shoebox.exit(withError: error)  // --help, --version
            }
            let message = Shoebox.fullMessage(for: error)
            if !message.isEmpty {
                // One style for every error line: ArgumentParser's "Error: " becomes ours, "error: ".
                let text = message.hasPrefix("Error: ") ? "error: " + message.dropFirst(7) : message
                FileHandle.standardError.write(Data((text + "\n").utf8))
            }
            // Usage mistakes exit 2 (as the issue and most Unix tools do), not ArgumentParser's 64.
            exit(code == .validationFailure || error is ValidationError ? 2 : code.rawValue)
        }
    }

    /// `shoebox querry` or `shoebox help querry`: a message with a suggestion; nil when the words name a
    /// command (or are options).
    static func unknownCommand(_ arguments: [String]) -> String? {
        let names = Shoebox.configuration.subcommands.map { $0._commandName } + ["help"]
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        if !names.contains(first) {
            return "unknown command '\(first)'.\(Suggestion.phrase(for: first, in: names)) Commands: \(names.joined(separator: ", "))."
        }
        if first == "help", arguments.count > 1, !arguments[1].hasPrefix("-"), !names.contains(arguments[1]) {
            let topic = arguments[1]
            return "no help for '\(topic)': there is no such command.\(Suggestion.phrase(for: topic, in: names)) Commands: \(names.joined(separator: ", "))."
        }
        return nil
    }
}

import ArgumentParser
import Foundation

/// The `shoebox` command line. Thin: parsing, output and exit codes; the work is in the libraries.
struct Shoebox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shoebox",
        abstract: "Catalogue folders of photos and videos the way Apple's PhotoKit sees them.",
        version: "0.1.0",
        subcommands: [
            ProbeCommand.self, InspectCommand.self, IngestCommand.self, QueryCommand.self, ShowCommand.self, StatsCommand.self,
            ChangesCommand.self, ErrorsCommand.self, SkippedCommand.self, RederiveCommand.self, IdCommand.self, CollectionsCommand.self, MomentsCommand.self, BurstsCommand.self,
            RequestsCommand.self, ChangeCommand.self, ThumbnailsCommand.self, RootsCommand.self,
        ])
}

/// Output formats shared by the commands.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case json, ndjson, table
}

@main
enum Main {
    static func main() async {
        do {
            var command = try Shoebox.parseAsRoot()
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
                FileHandle.standardError.write(Data((message + "\n").utf8))
            }
            // Usage mistakes exit 2 (as the issue and most Unix tools do), not ArgumentParser's 64.
            exit(code == .validationFailure || error is ValidationError ? 2 : code.rawValue)
        }
    }
}

import ArgumentParser
import Catalog
import Foundation

/// Exit statuses of catalog refusals and output-path mistakes, and the one way commands write a path
/// the user chose (through `OutputFile`, which never replaces a link, device or FIFO).
enum CommandOutput {
    /// A catalog the command cannot use as given — missing, not a Shoebox catalog, from a newer Shoebox,
    /// older than this one for a read-only command, read-only for a writing one — is a usage-like
    /// mistake: 2. A damaged file or a failing disk: 1.
    static func status(for error: CatalogError) -> Int32 {
        switch error.code {
        case .notFound, .notACatalog, .newerSchema, .olderSchema, .readOnly: 2
        default: 1
        }
    }

    /// A directory, a missing folder, a socket or `-` where it cannot stream: 2. A failed write: 1.
    static func status(for error: OutputError) -> Int32 { error.code == .io ? 1 : 2 }

    /// Checks an output path before any work is done; a mistake is printed and becomes its exit status.
    @discardableResult
    static func check(_ path: String, allowStandardOutput: Bool = false) throws -> OutputTarget {
        do { return try OutputFile.target(for: path, allowStandardOutput: allowStandardOutput) } catch { throw fail(error) }
    }

    /// Writes `text` to a path the user chose (`-`: standard output, where `allowStandardOutput`).
    static func write(_ text: String, to path: String, allowStandardOutput: Bool = false) throws {
        do { try OutputFile.write(Data(text.utf8), to: path, allowStandardOutput: allowStandardOutput) } catch {
            throw fail(error)
        }
    }

    private static func fail(_ error: OutputError) -> ExitCode {
        FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
        return ExitCode(status(for: error))
    }
}

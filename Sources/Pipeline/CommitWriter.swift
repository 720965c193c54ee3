import Catalog
import Dispatch

/// Writes batches of folder commits on a thread of its own, one batch at a time, while the ingest goes on
/// probing and assembling the next folders.
///
/// Before, the ingest loop wrote each batch itself: for the ~0.1 s of a batch's transaction no folder was
/// handed to the file pool, the few already queued ran out, and one core sat idle (a third of a 3,000-file
/// ingest's wall time on two cores). Now a batch is handed over and the loop continues; it waits only when
/// the next batch is ready before the previous one is written (at most one batch is in the writer's hands,
/// so memory stays bounded and an interrupted run loses no more than before).
///
/// The writer is used by one task (the ingest loop): `submit` and `drain` are not called concurrently.
/// The folders it holds count as committed but are not in the catalog yet, for the checks that read the
/// catalog before a commit (`UnwrittenPartials`), like the loop's own pending batch.
final class CommitWriter: @unchecked Sendable {
    private let catalog: Catalog
    private let queue = DispatchQueue(label: "shoebox.catalog-writer", qos: .userInitiated)
    private var inFlight: Task<[ChangeRecord], any Error>?

    init(catalog: Catalog) { self.catalog = catalog }

    /// Hands `batch` to the writer. First waits for the batch before it, and returns that batch's change
    /// records (or throws its error: the ingest stops as it did when it wrote the batch itself).
    func submit(_ batch: [FolderCommit]) async throws -> [ChangeRecord] {
        let previous = try await drain()
        guard !batch.isEmpty else { return previous }
        let catalog = self.catalog
        let queue = self.queue
        inFlight = Task {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<[ChangeRecord], any Error>) in
                queue.async {
                    do { done.resume(returning: try catalog.commitFolders(batch)) } catch { done.resume(throwing: error) }
                }
            }
        }
        return previous
    }

    /// Waits for the batch being written, if any, and returns its change records.
    func drain() async throws -> [ChangeRecord] {
        guard let task = inFlight else { return [] }
        inFlight = nil
        return try await task.value
    }
}

import Testing

@testable import Pipeline

/// `Concurrent` runs a step of organize on a thread of its own; what its body captured (the catalog) must be let
/// go by the time `value()` returns, or the last reference to a catalog can outlive the command on that thread
/// and the catalog is never closed (its last commits left in the write-ahead log).
@Suite struct ConcurrentTests {
    final class Held: Sendable {}

    @Test func whatItsBodyHeldIsLetGoWhenTheValueIsReturned() throws {
        for k in 0..<200 {
            weak var held: Held?
            let c: Concurrent<Int> = {
                let h = Held()
                held = h
                return Concurrent { withExtendedLifetime(h) { k } }
            }()
            #expect(try c.value() == k)
            #expect(held == nil, "round \(k): the body's capture still alive after value()")
            if held != nil { break }
        }
    }
}

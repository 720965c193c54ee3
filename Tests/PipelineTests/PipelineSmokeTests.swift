import Testing
@testable import Pipeline
@Suite struct PipelineSmokeTests { @Test func crawlerSeesNothingInAnEmptyList() { var n = 0; Crawler().walk([]) { _ in n += 1 }; #expect(n == 0) } }

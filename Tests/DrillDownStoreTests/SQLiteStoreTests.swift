import Testing
@testable import DrillDownStore

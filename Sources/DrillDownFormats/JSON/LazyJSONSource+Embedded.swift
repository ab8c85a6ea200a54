import DrillDownCore

extension LazyJSONSource {
    /// The file read with its text values that hold a JSON object or array opened as subtrees,
    /// read-only (the file is): an `EmbeddedFieldSource` whose values open in place, each
    /// parsed with `json` only when its node's children are asked for, once.
    ///
    /// Their nodes get blocks of ids from the same counter as the levels visited, so no level
    /// indexed later reuses them.
    public func openingJSON(_ json: EmbeddedJSON = .formats) -> EmbeddedFieldSource {
        EmbeddedFieldSource(self, fields: EmbeddedFields(json: json, writable: false, opening: .values) { [state] n in state.reserve(n) })
    }
}

extension LazyJSONState {
    /// A block of `n` ids no level gets (its first), or `nil` when they would not fit.
    func reserve(_ n: Int) -> Int32? {
        locked {
            guard n > 0, n < Int(Int32.max) - Int(nextID) else { return nil }
            defer { nextID += Int32(n) }
            return nextID
        }
    }
}

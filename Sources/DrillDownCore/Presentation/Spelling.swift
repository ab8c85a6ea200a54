/// Suggestions for misspelt names: the known name a few typing slips away.
enum Spelling {
    /// The name in `known` nearest to `word` (case-insensitively), when it is at most about one
    /// slip per three letters away (a slip: a letter added, dropped, changed, or two swapped).
    ///
    /// ```swift
    /// Spelling.nearest(to: "titel", in: ["title", "subtitle"])   // "title"
    /// Spelling.nearest(to: "colour", in: ["title"])              // nil
    /// ```
    /// - Complexity: O(k × n × m) for k known names of length m and a word of length n.
    static func nearest(to word: String, in known: [String]) -> String? {
        let w = Array(word.lowercased().unicodeScalars)
        let limit = max(1, min(3, w.count / 3))
        var best: (name: String, distance: Int)?
        for name in known {
            let d = distance(w, Array(name.lowercased().unicodeScalars))
            if d <= limit, d < (best?.distance ?? .max) { best = (name, d) }
        }
        return best?.name
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and
    /// transpositions of adjacent letters each count 1.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0 ... b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1 ... a.count {
            current[0] = i
            for j in 1 ... b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}

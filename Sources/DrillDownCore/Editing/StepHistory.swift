/// The steps ``EditableDocument`` can undo or redo, at most ``limit`` of them, oldest first: a
/// ring, so keeping a full history costs O(1) per step (an array's `removeFirst` moved every
/// kept step on every change once the history was full).
///
/// ```swift
/// var history = StepHistory<Int>(limit: 2)
/// history.append(1); history.append(2); history.append(3)   // 1 is forgotten
/// history.elements                                          // [2, 3]
/// ```
struct StepHistory<Element: Sendable>: Sendable {
    /// The slots of the ring; `nil` where nothing is kept.
    private var slots: [Element?] = []
    /// The slot of the oldest element.
    private var head = 0
    /// The number of elements kept.
    private(set) var count = 0
    /// The most elements kept; appending beyond it forgets the oldest.
    var limit: Int {
        didSet { if limit < oldValue { reset(to: Array(elements.suffix(max(0, limit)))) } }
    }

    init(limit: Int) { self.limit = limit }

    var isEmpty: Bool { count == 0 }

    /// The newest element.
    var last: Element? { count == 0 ? nil : slots[slot(count - 1)] }

    /// The elements, oldest first.
    /// - Complexity: O(count)
    var elements: [Element] { (0 ..< count).compactMap { slots[slot($0)] } }

    private func slot(_ i: Int) -> Int {
        let s = head + i
        return s < slots.count ? s : s - slots.count
    }

    /// Adds `element` as the newest, forgetting the oldest when ``limit`` are kept; returns the
    /// element forgotten (the caller decides where it is freed), if any.
    /// - Complexity: amortized O(1)
    @discardableResult
    mutating func append(_ element: Element) -> Element? {
        guard limit > 0 else { return element }
        if count < limit {
            if count == slots.count, head != 0 { reset(to: elements) }
            if count == slots.count {
                slots.append(element)
            } else {
                slots[slot(count)] = element
            }
            count += 1
            return nil
        } else {
            // Full: the oldest slot becomes the newest.
            let oldest = slots[head].take()
            slots[head] = element
            head = head + 1 == slots.count ? 0 : head + 1
            return oldest
        }
    }

    /// Removes and returns the newest element.
    /// - Complexity: O(1)
    mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        let s = slot(count - 1)
        let element = slots[s]
        slots[s] = nil
        count -= 1
        if count == 0 { head = 0 }
        return element
    }

    /// Forgets every element.
    mutating func removeAll() {
        slots = []
        head = 0
        count = 0
    }

    private mutating func reset(to kept: [Element]) {
        slots = kept.map { Optional($0) }
        head = 0
        count = kept.count
    }
}

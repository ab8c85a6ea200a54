import DrillDownCore

/// The rows of one level page written one at a time, as ``Presenter/forEachRow(of:offset:limit:_:)``
/// hands them over: each row's `<li>` (``RowHTML/append(_:editing:to:)``) and, with `sections`,
/// each section's header (``RowHTML/appendHeader(_:position:to:)``) before its first row.
/// No array of rows is built for a page.
struct RowList {
    let editing: RowEditing?
    let sections: Sections?
    /// The display position in the level of the next row.
    private var position: Int
    /// The section whose header comes next.
    private var next: Int

    /// A list whose first row is the level's row `offset`.
    init(editing: RowEditing?, sections: Sections?, offset: Int) {
        self.editing = editing
        self.sections = sections
        position = offset
        next = 0
        if let sections {
            next = sections.section(containing: offset) ?? sections.sections.count
            if next < sections.sections.count, sections.sections[next].start < offset { next += 1 }
        }
    }

    /// Appends the next row (after its section's header when it starts one).
    mutating func append(_ row: Row, to out: inout HTML) {
        if let sections, next < sections.sections.count, sections.sections[next].start == position {
            RowHTML.appendHeader(sections.sections[next], position: next, to: &out)
            next += 1
        }
        RowHTML.append(row, editing: editing, to: &out)
        position += 1
    }
}

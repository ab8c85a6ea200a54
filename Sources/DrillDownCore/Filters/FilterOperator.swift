/// How a ``Filter/Condition`` compares a row's field with its value(s).
public enum FilterOperator: String, Sendable, Hashable, CaseIterable {
    /// Equal (dates: the same day when the value gives only a day).
    case equal = "="
    /// Not equal (a row without the field does not match).
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    /// Contains, ignoring case and accents.
    case contains = "~"
    /// Equal to one of a list: `genre in (Rock, Jazz)`.
    case oneOf = "in"
    /// The row has the field, whatever its value.
    case exists = "exists"
}

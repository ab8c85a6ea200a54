/// How a sign-out went, when the sign-in page it goes to has something to say (`/signin?signout=…`):
/// a fixed set of texts, so a link cannot make the page say anything else.
enum SignOutOutcome: String {
    /// "Sign out everywhere", recorded.
    case everywhere
    /// A sign-out the users file could not record.
    case failed
    /// A "Sign out everywhere" the users file could not record.
    case everywhereFailed = "everywhere-failed"

    /// What went wrong, for the page's error line.
    var problem: String? {
        switch self {
        case .everywhere: nil
        case .failed:
            "You are signed out in this browser only: the server could not record the sign-out in its users file, so a copy of this session's cookie still works until it expires. Tell the server's administrator (the reason is in the server's log)."
        case .everywhereFailed:
            "You are signed out in this browser only: the server could not record the sign-out in its users file, so your other sessions still work until they expire. Tell the server's administrator (the reason is in the server's log)."
        }
    }

    /// Good news, for the page's status line.
    var notice: String? { self == .everywhere ? "You are signed out everywhere: every session of yours has ended, on every device." : nil }
}

import DrillDownCore
import Foundation
import Hummingbird

/// Everything a request needs: the data, the templates and assets, the options.
///
/// Immutable after start except the outline cache, which guards itself.
struct Site: Sendable {
    /// Rows, titles, details.
    let presenter: Presenter
    /// The folder images are served from; `nil` serves none.
    let dataFolder: URL?
    /// Tunables.
    let options: WebServer.Options
    /// Templates, stylesheet and script.
    let assets: Assets
    /// Recently built outlines, keyed by their URL state.
    let outlines = OutlineCache(capacity: 4)

    var source: any Source { presenter.source }

    /// The router with every route; middleware order is outermost first.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorPageMiddleware(site: self))
        router.add(middleware: ReadOnlyMiddleware(maxBodyBytes: options.maxBodyBytes))
        addPageRoutes(to: router)
        addAPIRoutes(to: router)
        addFileRoutes(to: router)
        return router
    }
}

import Hummingbird

/// `/healthz`: the process answers. `/readyz`: it can also reach its data's storage (a database
/// server), so a load balancer sends it requests; 503 with the reason when it cannot.
extension Site {
    func addHealthRoutes(to router: Router<SiteContext>) {
        router.get("/healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("/readyz") { _, _ in
            let problem = await options.readiness?()
            return Response(
                status: problem == nil ? .ok : .serviceUnavailable,
                headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: (problem ?? "ready") + "\n")))
        }
    }
}

// APIError: Strata's errors as HTTP answers: 422 with the failed fields, 409 for a stale version, 404, 503.
import Hummingbird
import Strata

/// An error answered with a status and a JSON body `{"error": …, "fields": […]}`.
struct APIError: HTTPResponseError {
    struct Body: Encodable {
        var error: String
        var fields: [Field]?
    }

    /// A field that failed validation: `{"field": "title", "rule": "presence", "message": "can't be blank"}`.
    struct Field: Encodable {
        var field: String
        var rule: String
        var message: String
    }

    var status: HTTPResponse.Status
    var body: Body

    init(_ status: HTTPResponse.Status, _ message: String, fields: [Field]? = nil) {
        self.status = status
        body = Body(error: message, fields: fields)
    }

    /// The answer to a Strata error; nil for one the client did not cause (a 500, logged, not shown).
    init?(_ error: StrataError) {
        switch error {
        case .validationFailed(let failures):
            let fields = failures.map { Field(field: $0.field, rule: $0.rule, message: $0.message) }
            self.init(.unprocessableContent, "validation failed", fields: fields)
        case .staleRecord:
            self.init(.conflict, "the todo was changed since you read it: read it again")
        case .recordNotFound:
            self.init(.notFound, "no such todo")
        case .connectionFailed(let reason) where reason == "the database is closed":
            self.init(.serviceUnavailable, "the server is shutting down")
        default:
            return nil
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(body, from: request, context: context)
        response.status = status
        return response
    }
}

/// Answers a thrown ``StrataError`` the client caused with its ``APIError``.
struct StrataErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as StrataError {
            guard let answer = APIError(error) else { throw error }
            throw answer
        }
    }
}

/// Logs every statement of a request to the request's logger, so each line carries its `hb.request.id`.
struct DatabaseLoggerMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try await Database.withLogger(context.logger) { try await next(request, context) }
    }
}

// TodoController: the routes: list with paging, read, create, update with a version check, delete.
import Hummingbird
import Strata

extension Todo: ResponseEncodable {}

struct TodoController<Context: RequestContext> {
    let db: Database

    func addRoutes(to group: RouterGroup<Context>) {
        group.get(use: list)
        group.get(":id", use: show)
        group.post(use: create)
        group.patch(":id", use: update)
        group.delete(":id", use: delete)
    }

    /// A page of todos, oldest first: `GET /todos?page=2&per=20`.
    struct Page: ResponseEncodable {
        var items: [Todo]
        var page: Int
        var per: Int
        var total: Int
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Page {
        let page = request.uri.queryParameters.get("page", as: Int.self) ?? 1
        let per = request.uri.queryParameters.get("per", as: Int.self) ?? 20
        guard page >= 1, (1...100).contains(per) else {
            throw APIError(.badRequest, "page starts at 1; per is 1 to 100")
        }
        let items = try await Todo.query(on: db).order(\.id).limit(per).offset((page - 1) * per).all()
        return Page(items: items, page: page, per: per, total: try await Todo.query(on: db).count())
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> Todo {
        try await find(context)
    }

    /// `POST /todos {"title": "…"}`: 201 with the todo, or 422 naming each field that failed validation.
    struct NewTodo: Decodable {
        var title: String
        var done: Bool?
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> EditedResponse<Todo> {
        let new = try await request.decode(as: NewTodo.self, context: context)
        var todo = Todo(title: new.title, done: new.done ?? false)
        try await todo.save(on: db)  // validates first: StrataError.validationFailed becomes 422
        return EditedResponse(status: .created, response: todo)
    }

    /// `PATCH /todos/1 {"done": true, "version": 0}`: the version the client read; 409 when someone saved since.
    struct Patch: Decodable {
        var title: String?
        var done: Bool?
        var version: Int64
    }

    @Sendable func update(_ request: Request, context: Context) async throws -> Todo {
        let patch = try await request.decode(as: Patch.self, context: context)
        var todo = try await find(context)
        todo.version = patch.version  // checked by the UPDATE: WHERE id = ? AND version = ?
        if let title = patch.title { todo.title = title }
        if let done = patch.done { todo.done = done }
        try await todo.save(on: db)  // StrataError.staleRecord becomes 409
        return todo
    }

    @Sendable func delete(_ request: Request, context: Context) async throws -> HTTPResponse.Status {
        let todo = try await find(context)
        _ = try await todo.delete(on: db)
        return .noContent
    }

    private func find(_ context: Context) async throws -> Todo {
        let id = try context.parameters.require("id", as: Int64.self)
        guard let todo = try await Todo.find(id, on: db) else { throw APIError(.notFound, "no such todo") }
        return todo
    }
}

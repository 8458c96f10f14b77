/** The operations of an OpenAPI document, by path and lower-case method, with the answers each lists. */
export interface OpenApiPaths {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}

/**
 * The document's operation of a route as Fastify names it (`:id` for `{id}`). Forward-auth answers every method alike,
 * and a path after it as it does the route itself: the document describes it as GET and POST.
 */
export function documented(doc: OpenApiPaths, method: string, url: string): { responses: Record<string, unknown> } | undefined {
  if (url.startsWith('/v1/forward-auth')) return doc.paths['/v1/forward-auth']?.[method === 'POST' ? 'post' : 'get'];
  return doc.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
}

/** Whether an operation lists `status` among its answers, itself or by its range (`4XX`). */
export function answers(operation: { responses: Record<string, unknown> }, status: number): boolean {
  return String(status) in operation.responses || `${Math.floor(status / 100)}XX` in operation.responses;
}

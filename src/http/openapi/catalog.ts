import type { RouteDoc } from './route.js';

/** a route description, whatever its parameters parse to */
export type AnyRoute = RouteDoc;

/** One route as served at one place: `/v1/tx/:id/status` and `/tx/:id/status` are two operations. */
export interface Operation {
  route: AnyRoute;
  /** the full Express path, as a request sees it */
  expressPath: string;
  /** the same path in OpenAPI's template form: `/v1/tx/{id}/status` */
  path: string;
  operationId: string;
}

/** `/v1` + `/` is `/v1`; `/` + `/tx` is `/tx` */
export const joinPath = (prefix: string, path: string): string => {
  const base = prefix.replace(/\/+$/, '');
  if (path === '/') return base || '/';
  return base + path;
};

const templated = (expressPath: string) => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * What an app serves, route by route, as it is mounted: the OpenAPI document and /api-docs are built
 * from it. Whoever mounts a router adds its route descriptions here with the same prefixes:
 * `app.use(['/v1', '/'], router); api.add(['/v1', '/'], routes)`.
 */
export class ApiCatalog {
  private readonly groups: { prefixes: readonly string[]; routes: readonly AnyRoute[] }[] = [];

  add(prefixes: readonly string[], routes: readonly AnyRoute[]): void {
    this.groups.push({ prefixes, routes });
  }

  /**
   * Every served operation. The first prefix keeps the route's operationId; a root copy of a versioned
   * route gets `Unversioned` appended (operation ids are unique in a document).
   */
  operations(): Operation[] {
    return this.groups.flatMap(({ prefixes, routes }) =>
      prefixes.flatMap((prefix, index) =>
        routes.map((route) => {
          const expressPath = joinPath(prefix, route.path);
          const suffix = index === 0 ? '' : prefix.startsWith('/v1') ? `V${index}` : 'Unversioned';
          return { route, expressPath, path: templated(expressPath), operationId: route.operationId + suffix };
        }),
      ),
    );
  }
}

/**
 * The API's description: route descriptions (each router parses its parameters with them), the
 * catalog of what an app mounts, and the router serving /openapi.json and /api-docs from it.
 */
export { ApiCatalog } from './catalog.js';
export { openApiRouter } from './router.js';
export { defineRoute, parseParams, type RouteDoc } from './route.js';
export { serve, servedRoutes } from './serve.js';

import { z } from 'zod';
import { defineRoute } from '../route.js';

/** The document itself and its HTML rendering. */

export const openApiRoute = defineRoute({
  operationId: 'getOpenApiDocument',
  method: 'get',
  path: '/openapi.json',
  tag: 'documentation',
  summary: 'This API as an OpenAPI 3.1 document',
  description: 'Generated from the same route descriptions the routers parse their parameters with; lists what this process serves.',
  responses: {
    200: {
      description: 'the OpenAPI 3.1 document',
      content: { contentType: 'application/json', schema: z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({}), paths: z.looseObject({}) }) },
    },
  },
});

export const apiDocsRoute = defineRoute({
  operationId: 'getApiDocs',
  method: 'get',
  path: '/api-docs',
  tag: 'documentation',
  summary: 'This API as a page for people',
  description: 'Every operation with its parameters, request body and responses; self-contained HTML.',
  responses: { 200: { description: 'the page', content: { contentType: 'text/html', schema: z.string() } } },
});

import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { ErrorCode } from '../../domain/errors.js';
import { httpErrorOf } from '../../contract/errorMessages.js';
import type { ApiCatalog, Operation } from './catalog.js';
import type { Content, NamedValue, ResponseDoc } from './route.js';

/** A JSON Schema 2020-12 object, as OpenAPI 3.1 uses it. */
export type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description: string;
  schema: JsonSchema;
}
export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content?: Record<string, { schema?: JsonSchema }>;
}
export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  parameters: OpenApiParameter[];
  requestBody?: { description: string; required: boolean; content: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, OpenApiResponse | { $ref: string }>;
  security?: Record<string, string[]>[];
}

const COMPONENTS = '#/components/schemas/';
export const BEARER_SCHEME = 'adminBearer';

/**
 * zod 4 schemas to JSON Schema 2020-12. A schema with an `id` (`.meta({ id })`) becomes a named
 * component once and a `$ref` wherever it is used; everything else is inlined.
 */
class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};

  /** `input` for what clients send (parameters, request bodies), `output` for what the service answers */
  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const { $schema: _dialect, $defs, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as JsonSchema;
    for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      const component = rewriteRefs(def) as JsonSchema;
      const known = this.components[name];
      if (known !== undefined && !isDeepStrictEqual(known, component)) {
        throw new Error(`schema id ${name} names two different schemas (or one used both as input and as output)`);
      }
      this.components[name] = component;
    }
    return rewriteRefs(json) as JsonSchema;
  }
}

const rewriteRefs = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? COMPONENTS + v.slice('#/$defs/'.length) : rewriteRefs(v),
    ]),
  );
};

/** The contract's plain-text errors of a route, by status: the body is exactly one of the messages. */
function errorResponses(codes: readonly ErrorCode[], schemas: SchemaConverter): Record<string, OpenApiResponse> {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const [status, message] = httpErrorOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), message]);
  }
  return Object.fromEntries([...byStatus].map(([status, messages]) => [String(status), plainText(messages, schemas)]));
}

const plainText = (messages: string[], schemas: SchemaConverter): OpenApiResponse => ({
  description: `${messages.map((m) => `\`${m}\``).join(' or ')} (plain text; the reason phrase is the message too)`,
  content: { 'text/plain': { schema: schemas.convert(z.enum(messages as [string, ...string[]]), 'output') } },
});

function content(body: Content, io: 'input' | 'output', schemas: SchemaConverter) {
  return { [body.contentType]: body.schema ? { schema: schemas.convert(body.schema, io) } : {} };
}

function response(doc: ResponseDoc, schemas: SchemaConverter): OpenApiResponse {
  return {
    description: doc.reason ? `${doc.description} (reason phrase: \`${doc.reason}\`)` : doc.description,
    ...(doc.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(doc.headers).map(([name, h]) => [name, { description: h.description, schema: schemas.convert(h.schema, 'output') }]),
          ),
        }
      : {}),
    ...(doc.content ? { content: content(doc.content, 'output', schemas) } : {}),
  };
}

const parameters = (where: 'query' | 'header', values: Record<string, NamedValue> | undefined, schemas: SchemaConverter): OpenApiParameter[] =>
  Object.entries(values ?? {}).map(([name, v]) => ({
    name,
    in: where,
    required: v.required ?? false,
    description: v.description,
    schema: schemas.convert(v.schema, 'input'),
  }));

function operationOf({ route, operationId }: Operation, schemas: SchemaConverter): OpenApiOperation {
  const responses: OpenApiOperation['responses'] = {};
  for (const [status, doc] of Object.entries(route.responses)) responses[status] = response(doc, schemas);
  for (const [status, doc] of Object.entries(errorResponses(route.errors ?? [], schemas))) {
    if (responses[status]) throw new Error(`${operationId}: status ${status} is both an answer and an error`);
    responses[status] = doc;
  }
  responses['500'] ??= { $ref: '#/components/responses/InternalServerError' };
  responses['503'] ??= { $ref: '#/components/responses/ServiceUnavailable' };
  return {
    operationId,
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    parameters: [
      ...Object.entries(route.params ?? {}).map(([name, p]) => ({
        name,
        in: 'path' as const,
        required: true,
        description: p.description,
        schema: schemas.convert(p.schema, 'input'),
      })),
      ...parameters('query', route.query, schemas),
      ...parameters('header', route.headers, schemas),
    ],
    ...(route.requestBody
      ? {
          requestBody: {
            description: route.requestBody.description,
            required: route.requestBody.required,
            content: content(route.requestBody, 'input', schemas),
          },
        }
      : {}),
    responses,
    ...(route.bearerAuth ? { security: [{ [BEARER_SCHEME]: [] }] } : {}),
  };
}

/** The OpenAPI 3.1 document of everything the catalog lists, as this app serves it. */
export function openApiDocument(catalog: ApiCatalog, version: string): OpenApiDocument {
  const schemas = new SchemaConverter();
  const paths: OpenApiDocument['paths'] = {};
  const operations = catalog.operations();
  for (const operation of operations) {
    const item = (paths[operation.path] ??= {});
    if (item[operation.route.method]) throw new Error(`${operation.route.method.toUpperCase()} ${operation.path} is described twice`);
    item[operation.route.method] = operationOf(operation, schemas);
  }
  const [unavailableStatus, unavailable] = httpErrorOf('SERVICE_UNAVAILABLE');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Permaweb upload service',
      version,
      description:
        'Takes signed ANS-104 data items, verifies them while they stream, answers with a signed receipt and bundles them to Arweave. ' +
        'Every public route is served at the root and under `/v1`. Errors are `text/plain`: the body and the reason phrase are the exact message. ' +
        'Any unknown route answers 404 `Not Found`.',
    },
    tags: [...new Set(operations.map((o) => o.route.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas.components).sort(([a], [b]) => a.localeCompare(b))),
      responses: {
        // the one answer that is not an ErrorCode (src/http/errors.ts answers it to anything unexpected)
        InternalServerError: { ...plainText(['Internal server error'], schemas), description: 'anything unexpected; never a stack trace (plain text)' },
        ServiceUnavailable: {
          ...plainText([unavailable], schemas),
          description: `${unavailableStatus} \`${unavailable}\`: a store the service depends on is down, or (uploads) no block height was read from the gateway within BLOCK_HEIGHT_MAX_AGE_MS; the request may be retried (plain text)`,
        },
      },
      securitySchemes: { [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: 'the ADMIN_TOKEN of the configuration' } },
    },
  };
}

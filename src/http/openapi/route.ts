import type { Request } from 'express';
import type { z } from 'zod';
import type { ErrorCode } from '../../domain/errors.js';

/**
 * One description per route: the router parses its path parameters with these schemas (so a change
 * of shape is a change of the document), and the OpenAPI document and the /api-docs page are built
 * from the same objects.
 */

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A path segment: parsed by the router with `schema`; a segment that does not parse is `invalid`. */
export interface PathParam<S extends z.ZodType = z.ZodType> {
  schema: S;
  description: string;
  /** the contract's error for a segment of another shape (the router throws it) */
  invalid: (raw: string) => Error;
}

/** A query parameter or request header (documented; parsed by the handler that owns its rules). */
export interface NamedValue {
  schema: z.ZodType;
  description: string;
  required?: boolean;
}

export interface Content {
  contentType: string;
  /** absent for raw bytes (an ANS-104 data item, a chunk): the body is not JSON */
  schema?: z.ZodType;
}

export interface ResponseDoc {
  description: string;
  content?: Content;
  headers?: Record<string, NamedValue>;
  /** the reason phrase when it is not the status code's usual one (`Data Item Exists`) */
  reason?: string;
}

export interface RouteDoc<P extends Record<string, PathParam> = Record<string, PathParam>> {
  /** unique per route; the root (unversioned) copy of a route gets `Unversioned` appended */
  operationId: string;
  method: Method;
  /** the Express path, relative to where the router is mounted (`/tx/:id/status`) */
  path: string;
  tag: string;
  summary: string;
  description: string;
  params?: P;
  query?: Record<string, NamedValue>;
  headers?: Record<string, NamedValue>;
  requestBody?: Content & { description: string; required: boolean };
  /** successes (and other documented answers) by status code */
  responses: Record<number, ResponseDoc>;
  /** contract errors this route answers, besides 500 and 503 that every route may answer */
  errors?: readonly ErrorCode[];
  /** needs `Authorization: Bearer <ADMIN_TOKEN>` */
  bearerAuth?: boolean;
}

/** Keeps the literal parameter types, so `parseParams` knows what each parameter parses to. */
export const defineRoute = <P extends Record<string, PathParam> = Record<never, PathParam>>(route: RouteDoc<P>): RouteDoc<P> => route;

export type ParsedParams<P extends Record<string, PathParam>> = { [K in keyof P]: z.output<P[K]['schema']> };

/**
 * The route's path parameters, parsed in their declared order: the first one of the wrong shape
 * throws its contract error (a bad token is `Invalid token` even when the upload id is bad too).
 */
export function parseParams<P extends Record<string, PathParam>>(route: RouteDoc<P>, req: Request): ParsedParams<P> {
  const parsed: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(route.params ?? {})) {
    const raw = String(req.params[name]);
    const result = param.schema.safeParse(raw);
    if (!result.success) throw param.invalid(raw);
    parsed[name] = result.data;
  }
  return parsed as ParsedParams<P>;
}

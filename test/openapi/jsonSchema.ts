/**
 * A small JSON Schema 2020-12 validator for the keywords the generated document uses, so the tests
 * check answers against the document as clients read it (not only against the zod schemas it came
 * from). A keyword it does not know fails the validation: it never passes by ignoring something.
 */

export type Schema = Record<string, unknown> | boolean;

const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', 'format', 'contentMediaType', '$comment', 'deprecated']);

const typeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

const typeMatches = (value: unknown, type: string) => {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
};

/** `#/components/schemas/Receipt` in `root` */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`not a local reference: ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`unresolved reference ${ref}`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The problems of `value` against `schema` (empty when it is valid); `$ref`s resolve in `root`. */
export function validate(value: unknown, schema: Schema, root: unknown, path = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: no value allowed`];
  const problems: string[] = [];
  const fail = (message: string) => problems.push(`${path}: ${message}`);
  for (const [keyword, arg] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    switch (keyword) {
      case '$ref':
        problems.push(...validate(value, resolvePointer(root, arg as string) as Schema, root, path));
        break;
      case 'type': {
        const types = Array.isArray(arg) ? (arg as string[]) : [arg as string];
        if (!types.some((t) => typeMatches(value, t))) fail(`expected ${types.join(' or ')}, got ${typeOf(value)}`);
        break;
      }
      case 'enum':
        if (!(arg as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value))) fail(`${JSON.stringify(value)} not in enum`);
        break;
      case 'const':
        if (JSON.stringify(arg) !== JSON.stringify(value)) fail(`expected ${JSON.stringify(arg)}`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(arg as string, 'u').test(value)) fail(`${JSON.stringify(value)} does not match ${arg}`);
        break;
      case 'minLength':
        if (typeof value === 'string' && [...value].length < (arg as number)) fail(`shorter than ${arg}`);
        break;
      case 'maxLength':
        if (typeof value === 'string' && [...value].length > (arg as number)) fail(`longer than ${arg}`);
        break;
      case 'minimum':
        if (typeof value === 'number' && value < (arg as number)) fail(`below ${arg}`);
        break;
      case 'maximum':
        if (typeof value === 'number' && value > (arg as number)) fail(`above ${arg}`);
        break;
      case 'exclusiveMinimum':
        if (typeof value === 'number' && value <= (arg as number)) fail(`not above ${arg}`);
        break;
      case 'exclusiveMaximum':
        if (typeof value === 'number' && value >= (arg as number)) fail(`not below ${arg}`);
        break;
      case 'required':
        if (typeOf(value) === 'object') for (const key of arg as string[]) if (!(key in (value as object))) fail(`missing ${key}`);
        break;
      case 'properties':
        if (typeOf(value) === 'object') {
          for (const [key, sub] of Object.entries(arg as Record<string, Schema>)) {
            if (key in (value as object)) problems.push(...validate((value as Record<string, unknown>)[key], sub, root, `${path}.${key}`));
          }
        }
        break;
      case 'additionalProperties':
        if (typeOf(value) === 'object') {
          const known = new Set(Object.keys((schema as Record<string, unknown>).properties ?? {}));
          for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
            if (!known.has(key)) problems.push(...validate(v, arg as Schema, root, `${path}.${key}`));
          }
        }
        break;
      case 'propertyNames':
        if (typeOf(value) === 'object') for (const key of Object.keys(value as object)) problems.push(...validate(key, arg as Schema, root, `${path}{${key}}`));
        break;
      case 'prefixItems':
        if (Array.isArray(value)) (arg as Schema[]).forEach((sub, i) => i < value.length && problems.push(...validate(value[i], sub, root, `${path}[${i}]`)));
        break;
      case 'items':
        if (Array.isArray(value)) {
          const from = ((schema as Record<string, unknown>).prefixItems as unknown[] | undefined)?.length ?? 0;
          value.slice(from).forEach((v, i) => problems.push(...validate(v, arg as Schema, root, `${path}[${from + i}]`)));
        }
        break;
      case 'minItems':
        if (Array.isArray(value) && value.length < (arg as number)) fail(`fewer than ${arg} items`);
        break;
      case 'maxItems':
        if (Array.isArray(value) && value.length > (arg as number)) fail(`more than ${arg} items`);
        break;
      case 'anyOf':
        if (!(arg as Schema[]).some((sub) => validate(value, sub, root, path).length === 0)) fail('matches none of anyOf');
        break;
      case 'oneOf':
        if ((arg as Schema[]).filter((sub) => validate(value, sub, root, path).length === 0).length !== 1) fail('does not match exactly one of oneOf');
        break;
      case 'allOf':
        for (const sub of arg as Schema[]) problems.push(...validate(value, sub, root, path));
        break;
      default:
        fail(`keyword ${keyword} is not supported by this validator`);
    }
  }
  return problems;
}

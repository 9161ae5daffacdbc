import {
  execute,
  getArgumentValues,
  getNamedType,
  getVariableValues,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  GraphQLID,
  GraphQLString,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { bestEffort } from '../../bestEffort.js';

/**
 * graphql-js's `execute`, quicker for the queries apps send. graphql-js works out, for every field of
 * every node, its arguments, a resolve-info object, and a promise check (about 2,000 fields for a page
 * of 100 transactions with tags): most of a page's cost. Here a validated document's query is planned
 * once (its fields per type, fragments merged, each key's JSON text) and walked over the root value's
 * answer with the same default resolver (a property, or a method called with `(args, context)`) and the
 * same scalar serialization, writing the answer's JSON text as it goes (`serializedAnswer`): no result
 * objects are built to be serialized afterwards. Whatever the plan does not cover (a directive,
 * introspection, a field selected twice, a mutation) is graphql-js's, and so is any query whose walk
 * meets an error (a resolver throwing, a non-null field null, a value a scalar refuses): it is executed
 * again by graphql-js, which answers its errors with their paths and the partial data exactly as it
 * always does.
 */
export function fastExecute(args: ExecutionArgs): ReturnType<typeof execute> {
  const plan = planOf(args.document, args.operationName ?? undefined, args);
  if (plan === undefined || args.rootValue === null || typeof args.rootValue !== 'object') return execute(args);
  const variables = getVariableValues(args.schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {});
  if (variables.errors) return execute(args);
  const root = args.rootValue as Record<string, unknown>;
  // each root field's answer by response key, given to graphql-js again should it execute the query: the
  // store is not asked twice (a query refused as too broad costs its reads once)
  const answers = new Map<string, { value: unknown } | { error: unknown }>();
  const fallback = () => execute({ ...args, rootValue: replaying(root, plan.fields, answers) });
  const out = new Text();
  try {
    const fields: PlannedField[] = [];
    const answered: Record<string, unknown> = Object.create(null);
    for (const f of plan.fields) {
      if (f.typename) {
        fields.push(f);
        continue;
      }
      fields.push({ ...f, name: f.key });
      try {
        const property = root[f.name];
        const value =
          typeof property === 'function'
            ? (root[f.name] as (...a: unknown[]) => unknown)(getArgumentValues(f.def!, f.node, variables.coerced), args.contextValue)
            : property;
        answers.set(f.key, { value });
        answered[f.key] = value;
      } catch (error) {
        answers.set(f.key, { error });
        throw FALL_BACK;
      }
    }
    writeObject(answered, fields, args.contextValue, out);
  } catch {
    abandon(out.parts ?? []);
    return fallback();
  }
  const data = joined(out);
  return isPromise(data) ? data.then(answerOf, fallback) : answerOf(data);
}

/** the JSON text of the answers `fastExecute` walked itself */
const texts = new WeakMap<object, string>();

/**
 * `{ data }` over a walk's JSON text: the text is the answer's (`serializedAnswer`); `data` is parsed
 * from it only if something reads it (the GraphQL route does not).
 */
function answerOf(data: string): ExecutionResult {
  let parsed: ExecutionResult['data'];
  const result = {
    get data() {
      return (parsed ??= JSON.parse(data) as ExecutionResult['data']);
    },
  };
  texts.set(result, `{"data":${data}}`);
  return result;
}

/** an answer's JSON text when `fastExecute` wrote it while walking (the text `JSON.stringify` writes of it), else undefined */
export const serializedAnswer = (result: object): string | undefined => texts.get(result);

/** the root value for graphql-js after a walk given up: the root fields answered already answer the same */
function replaying(root: Record<string, unknown>, fields: readonly PlannedField[], answers: Map<string, { value: unknown } | { error: unknown }>): object {
  const replay: Record<string, unknown> = Object.create(root);
  for (const { name } of fields) {
    replay[name] = (fieldArgs: unknown, context: unknown, info: GraphQLResolveInfo) => {
      const answer = answers.get(String(info.path.key));
      if (answer === undefined) {
        const property = root[name];
        return typeof property === 'function' ? (root[name] as (...a: unknown[]) => unknown)(fieldArgs, context, info) : property;
      }
      if ('error' in answer) throw answer.error;
      return answer.value;
    };
  }
  return replay;
}

/** whether `fastExecute` walks this document itself (else graphql-js executes it): for tests */
export const walksItself = (args: ExecutionArgs): boolean => planOf(args.document, args.operationName ?? undefined, args) !== undefined;

interface PlannedField {
  /** the response key (alias or name) */
  key: string;
  /** its key's JSON text, a comma before it but for the first field of its selection: `,"key":` */
  label: string;
  name: string;
  node: FieldNode;
  typename?: true;
  /** `__typename`: its type's name as JSON text */
  text?: string;
  def?: GraphQLField<unknown, unknown>;
  type?: GraphQLOutputType;
  /** the fields selected on its object type */
  selections?: PlannedField[];
  /** its value written as its type says (worked out once: the type checks cost as much as the walk) */
  write?: Writer;
  /** root fields only: their coerced arguments */
  args?: Record<string, unknown>;
}

interface Plan {
  operation: OperationDefinitionNode;
  type: GraphQLObjectType;
  fields: PlannedField[];
}

/** a document's plans by operation name ('' for the only one); null: not one this executor walks */
const plans = new WeakMap<DocumentNode, Map<string, Plan | null>>();

/** thrown while planning: graphql-js executes that document */
class Unplanned extends Error {}

function planOf(document: DocumentNode, operationName: string | undefined, args: ExecutionArgs): Plan | undefined {
  let byName = plans.get(document);
  if (byName === undefined) plans.set(document, (byName = new Map()));
  const known = byName.get(operationName ?? '');
  if (known !== undefined) return known ?? undefined;
  let plan: Plan | null = null;
  try {
    plan = planned(document, operationName, args);
  } catch (error) {
    if (!(error instanceof Unplanned)) throw error;
  }
  byName.set(operationName ?? '', plan);
  return plan ?? undefined;
}

function planned(document: DocumentNode, operationName: string | undefined, { schema, fieldResolver }: ExecutionArgs): Plan {
  if (fieldResolver) throw new Unplanned();
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation =
    operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === operationName);
  const type = schema.getQueryType();
  if (!operation || operation.operation !== 'query' || !type || operation.directives?.length) throw new Unplanned();
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return { operation, type, fields: fieldsOf(operation.selectionSet, type, fragments, true) };
}

/** the fields a selection set selects on `type`, fragments merged in; any directive, or a key selected twice: unplanned */
function fieldsOf(set: SelectionSetNode, type: GraphQLObjectType, fragments: Map<string, FragmentDefinitionNode>, root: boolean): PlannedField[] {
  if (type.isTypeOf) throw new Unplanned();
  const out: PlannedField[] = [];
  const keys = new Set<string>();
  const collect = (selections: SelectionSetNode) => {
    for (const s of selections.selections) {
      if (s.directives?.length) throw new Unplanned();
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        if (keys.has(key)) throw new Unplanned();
        keys.add(key);
        out.push(fieldOf(s, `${out.length > 0 ? ',' : ''}${JSON.stringify(key)}:`, key, type, fragments, root));
      } else {
        const fragment = s.kind === Kind.INLINE_FRAGMENT ? s : fragments.get(s.name.value);
        if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type.name)) throw new Unplanned();
        collect(fragment.selectionSet);
      }
    }
  };
  collect(set);
  return out;
}

function fieldOf(
  node: FieldNode,
  label: string,
  key: string,
  type: GraphQLObjectType,
  fragments: Map<string, FragmentDefinitionNode>,
  root: boolean,
): PlannedField {
  const name = node.name.value;
  if (name === '__typename') return { key, label, name, node, typename: true, text: JSON.stringify(type.name) };
  const def = type.getFields()[name];
  if (!def || name.startsWith('__') || def.resolve || (!root && node.arguments?.length)) throw new Unplanned();
  const named = getNamedType(def.type);
  if (isLeafType(named)) return { key, label, name, node, def, type: def.type, write: writerOf(def.type, undefined) };
  if (!isObjectType(named) || !node.selectionSet) throw new Unplanned();
  const selections = fieldsOf(node.selectionSet, named, fragments, false);
  return { key, label, name, node, def, type: def.type, selections, write: writerOf(def.type, selections) };
}

/**
 * JSON text being written: appended to one string (V8 joins appended strings lazily, once, when the text
 * is used: cheaper than thousands of parts in an array joined at the end, and less garbage); a value not
 * resolved yet (a promise of its text) ends the text so far as a part, the text after it starts anew.
 */
class Text {
  text = '';
  /** the parts before `text`, when a promise is among them */
  parts: (string | Promise<string>)[] | undefined;

  pending(part: Promise<string>): void {
    (this.parts ??= []).push(this.text, part);
    this.text = '';
  }
}
/** writes a value's JSON text as graphql-js's completeValue completes it, or throws FALL_BACK where graphql-js answers an error */
type Writer = (value: unknown, context: unknown, out: Text) => void;

/** as graphql-js's completeValue: a promise awaited, null checked against non-null, lists, scalars, objects */
function writerOf(type: GraphQLOutputType, selections: readonly PlannedField[] | undefined): Writer {
  if (isNonNullType(type)) {
    const kind = kindOf(type.ofType, selections);
    const nonNull: Writer = (value, context, out) => {
      if (isPromise(value)) out.pending(value.then((v) => textOf(nonNull, v, context)));
      else if (value === null || value === undefined) throw FALL_BACK;
      else kind(value, context, out);
    };
    return nonNull;
  }
  const kind = kindOf(type, selections);
  const nullable: Writer = (value, context, out) => {
    if (isPromise(value)) out.pending(value.then((v) => textOf(nullable, v, context)));
    else if (value === null || value === undefined) out.text += 'null';
    else kind(value, context, out);
  };
  return nullable;
}

/** a value neither null nor a promise, written as its type (nullable) says */
function kindOf(type: GraphQLOutputType, selections: readonly PlannedField[] | undefined): Writer {
  if (isListType(type)) {
    const item = writerOf(type.ofType, selections);
    return (value, context, out) => writeList(value, item, context, out);
  }
  if (type === GraphQLString || type === GraphQLID) {
    // their serialize answers a string as it is: the one check skipped for most leaves of a page
    return (value, _context, out) => {
      if (typeof value === 'string') out.text += quoted(value);
      else leaf(type, value, out);
    };
  }
  if (isLeafType(type)) return (value, _context, out) => leaf(type, value, out);
  if (isObjectType(type) && selections) return (value, context, out) => writeObject(value, selections, context, out);
  throw new Unplanned();
}

/** a scalar or enum value as its type serializes it */
function leaf(type: GraphQLLeafType, value: unknown, out: Text): void {
  const serialized = type.serialize(value);
  if (serialized === undefined || serialized === null) throw FALL_BACK;
  out.text += typeof serialized === 'string' ? quoted(serialized) : JSON.stringify(serialized);
}

/** what JSON.stringify may escape in a string: `"`, `\\`, control characters, lone surrogates (a string with any surrogate is left to it: it keeps pairs) */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string's JSON text, as JSON.stringify writes it: most strings of a page (ids, addresses, tag names
 * and values) need no escape, and are quoted as they are (a page has some 3,000; JSON.stringify's own
 * setup per call was the walk's largest cost).
 */
export const quoted = (value: string): string => (ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`);

/** thrown while walking: graphql-js executes the query again and answers its errors */
const FALL_BACK = new Error('executed again by graphql-js');
const NO_ARGS = Object.freeze({});

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** an object's fields in selection order (as graphql-js's result object has them), each as its type says */
function writeObject(source: unknown, fields: readonly PlannedField[], context: unknown, out: Text): void {
  if (source === null || (typeof source !== 'object' && typeof source !== 'function')) throw FALL_BACK;
  out.text += '{';
  for (const f of fields) {
    out.text += f.label;
    if (f.typename) {
      out.text += f.text!;
      continue;
    }
    // graphql-js's defaultFieldResolver: a property, or a method called with (args, context, info)
    const property = (source as Record<string, unknown>)[f.name];
    const value = typeof property === 'function' ? (source as Record<string, (...a: unknown[]) => unknown>)[f.name]!(f.args ?? NO_ARGS, context) : property;
    f.write!(value, context, out);
  }
  out.text += '}';
}

function writeList(value: unknown, item: Writer, context: unknown, out: Text): void {
  if (!Array.isArray(value)) throw FALL_BACK;
  out.text += '[';
  for (let i = 0; i < value.length; i++) {
    if (i > 0) out.text += ',';
    item(value[i], context, out);
  }
  out.text += ']';
}

/** one value's text on its own (a value that was a promise), or the promise of it */
function textOf(write: Writer, value: unknown, context: unknown): string | Promise<string> {
  const out = new Text();
  try {
    write(value, context, out);
  } catch (error) {
    abandon(out.parts ?? []);
    throw error;
  }
  return joined(out);
}

function joined(out: Text): string | Promise<string> {
  if (out.parts === undefined) return out.text;
  const parts = [...out.parts, out.text];
  return Promise.all(parts).then((texts) => texts.join(''));
}

/** promises left behind by a walk given up: their failures are graphql-js's to answer, not unhandled */
function abandon(pending: readonly unknown[]): void {
  for (const p of pending) if (isPromise(p)) void bestEffort(p, 'the query is executed again by graphql-js, which answers its errors');
}

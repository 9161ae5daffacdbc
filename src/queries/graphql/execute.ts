import {
  execute,
  getArgumentValues,
  getNamedType,
  getVariableValues,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
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
 * once (its fields per type, fragments merged) and walked over the root value's answer with the same
 * default resolver (a property, or a method called with `(args, context)`) and the same scalar
 * serialization. Whatever the plan does not cover (a directive, introspection, a field selected twice,
 * a mutation) is graphql-js's, and so is any query whose walk meets an error (a resolver throwing, a
 * non-null field null, a value a scalar refuses): it is executed again by graphql-js, which answers its
 * errors with their paths and the partial data exactly as it always does.
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
    const data = completeObject(answered, plan.type, fields, args.contextValue);
    return isPromise(data) ? data.then((d) => ({ data: d }) as ExecutionResult, fallback) : ({ data } as ExecutionResult);
  } catch {
    return fallback();
  }
}

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
  name: string;
  node: FieldNode;
  typename?: true;
  def?: GraphQLField<unknown, unknown>;
  type?: GraphQLOutputType;
  /** the fields selected on its object type */
  selections?: PlannedField[];
  /** its value completed as its type says (worked out once: the type checks cost as much as the walk) */
  complete?: Completer;
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
        out.push(fieldOf(s, key, type, fragments, root));
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

function fieldOf(node: FieldNode, key: string, type: GraphQLObjectType, fragments: Map<string, FragmentDefinitionNode>, root: boolean): PlannedField {
  const name = node.name.value;
  if (name === '__typename') return { key, name, node, typename: true };
  const def = type.getFields()[name];
  if (!def || name.startsWith('__') || def.resolve || (!root && node.arguments?.length)) throw new Unplanned();
  const named = getNamedType(def.type);
  if (isLeafType(named)) return { key, name, node, def, type: def.type, complete: completerOf(def.type, undefined) };
  if (!isObjectType(named) || !node.selectionSet) throw new Unplanned();
  const selections = fieldsOf(node.selectionSet, named, fragments, false);
  return { key, name, node, def, type: def.type, selections, complete: completerOf(def.type, selections) };
}

type Completer = (value: unknown, context: unknown) => unknown;

/** as graphql-js's completeValue: a promise awaited, null checked against non-null, lists, scalars, objects */
function completerOf(type: GraphQLOutputType, selections: readonly PlannedField[] | undefined): Completer {
  if (isNonNullType(type)) {
    const inner = completerOf(type.ofType, selections);
    return (value, context) => {
      const completed = inner(value, context);
      return isPromise(completed) ? completed.then(nonNull) : nonNull(completed);
    };
  }
  let kind: Completer;
  if (isListType(type)) {
    const item = completerOf(type.ofType, selections);
    kind = (value, context) => completeList(value, item, context);
  } else if (isLeafType(type)) {
    kind = (value) => {
      const serialized = type.serialize(value);
      if (serialized === undefined || serialized === null) throw FALL_BACK;
      return serialized;
    };
  } else if (isObjectType(type) && selections) {
    kind = (value, context) => completeObject(value, type, selections, context);
  } else throw new Unplanned();
  const nullable: Completer = (value, context) =>
    isPromise(value) ? value.then((v) => nullable(v, context)) : value === null || value === undefined ? null : kind(value, context);
  return nullable;
}

/** thrown while walking: graphql-js executes the query again and answers its errors */
const FALL_BACK = new Error('executed again by graphql-js');
const NO_ARGS = Object.freeze({});

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** graphql-js's result object: no prototype, keys in selection order */
function completeObject(source: unknown, type: GraphQLObjectType, fields: readonly PlannedField[], context: unknown): unknown {
  if (source === null || (typeof source !== 'object' && typeof source !== 'function')) throw FALL_BACK;
  const result: Record<string, unknown> = Object.create(null);
  const pending: Promise<unknown>[] = [];
  try {
    for (const f of fields) {
      if (f.typename) {
        result[f.key] = type.name;
        continue;
      }
      // graphql-js's defaultFieldResolver: a property, or a method called with (args, context, info)
      const property = (source as Record<string, unknown>)[f.name];
      const value = typeof property === 'function' ? (source as Record<string, (...a: unknown[]) => unknown>)[f.name]!(f.args ?? NO_ARGS, context) : property;
      const completed = f.complete!(value, context);
      if (isPromise(completed)) {
        result[f.key] = null;
        pending.push(completed.then((v) => (result[f.key] = v)));
      } else result[f.key] = completed;
    }
  } catch (error) {
    abandon(pending);
    throw error;
  }
  return pending.length > 0 ? Promise.all(pending).then(() => result) : result;
}

/** promises left behind by a walk given up: their failures are graphql-js's to answer, not unhandled */
function abandon(pending: readonly unknown[]): void {
  for (const p of pending) if (isPromise(p)) void bestEffort(p, 'the query is executed again by graphql-js, which answers its errors');
}

function completeList(value: unknown, item: Completer, context: unknown): unknown {
  if (!Array.isArray(value)) throw FALL_BACK;
  const items: unknown[] = [];
  try {
    for (const v of value) items.push(item(v, context));
  } catch (error) {
    abandon(items);
    throw error;
  }
  return items.some(isPromise) ? Promise.all(items) : items;
}

function nonNull(value: unknown): unknown {
  if (value === null) throw FALL_BACK;
  return value;
}

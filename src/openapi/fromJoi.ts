import type Joi from 'joi';
import { ref, type Schema } from './schemas';

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) of a joi schema, read from joi's `describe()`: the
 * request bodies of the document come from the schemas the routes validate with, so the two cannot
 * drift. What JSON Schema cannot say (custom rules: a display name's normalization, "in the future")
 * is left to the descriptions; a rule or type this converter does not know throws, so a constraint
 * is never dropped in silence (the document is built when the server starts and in every openapi test).
 * Bodies are validated with `stripUnknown` (src/http/validate.ts): an unknown key is dropped, never
 * refused, so objects get no `additionalProperties: false`.
 */

interface Description {
  type: string;
  flags?: Record<string, unknown>;
  allow?: unknown[];
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  keys?: Record<string, Description>;
  items?: Description[];
  matches?: Array<{ schema?: Description }>;
  patterns?: Array<{ schema?: Description; regex?: string; rule: Description }>;
  dependencies?: Array<{ rel: string; peers: string[] }>;
  notes?: string[];
  examples?: unknown[];
}

/** Rules that only run code: nothing to say in JSON Schema (the operation's description says it). */
const CODE_RULES = new Set(['custom']);

/** `/^a+$/` as joi describes a regex -> `^a+$`; flags have no JSON Schema form. */
function patternOf(regex: string): string {
  const match = /^\/(.*)\/([a-z]*)$/s.exec(regex);
  if (!match) throw new Error(`fromJoi: unreadable regex ${regex}`);
  if (match[2]) throw new Error(`fromJoi: regex flags (${match[2]}) have no JSON Schema form: ${regex}`);
  return match[1]!;
}

function unknownRule(type: string, name: string): never {
  throw new Error(`fromJoi: the ${type} rule "${name}" has no JSON Schema form here (teach src/openapi/fromJoi.ts)`);
}

/** joi's min/max/length of a string, an array or an object, as the JSON Schema keywords `[min, max]`; false for another rule. */
function sizeRule(out: Schema, rule: { name: string; args?: Record<string, unknown> }, [min, max]: [string, string]): boolean {
  const limit = rule.args?.limit;
  if (rule.name === 'min') out[min] = limit;
  else if (rule.name === 'max') out[max] = limit;
  else if (rule.name === 'length') out[min] = out[max] = limit;
  else return false;
  return true;
}

function stringSchema(d: Description): Schema {
  const out: Schema = { type: 'string' };
  const patterns: string[] = [];
  for (const rule of d.rules ?? []) {
    if (sizeRule(out, rule, ['minLength', 'maxLength'])) continue;
    if (rule.name === 'pattern' && !(rule.args?.options as { invert?: boolean } | undefined)?.invert) patterns.push(patternOf(rule.args!.regex as string));
    else if (rule.name === 'guid' || rule.name === 'uuid') out.format = 'uuid';
    else if (rule.name === 'isoDate') out.format = 'date-time';
    else if (!CODE_RULES.has(rule.name)) unknownRule('string', rule.name);
  }
  // joi refuses '' unless it is allowed (and then `allow` says so).
  if (out.minLength === undefined && !(d.allow ?? []).includes('')) out.minLength = 1;
  if (patterns.length === 1) out.pattern = patterns[0];
  else if (patterns.length > 1) out.allOf = patterns.map((pattern) => ({ pattern }));
  return out;
}

function numberSchema(d: Description): Schema {
  const out: Schema = { type: 'number' };
  for (const rule of d.rules ?? []) {
    if (rule.name === 'integer') out.type = 'integer';
    else if (rule.name === 'min') out.minimum = rule.args?.limit;
    else if (rule.name === 'max') out.maximum = rule.args?.limit;
    else if (!CODE_RULES.has(rule.name)) unknownRule('number', rule.name);
  }
  return out;
}

function arraySchema(d: Description): Schema {
  const out: Schema = { type: 'array' };
  const items = (d.items ?? []).map(convert);
  if (items.length === 1) out.items = items[0];
  else if (items.length > 1) out.items = { anyOf: items };
  for (const rule of d.rules ?? []) {
    if (!sizeRule(out, rule, ['minItems', 'maxItems']) && !CODE_RULES.has(rule.name)) unknownRule('array', rule.name);
  }
  return out;
}

/** Pairs of a list, for "at most one of" (oxor). */
const pairs = (peers: string[]) => peers.flatMap((a, i) => peers.slice(i + 1).map((b) => [a, b]));

function dependency(rel: string, peers: string[]): Schema {
  const each = peers.map((peer) => ({ required: [peer] }));
  if (rel === 'or') return { anyOf: each };
  if (rel === 'xor') return { oneOf: each };
  if (rel === 'oxor') return { not: pairs(peers).length === 1 ? { required: peers } : { anyOf: pairs(peers).map((p) => ({ required: p })) } };
  if (rel === 'and') return { anyOf: [{ required: peers }, { not: { anyOf: each } }] };
  if (rel === 'nand') return { not: { required: peers } };
  throw new Error(`fromJoi: the object dependency "${rel}" has no JSON Schema form here (teach src/openapi/fromJoi.ts)`);
}

/** The regex of an object pattern's keys: a regex as given, or a string key schema of lengths or one pattern. */
function keyPattern(pattern: { schema?: Description; regex?: string }): string {
  if (pattern.regex) return patternOf(pattern.regex);
  const key = stringSchema(pattern.schema ?? { type: 'none' });
  if (pattern.schema?.type !== 'string' || key.format || key.allOf || (key.pattern && (pattern.schema.rules ?? []).some((r) => r.name !== 'pattern'))) {
    throw new Error('fromJoi: an object pattern whose keys are not a plain string schema has no JSON Schema form here');
  }
  return (key.pattern as string | undefined) ?? `^[\\s\\S]{${(key.minLength as number | undefined) ?? 0},${(key.maxLength as number | undefined) ?? ''}}$`;
}

function objectSchema(d: Description): Schema {
  const out: Schema = { type: 'object' };
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [name, key] of Object.entries(d.keys ?? {})) {
    const presence = key.flags?.presence;
    if (presence === 'forbidden') continue;
    properties[name] = convert(key);
    if (presence === 'required') required.push(name);
  }
  if (d.keys) out.properties = properties;
  if (required.length) out.required = required;
  // Keys that match no pattern are unknown keys: dropped from bodies (stripUnknown), so not refused here.
  if (d.patterns) out.patternProperties = Object.fromEntries(d.patterns.map((p) => [keyPattern(p), convert(p.rule)]));
  for (const rule of d.rules ?? []) {
    if (!sizeRule(out, rule, ['minProperties', 'maxProperties']) && !CODE_RULES.has(rule.name)) unknownRule('object', rule.name);
  }
  const dependencies = (d.dependencies ?? []).map((dep) => dependency(dep.rel, dep.peers));
  if (dependencies.length === 1) Object.assign(out, dependencies[0]);
  else if (dependencies.length > 1) out.allOf = dependencies;
  return out;
}

function alternativesSchema(d: Description): Schema {
  const conditional = presenceConditional(d);
  if (conditional) return conditional;
  const options = (d.matches ?? []).map((m) => {
    if (!m.schema) throw new Error('fromJoi: conditional alternatives (when) have no JSON Schema form here');
    return convert(m.schema);
  });
  const mode = d.flags?.match;
  return mode === 'one' ? { oneOf: options } : mode === 'all' ? { allOf: options } : { anyOf: options };
}

/**
 * `Joi.alternatives().conditional('.key', {is: Joi.exist(), then, otherwise})`: an object that has `key`
 * is `then`, one that has not is `otherwise`. Any other condition throws (no JSON Schema form here).
 */
function presenceConditional(d: Description): Schema | null {
  const [m, ...rest] = (d.matches ?? []) as Array<{
    ref?: { path?: string[]; ancestor?: number };
    is?: Description;
    then?: Description;
    otherwise?: Description;
  }>;
  if (!m?.ref) return null;
  const key = m.ref.path?.length === 1 && m.ref.ancestor === 0 ? m.ref.path[0]! : null;
  const isPresence = m.is?.type === 'any' && m.is.flags?.presence === 'required' && !m.is.rules?.length && Object.keys(m.is.flags).length === 1;
  if (rest.length || key === null || !isPresence || !m.then || !m.otherwise)
    throw new Error('fromJoi: only conditional(".key", {is: Joi.exist(), then, otherwise}) has a JSON Schema form here');
  const has: Schema = { type: 'object', required: [key] };
  return { anyOf: [{ allOf: [has, convert(m.then)] }, { allOf: [{ not: has }, convert(m.otherwise)] }] };
}

const BY_TYPE: Record<string, (d: Description) => Schema> = {
  string: stringSchema,
  number: numberSchema,
  boolean: () => ({ type: 'boolean' }),
  array: arraySchema,
  object: objectSchema,
  alternatives: alternativesSchema,
  any: (d) => {
    for (const rule of d.rules ?? []) if (!CODE_RULES.has(rule.name)) unknownRule('any', rule.name);
    return {};
  },
};

/** Would `value` pass `schema` as it stands (only what a converted scalar can say)? */
function alreadyAccepts(schema: Schema, value: unknown): boolean {
  if (typeof value !== 'string' || schema.type !== 'string') return false;
  if (value.length < ((schema.minLength as number) ?? 0) || value.length > ((schema.maxLength as number) ?? Infinity)) return false;
  if (schema.format || schema.allOf) return false;
  return schema.pattern === undefined || new RegExp(schema.pattern as string, 'u').test(value);
}

/** `allow(...)`: extra values besides what the type accepts (null most often). */
function withAllowed(schema: Schema, allowed: unknown[]): Schema {
  const nullable = allowed.includes(null);
  const others = allowed.filter((v) => v !== null && !alreadyAccepts(schema, v));
  if (others.length) return { anyOf: [schema, { enum: nullable ? [...others, null] : others }] };
  if (!nullable) return schema;
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (schema.anyOf) return { ...schema, anyOf: [...(schema.anyOf as Schema[]), { type: 'null' }] };
  if (Object.keys(schema).length === 0) return schema; // any: null is already allowed
  return { anyOf: [schema, { type: 'null' }] };
}

function convert(d: Description): Schema {
  const flags = d.flags ?? {};
  let out: Schema;
  if (flags.only) {
    out = { enum: d.allow ?? [] };
  } else {
    const byType = BY_TYPE[d.type];
    if (!byType) throw new Error(`fromJoi: the joi type "${d.type}" has no JSON Schema form here (teach src/openapi/fromJoi.ts)`);
    out = withAllowed(byType(d), d.allow ?? []);
  }
  const description = [flags.description, ...(d.notes ?? [])].filter((s) => typeof s === 'string').join(' ');
  if (description) out.description = description;
  if (d.examples?.length) out.examples = d.examples;
  if (flags.default !== undefined && typeof flags.default !== 'function' && !(flags.default && typeof flags.default === 'object' && 'special' in flags.default))
    out.default = flags.default;
  return out;
}

/** The JSON Schema of a joi schema. */
export function fromJoi(schema: Joi.Schema): Schema {
  return convert(schema.describe() as Description);
}

/** The node at a path such as `rolls[].dice[]` (`[]`: the items of an array): properties and items only. */
function nodeAt(schema: Schema, path: string): { parent: Record<string, Schema>; key: string } {
  const steps = path
    .split('.')
    .flatMap((part) => (part.endsWith('[]') ? [part.slice(0, -2), '[]'] : [part]))
    .filter(Boolean);
  let node: Schema = schema;
  let parent: Record<string, Schema> = { '': schema };
  let key = '';
  for (const step of steps) {
    const container = step === '[]' ? (node as Record<string, Schema>) : (node.properties as Record<string, Schema> | undefined);
    const name = step === '[]' ? 'items' : step;
    if (!container || !container[name]) throw new Error(`fromJoi: no ${path} in the schema (a note or component that went stale)`);
    parent = container;
    key = name;
    node = container[name]!;
  }
  return { parent, key };
}

/**
 * Words and examples the joi schemas do not carry, merged into the converted schema by path
 * (`name`, `rolls[].uuid`, `''` for the whole body). A path that does not exist throws.
 */
export function withNotes(schema: Schema, notes: Record<string, Schema>): Schema {
  for (const [path, note] of Object.entries(notes)) {
    if (path === '') {
      Object.assign(schema, note);
      continue;
    }
    const { parent, key } = nodeAt(schema, path);
    parent[key] = { ...parent[key], ...note };
  }
  return schema;
}

/**
 * Put the sub-schema at `path` into `components` under `name` and answer a `$ref` in its place; a
 * name already taken must hold the same schema (two bodies sharing a joi schema share its component).
 */
export function asComponent(schema: Schema, path: string, name: string, components: Record<string, Schema>): Schema {
  const { parent, key } = nodeAt(schema, path);
  const sub = parent[key]!;
  if (components[name] && JSON.stringify(components[name]) !== JSON.stringify(sub)) throw new Error(`fromJoi: two different schemas for the component ${name}`);
  components[name] = sub;
  parent[key] = ref(name);
  return schema;
}

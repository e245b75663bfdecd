/**
 * Theme manifests (docs/spec.md §2.3 to 2.3.3): the shape (joi, every problem listed), the cross-references a
 * schema cannot express (die ids, file names, face counts), and inheritance through `extend`.
 * Pure: no database, no HTTP. Paths in the details are prefixed with `manifest.` by the caller's choice.
 */
import Joi from 'joi';
import type { ErrorDetail } from '../../errors';
import { jsonShapeProblem } from '../../http/jsonShape';
import { formatPath } from '../../http/validate';
import { PHYSICAL_TYPES, STANDARD_SET, type DieEntry } from './dice';
import { MAX_FACE_JSON_BYTES } from './limits';
import { resolveLabel, type Label } from './label';
import { isSemVer } from '../versions';
import { loadingCondition } from '../../client/loadingSound';

export const API_VERSION = '1.0';
export const SOUND_EVENTS = ['die.collide', 'die.value', 'roll.loading'] as const;
export const UNIFORM_TYPES = ['f', 'color', 'vec3', 'vec4'] as const;

/** Theme ids: lower-case, URL-safe, so they can stand in paths and query strings unencoded. */
export const THEME_ID = /^[a-z0-9](?:[a-z0-9_-]{0,98}[a-z0-9])?$/;
export const THEME_ID_RULE = 'lower-case letters, digits, "-" and "_", starting and ending with a letter or digit, at most 100 characters';
/** File names as the manifest and the upload give them: no folders, no "..", no control characters. */
export const FILE_NAME = /^(?!.*\.\.)[\p{L}\p{N}_][\p{L}\p{N}_.\- ()+]{0,199}$/u;
export const FILE_NAME_RULE = 'a plain file name (letters, digits, spaces and "_ - . ( ) +", no folders, at most 200 characters)';
const DIE_ID = /^[A-Za-z0-9][\w-]{0,63}$/;
const GLSL_IDENTIFIER = /^[A-Za-z_]\w{0,63}$/;

const fileName = Joi.string()
  .max(200)
  .pattern(FILE_NAME)
  .messages({ 'string.pattern.base': `{{#label}} must be ${FILE_NAME_RULE}` });
/** A file name, or an object of die id to file name. */
const fileRef = Joi.alternatives().conditional(Joi.string(), {
  then: fileName,
  otherwise: Joi.object().pattern(Joi.string(), fileName).messages({ 'object.base': '{{#label}} must be a file name or an object of die id to file name' }),
});
const dieNumbers = Joi.object().pattern(Joi.string(), Joi.number().min(0).max(1_000_000));
const numbers = (n: number) => Joi.array().items(Joi.number().required()).length(n);
const hexColor = Joi.string()
  .pattern(/^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i)
  .messages({
    'string.pattern.base': '{{#label}} must be a hex colour such as "#1e90ff"',
  });
const labelColor = Joi.alternatives().conditional(Joi.string().valid(''), { then: Joi.string().allow(''), otherwise: hexColor });

const colorValue = Joi.alternatives().conditional(Joi.string(), {
  then: hexColor,
  otherwise: Joi.alternatives().conditional(Joi.array(), {
    then: numbers(3),
    otherwise: Joi.object({ r: Joi.number().required(), g: Joi.number().required(), b: Joi.number().required() }).messages({
      'object.base': '{{#label}} must be a hex colour, an array of 3 numbers (linear colour) or an object with r, g, b',
    }),
  }),
});
const xyz = { x: Joi.number().required(), y: Joi.number().required(), z: Joi.number().required() };
const vectorValue = (n: 3 | 4) =>
  Joi.alternatives().conditional(Joi.array(), {
    then: numbers(n),
    otherwise: (n === 3 ? Joi.object(xyz) : Joi.object({ ...xyz, w: Joi.number().required() })).messages({
      'object.base': `{{#label}} must be an array of ${n} numbers or an object with ${n === 3 ? 'x, y, z' : 'x, y, z, w'}`,
    }),
  });

const uniform = Joi.object({
  type: Joi.string()
    .valid(...UNIFORM_TYPES)
    .required(),
  value: Joi.when('type', {
    switch: [
      { is: 'f', then: Joi.number().required() },
      { is: 'color', then: colorValue.required() },
      { is: 'vec3', then: vectorValue(3).required() },
      { is: 'vec4', then: vectorValue(4).required() },
    ],
    otherwise: Joi.any(),
  }),
  min: Joi.when('type', { is: 'f', then: Joi.number(), otherwise: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is only for uniforms of type "f"' }) }),
  max: Joi.when('type', { is: 'f', then: Joi.number(), otherwise: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is only for uniforms of type "f"' }) }),
}).unknown(true);

const face = Joi.alternatives().conditional(Joi.object(), {
  then: Joi.object({ src: fileName.required() })
    .unknown(true)
    .custom((value: object, helpers) =>
      Buffer.byteLength(JSON.stringify(value), 'utf8') > MAX_FACE_JSON_BYTES
        ? helpers.message({ custom: `{{#label}} must be at most ${MAX_FACE_JSON_BYTES} bytes of JSON` })
        : value,
    ),
  otherwise: Joi.alternatives()
    .try(Joi.number(), Joi.string().max(64))
    .messages({ 'alternatives.types': '{{#label}} must be a number, a string or an object with "src"' }),
});

const sound = Joi.object({
  src: fileRef.required(),
  on: Joi.string()
    .valid(...SOUND_EVENTS)
    .required(),
  value: Joi.when('on', {
    switch: [
      {
        is: 'die.value',
        then: Joi.alternatives()
          .try(Joi.number(), Joi.string().max(64))
          .messages({ 'alternatives.types': '{{#label}} must be the rolled value: a number or a string' }),
      },
      {
        is: 'roll.loading',
        // A hand size (the number of dice thrown) and how it compares: client/loadingSound.ts.
        then: Joi.any()
          .custom((value: unknown, helpers) => (loadingCondition(value) ? value : helpers.error('any.loading')))
          .messages({ 'any.loading': '{{#label}} must be a number of dice, or a comparison such as "=2", "==2", ">=3", ">3", "<=2" or "<2"' }),
      },
    ],
    otherwise: Joi.any(),
  }),
}).unknown(true);

const dieEntry = Joi.alternatives().conditional(Joi.string(), {
  then: Joi.string()
    .valid(...PHYSICAL_TYPES)
    .messages({
      'any.only': `{{#label}} must be a physical die type (${PHYSICAL_TYPES.join(', ')}) or an object with id, type and notation`,
    }),
  otherwise: Joi.object({
    id: Joi.string().pattern(DIE_ID).required().messages({ 'string.pattern.base': '{{#label}} must be letters, digits, "_" or "-" (at most 64)' }),
    type: Joi.string()
      .valid(...PHYSICAL_TYPES)
      .required(),
    notation: Joi.string().min(1).max(32),
  }).unknown(true),
});

export const manifestSchema = Joi.object({
  api_version: Joi.any()
    .valid(API_VERSION)
    .required()
    .messages({ 'any.only': `{{#label}} must be the string "${API_VERSION}"` }),
  id: Joi.string()
    .pattern(THEME_ID)
    .required()
    .messages({ 'string.pattern.base': `{{#label}} must be ${THEME_ID_RULE}` }),
  name: Joi.string().min(1).max(255).pattern(/\S/).required().messages({ 'string.pattern.base': '{{#label}} must not be blank' }),
  description: Joi.string().allow('').max(10_000).required(),
  version: Joi.string()
    .max(256)
    .custom((value: string, helpers) => (isSemVer(value) ? value : helpers.error('any.semver')))
    .required()
    .messages({ 'any.semver': '{{#label}} must be a SemVer 2.0.0 version such as "1.0.0" or "2.1.0-beta.1"' }),
  label: Joi.object({ color: labelColor, background_color: labelColor }).unknown(true).required(),
  extend: Joi.string()
    .pattern(THEME_ID)
    .messages({ 'string.pattern.base': `{{#label}} must be a theme id: ${THEME_ID_RULE}` }),
  available_dice: Joi.array().items(dieEntry).min(1).max(64),
  meshes: Joi.object().pattern(Joi.string(), fileName),
  sizes: Joi.object().pattern(Joi.string(), Joi.number().greater(0).max(100)),
  physics: Joi.object({ inertia: dieNumbers, weight: dieNumbers }),
  sounds: Joi.array().items(sound).max(256),
  uniforms: Joi.object()
    .pattern(GLSL_IDENTIFIER, uniform)
    .messages({ 'object.unknown': '{{#label}} is not a valid uniform name (letters, digits and "_", not starting with a digit)' }),
  values: Joi.object().pattern(Joi.string(), Joi.array().items(face).min(1).max(1000)),
  textures: Joi.array()
    .items(
      Joi.object({
        binding: Joi.string().pattern(GLSL_IDENTIFIER).required().messages({ 'string.pattern.base': '{{#label}} must be a shader uniform name' }),
        src: fileRef.required(),
      }).unknown(true),
    )
    .max(64),
})
  .unknown(true)
  .messages({ 'object.base': 'The manifest must be a JSON object' });

export type Face = number | string | { src: string; [k: string]: unknown };
export interface Sound {
  src: string | Record<string, string>;
  on: (typeof SOUND_EVENTS)[number];
  value?: number | string;
  [k: string]: unknown;
}
export interface Texture {
  binding: string;
  src: string | Record<string, string>;
  [k: string]: unknown;
}
export interface Uniform {
  type: (typeof UNIFORM_TYPES)[number];
  value: unknown;
  min?: number;
  max?: number;
  [k: string]: unknown;
}

/** The keys a manifest may leave out, inherited from the base theme when it names one (`extend`). */
export const INHERITABLE_KEYS = ['available_dice', 'meshes', 'sizes', 'physics', 'sounds', 'textures', 'uniforms', 'values'] as const;
export type InheritableKey = (typeof INHERITABLE_KEYS)[number];

/** What is stored per version (Theme.manifest), after `extend` and the label rule are applied. */
export interface StoredManifest {
  label: Label;
  available_dice: (string | DieEntry)[];
  meshes: Record<string, string>;
  sizes: Record<string, number>;
  physics: { inertia?: Record<string, number>; weight?: Record<string, number> };
  sounds: Sound[];
  textures: Texture[];
  uniforms: Record<string, Uniform>;
  values: Record<string, Face[]>;
  /** The base theme's id, when the version was made with `extend` (kept to detect cycles). */
  extend: string | null;
}

/** The manifest as validated: required keys present, optional keys present only when given. */
export interface ManifestInput extends Partial<Omit<StoredManifest, 'label' | 'extend'>> {
  api_version: string;
  id: string;
  name: string;
  description: string;
  version: string;
  label: { color?: string; background_color?: string };
  extend?: string;
}

export function emptyDefaults(): Omit<StoredManifest, 'label' | 'extend'> {
  return { available_dice: [...STANDARD_SET], meshes: {}, sizes: {}, physics: {}, sounds: [], textures: [], uniforms: {}, values: {} };
}

/** Parse the multipart `manifest` field and check its shape; details are prefixed `manifest.` */
export interface ParsedManifest {
  /** the manifest, when its shape is valid */
  manifest: ManifestInput | null;
  details: ErrorDetail[];
  /**
   * When the shape is not valid: the top-level keys that were valid, so the cross-reference rules can
   * still be checked on them and every problem reported in one answer.
   */
  partial: { input: ManifestInput; badKeys: Set<string> } | null;
}

/** Parse the multipart `manifest` field and check its shape; details are prefixed `manifest.` */
export function parseManifest(text: string | undefined): ParsedManifest {
  if (text === undefined || text.trim() === '') {
    return {
      manifest: null,
      partial: null,
      details: [{ path: 'manifest', message: 'manifest is required: send the theme manifest as a JSON string in the "manifest" field' }],
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // The parser's own message quotes the input and varies between Node versions: say where, not what it said.
    const at = /position (\d+)/.exec((err as Error).message);
    return {
      manifest: null,
      partial: null,
      details: [{ path: 'manifest', message: `manifest is not valid JSON${at ? ` (near character ${Number(at[1]) + 1})` : ''}` }],
    };
  }
  // Before joi, structuredClone and the database, which all recurse.
  const shape = jsonShapeProblem(raw, 'manifest');
  if (shape) return { manifest: null, partial: null, details: [shape] };
  const { error, value } = manifestSchema.validate(raw, { abortEarly: false, convert: false }) as { error?: Joi.ValidationError; value: unknown };
  if (!error) return { manifest: value as ManifestInput, details: [], partial: null };
  const details = error.details.map((d) => {
    const path = formatPath(d.path, 'manifest');
    return { path, message: d.message.replace(/^"[^"]*"/, path) };
  });
  let partial: ParsedManifest['partial'] = null;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const badKeys = new Set(error.details.map((d) => String(d.path[0] ?? '')));
    const input = { ...(raw as Record<string, unknown>) };
    for (const key of badKeys) delete input[key];
    partial = { input: { ...input, name: typeof input.name === 'string' ? input.name : '', label: {} } as ManifestInput, badKeys };
  }
  return { manifest: null, details, partial };
}

/** Pick only the known keys of what the client gave (unknown top-level keys are ignored). */
function knownKeys(input: ManifestInput): Partial<Omit<StoredManifest, 'label' | 'extend'>> {
  const out: Partial<Record<InheritableKey, unknown>> = {};
  for (const key of INHERITABLE_KEYS) if (input[key] !== undefined) out[key] = input[key];
  const physics = out.physics as StoredManifest['physics'] | undefined;
  if (physics) out.physics = { ...(physics.inertia ? { inertia: physics.inertia } : {}), ...(physics.weight ? { weight: physics.weight } : {}) };
  return out as Partial<Omit<StoredManifest, 'label' | 'extend'>>;
}

/**
 * The stored manifest of a new version: the given keys, then the base's for keys left out (when it
 * extends one), then the defaults. Also answers which keys came from the base.
 */
export function resolveManifest(input: ManifestInput, base: StoredManifest | null): { manifest: StoredManifest; inherited: InheritableKey[] } {
  const given = knownKeys(input);
  const defaults = emptyDefaults();
  const inherited: InheritableKey[] = [];
  const out = {} as Record<InheritableKey, unknown>;
  for (const key of INHERITABLE_KEYS) {
    if (given[key] !== undefined) out[key] = given[key];
    else if (base && base[key] !== undefined) {
      out[key] = structuredClone(base[key]);
      inherited.push(key);
    } else out[key] = defaults[key];
  }
  return {
    manifest: { label: resolveLabel(input.name, input.label), ...(out as Omit<StoredManifest, 'label' | 'extend'>), extend: input.extend ?? null },
    inherited,
  };
}

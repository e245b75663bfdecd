/** The rules that tie a manifest's keys to each other and to the files it can use. */
import type { ErrorDetail } from '../../errors';
import { PLAIN_FACES, isPhysicalType, normalizeDie, type DieEntry } from './dice';
import { fileReferences } from './files';
import type { InheritableKey, StoredManifest } from './manifest';
import { extensionsFor, kindFromName, KINDS_FOR_USE, type AssetKind } from './sniff';

export interface CrossCheckContext {
  /** skip the die-id rules (available_dice itself is invalid) */
  skipDice?: boolean;
  /** skip the rules on which files exist (the base theme's files are not known yet) */
  skipFiles?: boolean;
  /** files the new version can use: uploaded ones with their sniffed kind, plus the base's (kind by name) */
  available: ReadonlyMap<string, AssetKind | null>;
  /** files uploaded with this request (name, and path for errors): each must be referenced */
  uploaded: readonly { name: string; path: string }[];
  inherited: readonly InheritableKey[];
  base: string | null;
}

/**
 * Rules across keys: every die id used exists in available_dice (once, case-insensitively), a die's faces
 * match its shape, float uniforms' ranges hold, every referenced file exists and fits its use, and every
 * uploaded file is referenced.
 */
export function crossCheck(m: StoredManifest, ctx: CrossCheckContext): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const note = (key: InheritableKey) => (ctx.inherited.includes(key) && ctx.base ? ` (inherited from "${ctx.base}")` : '');
  const add = (path: string, message: string) => details.push({ path: `manifest.${path}`, message });

  const dice = new Map<string, DieEntry>();
  m.available_dice.forEach((entry, i) => {
    const die = normalizeDie(entry);
    if (!die) return;
    const key = die.id.toLowerCase();
    if (dice.has(key))
      add(
        typeof entry === 'string' ? `available_dice[${i}]` : `available_dice[${i}].id`,
        `the die id "${die.id}" appears more than once in available_dice (ids are case-insensitive)${note('available_dice')}`,
      );
    else dice.set(key, die);
  });
  const exact = new Set([...dice.values()].map((d) => d.id));

  if (!ctx.skipDice) checkDice(m, dice, exact, add, note);
  checkUniforms(m, add, note);
  checkFiles(m, ctx, add, note, details);
  return details;
}

type Add = (path: string, message: string) => void;
type Note = (key: InheritableKey) => string;

function checkDice(m: StoredManifest, dice: Map<string, DieEntry>, exact: Set<string>, add: Add, note: Note) {
  const checkDie = (die: string, path: string, key: InheritableKey) => {
    if (!exact.has(die)) add(path, `"${die}" is not a die id of available_dice (${[...exact].join(', ')})${note(key)}`);
  };
  for (const die of Object.keys(m.meshes)) checkDie(die, `meshes.${die}`, 'meshes');
  for (const die of Object.keys(m.sizes)) checkDie(die, `sizes.${die}`, 'sizes');
  for (const part of ['inertia', 'weight'] as const) for (const die of Object.keys(m.physics[part] ?? {})) checkDie(die, `physics.${part}.${die}`, 'physics');
  m.textures.forEach((t, i) => {
    if (t.src && typeof t.src === 'object') for (const die of Object.keys(t.src)) checkDie(die, `textures[${i}].src.${die}`, 'textures');
  });
  m.sounds.forEach((s, i) => {
    if (s.src && typeof s.src === 'object') for (const die of Object.keys(s.src)) checkDie(die, `sounds[${i}].src.${die}`, 'sounds');
  });
  for (const [id, faces] of Object.entries(m.values)) {
    checkDie(id, `values.${id}`, 'values');
    const die = exact.has(id) ? dice.get(id.toLowerCase()) : undefined;
    if (die && isPhysicalType(die.type) && faces.length !== PLAIN_FACES[die.type].length) {
      add(
        `values.${id}`,
        `the die "${id}" is a ${die.type}, so values.${id} needs ${PLAIN_FACES[die.type].length} faces, not ${faces.length}${note('values')}`,
      );
    }
  }
}

function checkUniforms(m: StoredManifest, add: Add, note: Note) {
  for (const [name, u] of Object.entries(m.uniforms)) {
    if (u.type !== 'f') continue;
    if (typeof u.min === 'number' && typeof u.max === 'number' && u.min > u.max)
      add(`uniforms.${name}.min`, `uniforms.${name}.min must not be greater than max${note('uniforms')}`);
    else if (typeof u.value === 'number' && ((typeof u.min === 'number' && u.value < u.min) || (typeof u.max === 'number' && u.value > u.max))) {
      add(`uniforms.${name}.value`, `uniforms.${name}.value must lie between min and max${note('uniforms')}`);
    }
  }
}

function checkFiles(m: StoredManifest, ctx: CrossCheckContext, add: Add, note: Note, details: ErrorDetail[]) {
  const referenced = new Set<string>();
  for (const ref of fileReferences(m)) {
    referenced.add(ref.name);
    const byName = kindFromName(ref.name);
    if (!byName || !KINDS_FOR_USE[ref.use].includes(byName)) {
      add(ref.path, `"${ref.name}" must be a ${ref.use} file (${extensionsFor(ref.use).join(', ')})${note(ref.key)}`);
      continue;
    }
    if (ctx.skipFiles) continue;
    if (!ctx.available.has(ref.name)) {
      add(ref.path, `"${ref.name}" is not among the uploaded assets: upload it in the "assets" field${note(ref.key)}`);
      continue;
    }
    const kind = ctx.available.get(ref.name);
    if (kind && !KINDS_FOR_USE[ref.use].includes(kind)) add(ref.path, `"${ref.name}" is a ${kind} file, which cannot be used as a ${ref.use}${note(ref.key)}`);
  }
  if (ctx.skipFiles) return;
  for (const { name, path } of ctx.uploaded) {
    if (!referenced.has(name)) details.push({ path, message: `the uploaded file "${name}" is not referenced by the manifest: remove it or reference it` });
  }
}

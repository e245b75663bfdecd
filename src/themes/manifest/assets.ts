/**
 * Checks of uploaded theme files that need nothing but the files: safe names, no duplicates, accepted
 * content (by magic bytes) that agrees with the name's extension.
 */
import { createHash } from 'node:crypto';
import type { ErrorDetail } from '../../errors';
import { FILE_NAME, FILE_NAME_RULE } from './manifest';
import { gltfProblem } from './gltf';
import { assetCost, ThemeBudget } from '../assetLimits';
import { CONTENT_TYPES, kindFromName, sniff, type AssetKind } from './sniff';

export interface UploadedFile {
  /** the file name the client gave: never used as a path, only as a key */
  name: string;
  data: Buffer;
}

export interface CheckedAsset {
  name: string;
  /** position in the upload, for error paths */
  index: number;
  kind: AssetKind;
  contentType: string;
  size: number;
  sha256: string;
  data: Buffer;
}

const ACCEPTED = 'fbx, glb, gltf, png, jpg, webp, ktx2, wav or mp3';

/**
 * The accepted files, the problems, and the names of files refused for their content (already reported:
 * the manifest's references to them are not reported again).
 */
export function checkAssets(files: readonly UploadedFile[]): { assets: CheckedAsset[]; details: ErrorDetail[]; refused: string[] } {
  const details: ErrorDetail[] = [];
  const refused: string[] = [];
  const assets: CheckedAsset[] = [];
  const seen = new Set<string>();
  const budget = new ThemeBudget();
  files.forEach((file, i) => {
    const path = `assets[${i}]`;
    const shown = JSON.stringify(file.name.slice(0, 100));
    if (/[/\\]/.test(file.name) || file.name.includes('..')) {
      details.push({ path, message: `the file name ${shown} has folder parts: upload files by their plain name, as the manifest references them` });
      return;
    }
    if (!FILE_NAME.test(file.name)) {
      details.push({ path, message: `the file name ${shown} must be ${FILE_NAME_RULE}` });
      return;
    }
    if (seen.has(file.name)) {
      details.push({ path, message: `the file ${shown} is uploaded more than once` });
      return;
    }
    seen.add(file.name);
    if (file.data.length === 0) {
      details.push({ path, message: `the file ${shown} is empty` });
      refused.push(file.name);
      return;
    }
    const byName = kindFromName(file.name);
    const byContent = sniff(file.data);
    if (!byContent) {
      details.push({ path, message: `the content of ${shown} is not an accepted file type (${ACCEPTED})` });
      refused.push(file.name);
      return;
    }
    if (byName !== byContent) {
      details.push({ path, message: `the file ${shown} contains ${byContent} data, which its name does not say: name it with the matching extension` });
      refused.push(file.name);
      return;
    }
    const model = byContent === 'glb' || byContent === 'gltf' ? gltfProblem(byContent, file.data) : null;
    if (model) {
      details.push({ path, message: `the model ${shown} cannot be used: ${model}` });
      refused.push(file.name);
      return;
    }
    // What it decodes to, from its headers (src/themes/assetLimits): the board checks stored files the same way.
    const cost = assetCost(byContent, file.data);
    const over = typeof cost === 'string' ? cost : budget.add(cost);
    if (over) {
      details.push({ path, message: `the file ${shown} cannot be used: ${over}` });
      refused.push(file.name);
      return;
    }
    assets.push({
      name: file.name,
      index: i,
      kind: byContent,
      contentType: CONTENT_TYPES[byContent],
      size: file.data.length,
      sha256: createHash('sha256').update(file.data).digest('hex'),
      data: file.data,
    });
  });
  return { assets, details, refused };
}

/**
 * glTF models through the Khronos glTF validator, after the cost checks (src/themes/assetLimits) have
 * bounded what it reads: a model the validator finds errors in (indices out of range, accessors
 * overlapping their views wrongly, invalid JSON structure) is refused with its first errors.
 */
import type { checkAssets } from './assets';

const SHOWN_ERRORS = 3;

/**
 * The validator is loaded on the first model it is asked about: compiled from Dart, it is the largest
 * package the server imports, and importing it alone costs about 35 ms of CPU, which every start-up
 * paid for the few uploads that carry a model.
 */
let loaded: Promise<typeof import('gltf-validator')> | null = null;
const loadValidator = async () => (await (loaded ??= import('gltf-validator'))).default;

/** Run the validator over the accepted models: refused ones move from `assets` to `details` and `refused`. */
export async function validateModels(files: ReturnType<typeof checkAssets>): Promise<void> {
  const kept = [];
  for (const asset of files.assets) {
    if (asset.kind !== 'glb' && asset.kind !== 'gltf') {
      kept.push(asset);
      continue;
    }
    const validator = await loadValidator();
    const report = await validator.validateBytes(new Uint8Array(asset.data), { format: asset.kind, maxIssues: 64 }).catch((err: Error) => err);
    const errors =
      report instanceof Error ? [{ code: 'UNREADABLE', message: report.message, pointer: '' }] : report.issues.messages.filter((m) => m.severity === 0);
    if (!errors.length) {
      kept.push(asset);
      continue;
    }
    const shown = errors
      .slice(0, SHOWN_ERRORS)
      .map((e) => `${e.code}${e.pointer ? ` at ${e.pointer}` : ''}: ${e.message}`)
      .join('; ');
    files.details.push({
      path: `assets[${asset.index}]`,
      message: `the model ${JSON.stringify(asset.name)} does not pass the glTF validator (${errors.length} error${errors.length > 1 ? 's' : ''}): ${shown}`,
    });
    files.refused.push(asset.name);
  }
  files.assets = kept;
}

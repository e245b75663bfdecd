/**
 * An image's cost is its pixels, not its bytes: a 30 KB PNG of one colour can be 16384 x 16384 (1 GiB
 * decoded). The dimensions are read from the header (image-size, which reads Uint8Arrays and runs in
 * the browser too) before anything decodes the image.
 */
import { imageSize } from 'image-size';
import { ASSET_LIMITS } from './limits';

export interface ImageCost {
  width: number;
  height: number;
  /** RGBA bytes once decoded (every face and layer of a KTX2 texture) */
  decodedBytes: number;
}

const KTX2_MAGIC = [0xab, 0x4b, 0x54, 0x58, 0x20, 0x32, 0x30, 0xbb];

/** KTX2 layers, faces and depth slices multiply the pixels of its base level. */
function ktx2Planes(data: Uint8Array): number {
  if (data.length < 48 || KTX2_MAGIC.some((b, i) => data[i] !== b)) return 1;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const [depth, layers, faces] = [view.getUint32(28, true), view.getUint32(32, true), view.getUint32(36, true)];
  return Math.max(1, depth) * Math.max(1, layers) * Math.max(1, faces);
}

/** The image's dimensions and decoded size, or why it cannot be used (unreadable, or over the limits). */
export function imageCost(data: Uint8Array): ImageCost | string {
  let width: number;
  let height: number;
  try {
    const size = imageSize(data);
    width = size.width;
    height = size.height;
  } catch {
    return 'its dimensions cannot be read from its header';
  }
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) return `its dimensions (${width}x${height}) are not an image's`;
  const side = ASSET_LIMITS.imageSide;
  if (width > side || height > side) return `it is ${width}x${height} pixels, over the ${side}x${side} an image may be`;
  const planes = ktx2Planes(data);
  if (planes > 6) return `it has ${planes} layers, faces or slices, over the 6 a texture may have`;
  return { width, height, decodedBytes: width * height * 4 * planes };
}

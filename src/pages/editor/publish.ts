/**
 * Publishing a theme version from a page: `POST /api/1.0/theme` as any client sends it (multipart:
 * `manifest`, `frag_shader`, `vert_shader`, `assets`), with the page key. XMLHttpRequest rather than
 * fetch: only it reports how much of the body has gone (`upload.onprogress`), which a large theme's
 * upload shows as it goes.
 */
import type { Theme } from '../../client/types';
import { ApiError } from '../../client/rest';

export interface PublishInput {
  manifest: Record<string, unknown>;
  frag_shader?: string;
  vert_shader?: string;
  /** in this order: an error's `assets[i]` is the i-th */
  assets: Array<{ name: string; data: Blob }>;
}

/** The body as the API takes it (shaders only when they have text). */
export function publishForm(input: PublishInput): FormData {
  const form = new FormData();
  form.append('manifest', JSON.stringify(input.manifest));
  if (input.frag_shader?.trim()) form.append('frag_shader', input.frag_shader);
  if (input.vert_shader?.trim()) form.append('vert_shader', input.vert_shader);
  for (const asset of input.assets) form.append('assets', asset.data, asset.name);
  return form;
}

/** The answer's JSON, or null when it is none (a proxy's page: said with its status). */
function parsed(text: string): { type?: string; data?: Record<string, unknown> } | null {
  try {
    return JSON.parse(text) as { type?: string; data?: Record<string, unknown> };
  } catch {
    return null;
  }
}

/** Publish; `progress(sent, total)` while the body goes out. Rejects with an ApiError (its `details` for the page's fields). */
export function publishTheme(key: string, input: PublishInput, progress: (sent: number, total: number) => void): Promise<Theme> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/1.0/theme');
    xhr.setRequestHeader('Authorization', `Bearer ${key}`);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) progress(e.loaded, e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'The upload did not reach the server: check the connection and try again.'));
    xhr.onload = () => {
      const body = parsed(xhr.responseText);
      if (xhr.status === 201 && body?.type === 'theme') return resolve(body.data as unknown as Theme);
      const data = (body?.data ?? {}) as { code?: unknown; message?: unknown; details?: unknown };
      const details = Array.isArray(data.details)
        ? data.details.filter(
            (d: unknown): d is { path: string; message: string } =>
              Boolean(d) && typeof (d as { path?: unknown }).path === 'string' && typeof (d as { message?: unknown }).message === 'string',
          )
        : [];
      const message = typeof data.message === 'string' ? data.message : `The server refused the upload (HTTP ${xhr.status}).`;
      reject(new ApiError(xhr.status, typeof data.code === 'string' ? data.code : 'error', message, details));
    };
    xhr.send(publishForm(input));
  });
}

/** A file of a published version, for publishing it again with a new version (the API wants every file a version names). */
export async function fileOf(url: string, name: string): Promise<Blob> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`The file ${name} could not be read (HTTP ${res.status}).`);
  return res.blob();
}

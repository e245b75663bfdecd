import type { Rng } from './prng';
import { hostileValue, hugeString, SQLISH, TRAVERSAL, UNICODE } from './values';

/**
 * One endpoint as the generator sees it: a path template whose `{name}` parts come from the
 * fixtures (the caller's own ids, other users' ids, or hostile strings), and a valid body to mutate.
 */
export interface Target {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  /** A body the server would accept from the owner; mutated into hostile ones. */
  body?: (ids: Ids) => unknown;
  /** Query keys worth abusing on this endpoint. */
  query?: string[];
  /** Sends multipart (uploads): the generator builds hostile forms. */
  upload?: (rng: Rng, ids: Ids) => FormData;
  /** With the caller's own valid ids this request may destroy a fixture: never send it so. */
  destructive?: boolean;
}

/** Values for each `{name}` of the paths: the caller's own, and other users'. */
export interface Ids {
  own: Record<string, string>;
  others: Record<string, string[]>;
}

export interface HostileRequest {
  target: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: BodyInit;
  /** What the generator did, for the failure message. */
  what: string[];
}

const PARAM = /\{(\w+)\}/g;

/** encodeURIComponent that also takes lone surrogates (as U+FFFD) instead of throwing. */
export function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.!~*'()]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function hostileSegment(rng: Rng): string {
  const raw = rng.pick<unknown>([
    ...TRAVERSAL,
    ...SQLISH,
    ...UNICODE.filter(Boolean),
    hugeString(rng).slice(0, 3000),
    '-1',
    '0',
    '99999999999999999999',
    '1.5',
    'null',
    '%',
    '%zz',
    '%00',
    '%ff%fe',
    '..%2f..%2f',
  ]);
  const text = String(raw);
  // Mostly encoded (as a client library would), sometimes raw (as a hand-written URL would be).
  if (rng.chance(0.7)) return encode(text);
  return text.replace(/[\s#?\u0000-\u001f\u007f]/g, (c) => encode(c)).replace(/[^\x21-\x7e]/g, (c) => encode(c));
}

/** Fill the path: own ids unless `stranger` paths are asked for; sometimes hostile or others'. */
function fillPath(rng: Rng, target: Target, ids: Ids, mode: 'own' | 'others', what: string[]): string {
  return target.path.replace(PARAM, (_, name: string) => {
    const roll = rng.next();
    const others = ids.others[name] ?? [];
    if (mode === 'others' && others.length && roll < 0.8) {
      what.push(`{${name}}=someone else's`);
      return encode(rng.pick(others));
    }
    if (roll < 0.25 || (target.destructive && mode === 'own') || !ids.own[name]) {
      const seg = hostileSegment(rng);
      what.push(`{${name}}=hostile`);
      return seg;
    }
    if (roll < 0.35 && others.length) {
      what.push(`{${name}}=someone else's`);
      return encode(rng.pick(others));
    }
    return encode(ids.own[name]!);
  });
}

function hostileQuery(rng: Rng, keys: string[], what: string[]): string {
  if (!rng.chance(0.4)) return '';
  const names = [...keys, 'page', 'per_page', 'passcode', 'filter', '__proto__', 'constructor'];
  const parts: string[] = [];
  for (let i = rng.int(1, 4); i > 0; i--) {
    const name = rng.pick(names);
    const v = hostileValue(rng);
    const text = typeof v === 'string' ? v.slice(0, 1500) : (JSON.stringify(v)?.slice(0, 1500) ?? 'undefined');
    parts.push(`${rng.chance(0.2) ? `${name}[]` : name}=${encode(text)}`);
    if (rng.chance(0.2)) parts.push(`${name}=${encode(text)}`); // the same key twice: an array
  }
  what.push(`query ${parts.join('&').slice(0, 120)}`);
  return `?${parts.join('&')}`;
}

/** Replace, add or remove fields of a valid body (recursively into arrays and objects). */
export function mutateValue(rng: Rng, value: unknown, ids: readonly string[], what: string[], path = 'body'): unknown {
  if (Array.isArray(value)) {
    const copy = [...value];
    if (copy.length && rng.chance(0.6)) {
      const i = rng.int(0, copy.length - 1);
      copy[i] = mutateValue(rng, copy[i], ids, what, `${path}[${i}]`);
    } else if (rng.chance(0.5)) {
      copy.push(hostileValue(rng, ids));
      what.push(`${path}[] += hostile`);
    } else {
      what.push(`${path} = ${copy.length ? 'huge array' : 'empty array'}`);
      return copy.length ? Array.from({ length: rng.pick([1000, 20_000]) }, () => copy[0]) : [];
    }
    return copy;
  }
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const choice = rng.next();
    if (keys.length && choice < 0.6) {
      const k = rng.pick(keys);
      copy[k] = rng.chance(0.3) ? mutateValue(rng, copy[k], ids, what, `${path}.${k}`) : hostileValue(rng, ids);
      if (!what.some((w) => w.startsWith(`${path}.${k}`))) what.push(`${path}.${k} = hostile`);
    } else if (keys.length && choice < 0.75) {
      delete copy[rng.pick(keys)];
      what.push(`${path}: a field removed`);
    } else {
      copy[rng.pick(['__proto__', 'constructor', 'id', 'user_id', 'user', 'uuid', 'is_registered', 'owner', 'x'.repeat(300)])] = hostileValue(rng, ids);
      what.push(`${path}: an unexpected field added`);
    }
    return copy;
  }
  what.push(`${path} = hostile`);
  return hostileValue(rng, ids);
}

/** Bodies no JSON.stringify produces: broken syntax, bad bytes, extreme nesting, wrong labels. */
function rawBody(rng: Rng, what: string[]): { body: BodyInit; type: string } {
  const n = rng.pick([10_000, 100_000, 400_000]);
  const choices: Array<[string, () => BodyInit, string]> = [
    ['truncated JSON', () => '{"name": "x', 'application/json'],
    ['trailing garbage', () => '{"name":"x"} garbage', 'application/json'],
    ['NaN and comments', () => '{"n": NaN /* c */}', 'application/json'],
    ['invalid UTF-8', () => new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), 'application/json'],
    ['UTF-16 labelled', () => '{"name":"x"}', 'application/json; charset=utf-16'],
    ['unknown charset', () => '{"name":"x"}', 'application/json; charset=klingon'],
    [`array nested ${n} deep`, () => '['.repeat(n) + ']'.repeat(n), 'application/json'],
    [`object nested ${n} deep`, () => '{"a":'.repeat(n) + '1' + '}'.repeat(n), 'application/json'],
    ['2 MB string', () => JSON.stringify({ name: 'x'.repeat(2_100_000) }), 'application/json'],
    ['100k keys', () => `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`, 'application/json'],
    ['duplicate keys', () => '{"name":"a","name":{"$gt":""},"is_public":true,"is_public":"yes"}', 'application/json'],
    ['JSON as text/plain', () => '{"name":"x"}', 'text/plain'],
    ['form-encoded', () => 'name=x&is_public=true', 'application/x-www-form-urlencoded'],
    ['XML', () => '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>', 'application/xml'],
    ['multipart without boundary', () => '--x\r\n\r\n', 'multipart/form-data'],
    ['multipart, broken', () => '--b\r\nContent-Disposition: form-data; name="manifest"\r\n\r\n{"id":"x"', 'multipart/form-data; boundary=b'],
    ['a bare string', () => '"just a string"', 'application/json'],
    ['a bare number', () => '1e999', 'application/json'],
    ['null', () => 'null', 'application/json'],
    ['a JSON array', () => JSON.stringify([{ name: 'x' }]), 'application/json'],
    ['vendor +json, deep', () => '{"a":'.repeat(5000) + '1' + '}'.repeat(5000), 'application/vnd.api+json'],
  ];
  const [label, make, type] = rng.pick(choices);
  what.push(`raw body: ${label} (${type})`);
  return { body: make(), type };
}

/** Hostile multipart forms for an upload endpoint. */
export function hostileUpload(rng: Rng, fields: Record<string, () => string>, fileField: string): FormData {
  const form = new FormData();
  for (const [name, make] of Object.entries(fields))
    if (rng.chance(0.8)) form.append(name, rng.chance(0.5) ? make() : String(hostileValue(rng)).slice(0, 100_000));
  const files = rng.int(0, 3);
  for (let i = 0; i < files; i++) {
    const size = rng.pick([0, 10, 1000, 200_000, 12_000_000]);
    const bytes = new Uint8Array(size);
    // Start with a real PNG/GIF signature sometimes, so sniffing has something to be fooled by.
    const sig = rng.pick([[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0x47, 0x49, 0x46, 0x38, 0x39, 0x61], [0x3c, 0x73, 0x76, 0x67], []]);
    bytes.set(sig.slice(0, size));
    const type = rng.pick(['image/png', 'image/jpeg', 'image/svg+xml', 'text/html', 'application/octet-stream', 'audio/wav', '', 'image/png; x=../..']);
    const name = rng.pick([...TRAVERSAL, 'a.png', 'd20.fbx', 'x'.repeat(1000) + '.png', 'évil 🎲.png', 'a\u0000.png', 'CON', '.htaccess', '']);
    form.append(rng.chance(0.8) ? fileField : rng.pick(['other', 'assets[]', fileField + '2', '__proto__']), new Blob([bytes], { type }), name);
  }
  return form;
}

/** One hostile request against `target`, as its owner (`own`) or as someone else (`others`). */
export function generate(rng: Rng, target: Target, ids: Ids, mode: 'own' | 'others'): HostileRequest {
  const what: string[] = [];
  const path = fillPath(rng, target, ids, mode, what) + hostileQuery(rng, target.query ?? [], what);
  const headers: Record<string, string> = { accept: rng.chance(0.9) ? 'application/json' : rng.pick(['text/html', '*/*', 'application/xml']) };
  const otherIds = Object.values(ids.others).flat();
  let body: BodyInit | undefined;
  if (target.upload && rng.chance(0.8)) {
    body = target.upload(rng, ids);
    what.push('hostile upload');
  } else if (target.method !== 'GET' && (target.method !== 'DELETE' || rng.chance(0.1))) {
    const kind = rng.next();
    if (kind < 0.2) {
      const raw = rawBody(rng, what);
      body = raw.body;
      headers['content-type'] = raw.type;
    } else {
      const valid = target.body?.(ids) ?? {};
      const mutated = kind < 0.3 ? hostileValue(rng, otherIds) : mutateValue(rng, valid, otherIds, what);
      if (kind < 0.3) what.push('whole body = hostile value');
      body = JSON.stringify(mutated) ?? 'null';
      headers['content-type'] = rng.chance(0.95)
        ? 'application/json'
        : rng.pick(['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']);
    }
  } else if (mode === 'own' && path === target.path) {
    what.push('valid path');
  }
  return { target: `${target.method} ${target.path}`, method: target.method, path, headers, body, what };
}

#!/usr/bin/env node
/**
 * verify-roll.mjs: check, without trusting the server, that the dice of a roll follow from the secrets
 * its ledger committed to before the roll, the roller's client seed and each value's position.
 * One file, node:crypto and fetch only, no project imports: copy it anywhere (Node 18 or later).
 * The construction is in docs/fairness.md.
 *
 *   node verify-roll.mjs ROLL.json                        a roll (or {data: roll}, or a list of them) as
 *                                                          the API, a socket event or the history answered it
 *   node verify-roll.mjs ROLL.json --base URL --key KEY   the same, and each root checked against what
 *                                                          the ledger published (and which value drew each leaf)
 *   node verify-roll.mjs --base URL --key KEY --room SLUG [--limit N]   the room's latest N rolls (default 20)
 *   node verify-roll.mjs --base URL --key KEY --roll UUID               one roll, fetched
 *
 * Checks, for every value the roll shows with a proof: `commitment` (SHA-256("odice-leaf:" || secret)),
 * `path` (the 8 hashes lead from the commitment to the root), `face` (the secret and the client seed
 * give the value), `order` (the roll's draws take consecutive leaves), and online `published` (the
 * ledger published that root for that batch, before the roll) and `ledger` (its batch names this value
 * as the one that drew the leaf, with that commitment). A value whose secret is withheld from you (a
 * hidden die) cannot be checked for its face: it is reported as such. Exit status 0 when every check
 * passed, 1 when one failed, 2 on a usage or network error.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const LEAVES = 256;
const TWO_32 = 4294967296;

// --- the construction (docs/fairness.md) -----------------------------------------------------------

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** L = SHA-256("odice-leaf:" || s) */
const commitmentOf = (secret) => sha256(Buffer.from('odice-leaf:', 'utf8'), secret);

/** Up the tree: at each level the sibling goes left when our index is odd. */
function rootFrom(commitment, leaf, path) {
  let node = commitment;
  let i = leaf;
  for (const sibling of path) {
    node = i % 2 === 0 ? sha256(node, sibling) : sha256(sibling, node);
    i = Math.floor(i / 2);
  }
  return node;
}

/** x = first 4 bytes (big-endian) of HMAC-SHA256(s, c ":" j), j = 0, 1, ...; accept x < floor(2^32/N)*N; face = x mod N. */
function drawFace(secret, clientSeed, n) {
  const limit = Math.floor(TWO_32 / n) * n;
  for (let j = 0; j < 128; j++) {
    const x = createHmac('sha256', secret).update(`${clientSeed}:${j}`, 'utf8').digest().readUInt32BE(0);
    if (x < limit) return x % n;
  }
  throw new Error('no draw accepted in 128 tries');
}

// --- a face index as the API numbers values (docs/dice.md, "Value numbering") ------------------------

const FUDGE = { df: [-1, -1, 0, 0, 1, 1], 'df.2': [-1, -1, 0, 0, 1, 1], 'df.1': [-1, 0, 0, 0, 0, 1] };

/** The `value` the API shows for face index `face` of a die of type `type` showing `display`. */
function expectedValue(type, face, display) {
  const shown = typeof display === 'number' || (typeof display === 'string' && display.trim() !== '') ? Number(display) : NaN;
  if (type === 'd10x' && Number.isInteger(shown) && shown >= 0 && shown <= 90 && shown % 10 === 0) return face === 0 ? 10 : face;
  if (FUDGE[type] && (shown === -1 || shown === 0 || shown === 1)) return FUDGE[type][face];
  return face + 1;
}

// --- checking -----------------------------------------------------------------------------------

const isHex64 = (s) => typeof s === 'string' && /^[0-9a-f]{64}$/.test(s);
let failures = 0;
let passes = 0;
const out = (line) => console.log(line);
const fail = (where, check, why) => {
  failures++;
  out(`  FAIL ${where}: ${check}: ${why}`);
};

/**
 * online: { batchOf(ledgerScope, batch) -> Promise<published batch or null> } when a base URL was given.
 */
async function verifyRoll(roll, online) {
  const label = `roll ${roll.uuid}`;
  out(`${label}${roll.room?.slug ? ` (room ${roll.room.slug})` : ''}: ${roll.equation ?? ''}`);
  if (!roll.fairness) {
    out('  no fairness block: this roll was not drawn from a ledger (made before ledgers), nothing to check');
    return;
  }
  const seed = roll.fairness.client_seed ?? '';
  out(`  ledger ${roll.fairness.ledger}, client seed ${roll.fairness.client_seed === null ? 'none (the draws used the empty string)' : JSON.stringify(seed)}`);
  const operator = roll.operator && typeof roll.operator === 'object' ? roll.operator : {};
  const moves = ['mi', 'ma'].filter((k) => k in operator);
  let previous = null;
  let checkedFaces = 0;
  let withheld = 0;
  const values = [...(roll.values ?? [])];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const where = `${label} value #${i} (${v.type}, ${v.uuid})`;
    if (v.is_user_value) {
      if (v.proof) fail(where, 'proof', 'a value the client supplied carries a proof');
      else out(`  value #${i} ${v.type}: supplied by the client (is_user_value): trusted as sent, no proof`);
      continue;
    }
    if (v.type === 'mod') continue;
    const p = v.proof;
    if (!p) {
      fail(where, 'proof', 'a value the server drew has no proof');
      continue;
    }
    let ok = true;
    if (
      !isHex64(p.root) ||
      !isHex64(p.commitment) ||
      !Array.isArray(p.path) ||
      p.path.length !== 8 ||
      !p.path.every(isHex64) ||
      !Number.isInteger(p.leaf) ||
      p.leaf < 0 ||
      p.leaf >= LEAVES ||
      !Number.isInteger(p.batch) ||
      p.batch < 0 ||
      !Number.isInteger(p.faces) ||
      p.faces < 1
    ) {
      fail(where, 'proof', 'malformed (root, commitment, 8-hash path, leaf 0..255, batch, faces)');
      continue;
    }
    // order: the roll's draws are consecutive leaves of its ledger, in value order
    const position = p.batch * LEAVES + p.leaf;
    if (previous !== null && position !== previous + 1) {
      fail(where, 'order', `leaf ${position} follows leaf ${previous}: the roll's draws must take consecutive leaves`);
      ok = false;
    }
    previous = position;
    // path: commitment -> root
    const root = rootFrom(
      Buffer.from(p.commitment, 'hex'),
      p.leaf,
      p.path.map((h) => Buffer.from(h, 'hex')),
    );
    if (root.toString('hex') !== p.root) {
      fail(where, 'path', `the path from the commitment leads to ${root.toString('hex').slice(0, 16)}…, not to the root ${p.root.slice(0, 16)}…`);
      ok = false;
    }
    if (p.secret === null || p.secret === undefined) {
      withheld++;
      out(`  value #${i} ${v.type}: hidden from you (no secret): commitment and path ${ok ? 'checked' : 'FAILED'}, face not checkable until revealed`);
    } else if (!isHex64(p.secret)) {
      fail(where, 'commitment', 'the secret is not 32 bytes of hex');
      ok = false;
    } else {
      const secret = Buffer.from(p.secret, 'hex');
      if (commitmentOf(secret).toString('hex') !== p.commitment) {
        fail(where, 'commitment', 'SHA-256("odice-leaf:" || secret) is not the commitment');
        ok = false;
      }
      const face = drawFace(secret, seed, p.faces);
      const expected = expectedValue(v.type, face, v.value_to_display);
      if (v.value === null || v.value === undefined) {
        fail(where, 'face', 'the secret is shown but the value is not');
        ok = false;
      } else if (v.value !== expected) {
        const moved = moves.length > 0 && (moves.length === 2 || (moves[0] === 'mi' ? v.value > expected : v.value < expected));
        if (moved) out(`  value #${i} ${v.type}: drew ${expected}, shows ${v.value}: moved by the roll's ${moves.join('/')} operator`);
        else {
          fail(where, 'face', `the secret and client seed give face ${face} of ${p.faces} (value ${expected}), the roll says ${v.value}`);
          ok = false;
        }
      }
      checkedFaces++;
    }
    if (online) {
      const published = await online.batchOf(roll, p.batch);
      if (!published) {
        fail(where, 'published', `the ledger published no batch ${p.batch}`);
        ok = false;
      } else {
        if (published.root !== p.root) {
          fail(where, 'published', `batch ${p.batch}'s published root is ${published.root.slice(0, 16)}…, the proof says ${p.root.slice(0, 16)}…`);
          ok = false;
        }
        const drawnAt = v.created_at ?? roll.created_at;
        if (drawnAt && Date.parse(published.created_at) > Date.parse(drawnAt)) {
          fail(where, 'published', `batch ${p.batch} was published at ${published.created_at}, after the value was drawn (${drawnAt})`);
          ok = false;
        }
        const leaf = published.leaves?.[p.leaf];
        if (!leaf || leaf.commitment !== p.commitment) {
          fail(where, 'ledger', `the published batch has another commitment at leaf ${p.leaf}`);
          ok = false;
        } else if (leaf.value !== v.uuid || leaf.roll !== roll.uuid) {
          fail(where, 'ledger', `the published batch says leaf ${p.leaf} was drawn by ${leaf.value ?? 'no value'} (roll ${leaf.roll ?? 'none'})`);
          ok = false;
        }
      }
    }
    if (ok) passes++;
  }
  out(
    `  ${checkedFaces} value(s) verified to the face${withheld ? `, ${withheld} hidden from you` : ''}${online ? ', roots checked against the published ledger' : ', publication not checked (no --base)'}`,
  );
}

// --- input --------------------------------------------------------------------------------------

function parseArgs(argv) {
  const opts = { files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--base' || a === '--key' || a === '--room' || a === '--roll' || a === '--limit') opts[a.slice(2)] = argv[++i];
    else if (a === '-h' || a === '--help') opts.help = true;
    else opts.files.push(a);
  }
  return opts;
}

/** Rolls in whatever JSON was given: a roll, an envelope, a list, a socket event's payload. */
function rollsIn(json) {
  if (Array.isArray(json)) return json.flatMap(rollsIn);
  if (json && typeof json === 'object') {
    if (Array.isArray(json.values) && typeof json.uuid === 'string') return [json];
    if ('data' in json) return rollsIn(json.data);
    if ('roll' in json) return rollsIn(json.roll);
  }
  return [];
}

function client(base, key) {
  const root = base.replace(/\/+$/, '');
  return async (path) => {
    const res = await fetch(`${root}/api/1.0${path}`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${(await res.text()).slice(0, 200)}`);
    return (await res.json()).data;
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help || (!opts.files.length && !opts.room && !opts.roll)) {
    console.error('usage: verify-roll.mjs ROLL.json [--base URL --key KEY] | --base URL --key KEY (--room SLUG [--limit N] | --roll UUID)');
    process.exit(2);
  }
  if ((opts.room || opts.roll) && !(opts.base && opts.key)) {
    console.error('--room and --roll need --base and --key');
    process.exit(2);
  }
  const get = opts.base && opts.key ? client(opts.base, opts.key) : null;
  const rolls = [];
  for (const f of opts.files) rolls.push(...rollsIn(JSON.parse(readFileSync(f, 'utf8'))));
  if (opts.roll) rolls.push(...rollsIn(await get(`/roll/${encodeURIComponent(opts.roll)}`)));
  if (opts.room) {
    const limit = Math.min(100, Math.max(1, Number(opts.limit ?? 20)));
    rolls.push(...rollsIn(await get(`/room/${encodeURIComponent(opts.room)}/roll?limit=${limit}`)));
  }
  const batches = new Map();
  const online = get && {
    batchOf: async (roll, batch) => {
      const path = roll.room?.slug ? `/room/${encodeURIComponent(roll.room.slug)}/fairness/batch/${batch}` : `/user/fairness/batch/${batch}`;
      if (!batches.has(path)) batches.set(path, await get(path));
      return batches.get(path);
    },
  };
  if (!rolls.length) {
    console.error('no roll found in the input');
    process.exit(2);
  }
  for (const roll of rolls) await verifyRoll(roll, online);
  out(failures ? `${failures} check(s) FAILED` : `all checks passed (${passes} value(s))`);
  process.exit(failures ? 1 : 0);
}

main().catch((err) => {
  console.error(`error: ${err.message}`);
  process.exit(2);
});

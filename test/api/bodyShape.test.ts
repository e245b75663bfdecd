import test from 'ava';
import Joi from 'joi';
import { useServer } from '../helpers/server';
import { manifest, postTheme } from '../fixtures/themes';
import { joiDetails } from '../../src/http/validate';
import { MAX_JSON_DEPTH } from '../../src/http/jsonShape';
import { storedRollCount } from './rolls.support';

/**
 * A die's `meta` nested 5,000 deep must not be a 400 whose message is the text of a RangeError
 * ("Maximum call stack size exceeded"). JSON bodies are bounded in depth before anything
 * recursive reads them, and no error answer carries an exception's text.
 */
const ctx = useServer(test);

const nested = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
const nestedArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const LEAKS = /Maximum call stack|RangeError|stack size|exceeded|failed custom validation|at position|Unexpected token/i;

async function postRaw(path: string, json: string, key: string) {
  return ctx.server.api.as(key).post(path, undefined, { raw: json, headers: { 'content-type': 'application/json' } });
}

function isShapeRefusal(t: import('ava').ExecutionContext, res: { status: number; body: any; text: string }, pathPrefix: string) {
  t.is(res.status, 400, res.text.slice(0, 300));
  t.is(res.body.type, 'error');
  t.is(res.body.data.code, 'validation_error');
  t.true(String(res.body.data.details[0].path).startsWith(pathPrefix), res.body.data.details[0].path);
  t.regex(res.body.data.message, /nested too deeply/);
  t.notRegex(res.text, LEAKS);
}

test('meta nested 5,000 deep: a 400 that says the body is too deep, without exception text; nothing is stored', async (t) => {
  const { key, api, user } = await ctx.server.newUser();
  const res = await postRaw('/roll', `{"dice":[{"type":"d6","theme":"standard","meta":${nested(5000)}}],"external_id":"deep-meta"}`, key);
  isShapeRefusal(t, res, 'dice[0].meta');
  t.is(await storedRollCount(user.uuid), 0, 'the refused request stored nothing');
  const ok = await api.post('/roll', { dice: [{ type: 'd6', theme: 'standard' }], external_id: 'deep-meta' });
  t.is(ok.status, 201);
});

test('deep nesting anywhere in a JSON body is refused the same way: arrays 100,000 deep, other routes', async (t) => {
  const { key, api } = await ctx.server.newUser();
  isShapeRefusal(t, await postRaw('/roll', `{"dice":[{"type":"d6","theme":"standard"}],"label":${nestedArray(100_000)}}`, key), 'label');
  isShapeRefusal(t, await postRaw('/roll', nestedArray(100_000), key), '');
  isShapeRefusal(t, await postRaw('/room', `{"name":${nested(5000, '"x"')}}`, key), 'name');
  const room = (await api.post('/room', {})).body.data;
  const patch = await api.patch(`/room/${room.slug}`, undefined, {
    raw: `{"name":"x","extra":${nested(10_000)}}`,
    headers: { 'content-type': 'application/json' },
  });
  isShapeRefusal(t, patch, 'extra');
});

test(`the depth limit is ${MAX_JSON_DEPTH} levels: meta just inside it is accepted, one level more is refused`, async (t) => {
  const { key } = await ctx.server.newUser();
  // body {..} > dice [..] > die {..} > meta: the meta value starts at level 4
  const within = await postRaw('/roll', `{"dice":[{"type":"d6","theme":"standard","meta":${nested(MAX_JSON_DEPTH - 3)}}]}`, key);
  t.is(within.status, 201, within.text.slice(0, 300));
  const beyond = await postRaw('/roll', `{"dice":[{"type":"d6","theme":"standard","meta":${nested(MAX_JSON_DEPTH - 2)}}]}`, key);
  isShapeRefusal(t, beyond, 'dice[0].meta');
});

test('a __proto__ key in a JSON body is a 400 naming it, not silently dropped (it would become a prototype)', async (t) => {
  const { key } = await ctx.server.newUser();
  const top = await postRaw('/roll', '{"dice":[{"type":"d6","theme":"standard"},{"type":"d6","theme":"standard"}],"operator":{"__proto__":"h1"}}', key);
  t.is(top.status, 400, top.text);
  t.is(top.body.data.code, 'validation_error');
  t.is(top.body.data.details[0].path, 'operator.__proto__');
  const room = await postRaw('/room', '{"name":"x","__proto__":{"is_public":false}}', key);
  t.is(room.status, 400);
  t.is(room.body.data.details[0].path, '__proto__');
});

test('a theme manifest nested 5,000 deep is a 400 on manifest, without exception text', async (t) => {
  const { api } = await ctx.server.newUser();
  const text = JSON.stringify(manifest()).replace(/}$/, `,"deep":${nested(5000)}}`);
  const res = await postTheme(api, text);
  t.is(res.status, 400, res.text.slice(0, 300));
  t.is(res.body.data.code, 'validation_error');
  t.true(res.body.data.details.some((d: { path: string; message: string }) => d.path.startsWith('manifest.deep') && /nested too deeply/.test(d.message)));
  t.notRegex(res.text, LEAKS);
});

test('a manifest that is not JSON says where, not what the parser said', async (t) => {
  const { api } = await ctx.server.newUser();
  const res = await postTheme(api, '{"id": }');
  t.is(res.status, 400);
  t.regex(res.body.data.details[0].message, /^manifest is not valid JSON/);
  t.notRegex(res.text, LEAKS);
});

test('a custom joi rule that throws becomes "is not valid", never the exception text', (t) => {
  const schema = Joi.object({
    meta: Joi.any().custom(() => {
      throw new RangeError('Maximum call stack size exceeded');
    }),
  });
  const { error } = schema.validate({ meta: 1 });
  t.truthy(error);
  t.deepEqual(joiDetails(error!), [{ path: 'meta', message: 'meta is not valid' }]);
});

test("upload refusals are our sentences, not multer's or busboy's text", async (t) => {
  const { api } = await ctx.server.newUser();
  const room = (await api.post('/room', {})).body.data;
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'x.png');
  const wrongField = await api.post(`/room/${room.slug}`, undefined, { raw: form });
  t.is(wrongField.status, 400);
  t.is(wrongField.body.data.code, 'invalid_upload');
  t.is(wrongField.body.data.message, 'The upload is not acceptable: a file came in a field that takes none (field "image").');
  const cut = await api.post(`/room/${room.slug}`, undefined, {
    raw: '--xyz\r\nContent-Disposition: form-data; name="bg_file_path"; filename="a.png"\r\n\r\n\x89PNG',
    headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
  });
  t.is(cut.status, 400);
  t.is(cut.body.data.code, 'invalid_upload');
  t.notRegex(cut.text, /Unexpected end|Malformed part|busboy|multer/i);
  const noBoundary = await api.post(`/room/${room.slug}`, undefined, { raw: '--x\r\n\r\n', headers: { 'content-type': 'multipart/form-data' } });
  t.is(noBoundary.status, 400);
  t.notRegex(noBoundary.text, /Boundary not found|Multipart:/i);
});

test('the shape check names the first deep place, with array indices, and passes wide flat bodies', async (t) => {
  const { jsonShapeProblem } = await import('../../src/http/jsonShape');
  const deep = JSON.parse(`{"dice":[{"type":"d6"},{"meta":{"list":[1,${nested(40)}]}}]}`);
  const problem = jsonShapeProblem(deep);
  t.truthy(problem);
  t.true(problem!.path.startsWith('dice[1].meta.list[1].a.a'), problem!.path);
  t.is(jsonShapeProblem(JSON.parse(`[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]`)), null);
  t.is(jsonShapeProblem(JSON.parse('{"a":{"__proto__":1}}'), 'manifest')?.path, 'manifest.a.__proto__');
  t.is(jsonShapeProblem(Object.create({ inherited: { a: 1 } })), null, 'inherited keys are not the body');
});

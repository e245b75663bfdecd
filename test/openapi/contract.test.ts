import fs from 'node:fs';
import test from 'ava';
import ts from 'typescript';
import { openApiDocument } from '../../src/openapi';

/**
 * One wire contract, written twice by hand in two languages: the typed client's types
 * (src/client/types.ts, events.ts) and the OpenAPI component schemas (src/openapi/schemas.ts). This
 * test reads the client's interfaces with the TypeScript parser and checks them against the document
 * where a mechanical check is possible: the same field names, and no field the client counts on that
 * the document lets the server leave out. The recorded-responses check (test/openapi/responses.test.ts
 * and scripts/test.sh) holds every real answer to the document (strict schemas: the same keys); with
 * this test, the client's types are held to the real answers too.
 */

type Json = Record<string, any>;
const doc = openApiDocument();
const components = doc.components.schemas as Record<string, Json>;
const paths = doc.paths as Record<string, Record<string, Json>>;

interface Field {
  optional: boolean;
}

/** Interfaces of a client source file: their fields (with those of what they extend) and whether an index signature is open. */
function interfacesOf(file: string): Map<string, { fields: Map<string, Field>; open: boolean; extends: string[] }> {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out = new Map<string, { fields: Map<string, Field>; open: boolean; extends: string[] }>();
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    const fields = new Map<string, Field>();
    let open = false;
    for (const member of node.members) {
      if (ts.isIndexSignatureDeclaration(member)) open = true;
      else if ((ts.isPropertySignature(member) || ts.isMethodSignature(member)) && member.name)
        fields.set(member.name.getText(source).replace(/^'|'$/g, ''), { optional: !!member.questionToken });
    }
    const parents = (node.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.expression.getText(source)));
    out.set(node.name.text, { fields, open, extends: parents });
  });
  // Fields of extended interfaces (NewApiKey extends ApiKey).
  const resolve = (name: string): Map<string, Field> => {
    const own = out.get(name)!;
    return new Map([...own.extends.flatMap((p) => [...resolve(p)]), ...own.fields]);
  };
  for (const [name, info] of out) info.fields = resolve(name);
  return out;
}

const types = interfacesOf('src/client/types.ts');
const events = interfacesOf('src/client/events.ts');

const propertiesOf = (schema: Json): Json => {
  if (schema.$ref) return propertiesOf(components[schema.$ref.split('/').pop()]!);
  return schema.properties ?? {};
};
const requiredOf = (schema: Json): string[] => (schema.$ref ? requiredOf(components[schema.$ref.split('/').pop()]!) : (schema.required ?? []));

/** Resources the server presents: the client type and the component of the same name. */
const PRESENTED = ['User', 'ApiKey', 'NewApiKey', 'Participant', 'Room', 'RollValue', 'Roll', 'Theme', 'ShareRequest', 'PageLinks', 'PageMeta'];

for (const name of PRESENTED) {
  test(`${name}: the client's type and the document's schema name the same fields; what the document may leave out is optional in the client`, (t) => {
    const client = types.get(name);
    const schema = components[name];
    t.truthy(client, `src/client/types.ts has ${name}`);
    t.truthy(schema, `the document has the component ${name}`);
    t.deepEqual([...client!.fields.keys()].sort(), Object.keys(propertiesOf(schema!)).sort());
    const required = new Set(requiredOf(schema!));
    const promised = [...client!.fields].filter(([field, f]) => !f.optional && !required.has(field)).map(([field]) => field);
    t.deepEqual(promised, [], 'fields the client counts on that the document does not require');
  });
}

test("the error body: the client's ErrorBody and the document's Error", (t) => {
  const data = components.Error!.properties.data;
  t.deepEqual(Object.keys(data.properties).sort(), ['code', 'details', 'message']);
  t.deepEqual(Object.keys(propertiesOf(data.properties.details.items)).sort(), [...types.get('ErrorDetail')!.fields.keys()].sort());
  t.deepEqual(data.required.sort(), ['code', 'message']);
});

/** Bodies the client sends: its type, and the operation whose (joi-derived) body takes it. */
const BODIES: Array<[string, string, string, string?]> = [
  ['UpdateUserBody', 'patch', '/api/1.0/user'],
  ['CreateRoomBody', 'post', '/api/1.0/room'],
  ['UpdateRoomBody', 'patch', '/api/1.0/room/{slug}'],
  ['UpdateParticipantBody', 'patch', '/api/1.0/room/{slug}/participant/{participant}'],
  ['CreateRollBody', 'post', '/api/1.0/roll'],
  ['DieInput', 'post', '/api/1.0/roll', 'dice'],
  // PATCH /roll/{uuid} takes these and dice to add (DieInput) alike; PATCH /roll only these.
  ['DieChange', 'patch', '/api/1.0/roll', 'rolls.dice'],
  ['RoomDiceChange', 'patch', '/api/1.0/room/{slug}/roll', 'dice'],
  ['CreateShareRequestBody', 'post', '/api/1.0/share-request'],
  ['UpdateShareRequestBody', 'patch', '/api/1.0/share-request/{id}'],
  ['CreateWebhookBody', 'post', '/api/1.0/webhook'],
  ['UpdateWebhookBody', 'patch', '/api/1.0/webhook/{id}'],
];

for (const [name, method, path, field] of BODIES) {
  test(`${name}: every field the client sends is one the server takes (${method.toUpperCase()} ${path}${field ? ` ${field}` : ''}); every field it requires, the client requires`, (t) => {
    let body: Json = paths[path]![method]!.requestBody.content['application/json'].schema;
    for (const part of field ? field.split('.') : []) {
      body = propertiesOf(body)[part];
      body = body.items ?? body;
    }
    const client = types.get(name)!;
    const taken = Object.keys(propertiesOf(body));
    t.deepEqual(
      [...client.fields.keys()].filter((f) => !taken.includes(f)),
      [],
      'fields the server would drop',
    );
    t.deepEqual(
      requiredOf(body).filter((f) => client.fields.get(f)?.optional !== false),
      [],
      'required fields the client may leave out',
    );
  });
}

test("realtime: the client's events are the document's, namespace by namespace and way by way", (t) => {
  const realtime = doc['x-realtime'].namespaces as Record<string, { server: Json; client: Json }>;
  const names = (i: string) => [...events.get(i)!.fields.keys()].sort();
  t.deepEqual(names('RoomServerEvents'), Object.keys(realtime['/room/{slug}']!.server).sort());
  t.deepEqual(names('RoomClientEvents'), Object.keys(realtime['/room/{slug}']!.client).sort());
  t.deepEqual(names('UserServerEvents'), Object.keys(realtime['/user']!.server).sort());
  t.deepEqual(names('UserClientEvents'), Object.keys(realtime['/user']!.client).sort());
  t.deepEqual([...events.get('MoveInput')!.fields.keys()].sort(), Object.keys(components.MoveInput!.properties).sort());
  t.deepEqual([...events.get('MoveData')!.fields.keys()].sort(), Object.keys(components.Move!.properties).sort());
});

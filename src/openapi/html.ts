import type { OpenApiDocument } from './document';

/**
 * The /docs page: the OpenAPI document as one readable HTML page, generated on the server, with no
 * script and nothing from a CDN. Everything taken from the document is escaped.
 */

type Json = Record<string, unknown>;

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The few Markdown forms the document uses: paragraphs, tables, **bold**, `code`. Escapes first. */
export function markdown(text: string): string {
  const inline = (s: string) =>
    escapeHtml(s)
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  const out: string[] = [];
  for (const block of text.split(/\n{2,}/)) {
    const lines = block.split('\n');
    if (lines.every((l) => l.trim().startsWith('|'))) {
      const rows = lines
        .filter((l) => !/^\|[\s|:-]+\|$/.test(l.trim()))
        .map((l) =>
          l
            .trim()
            .slice(1, -1)
            .split('|')
            .map((c) => c.trim()),
        );
      const [head, ...body] = rows;
      out.push(
        `<table><thead><tr>${head!.map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>` +
          body.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('') +
          '</tbody></table>',
      );
    } else {
      out.push(`<p>${lines.map(inline).join('<br>')}</p>`);
    }
  }
  return out.join('\n');
}

const refName = (ref: string) => ref.replace('#/components/schemas/', '');
const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^\w-]/g, '_')}`;

/** A short type label: `string`, `Room`, `array of Roll`, `string | null`. */
function typeLabel(schema: Json | undefined): string {
  if (!schema) return 'any';
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return `<a href="#${anchor('schema', name)}">${escapeHtml(name)}</a>`;
  }
  if ('const' in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(' | ');
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives) return alternatives.map(typeLabel).join(' | ');
  const type = schema.type;
  if (Array.isArray(type)) return type.map((t) => escapeHtml(t)).join(' | ');
  if (type === 'array') return `array of ${typeLabel(schema.items as Json | undefined)}`;
  if (type === 'object' && schema.properties)
    return `<code>{${Object.keys(schema.properties as Json)
      .map(escapeHtml)
      .join(', ')}}</code>`;
  if (typeof type === 'string') return escapeHtml(type) + (schema.format ? ` <small>(${escapeHtml(schema.format)})</small>` : '');
  return 'any';
}

function constraints(schema: Json): string {
  const parts: string[] = [];
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'default']) {
    if (key in schema) parts.push(`${key}: <code>${escapeHtml(typeof schema[key] === 'string' ? schema[key] : JSON.stringify(schema[key]))}</code>`);
  }
  const examples = schema.examples as unknown[] | undefined;
  if (examples?.length) parts.push(`example: <code>${escapeHtml(JSON.stringify(examples[0]))}</code>`);
  return parts.length ? ` <span class="constraints">${parts.join(', ')}</span>` : '';
}

/** The fields of an object schema as a nested list (inline objects are expanded, refs are linked). */
function fields(schema: Json | undefined, depth = 0): string {
  if (!schema || depth > 4) return '';
  if (schema.type === 'array' && schema.items && !(schema.items as Json).$ref) return fields(schema.items as Json, depth);
  const properties = schema.properties as Record<string, Json> | undefined;
  if (!properties) return '';
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const items = Object.entries(properties).map(([name, prop]) => {
    const description = typeof prop.description === 'string' ? ` — ${markdownInline(prop.description)}` : '';
    const nested = prop.$ref ? '' : fields(prop, depth + 1);
    return `<li><code class="field">${escapeHtml(name)}</code>${required.has(name) ? '<span class="req">required</span>' : ''} <span class="type">${typeLabel(prop)}</span>${constraints(prop)}${description}${nested}</li>`;
  });
  return `<ul class="fields">${items.join('')}</ul>`;
}

function markdownInline(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function schemaBlock(schema: Json | undefined): string {
  if (!schema) return '';
  const label = schema.type === 'object' && schema.properties ? 'object' : typeLabel(schema);
  return `<div class="schema"><span class="type">${label}</span>${schema.$ref ? '' : fields(schema)}</div>`;
}

function resolveResponse(doc: OpenApiDocument, response: Json): Json {
  if (typeof response.$ref === 'string') {
    const name = response.$ref.replace('#/components/responses/', '');
    return (doc.components.responses as Record<string, Json>)[name] ?? {};
  }
  return response;
}

function operationHtml(doc: OpenApiDocument, method: string, path: string, op: Json): string {
  const id = anchor('op', String(op.operationId));
  const params = (op.parameters as Json[] | undefined) ?? [];
  const secured = Array.isArray(op.security) && op.security.length > 0;
  const paramRows = params
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${typeLabel(p.schema as Json)}${constraints(p.schema as Json)}</td><td>${p.required ? 'yes' : ''}</td><td>${markdownInline(String(p.description ?? ''))}</td></tr>`,
    )
    .join('');
  const body = op.requestBody as Json | undefined;
  const bodyContent = body?.content as Record<string, Json> | undefined;
  const bodyHtml = bodyContent
    ? Object.entries(bodyContent)
        .map(
          ([type, c]) =>
            `<h4>Request body <small>${escapeHtml(type)}${body!.required ? '' : ', optional'}</small></h4>${schemaBlock(c.schema as Json)}` +
            (c.example !== undefined ? `<p class="example-title">Example</p><pre>${escapeHtml(JSON.stringify(c.example, null, 2))}</pre>` : ''),
        )
        .join('')
    : '';
  const responses = Object.entries(op.responses as Record<string, Json>)
    .map(([status, raw]) => {
      const r = resolveResponse(doc, raw);
      const content = r.content as Record<string, Json> | undefined;
      const json = content?.['application/json'];
      const types = content ? Object.keys(content).filter((t) => t !== 'application/json') : [];
      const success = /^[23]/.test(status);
      return `<li class="${success ? 'ok' : 'err'}"><span class="status">${escapeHtml(status)}</span> ${markdownInline(String(r.description ?? ''))}${
        types.length ? ` <small>(${types.map(escapeHtml).join(', ')})</small>` : ''
      }${success && json ? schemaBlock(json.schema as Json) : ''}</li>`;
    })
    .join('');
  return `<section class="op" id="${id}">
<h3><span class="method ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code>${secured ? '' : ' <span class="nokey">no key</span>'}</h3>
<p class="summary">${markdownInline(String(op.summary ?? ''))}</p>
${op.description ? `<p>${markdownInline(String(op.description))}</p>` : ''}
${paramRows ? `<table class="params"><thead><tr><th>parameter</th><th>in</th><th>type</th><th>required</th><th></th></tr></thead><tbody>${paramRows}</tbody></table>` : ''}
${bodyHtml}
<h4>Responses</h4><ul class="responses">${responses}</ul>
</section>`;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function renderDocsPage(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  const nav = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, Json>)[method];
      if (!op) continue;
      const tag = (op.tags as string[])[0] ?? 'Other';
      if (!byTag.has(tag)) {
        byTag.set(tag, []);
        nav.set(tag, []);
      }
      byTag.get(tag)!.push(operationHtml(doc, method, path, op));
      nav
        .get(tag)!
        .push(
          `<li><a href="#${anchor('op', String(op.operationId))}"><span class="method ${method}">${method.toUpperCase()}</span> ${escapeHtml(path.replace('/api/1.0', ''))}</a></li>`,
        );
    }
  }
  const tagInfo = new Map(doc.tags.map((t) => [t.name, t.description]));
  const sections = [...byTag]
    .map(([tag, ops]) => `<h2 id="${anchor('tag', tag)}">${escapeHtml(tag)}</h2><p class="tagdesc">${escapeHtml(tagInfo.get(tag) ?? '')}</p>${ops.join('\n')}`)
    .join('\n');
  const schemaSections = Object.entries(doc.components.schemas as Record<string, Json>)
    .map(
      ([name, schema]) =>
        `<section class="schema-def" id="${anchor('schema', name)}"><h3>${escapeHtml(name)}</h3>${schema.description ? `<p>${markdownInline(String(schema.description))}</p>` : ''}${schemaBlock({ ...schema, description: undefined })}</section>`,
    )
    .join('\n');
  const realtime = doc['x-realtime'];
  const realtimeHtml = Object.entries(realtime.namespaces)
    .map(
      ([ns, events]) =>
        `<h3><code>${escapeHtml(ns)}</code></h3><table class="params"><thead><tr><th>event</th><th>direction</th><th>data</th></tr></thead><tbody>${[
          ...Object.entries(events.server).map(
            ([name, s]) => `<tr><td><code>${escapeHtml(name)}</code></td><td>server → client</td><td>${typeLabel(s as Json)}</td></tr>`,
          ),
          ...Object.entries(events.client).map(
            ([name, s]) => `<tr><td><code>${escapeHtml(name)}</code></td><td>client → server</td><td>${typeLabel(s as Json)}</td></tr>`,
          ),
        ].join('')}</tbody></table>`,
    )
    .join('');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} — reference</title>
<style>${STYLE}</style>
</head>
<body>
<nav>
<p class="brand">${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></p>
<p><a href="/api/1.0/openapi.json">openapi.json</a></p>
${[...nav].map(([tag, items]) => `<h4><a href="#${anchor('tag', tag)}">${escapeHtml(tag)}</a></h4><ul>${items.join('')}</ul>`).join('')}
<h4><a href="#realtime">Realtime</a></h4>
<h4><a href="#schemas">Schemas</a></h4>
</nav>
<main>
<h1>${escapeHtml(doc.info.title)}</h1>
${markdown(doc.info.description)}
${sections}
<h2 id="realtime">Realtime</h2>
${markdown(realtime.description)}
${realtimeHtml}
<h2 id="schemas">Schemas</h2>
${schemaSections}
</main>
</body>
</html>`;
}

const STYLE = `
:root { --fg: #1d1f24; --muted: #5d6470; --line: #e3e6eb; --bg: #fff; --accent: #4363d8; --code: #f4f5f8; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8ec; --muted: #a0a6b0; --line: #2c3038; --bg: #15171b; --accent: #8aa2ff; --code: #22252b; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); display: flex; }
nav { position: sticky; top: 0; height: 100vh; overflow-y: auto; width: 290px; flex: none; padding: 16px; border-right: 1px solid var(--line); font-size: 13px; }
nav ul { list-style: none; padding: 0; margin: 0 0 8px; }
nav li a { display: block; padding: 2px 0; color: var(--fg); text-decoration: none; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
nav h4 { margin: 14px 0 4px; } nav h4 a { color: var(--fg); text-decoration: none; }
.brand { font-weight: 700; font-size: 16px; margin-top: 0; }
main { padding: 24px 40px; max-width: 980px; min-width: 0; }
a { color: var(--accent); }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.92em; background: var(--code); padding: 1px 4px; border-radius: 4px; }
table { border-collapse: collapse; margin: 8px 0 16px; width: 100%; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
h2 { margin-top: 48px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
.op { border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px 8px; margin: 16px 0; }
.op h3 { font-size: 16px; }
.method { display: inline-block; min-width: 58px; text-align: center; font-size: 11px; font-weight: 700; color: #fff; border-radius: 4px; padding: 2px 6px; background: #6b7280; }
.method.get { background: #2f855a; } .method.post { background: #2b6cb0; } .method.patch { background: #b7791f; } .method.delete { background: #c53030; } .method.put { background: #6b46c1; }
nav .method { min-width: 46px; font-size: 9px; padding: 1px 4px; }
.nokey { font-size: 11px; border: 1px solid var(--muted); color: var(--muted); border-radius: 4px; padding: 0 5px; }
.summary { font-weight: 600; }
.fields { list-style: none; padding-left: 16px; border-left: 2px solid var(--line); margin: 4px 0; }
.fields li { margin: 3px 0; }
.field { font-weight: 600; }
.req { font-size: 10px; color: #c53030; margin-left: 6px; text-transform: uppercase; }
.type { color: var(--muted); }
.constraints { color: var(--muted); font-size: 12px; }
.responses { list-style: none; padding: 0; }
.responses .status { display: inline-block; min-width: 64px; font-weight: 700; }
.responses .ok .status { color: #2f855a; } .responses .err .status { color: #c53030; }
.schema { margin: 4px 0 8px; }
.schema-def { border-top: 1px solid var(--line); }
.tagdesc { color: var(--muted); }
pre { background: var(--code); padding: 8px 12px; border-radius: 6px; overflow-x: auto; font-size: 13px; }
.example-title { margin: 8px 0 0; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
`;

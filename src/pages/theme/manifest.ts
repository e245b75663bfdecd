/**
 * A theme version's manifest in words (the theme page): who made it and when, its label colours, each
 * die with its notation, shape, size, model and faces (text or the face's image), the shader uniforms
 * and what the dice editor makes of each (docs/spec.md §2.3.3), the textures, the sounds (each with a
 * button that plays it), the shaders and the files. Browser module (Preact); every value is text, file
 * URLs only become <img> and Audio sources.
 */
import { h, type ComponentChildren } from 'preact';
import type { DieEntry, Face, Theme } from '../../client/types';

const dieOf = (entry: string | DieEntry): Required<DieEntry> =>
  typeof entry === 'string' ? { id: entry, type: entry, notation: entry } : { id: entry.id, type: entry.type, notation: entry.notation ?? entry.id };

/** The file name behind a URL the theme's JSON gives (its `assets` map read backwards). */
function fileName(theme: Theme, url: unknown): string {
  if (typeof url !== 'string') return '';
  for (const [name, at] of Object.entries(theme.assets ?? {})) if (at === url) return name;
  return decodeURIComponent(url.split('?')[0]!.split('/').pop() ?? url);
}

/** A file field: a URL, or die id to URL. */
function filesIn(theme: Theme, src: unknown): string {
  if (typeof src === 'string') return fileName(theme, src);
  if (src && typeof src === 'object')
    return Object.entries(src)
      .map(([die, url]) => `${die}: ${fileName(theme, url)}`)
      .join(', ');
  return '';
}

function Swatch(props: { colour: string }) {
  return h('span', { class: 'swatch inline', 'aria-hidden': 'true', ref: (el: HTMLElement | null) => el && (el.style.background = props.colour) });
}

function colourText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `(${value.join(', ')}), linear`;
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => `${k} ${String(v)}`)
      .join(', ');
  return String(value);
}

function uniformWords(name: string, u: Record<string, unknown>): string {
  const type = String(u.type);
  const value =
    type === 'color'
      ? colourText(u.value)
      : Array.isArray(u.value)
        ? `(${u.value.join(', ')})`
        : u.value && typeof u.value === 'object'
          ? colourText(u.value)
          : String(u.value);
  if (type === 'color') return `${name}: colour ${value}; a colour picker in the dice editor`;
  if (type === 'f') {
    const ranged = typeof u.min === 'number' && typeof u.max === 'number';
    return `${name}: number ${value}${ranged ? `, from ${String(u.min)} to ${String(u.max)}; a slider in the dice editor` : '; not in the dice editor (no range)'}`;
  }
  return `${name}: ${type} ${value}; not shown in the dice editor`;
}

const SOUND_EVENTS: Record<string, (value: unknown) => string> = {
  'die.collide': () => 'when dice hit something',
  'die.value': (value) => `when a die comes to rest on ${String(value)}`,
  'roll.loading': (value) => (value === undefined ? 'while a roll is on its way' : `while a roll of ${String(value)} dice is on its way`),
};

function FaceItem(props: { theme: Theme; face: Face; index: number }) {
  const { face } = props;
  if (face && typeof face === 'object' && typeof face.src === 'string') {
    const name = fileName(props.theme, face.src);
    return h('li', null, h('img', { src: face.src, alt: `face ${props.index + 1}: image ${name}`, width: 32, height: 32 }));
  }
  return h('li', null, String(face));
}

function play(url: string) {
  void new Audio(url).play().catch(() => undefined);
}

function Row(props: { term: string; children?: ComponentChildren }) {
  return [h('dt', null, props.term), h('dd', null, props.children)];
}

export function ManifestWords(props: { theme: Theme }) {
  const { theme } = props;
  const dice = theme.available_dice.map(dieOf);
  const uniforms = Object.entries(theme.uniforms ?? {});
  const sounds = theme.sounds ?? [];
  const textures = theme.textures ?? [];
  const files = Object.keys(theme.assets ?? {});
  return h('dl', { class: 'manifest', id: 'manifest' }, [
    Row({ term: 'Name', children: theme.name }),
    Row({ term: 'Description', children: theme.description ? h('span', { class: 'description' }, theme.description) : 'none' }),
    Row({ term: 'Id and version', children: [h('code', null, theme.id), ` version ${theme.version}`] }),
    Row({ term: 'Made by', children: theme.user ? `${theme.user.name} (@${theme.user.username})` : 'the server' }),
    Row({ term: 'Published', children: new Date(theme.created_at).toLocaleString() }),
    Row({
      term: 'Label',
      children: [
        h(Swatch, { colour: theme.label.color }),
        `text ${theme.label.color}, `,
        h(Swatch, { colour: theme.label.background_color }),
        `background ${theme.label.background_color}`,
      ],
    }),
    Row({
      term: 'Dice',
      children: h(
        'ul',
        { class: 'plain', id: 'dice' },
        dice.map((die) => {
          const faces = theme.values?.[die.id];
          const size = theme.sizes?.[die.id];
          const mesh = theme.meshes?.[die.id];
          return h('li', { key: die.id, 'data-die': die.id }, [
            h('strong', null, die.notation),
            ` ${die.type === die.notation ? '' : `(a ${die.type}) `}`,
            size !== undefined ? `size ${size} ` : '',
            mesh ? `model ${fileName(theme, mesh)} ` : '',
            faces?.length
              ? h(
                  'ol',
                  { class: 'faces', 'aria-label': `Faces of ${die.notation}` },
                  faces.map((face, i) => h(FaceItem, { key: i, theme, face, index: i })),
                )
              : h('span', { class: 'hint' }, 'numbered faces'),
          ]);
        }),
      ),
    }),
    Row({
      term: 'Uniforms',
      children: uniforms.length
        ? h(
            'ul',
            { class: 'plain' },
            uniforms.map(([name, u]) =>
              h('li', { key: name }, [u.type === 'color' && typeof u.value === 'string' ? h(Swatch, { colour: u.value }) : null, uniformWords(name, u)]),
            ),
          )
        : 'none',
    }),
    Row({
      term: 'Textures',
      children: textures.length
        ? h(
            'ul',
            { class: 'plain' },
            textures.map((t, i) => h('li', { key: i }, `${String(t.binding)}: ${filesIn(theme, t.src)}`)),
          )
        : 'none',
    }),
    Row({
      term: 'Sounds',
      children: sounds.length
        ? h(
            'ul',
            { class: 'plain' },
            sounds.map((s, i) => {
              const when = SOUND_EVENTS[String(s.on)]?.(s.value) ?? String(s.on);
              const urls = typeof s.src === 'string' ? [s.src] : s.src && typeof s.src === 'object' ? Object.values(s.src as Record<string, string>) : [];
              return h('li', { key: i, class: 'row' }, [
                `${filesIn(theme, s.src)}, ${when}`,
                urls[0]
                  ? h(
                      'button',
                      { type: 'button', class: 'secondary small', 'aria-label': `Play ${fileName(theme, urls[0])}`, onClick: () => play(urls[0]!) },
                      'Play',
                    )
                  : null,
              ]);
            }),
          )
        : 'none',
    }),
    Row({
      term: 'Shaders',
      children:
        theme.frag_shader || theme.vert_shader
          ? [
              theme.frag_shader ? `a fragment shader (${theme.frag_shader.split('\n').length} lines)` : '',
              theme.frag_shader && theme.vert_shader ? ' and ' : '',
              theme.vert_shader ? `a vertex shader (${theme.vert_shader.split('\n').length} lines)` : '',
            ]
          : 'the built-in look',
    }),
    Row({
      term: 'Files',
      children: files.length
        ? h(
            'ul',
            { class: 'plain' },
            files.map((f) => h('li', { key: f }, f)),
          )
        : 'none',
    }),
  ]);
}

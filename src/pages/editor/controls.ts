/**
 * The editor's controls (Preact), each changing the draft at once (the preview follows, livePreview.ts):
 * the uniforms by docs/spec.md 2.3.3 (a `color` uniform a colour picker, an `f` uniform with both `min`
 * and `max` a slider named after it that starts at its `value`, nothing for `vec3`/`vec4` nor for other
 * floats), each die's size and faces (text or an image), the sounds with a play button, the shaders with
 * what the compiler says of them, line by line.
 */
import { h } from 'preact';
import { useRef } from 'preact/hooks';
import type { Face } from '../../client/types';
import { cssColor } from '../../board/dice/materials';
import { shapeOf } from '../../board/dice/shapes';
import type { ShaderDiagnostic } from '../../board/dice/shaders';
import { dieOf, sliderValue, uniformControl, type Draft } from './draft';
import { Field, Problems, Section } from './ui';

export interface ControlProps {
  draft: Draft;
  set: (patch: Partial<Draft>) => void;
  /** file name -> URL to show or play it (published files, and files picked here) */
  display: Map<string, string>;
  /** a file picked here, under its name */
  addFile: (file: File, use: 'face' | 'sound') => Promise<string>;
  problems: (key: string) => string[] | undefined;
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');

export function UniformControls(props: ControlProps) {
  const { draft, set } = props;
  const shown = Object.entries(draft.uniforms).filter(([, u]) => uniformControl(u));
  const setValue = (name: string, value: unknown) => set({ uniforms: { ...draft.uniforms, [name]: { ...draft.uniforms[name], value } } });
  return h(Section, { id: 'uniforms', title: 'Colours and sliders' }, [
    shown.length ? null : h('p', { class: 'muted' }, 'This theme has no colour uniform and no float uniform with a minimum and a maximum.'),
    h(
      'div',
      { class: 'controls' },
      shown.map(([name, u]) => {
        const id = `uniform-${slug(name)}`;
        if (uniformControl(u) === 'color') {
          return h(Field, {
            key: name,
            id,
            label: name,
            type: 'color',
            value: cssColor(u.value) ?? '#ffffff',
            onInput: (v) => setValue(name, v),
            problems: props.problems(`uniforms.${name}`),
          });
        }
        const min = u.min as number,
          max = u.max as number,
          value = sliderValue(u);
        return h('div', { key: name, class: 'field' }, [
          h('label', { for: id }, name),
          h('div', { class: 'slider' }, [
            h('input', {
              id,
              type: 'range',
              min,
              max,
              step: (max - min) / 100,
              value,
              onInput: (e: Event) => setValue(name, Number((e.target as HTMLInputElement).value)),
            }),
            h('output', { for: id }, String(Math.round(value * 1000) / 1000)),
          ]),
          h(Problems, { id: `${id}-problems`, messages: props.problems(`uniforms.${name}`) }),
        ]);
      }),
    ),
  ]);
}

export function LabelControls(props: ControlProps) {
  const { draft, set } = props;
  return h(Section, { id: 'look', title: 'Name and label' }, [
    h(Field, { id: 'theme-name', label: 'Name', value: draft.name, onInput: (name) => set({ name }), problems: props.problems('name') }),
    h(Field, {
      id: 'theme-description',
      label: 'Description',
      value: draft.description,
      onInput: (description) => set({ description }),
      problems: props.problems('description'),
      multiline: true,
    }),
    h('div', { class: 'row' }, [
      h(Field, {
        id: 'label-color',
        label: 'Label text colour',
        type: 'color',
        value: cssColor(draft.label.color) ?? '#ffffff',
        onInput: (color) => set({ label: { ...draft.label, color } }),
        problems: props.problems('label.color'),
      }),
      h(Field, {
        id: 'label-background',
        label: 'Label background colour',
        type: 'color',
        value: cssColor(draft.label.background_color) ?? '#000000',
        onInput: (background_color) => set({ label: { ...draft.label, background_color } }),
        problems: props.problems('label.background_color'),
      }),
    ]),
  ]);
}

function DieControls(props: ControlProps & { entry: string | { id: string; type: string; notation?: string } }) {
  const { draft, set } = props;
  const die = dieOf(props.entry);
  const count = shapeOf(die.type).valued;
  const faces: Face[] = draft.values[die.id] ?? [];
  const picker = useRef<HTMLInputElement>(null);
  const target = useRef(0);
  const setFace = (i: number, face: Face) => {
    const next = Array.from({ length: Math.max(count, faces.length) }, (_, j) => faces[j] ?? String(die.type === 'd10x' ? (j === 0 ? '00' : j * 10) : j + 1));
    next[i] = face;
    set({ values: { ...draft.values, [die.id]: next.slice(0, count) } });
  };
  const id = `die-${slug(die.id)}`;
  const size = draft.sizes[die.id] ?? 1;
  return h('details', { class: 'die' }, [
    h('summary', null, [h('strong', null, die.notation), ` (${die.type}, ${count} faces)`]),
    h('div', { class: 'field' }, [
      h('label', { for: `${id}-size` }, `Size of ${die.id}`),
      h('div', { class: 'slider' }, [
        h('input', {
          id: `${id}-size`,
          type: 'range',
          min: 0.5,
          max: 2,
          step: 0.05,
          value: size,
          onInput: (e: Event) => set({ sizes: { ...draft.sizes, [die.id]: Number((e.target as HTMLInputElement).value) } }),
        }),
        h('output', { for: `${id}-size` }, String(size)),
      ]),
      h(Problems, { id: `${id}-size-problems`, messages: props.problems(`sizes.${die.id}`) }),
    ]),
    h('input', {
      ref: picker,
      type: 'file',
      accept: 'image/png,image/jpeg,image/webp',
      class: 'hidden-file',
      tabIndex: -1,
      'aria-hidden': 'true',
      onChange: async (e: Event) => {
        const input = e.target as HTMLInputElement;
        const file = input.files?.[0];
        input.value = '';
        if (file) setFace(target.current, { src: await props.addFile(file, 'face') });
      },
    }),
    h(
      'ol',
      { class: 'faces' },
      Array.from({ length: count }, (_, i) => {
        const face = faces[i];
        const src = face && typeof face === 'object' ? face.src : null;
        return h('li', { key: i }, [
          src
            ? h('span', { class: 'face-image' }, [
                h('img', { src: props.display.get(src) ?? '', alt: `${die.id} face ${i + 1}: ${src}`, width: 32, height: 32 }),
                h('span', null, src),
              ])
            : h('input', {
                'aria-label': `${die.id} face ${i + 1}`,
                value: face === undefined ? '' : String(face),
                placeholder: String(i + 1),
                maxLength: 64,
                onInput: (e: Event) => setFace(i, (e.target as HTMLInputElement).value),
              }),
          src
            ? h('button', { type: 'button', class: 'secondary small', onClick: () => setFace(i, String(i + 1)) }, `Text for face ${i + 1}`)
            : h(
                'button',
                {
                  type: 'button',
                  class: 'secondary small',
                  'aria-label': `Image for ${die.id} face ${i + 1}`,
                  onClick: () => ((target.current = i), picker.current?.click()),
                },
                'Image…',
              ),
        ]);
      }),
    ),
    h(Problems, { id: `${id}-problems`, messages: props.problems(`values.${die.id}`) }),
  ]);
}

export function DiceControls(props: ControlProps) {
  return h(
    Section,
    { id: 'dice', title: 'Dice: sizes and faces' },
    props.draft.available_dice.map((entry) => h(DieControls, { ...props, key: dieOf(entry).id, entry })),
  );
}

const EVENTS = ['die.collide', 'die.value', 'roll.loading'];

/** The file a sound plays (a die's own when `src` is per die: the first). */
function soundFile(src: unknown): string | null {
  if (typeof src === 'string') return src;
  if (src && typeof src === 'object') return Object.values(src).find((v): v is string => typeof v === 'string') ?? null;
  return null;
}

export function SoundControls(props: ControlProps) {
  const { draft, set } = props;
  const setSound = (i: number, patch: Record<string, unknown> | null) =>
    set({ sounds: patch ? draft.sounds.map((s, j) => (j === i ? { ...s, ...patch } : s)) : draft.sounds.filter((_, j) => j !== i) });
  return h(Section, { id: 'sounds', title: 'Sounds' }, [
    draft.sounds.length ? null : h('p', { class: 'muted' }, 'No sounds yet.'),
    h(
      'ul',
      { class: 'sounds' },
      draft.sounds.map((sound, i) => {
        const file = soundFile(sound.src);
        const url = file ? props.display.get(file) : undefined;
        return h('li', { key: i }, [
          h('span', { class: 'file-name' }, file ?? '?'),
          h('span', { class: 'plays-on' }, [
            h('label', { for: `sound-${i}-on` }, 'Plays on'),
            h(
              'select',
              {
                id: `sound-${i}-on`,
                value: String(sound.on ?? 'die.collide'),
                onChange: (e: Event) => setSound(i, { on: (e.target as HTMLSelectElement).value }),
              },
              EVENTS.map((ev) => h('option', { value: ev }, ev)),
            ),
          ]),
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              disabled: !url,
              'aria-label': `Play ${file ?? 'sound'}`,
              onClick: () => url && void new Audio(url).play().catch(() => undefined),
            },
            '▶ Play',
          ),
          h('button', { type: 'button', class: 'secondary small', 'aria-label': `Remove ${file ?? 'sound'}`, onClick: () => setSound(i, null) }, 'Remove'),
          h(Problems, { id: `sound-${i}-problems`, messages: props.problems(`sounds[${i}]`) }),
        ]);
      }),
    ),
    h('div', { class: 'field' }, [
      h('label', { for: 'add-sound' }, 'Add a sound (wav, mp3)'),
      h('input', {
        id: 'add-sound',
        type: 'file',
        accept: '.wav,.mp3,audio/wav,audio/mpeg',
        onChange: async (e: Event) => {
          const input = e.target as HTMLInputElement;
          const file = input.files?.[0];
          input.value = '';
          if (file) set({ sounds: [...draft.sounds, { src: await props.addFile(file, 'sound'), on: 'die.collide' }] });
        },
      }),
    ]),
  ]);
}

function Diagnostics(props: { id: string; list: ShaderDiagnostic[] }) {
  if (!props.list.length) return null;
  return h(
    'ul',
    { class: 'problems diagnostics', id: props.id, 'aria-live': 'polite' },
    props.list.map((d) => h('li', { class: d.severity }, `${d.severity === 'warning' ? 'Warning' : 'Error'}${d.line ? `, line ${d.line}` : ''}: ${d.message}`)),
  );
}

export function ShaderControls(props: ControlProps & { diagnostics: ShaderDiagnostic[] }) {
  const { draft, set } = props;
  const of = (stage: string) => props.diagnostics.filter((d) => d.stage === stage || (stage === 'fragment' && d.stage === 'program'));
  const area = (id: string, label: string, field: 'frag_shader' | 'vert_shader', stage: string) => {
    const list = of(stage);
    return h('div', { class: 'field' }, [
      h('label', { for: id }, label),
      h('textarea', {
        id,
        class: 'code',
        rows: 10,
        spellcheck: false,
        value: draft[field],
        onInput: (e: Event) => set({ [field]: (e.target as HTMLTextAreaElement).value }),
        ...(list.some((d) => d.severity === 'error') ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-diagnostics` } : {}),
      }),
      h(Diagnostics, { id: `${id}-diagnostics`, list }),
      h(Problems, { id: `${id}-problems`, messages: props.problems(field) }),
    ]);
  };
  return h(Section, { id: 'shaders', title: 'Shaders' }, [
    h(
      'p',
      { class: 'hint' },
      "GLSL for three.js ShaderMaterial: the theme's uniforms and textures by name, and u_faceMap, u_time, u_lightDirection, opacity (docs/board.md). Empty: the built-in look.",
    ),
    area('frag-shader', 'Fragment shader', 'frag_shader', 'fragment'),
    area('vert-shader', 'Vertex shader', 'vert_shader', 'vertex'),
  ]);
}

/**
 * `/dice/new`: a new theme from a form (or a manifest file that fills it) and files dropped in (or
 * chosen: the file input is there for keyboards). Published with `POST /api/1.0/theme` as any client
 * does (publish.ts), with the upload's progress; a refusal's `details` are said beside the field or the
 * file each names (draft.ts groupDetails), the rest listed above the button.
 */
import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiError } from '../../client/rest';
import { ensurePageKey } from '../client/pageKey';
import { draftFromManifest, emptyDraft, groupDetails, manifestOf, STANDARD_DICE, UNIFORM_TYPES, type Draft, type Uniform } from './draft';
import { publishTheme } from './publish';
import { Field, invalid, kib, OtherProblems, Problems, Progress, Section } from './ui';

interface UniformRow {
  name: string;
  type: string;
  value: string;
  min: string;
  max: string;
}

const MANIFEST_KEYS = ['values', 'textures', 'sounds', 'meshes', 'sizes', 'physics', 'extend', 'manifest'];

function rowsOf(uniforms: Record<string, Uniform>): UniformRow[] {
  return Object.entries(uniforms).map(([name, u]) => ({
    name,
    type: String(u.type ?? 'f'),
    value:
      typeof u.value === 'string' || typeof u.value === 'number'
        ? String(u.value)
        : Array.isArray(u.value)
          ? u.value.join(', ')
          : JSON.stringify(u.value ?? ''),
    min: u.min === undefined ? '' : String(u.min),
    max: u.max === undefined ? '' : String(u.max),
  }));
}

/** A row as the manifest writes the uniform (numbers as numbers; what is not one goes as typed, for the server to say so). */
function uniformOf(row: UniformRow): Uniform {
  const num = (s: string) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);
  const out: Uniform = { type: row.type };
  if (row.type === 'f') out.value = num(row.value);
  else if (row.type === 'color') out.value = row.value || '#ffffff';
  else out.value = row.value.split(',').map((s) => num(s.trim()));
  if (row.type === 'f' && row.min.trim() !== '') out.min = num(row.min);
  if (row.type === 'f' && row.max.trim() !== '') out.max = num(row.max);
  return out;
}

const dieIds = (d: Draft) => d.available_dice.map((e) => (typeof e === 'string' ? e : e.id));

export function UploadPage() {
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [rows, setRows] = useState<UniformRow[]>([]);
  const [files, setFiles] = useState<File[]>([]);
  const [problems, setProblems] = useState<Map<string, string[]>>(new Map());
  const [failure, setFailure] = useState('');
  const [manifestNote, setManifestNote] = useState('');
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [done, setDone] = useState<{ id: string; version: string; name: string } | null>(null);
  const [dragging, setDragging] = useState(false);

  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const p = (key: string) => problems.get(key);
  const fields = [
    'id',
    'name',
    'description',
    'version',
    'label.color',
    'label.background_color',
    'available_dice',
    'frag_shader',
    'vert_shader',
    ...MANIFEST_KEYS,
    ...rows.map((r) => `uniforms.${r.name}`),
    'uniforms',
    ...files.map((_, i) => `assets[${i}]`),
    'assets',
  ];

  const addFiles = (list: FileList | null) => {
    if (!list?.length) return;
    const added = Array.from(list);
    // A file of the same name replaces the one before (the manifest names files by name).
    setFiles((before) => [...before.filter((f) => !added.some((a) => a.name === f.name)), ...added]);
    setProblems((m) => new Map([...m].filter(([k]) => !k.startsWith('assets'))));
  };

  const readManifest = async (file: File | undefined) => {
    if (!file) return;
    try {
      const d = draftFromManifest(await file.text());
      setDraft(d);
      setRows(rowsOf(d.uniforms));
      setManifestNote(`The form now holds ${file.name}; what you change below is what is uploaded.`);
      setProblems((m) => new Map([...m].filter(([k]) => k !== 'manifest')));
    } catch (err) {
      setManifestNote('');
      setProblems((m) => new Map(m).set('manifest', [(err as Error).message]));
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setFailure('');
    setProblems(new Map());
    const uniforms = Object.fromEntries(rows.filter((r) => r.name.trim()).map((r) => [r.name.trim(), uniformOf(r)]));
    const manifest = manifestOf({ ...draft, uniforms });
    setProgress({ sent: 0, total: files.reduce((n, f) => n + f.size, 0) });
    try {
      const key = await ensurePageKey();
      const theme = await publishTheme(
        key,
        { manifest, frag_shader: draft.frag_shader, vert_shader: draft.vert_shader, assets: files.map((f) => ({ name: f.name, data: f })) },
        (sent, total) => setProgress({ sent, total }),
      );
      setDone({ id: theme.id, version: theme.version, name: theme.name });
    } catch (err) {
      const e = err as ApiError;
      const grouped = groupDetails(e.details ?? [], fields);
      setProblems(grouped);
      setFailure(e.details?.length ? 'The theme was not published: see what to change beside each field.' : e.message);
      // The first field with a problem gets the focus (its problem is read out with it).
      requestAnimationFrame(() => (document.querySelector('[aria-invalid="true"]') as HTMLElement | null)?.focus());
    } finally {
      setProgress(null);
    }
  };

  if (done) {
    return h(Section, { id: 'done', title: 'Theme published' }, [
      h('p', { class: 'message', role: 'status' }, `${done.name} (${done.id}) version ${done.version} is published and in your dice box.`),
      h('p', { class: 'links' }, [
        h('a', { href: `/dice/${encodeURIComponent(done.id)}/edit` }, 'Open it in the editor'),
        h('a', { href: `/dice/${encodeURIComponent(done.id)}` }, 'Its theme page'),
      ]),
    ]);
  }

  const dice = new Set(dieIds(draft));
  const toggleDie = (die: string) =>
    set({ available_dice: dice.has(die) ? draft.available_dice.filter((e) => (typeof e === 'string' ? e : e.id) !== die) : [...draft.available_dice, die] });
  const setRow = (i: number, patch: Partial<UniformRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  return h('form', { class: 'stack', onSubmit: submit, noValidate: true }, [
    h(Section, { id: 'manifest', title: 'Manifest' }, [
      h('div', { class: 'field' }, [
        h('label', { for: 'manifest-file' }, 'Manifest file (optional)'),
        h('p', { class: 'hint' }, 'A theme manifest (JSON) fills the form; its faces, textures, sounds and models name the files you add below.'),
        h('input', {
          id: 'manifest-file',
          type: 'file',
          accept: '.json,application/json',
          onChange: (e: Event) => void readManifest((e.target as HTMLInputElement).files?.[0]),
          ...invalid(
            'manifest-file',
            MANIFEST_KEYS.flatMap((k) => p(k) ?? []),
          ),
        }),
        manifestNote ? h('p', { class: 'hint', role: 'status' }, manifestNote) : null,
        h(Problems, { id: 'manifest-file-problems', messages: MANIFEST_KEYS.flatMap((k) => p(k) ?? []) }),
      ]),
      h(Field, {
        id: 'theme-id',
        label: 'Theme id',
        hint: 'Lower-case letters, digits, "-" and "_": the theme\'s address.',
        value: draft.id,
        onInput: (id) => set({ id }),
        problems: p('id'),
        attrs: { autocomplete: 'off', spellcheck: false },
      }),
      h(Field, { id: 'theme-name', label: 'Name', value: draft.name, onInput: (name) => set({ name }), problems: p('name') }),
      h(Field, {
        id: 'theme-description',
        label: 'Description',
        value: draft.description,
        onInput: (description) => set({ description }),
        problems: p('description'),
        multiline: true,
      }),
      h(Field, {
        id: 'theme-version',
        label: 'Version',
        hint: 'SemVer, such as 1.0.0.',
        value: draft.version,
        onInput: (version) => set({ version }),
        problems: p('version'),
      }),
      h('div', { class: 'row' }, [
        h(Field, {
          id: 'label-color',
          label: 'Label text colour',
          type: 'color',
          value: draft.label.color || '#ffffff',
          onInput: (color) => set({ label: { ...draft.label, color } }),
          problems: p('label.color'),
        }),
        h(Field, {
          id: 'label-background',
          label: 'Label background colour',
          type: 'color',
          value: draft.label.background_color || '#000000',
          onInput: (background_color) => set({ label: { ...draft.label, background_color } }),
          problems: p('label.background_color'),
        }),
      ]),
      h('fieldset', { class: 'choice dice-choice', ...invalid('available-dice', p('available_dice')) }, [
        h('legend', null, 'Dice'),
        ...[...new Set([...STANDARD_DICE, ...dice])].map((die) =>
          h('label', { key: die }, [h('input', { type: 'checkbox', checked: dice.has(die), onChange: () => toggleDie(die) }), h('span', null, die)]),
        ),
        h(Problems, { id: 'available-dice-problems', messages: p('available_dice') }),
      ]),
    ]),
    h(Section, { id: 'uniforms', title: 'Uniforms' }, [
      h(
        'p',
        { class: 'hint' },
        'A colour uniform gets a colour picker in the editor, a float with both a minimum and a maximum a slider; vec3 and vec4 are for shaders only. "diffuse" and "number" colour the dice and their numbers.',
      ),
      h(
        'ol',
        { class: 'uniform-rows' },
        rows.map((row, i) => {
          const id = `uniform-${i}`;
          const problemsHere = p(`uniforms.${row.name.trim()}`);
          return h('li', { key: i, class: `uniform-row${problemsHere?.length ? ' has-problems' : ''}` }, [
            h('div', { class: 'field' }, [
              h('label', { for: `${id}-name` }, `Uniform ${i + 1} name`),
              h('input', {
                id: `${id}-name`,
                value: row.name,
                autocomplete: 'off',
                spellcheck: false,
                onInput: (e: Event) => setRow(i, { name: (e.target as HTMLInputElement).value }),
                ...invalid(id, problemsHere),
              }),
            ]),
            h('div', { class: 'field' }, [
              h('label', { for: `${id}-type` }, `Uniform ${i + 1} type`),
              h(
                'select',
                {
                  id: `${id}-type`,
                  value: row.type,
                  onChange: (e: Event) =>
                    setRow(i, { type: (e.target as HTMLSelectElement).value, value: (e.target as HTMLSelectElement).value === 'color' ? '#ffffff' : '' }),
                },
                UNIFORM_TYPES.map((t) => h('option', { value: t }, t)),
              ),
            ]),
            h('div', { class: 'field' }, [
              h('label', { for: `${id}-value` }, `Uniform ${i + 1} value`),
              h('input', {
                id: `${id}-value`,
                type: row.type === 'color' ? 'color' : 'text',
                value: row.value,
                inputMode: row.type === 'f' ? 'decimal' : undefined,
                placeholder: row.type.startsWith('vec') ? '0, 0, 0' : undefined,
                onInput: (e: Event) => setRow(i, { value: (e.target as HTMLInputElement).value }),
              }),
            ]),
            row.type === 'f'
              ? h('div', { class: 'field' }, [
                  h('label', { for: `${id}-min` }, `Uniform ${i + 1} minimum`),
                  h('input', {
                    id: `${id}-min`,
                    inputMode: 'decimal',
                    value: row.min,
                    onInput: (e: Event) => setRow(i, { min: (e.target as HTMLInputElement).value }),
                  }),
                ])
              : null,
            row.type === 'f'
              ? h('div', { class: 'field' }, [
                  h('label', { for: `${id}-max` }, `Uniform ${i + 1} maximum`),
                  h('input', {
                    id: `${id}-max`,
                    inputMode: 'decimal',
                    value: row.max,
                    onInput: (e: Event) => setRow(i, { max: (e.target as HTMLInputElement).value }),
                  }),
                ])
              : null,
            h('button', { type: 'button', class: 'secondary', onClick: () => setRows((rs) => rs.filter((_, j) => j !== i)) }, `Remove uniform ${i + 1}`),
            h(Problems, { id: `${id}-problems`, messages: problemsHere }),
          ]);
        }),
      ),
      h(
        'button',
        { type: 'button', class: 'secondary', onClick: () => setRows((rs) => [...rs, { name: '', type: 'f', value: '', min: '', max: '' }]) },
        'Add a uniform',
      ),
      h(Problems, { id: 'uniforms-problems', messages: p('uniforms') }),
    ]),
    h(Section, { id: 'files', title: 'Files' }, [
      h(
        'div',
        {
          class: `drop${dragging ? ' dragging' : ''}`,
          onDragOver: (e: DragEvent) => (e.preventDefault(), setDragging(true)),
          onDragLeave: () => setDragging(false),
          onDrop: (e: DragEvent) => {
            e.preventDefault();
            setDragging(false);
            addFiles(e.dataTransfer?.files ?? null);
          },
        },
        [
          h('p', null, 'Drop images, sounds (wav, mp3) and models (fbx, glb, gltf) here, or:'),
          h('label', { for: 'asset-files' }, 'Choose files'),
          h('input', {
            id: 'asset-files',
            type: 'file',
            multiple: true,
            onChange: (e: Event) => (addFiles((e.target as HTMLInputElement).files), ((e.target as HTMLInputElement).value = '')),
          }),
        ],
      ),
      files.length
        ? h(
            'ul',
            { class: 'files' },
            files.map((file, i) => {
              const here = p(`assets[${i}]`);
              return h('li', { key: file.name, class: here?.length ? 'has-problems' : '' }, [
                h('span', { class: 'file-name' }, file.name),
                h('span', { class: 'muted' }, kib(file.size)),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary',
                    'aria-label': `Remove ${file.name}`,
                    onClick: () => (
                      setFiles((fs) => fs.filter((f) => f !== file)),
                      setProblems((m) => new Map([...m].filter(([k]) => !k.startsWith('assets'))))
                    ),
                  },
                  'Remove',
                ),
                h(Problems, { id: `asset-${i}-problems`, messages: here }),
              ]);
            }),
          )
        : h('p', { class: 'muted' }, 'No files yet.'),
      h(Problems, { id: 'assets-problems', messages: p('assets') }),
    ]),
    h('details', { class: 'card', open: Boolean(draft.frag_shader || draft.vert_shader || p('frag_shader') || p('vert_shader')) }, [
      h('summary', null, 'Custom shaders (optional)'),
      h(Field, {
        id: 'frag-shader',
        label: 'Fragment shader',
        value: draft.frag_shader,
        onInput: (frag_shader) => set({ frag_shader }),
        problems: p('frag_shader'),
        multiline: true,
        attrs: { rows: 8, spellcheck: false, class: 'code' },
      }),
      h(Field, {
        id: 'vert-shader',
        label: 'Vertex shader',
        value: draft.vert_shader,
        onInput: (vert_shader) => set({ vert_shader }),
        problems: p('vert_shader'),
        multiline: true,
        attrs: { rows: 8, spellcheck: false, class: 'code' },
      }),
    ]),
    failure ? h(OtherProblems, { message: failure, messages: p('') }) : null,
    progress ? h(Progress, progress) : null,
    h('button', { type: 'submit', disabled: Boolean(progress) }, progress ? 'Uploading…' : 'Upload theme'),
  ]);
}

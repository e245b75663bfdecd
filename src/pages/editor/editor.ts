/**
 * `/dice/{themeId}/edit`: the editor. It reads the theme's latest version with the page key, shows its
 * controls (controls.ts) beside the live 3D preview (livePreview.ts), and **Save version** publishes
 * the draft as a new version through `POST /api/1.0/theme` (publish.ts), the next patch version by
 * default. Someone else's theme is saved as a theme of one's own (a new id) with `extend` naming it, so
 * that its files come from it; one's own theme is published again whole, its files with it (the API
 * wants every file a version names, and a theme cannot extend itself).
 */
import { h } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { RestClient, type ApiError } from '../../client/rest';
import type { Theme, User } from '../../client/types';
import { ensurePageKey } from '../client/pageKey';
import { DiceControls, LabelControls, ShaderControls, SoundControls, UniformControls } from './controls';
import { draftOf, fileNames, groupDetails, manifestOf, nextPatch, type Draft } from './draft';
import { LivePreview, type PreviewState } from './livePreview';
import { fileOf, publishTheme } from './publish';
import { Field, OtherProblems, Progress, Section, session } from './ui';

interface Loaded {
  theme: Theme;
  me: User;
  /** the page key (not `key`: Preact keeps that prop for itself) */
  apiKey: string;
}

/** The page's test hooks: what the preview shows and has said. */
type EditorHooks = { dice(): unknown[]; state(): PreviewState | null };

export function EditorPage(props: { themeId: string }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    (async () => {
      const key = await ensurePageKey();
      const client = new RestClient({ baseUrl: '', apiKey: key });
      const [theme, me] = await Promise.all([client.getTheme(props.themeId), client.me()]);
      setLoaded({ theme, me, apiKey: key });
    })().catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
  }, [props.themeId]);
  if (error) return h('p', { class: 'message error', role: 'alert' }, error);
  if (!loaded) return h('p', { class: 'muted', role: 'status' }, 'Loading the theme…');
  return h(Editor, loaded);
}

/** A new id for one's own copy of someone else's theme. */
function copyId(id: string, user: User): string {
  const who =
    (user.username ?? user.name ?? 'mine')
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'mine';
  return `${id}-${who}`.slice(0, 100).replace(/[-_]+$/, '');
}

function Editor(props: Loaded) {
  const first = useMemo(() => draftOf(props.theme), [props.theme]);
  const [draft, setDraft] = useState<Draft>(first.draft);
  const [urls, setUrls] = useState(first.urls);
  const [picked] = useState(() => new Map<string, { file: File; url: string }>());
  const [owned, setOwned] = useState(props.theme.user?.uuid === props.me.uuid);
  const [base, setBase] = useState(props.theme.id);
  const [newId, setNewId] = useState(() => copyId(props.theme.id, props.me));
  const [version, setVersion] = useState(nextPatch(props.theme.version));
  const [problems, setProblems] = useState<Map<string, string[]>>(new Map());
  const [failure, setFailure] = useState('');
  const [saved, setSaved] = useState('');
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [preview, setPreview] = useState<PreviewState | null>(null);
  const [, rerender] = useState(0);
  const canvas = useRef<HTMLCanvasElement>(null);
  const live = useRef<LivePreview | null>(null);
  const [webgl, setWebgl] = useState(true);

  useEffect(() => {
    const shown = LivePreview.create(canvas.current!, (state) => {
      setPreview(state);
      document.body.dataset.previewDrawn = String(state.drawn);
    });
    (window as unknown as { __editor: EditorHooks }).__editor = { dice: () => shown?.snapshot() ?? [], state: () => previewState.current };
    if (!shown) return setWebgl(false);
    live.current = shown;
    void shown.load(first.draft, first.urls, props.theme.user).then(() => shown.update(draftRef.current));
  }, []);
  const previewState = useRef<PreviewState | null>(null);
  previewState.current = preview;
  const draftRef = useRef(draft);
  draftRef.current = draft;
  useEffect(() => live.current?.update(draft), [draft]);

  const set = (patch: Partial<Draft>) => {
    setSaved('');
    setDraft((d) => ({ ...d, ...patch }));
  };
  const display = new Map([...urls, ...[...picked].map(([name, p]) => [name, p.url] as const)]);
  const addFile = async (file: File, use: 'face' | 'sound') => {
    const name = file.name;
    const before = picked.get(name);
    if (before) URL.revokeObjectURL(before.url);
    picked.set(name, { file, url: URL.createObjectURL(file) });
    if (use === 'face') await live.current?.addImage(name, file, 'face');
    rerender((n) => n + 1);
    return name;
  };

  const fields = [
    'id',
    'name',
    'description',
    'version',
    'label.color',
    'label.background_color',
    'frag_shader',
    'vert_shader',
    ...Object.keys(draft.uniforms).map((n) => `uniforms.${n}`),
    ...draft.available_dice.flatMap((e) => {
      const id = typeof e === 'string' ? e : e.id;
      return [`values.${id}`, `sizes.${id}`];
    }),
    ...draft.sounds.map((_, i) => `sounds[${i}]`),
  ];

  const save = async (event: Event) => {
    event.preventDefault();
    setFailure('');
    setSaved('');
    setProblems(new Map());
    const id = owned ? draft.id : newId.trim();
    const manifest = manifestOf({ ...draft, id, version: version.trim() }, owned ? undefined : base);
    // One's own theme: every file again. A copy: only the files picked here (the others come from the base).
    const names = fileNames(draft).filter((name) => owned || picked.has(name));
    setProgress({ sent: 0, total: 1 });
    try {
      const assets = await Promise.all(names.map(async (name) => ({ name, data: picked.get(name)?.file ?? (await fileOf(urls.get(name) ?? name, name)) })));
      const theme = await publishTheme(props.apiKey, { manifest, frag_shader: draft.frag_shader, vert_shader: draft.vert_shader, assets }, (sent, total) =>
        setProgress({ sent, total }),
      );
      const next = draftOf(theme);
      setUrls(next.urls);
      setDraft((d) => ({ ...d, id: theme.id, version: theme.version }));
      setVersion(nextPatch(theme.version));
      if (!owned) {
        setOwned(true);
        setBase(theme.id);
        history.replaceState(null, '', `/dice/${encodeURIComponent(theme.id)}/edit`);
      }
      setSaved(`Version ${theme.version} of ${theme.id} is published.`);
    } catch (err) {
      const e = err as ApiError;
      const uploaded = names;
      // `assets[i]` is the i-th file sent: said with its name.
      const details = (e.details ?? []).map((d) => {
        const m = /^assets\[(\d+)\]/.exec(d.path);
        return m && uploaded[Number(m[1])] ? { path: '', message: `${uploaded[Number(m[1])]}: ${d.message}` } : d;
      });
      setProblems(groupDetails(details, fields));
      setFailure(details.length ? 'The version was not published: see what to change beside each field.' : (e.message ?? String(err)));
      requestAnimationFrame(() => (document.querySelector('[aria-invalid="true"]') as HTMLElement | null)?.focus());
    } finally {
      setProgress(null);
    }
  };

  const p = (key: string) => problems.get(key);
  const controls = { draft, set, display, addFile, problems: p };
  const title = owned ? `Editing ${draft.name}` : `A copy of ${draft.name}`;
  return h('div', { class: 'editor' }, [
    h('div', { class: 'editor-head' }, [
      h('h1', null, title),
      h(
        'p',
        { class: 'lead' },
        owned
          ? ['Theme ', h('code', null, draft.id), `, version ${draft.version}. `, h('a', { href: `/dice/${encodeURIComponent(draft.id)}` }, 'Theme page')]
          : [
              `${props.theme.user?.name ?? 'Someone'}'s theme `,
              h('code', null, base),
              ': saving makes a theme of your own based on it (its files come from it).',
            ],
      ),
    ]),
    h('div', { class: 'editor-grid' }, [
      h('section', { class: 'card preview', 'aria-labelledby': 'preview-title' }, [
        h('h2', { id: 'preview-title' }, 'Preview'),
        h('canvas', { ref: canvas, id: 'preview-canvas', role: 'img', 'aria-label': `3D preview of ${draft.name}'s dice`, hidden: !webgl }),
        webgl ? null : h('p', { class: 'muted' }, 'No WebGL in this browser: the preview cannot be drawn, the controls still work.'),
        preview?.note ? h('p', { class: 'message error', role: 'alert', id: 'preview-note' }, preview.note) : null,
      ]),
      h('div', { class: 'editor-controls' }, [
        h(UniformControls, controls),
        h(LabelControls, controls),
        h(DiceControls, controls),
        h(SoundControls, controls),
        h(ShaderControls, { ...controls, diagnostics: preview?.diagnostics ?? [] }),
        h(Section, { id: 'save', title: 'Save' }, [
          h('form', { class: 'stack', onSubmit: save, noValidate: true }, [
            owned
              ? null
              : h(Field, {
                  id: 'theme-id',
                  label: 'Theme id of your copy',
                  value: newId,
                  onInput: setNewId,
                  problems: p('id'),
                  attrs: { autocomplete: 'off', spellcheck: false },
                }),
            h(Field, {
              id: 'theme-version',
              label: 'Version',
              hint: 'The next patch version unless you change it (SemVer).',
              value: version,
              onInput: setVersion,
              problems: p('version'),
            }),
            failure ? h(OtherProblems, { message: failure, messages: p('') }) : null,
            progress ? h(Progress, progress) : null,
            saved ? h('p', { class: 'message ok', role: 'status' }, saved) : null,
            h('button', { type: 'submit', disabled: Boolean(progress) || !session }, progress ? 'Saving…' : 'Save version'),
          ]),
        ]),
      ]),
    ]),
  ]);
}

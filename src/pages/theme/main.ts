/**
 * A theme's page (GET /dice/{themeId}, dddice's address of a theme) in the browser: every version
 * (GET /theme/{id}/version), the one chosen drawn in 3D with its dice resting face up (the board's
 * preview renderer), its manifest in words, and for the theme's owner: a new version (the editor,
 * /dice/{id}/edit), share links, delete. With a key (signed in, or a guest's) the API shows any theme;
 * without one only a public theme (the keyless preview), and the page says how to see the others.
 *
 * The same script shows the dice pages' 404 and 410 pages: <body data-refusal-title> (routes.ts).
 */
import { h, render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, RestClient } from '../../client/rest';
import type { Theme, User } from '../../client/types';
import { pageKey } from '../client/pageKey';
import { livePreview, reportThemeProblems, type LivePreview } from '../client/dicePreview';
import { Label } from '../diceBox/card';
import { Layout, refusalOf, signInHref } from '../diceBox/layout';
import { Confirm, Feedback, useAction } from '../room/ui';
import { ManifestWords } from './manifest';
import { ShareLinks } from './shareLinks';

const data = document.body.dataset;
const themeId = data.theme ?? '';
const editHref = `/dice/${encodeURIComponent(themeId)}/edit`;

type Phase =
  | { kind: 'loading' }
  | { kind: 'hidden'; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'deleted'; name: string }
  | { kind: 'ready'; versions: Theme[]; client: RestClient | null; me: User | null; more: boolean };

/** The chosen version in 3D; the canvas stays, each version is laid on it in turn. */
function Stage(props: { theme: Theme }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const preview = useRef<LivePreview | null | undefined>(undefined);
  const [state, setState] = useState<'drawing' | 'ready' | 'nogl'>('drawing');
  useEffect(() => {
    if (preview.current === undefined) {
      preview.current = livePreview(canvas.current!);
      (window as unknown as { __themePage: unknown }).__themePage = { dice: () => preview.current?.snapshot() ?? [] };
    }
    const shelf = preview.current;
    if (!shelf) return setState('nogl');
    setState('drawing');
    let live = true;
    shelf.show(props.theme).then(
      () => live && setState('ready'),
      () => live && setState('ready'),
    );
    return () => {
      live = false;
    };
  }, [props.theme]);
  return h('div', null, [
    h('canvas', {
      ref: canvas,
      class: 'stage',
      id: 'stage',
      'data-state': state,
      'data-version': props.theme.version,
      role: 'img',
      'aria-label': `The dice of ${props.theme.name}, version ${props.theme.version}, resting face up`,
      hidden: state === 'nogl',
    }),
    state === 'nogl' ? h('p', { class: 'hint' }, 'No WebGL in this browser: the dice are described below.') : null,
  ]);
}

function Versions(props: { versions: Theme[]; shown: Theme; more: boolean; onShow: (theme: Theme) => void }) {
  return h('section', { class: 'card', 'aria-labelledby': 'versions-title' }, [
    h('h2', { id: 'versions-title' }, props.versions.length === 1 ? 'Its one version' : `Its ${props.versions.length} versions, newest first`),
    h(
      'ul',
      { class: 'versions', id: 'versions' },
      props.versions.map((v) =>
        h('li', { key: v.version, 'aria-current': v.version === props.shown.version ? 'true' : undefined, 'data-version': v.version }, [
          `${v.version}`,
          h('span', { class: 'hint' }, new Date(v.created_at).toLocaleDateString()),
          v.version === props.shown.version
            ? h('span', { class: 'hint' }, '(shown)')
            : h('button', { type: 'button', class: 'secondary small', onClick: () => props.onShow(v) }, `Show version ${v.version}`),
        ]),
      ),
    ),
    props.more ? h('p', { class: 'hint' }, 'Older versions are in the API (GET /api/1.0/theme/{id}/version).') : null,
  ]);
}

function OwnerActions(props: { theme: Theme; client: RestClient; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const del = useAction();
  return h('section', { class: 'card', 'aria-labelledby': 'owner-title' }, [
    h('h2', { id: 'owner-title' }, 'Your theme'),
    h('div', { class: 'row' }, [
      h('a', { href: editHref, class: 'button-link' }, 'New version'),
      h('button', { type: 'button', class: 'secondary', onClick: () => setConfirming(true) }, 'Delete theme'),
    ]),
    confirming
      ? h(
          Confirm,
          {
            id: 'delete-confirm',
            question: `Delete "${props.theme.name}" and all its versions?`,
            confirm: 'Delete theme',
            danger: true,
            busy: del.busy,
            onCancel: () => setConfirming(false),
            onConfirm: () =>
              void del.run(async () => {
                await props.client.deleteTheme(props.theme.id);
                props.onDeleted();
              }),
          },
          h('p', { class: 'hint' }, 'It leaves every dice box and its share links stop working. This cannot be undone.'),
        )
      : null,
    h(Feedback, { id: 'delete-feedback', action: del }),
  ]);
}

function ThemeView(props: { phase: Extract<Phase, { kind: 'ready' }>; onDeleted: (name: string) => void }) {
  const { versions, client, me, more } = props.phase;
  const [shown, setShown] = useState(versions[0]!);
  const [problems, setProblems] = useState<string[]>([]);
  useEffect(() => reportThemeProblems((message) => setProblems((seen) => (seen.includes(message) ? seen : [...seen, message]))), []);
  const latest = versions[0]!;
  const owner = Boolean(me && latest.user && latest.user.uuid === me.uuid);
  return h(Layout, { title: latest.name, wide: true }, [
    h('p', { class: 'row' }, [
      h(Label, { theme: latest }),
      h('span', { class: 'hint' }, [`A dice theme by ${latest.user ? latest.user.username : 'the server'}. Latest version ${latest.version}.`]),
    ]),
    problems.map((p) => h('p', { key: p, class: 'warning', role: 'status' }, p)),
    h('section', { class: 'card', 'aria-labelledby': 'shown-title' }, [
      h('h2', { id: 'shown-title' }, `Version ${shown.version}`),
      h(Stage, { theme: shown }),
      h(ManifestWords, { theme: shown }),
    ]),
    h(Versions, { versions, shown, more, onShow: setShown }),
    owner && client ? h(OwnerActions, { theme: latest, client, onDeleted: () => props.onDeleted(latest.name) }) : null,
    owner && client ? h(ShareLinks, { theme: latest, client }) : null,
    !client
      ? h('p', { class: 'hint' }, ['Only the latest version shows without signing in. ', h('a', { href: signInHref() }, 'Sign in'), ' to see every version.'])
      : null,
  ]);
}

/** A share link's code in the address (`?share=`), which opens a theme's keyless preview. */
const shareCode = new URLSearchParams(location.search).get('share');

/**
 * The keyless preview (docs/api/themes.md, "Preview"): a public theme, or any theme with a live share
 * link's code; null when neither.
 */
async function keylessTheme(): Promise<Theme | null> {
  const query = shareCode ? `?share=${encodeURIComponent(shareCode.slice(0, 64))}` : '';
  const res = await fetch(`/api/1.0/theme/${encodeURIComponent(themeId)}/preview${query}`, { headers: { accept: 'application/json' } });
  if (res.status === 404 && !shareCode) return null;
  const body = (await res.json().catch(() => null)) as { data?: Theme & { message?: string } } | null;
  if (!res.ok || !body?.data) throw new Error(body?.data?.message ?? `The theme could not be loaded (HTTP ${res.status}).`);
  return body.data;
}

function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  const load = useCallback(async () => {
    try {
      const key = await pageKey();
      if (!key) {
        const theme = await keylessTheme();
        return setPhase(
          theme
            ? { kind: 'ready', versions: [theme], client: null, me: null, more: false }
            : {
                kind: 'hidden',
                message: 'Only public themes show without signing in. Sign in to see this one, or open it from the share link its owner gave you.',
              },
        );
      }
      const client = new RestClient({ baseUrl: '', apiKey: key });
      const [me, versions] = await Promise.all([client.me(), client.listThemeVersions(themeId, { per_page: 100 })]);
      if (!versions.data.length) throw new ApiError(404, 'not_found', 'This theme has no version any more.');
      setPhase({ kind: 'ready', versions: versions.data, client, me, more: Boolean(versions.links.next) });
    } catch (err) {
      setPhase({ kind: 'refused', message: refusalOf(err) });
    }
  }, []);
  useEffect(() => void load(), [load]);

  useEffect(() => {
    if (phase.kind === 'ready') document.title = `${phase.versions[0]!.name} · Dice theme`;
  }, [phase]);

  switch (phase.kind) {
    case 'loading':
      return h(Layout, { title: themeId }, h('p', { role: 'status' }, 'Loading the theme\u2026'));
    case 'hidden':
      return h(Layout, { title: themeId }, [
        h('p', { class: 'message note', role: 'status' }, phase.message),
        h('p', null, h('a', { href: signInHref() }, 'Sign in')),
      ]);
    case 'refused':
      return h(Layout, { title: themeId }, h('p', { class: 'message error', role: 'alert' }, phase.message));
    case 'deleted':
      return h(Layout, { title: 'Theme deleted' }, [
        h('p', { role: 'status' }, `"${phase.name}" is deleted, with all its versions.`),
        h('p', null, h('a', { href: '/dice-box' }, 'Your dice box')),
      ]);
    case 'ready':
      return h(ThemeView, { phase, onDeleted: (name) => setPhase({ kind: 'deleted', name }) });
  }
}

const root = document.getElementById('app')!;
root.textContent = '';
if (data.refusalTitle) {
  document.body.dataset.state = 'error';
  render(
    h(Layout, { title: data.refusalTitle }, [
      h('p', { class: 'message', role: 'alert' }, data.refusalMessage ?? ''),
      h('p', null, h('a', { href: '/dice-box' }, 'Your dice box')),
    ]),
    root,
  );
} else {
  render(h(App, null), root);
}

/**
 * The dice box page (GET /dice-box) in the browser: the themes this browser's key may roll with
 * (GET /api/1.0/dice-box), each with a picture of its dice drawn by the board's renderer, a filter,
 * Upgrade (PATCH /dice-box/{id}) when the theme has a newer version than the box's, and Remove. The
 * user's socket (namespace /user) brings themes that arrive meanwhile (a share link accepted in
 * another tab, a version published): they show at once. Every value reaches the DOM as text.
 */
import { h, render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { connectUser } from '../../client/realtime';
import { RestClient } from '../../client/rest';
import type { Theme } from '../../client/types';
import { ensurePageKey, pageKey } from '../client/pageKey';
import { reportThemeProblems } from '../client/dicePreview';
import { ThemeCard } from './card';
import { Layout, refusalOf, session, signInHref } from './layout';

const guestsAllowed = document.body.dataset.guestsAllowed === 'true';
/** At most this many themes a page of the box (the API's largest page). */
const PER_PAGE = 100;
const FILTER_WAIT_MS = 250;

type Phase = { kind: 'loading' } | { kind: 'nokey' } | { kind: 'refused'; message: string } | { kind: 'ready'; client: RestClient };

/** The latest version of every theme the key sees (GET /theme: own, public and boxed themes), by id. */
async function latestVersions(client: RestClient): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let page = 1; page <= 10; page++) {
    const answer = await client.listThemes({ page, per_page: PER_PAGE });
    for (const theme of answer.data) out.set(theme.id, theme.version);
    if (!answer.links.next) break;
  }
  return out;
}

const matches = (theme: Theme, filter: string) => {
  const f = filter.trim().toLowerCase();
  return !f || theme.id.toLowerCase().includes(f) || theme.name.toLowerCase().includes(f);
};

function Box(props: { client: RestClient }) {
  const { client } = props;
  const [themes, setThemes] = useState<Theme[] | null>(null);
  const [total, setTotal] = useState(0);
  const [latest, setLatest] = useState<Map<string, string>>(new Map());
  const [filter, setFilter] = useState('');
  const [error, setError] = useState('');
  const [news, setNews] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const filterNow = useRef('');
  filterNow.current = filter;

  // The latest versions are read with the first list, after a reconnection and with each arrival, not per filter.
  const knowsLatest = useRef(false);
  const load = useCallback(
    async (text: string, again = false) => {
      try {
        const fresh = again || !knowsLatest.current;
        const [page, versions] = await Promise.all([
          client.listDiceBox({ filter: text.trim() || undefined, per_page: PER_PAGE }),
          fresh ? latestVersions(client) : null,
        ]);
        if (versions) {
          knowsLatest.current = true;
          setLatest(versions);
        }
        if (text !== filterNow.current) return;
        setThemes(page.data);
        setTotal(page.meta.total);
        setError('');
      } catch (err) {
        setError(refusalOf(err));
      }
    },
    [client],
  );

  useEffect(() => {
    const timer = setTimeout(() => void load(filter), filter ? FILTER_WAIT_MS : 0);
    return () => clearTimeout(timer);
  }, [filter, load]);

  useEffect(() => {
    reportThemeProblems((message) => setProblems((shown) => (shown.includes(message) ? shown : [...shown, message])));
    // Themes that land in the box while the page is open (an accepted share, a new version of one's own).
    const socket = connectUser('', client.apiKey ?? '');
    socket.on('DiceBoxCreateEvent', ({ data: theme }) => {
      setNews(`"${theme.name}" (version ${theme.version}) is now in your dice box.`);
      // Which versions are newest now (a new version of one's own theme is one of these events).
      latestVersions(client).then(setLatest, () => undefined);
      setThemes((shown) => {
        if (!shown) return shown;
        const others = shown.filter((t) => t.id !== theme.id);
        if (!matches(theme, filterNow.current)) return others;
        if (others.length === shown.length) setTotal((n) => n + 1);
        return [...others, theme].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      });
    });
    socket.on('DiceBoxDeleteEvent', ({ data }) => {
      setThemes((shown) => shown?.filter((t) => t.id !== data.id) ?? shown);
    });
    // Whether themes arriving now will show at once (<body data-live>, which tests wait for too).
    socket.on('connect', () => (document.body.dataset.live = 'online'));
    socket.on('disconnect', () => (document.body.dataset.live = 'offline'));
    // After a reconnection the box is read again: the socket has no replay (docs/realtime.md).
    socket.io.on('reconnect', () => void load(filterNow.current, true));
    return () => socket.disconnect();
  }, [client, load]);

  const replace = (theme: Theme) => setThemes((shown) => shown?.map((t) => (t.id === theme.id ? theme : t)) ?? shown);
  const removed = (id: string) => {
    setThemes((shown) => shown?.filter((t) => t.id !== id) ?? shown);
    setTotal((n) => n - 1);
  };

  return h('div', null, [
    h(
      'p',
      { class: 'hint' },
      'The dice themes you can roll with: your own, the ones shared with you, and the public ones. Each stays at its version until you upgrade it.',
    ),
    h('div', { class: 'field filter' }, [
      h('label', { for: 'filter' }, 'Filter themes'),
      h('input', {
        id: 'filter',
        type: 'search',
        value: filter,
        maxLength: 100,
        autocomplete: 'off',
        'aria-describedby': 'filter-hint',
        onInput: (e: Event) => setFilter((e.target as HTMLInputElement).value),
      }),
      h('p', { id: 'filter-hint', class: 'hint' }, 'Part of a theme\u2019s name or id.'),
    ]),
    h('p', { class: 'done', role: 'status' }, news),
    error ? h('p', { class: 'message error', role: 'alert' }, error) : null,
    problems.length
      ? h(
          'ul',
          { class: 'problems', 'aria-label': 'Themes drawn in the built-in look' },
          problems.map((p) => h('li', { key: p, class: 'warning' }, p)),
        )
      : null,
    themes === null
      ? h('p', { role: 'status' }, 'Loading your dice box\u2026')
      : themes.length === 0
        ? h('p', { id: 'empty' }, filter ? `No theme in your dice box matches "${filter}".` : 'Your dice box is empty.')
        : [
            h(
              'p',
              { class: 'hint', id: 'count' },
              total > themes.length
                ? `The first ${themes.length} of ${total} themes: filter to find the others.`
                : `${themes.length} theme${themes.length === 1 ? '' : 's'}`,
            ),
            h(
              'ul',
              { class: 'themes', id: 'themes' },
              themes.map((theme) =>
                h(ThemeCard, { key: `${theme.id}@${theme.version}`, theme, latest: latest.get(theme.id), client, onUpgraded: replace, onRemoved: removed }),
              ),
            ),
          ],
  ]);
}

function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  const start = useCallback(async (make: boolean) => {
    try {
      const key = make ? await ensurePageKey() : await pageKey();
      setPhase(key ? { kind: 'ready', client: new RestClient({ baseUrl: '', apiKey: key }) } : { kind: 'nokey' });
    } catch (err) {
      setPhase({ kind: 'refused', message: refusalOf(err) });
    }
  }, []);
  useEffect(() => void start(false), [start]);

  const title = 'My dice box';
  switch (phase.kind) {
    case 'loading':
      return h(Layout, { title }, h('p', { role: 'status' }, 'Loading\u2026'));
    case 'refused':
      return h(Layout, { title }, h('p', { class: 'message error', role: 'alert' }, phase.message));
    case 'nokey':
      return h(Layout, { title }, [
        h('p', null, 'This browser has no dice box yet.'),
        h('div', { class: 'row' }, [
          h('a', { href: signInHref() }, 'Sign in'),
          guestsAllowed && !session ? h('button', { type: 'button', onClick: () => void start(true) }, 'Play as a guest') : null,
        ]),
      ]);
    case 'ready':
      return h(Layout, { title, wide: true }, h(Box, { client: phase.client }));
  }
}

const root = document.getElementById('app')!;
root.textContent = '';
render(h(App, null), root);

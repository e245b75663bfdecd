/**
 * A share link's page (GET /share/{code}) in the browser: what the link offers (the server wrote it on
 * <body>: the theme's name, version, description, label colours and who shares it), a picture of its
 * dice (the keyless preview with the link's code), and **Add to my dice box**, which accepts the link
 * with the page key (POST /api/1.0/share-request/code/{code}/accept). Without a key the person signs in
 * first (and comes back here), or plays as a guest where the server allows guests. Every value is text.
 */
import { h, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, RestClient } from '../../client/rest';
import type { Theme } from '../../client/types';
import { ensurePageKey, pageKey } from '../client/pageKey';
import { livePreview } from '../client/dicePreview';
import { Label, themeHref } from '../diceBox/card';
import { Layout, refusalOf, session, signInHref } from '../diceBox/layout';

const data = document.body.dataset;
const code = data.code ?? '';
const offer = {
  id: data.theme ?? '',
  name: data.themeName ?? '',
  version: data.themeVersion ?? '',
  description: data.themeDescription ?? '',
  label: { color: data.labelColor ?? '', background_color: data.labelBackground ?? '' },
};
const sharer = data.sharerUsername ? `${data.sharerName ?? ''} (@${data.sharerUsername})` : 'Someone';
const guestsAllowed = data.guestsAllowed === 'true';
const previewHref = `/theme/${encodeURIComponent(offer.id)}/preview?share=${encodeURIComponent(code)}`;

type Phase =
  { kind: 'offer'; hasKey: boolean | null } | { kind: 'busy' } | { kind: 'added'; theme: Theme; already: boolean } | { kind: 'refused'; message: string };

/** The link's theme in 3D, from the keyless preview the link's code opens. */
function Dice() {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [note, setNote] = useState('');
  useEffect(() => {
    const shelf = livePreview(canvas.current!);
    if (!shelf) return setNote('No WebGL in this browser: the dice do not show here.');
    const client = new RestClient({ baseUrl: '' });
    client.getThemePreview(offer.id, { share: code }).then(
      (theme) => shelf.show(theme),
      (err) => setNote(refusalOf(err)),
    );
  }, []);
  return h('div', null, [
    h('canvas', { ref: canvas, class: 'stage', role: 'img', 'aria-label': `The dice of ${offer.name}` }),
    note ? h('p', { class: 'hint' }, note) : null,
  ]);
}

function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'offer', hasKey: null });
  useEffect(() => {
    pageKey().then(
      (key) => setPhase({ kind: 'offer', hasKey: Boolean(key) }),
      () => setPhase({ kind: 'offer', hasKey: false }),
    );
  }, []);

  const accept = async (makeGuest: boolean) => {
    setPhase({ kind: 'busy' });
    try {
      const key = makeGuest ? await ensurePageKey() : await pageKey();
      if (!key) return setPhase({ kind: 'offer', hasKey: false });
      const client = new RestClient({ baseUrl: '', apiKey: key });
      try {
        setPhase({ kind: 'added', theme: await client.acceptShareRequest(code), already: false });
      } catch (err) {
        // Already there (one's own theme, or accepted before): it is in the box, which is what was asked.
        if (err instanceof ApiError && err.code === 'already_in_dice_box')
          return setPhase({ kind: 'added', theme: await client.getDiceBoxTheme(offer.id), already: true });
        throw err;
      }
    } catch (err) {
      setPhase({ kind: 'refused', message: refusalOf(err) });
    }
  };

  const title = `${sharer} shared a dice theme with you`;
  const about = [
    h('p', { class: 'row' }, [h(Label, { theme: offer }), h('span', { class: 'hint' }, [h('code', null, offer.id), ` version ${offer.version}`])]),
    offer.description ? h('p', { class: 'description' }, offer.description) : null,
    data.expires ? h('p', { class: 'hint' }, `This link works until ${new Date(data.expires).toLocaleString()}.`) : null,
    h(Dice, null),
    h('p', null, h('a', { id: 'preview', href: previewHref }, 'See its dice on their own page')),
  ];

  let action;
  switch (phase.kind) {
    case 'offer':
      action =
        phase.hasKey === null
          ? h('p', { role: 'status' }, 'Loading\u2026')
          : phase.hasKey
            ? h('button', { type: 'button', onClick: () => void accept(false) }, 'Add to my dice box')
            : h('div', { class: 'stack' }, [
                h('p', null, 'Sign in to add it to your dice box; you come back here.'),
                h('div', { class: 'row' }, [
                  h('a', { class: 'button-link', href: signInHref() }, 'Sign in'),
                  guestsAllowed && !session ? h('button', { type: 'button', class: 'secondary', onClick: () => void accept(true) }, 'Add it as a guest') : null,
                ]),
              ]);
      break;
    case 'busy':
      action = h('p', { role: 'status' }, 'Adding it to your dice box\u2026');
      break;
    case 'added':
      action = h('div', { class: 'message done', role: 'status', id: 'added' }, [
        h(
          'p',
          null,
          phase.already
            ? `"${phase.theme.name}" is already in your dice box (version ${phase.theme.version}).`
            : `"${phase.theme.name}" (version ${phase.theme.version}) is now in your dice box.`,
        ),
        h('p', { class: 'row' }, [h('a', { href: '/dice-box' }, 'Open my dice box'), h('a', { href: themeHref(phase.theme.id) }, 'The theme\u2019s page')]),
      ]);
      break;
    case 'refused':
      action = h('p', { class: 'message error', role: 'alert' }, phase.message);
      break;
  }
  return h(Layout, { title }, [
    h('section', { class: 'card', 'aria-label': 'The theme' }, about),
    h('section', { class: 'card', 'aria-label': 'Add it' }, action),
  ]);
}

const root = document.getElementById('app')!;
root.textContent = '';
render(h(App, null), root);

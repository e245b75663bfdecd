/**
 * One theme of the dice box: a picture of its dice (the board's renderer), its name (a link to the
 * theme's page), id and version, and its actions: Upgrade to the latest version when there is a newer
 * one, Remove (after a confirmation). Browser module (Preact).
 */
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RestClient } from '../../client/rest';
import type { Theme } from '../../client/types';
import { previewPicture } from '../client/dicePreview';
import { Confirm, Feedback, useAction } from '../room/ui';

export function themeHref(id: string) {
  return `/dice/${encodeURIComponent(id)}`;
}

/** The theme's label: its name in its label colours (set through the DOM: the CSP allows no inline style). */
export function Label(props: { theme: Pick<Theme, 'name' | 'label'>; tag?: 'span' | 'h2' | 'p'; id?: string }) {
  return h(
    props.tag ?? 'span',
    {
      id: props.id,
      class: 'theme-label',
      ref: (el: HTMLElement | null) => {
        if (!el) return;
        el.style.color = props.theme.label?.color ?? '';
        el.style.backgroundColor = props.theme.label?.background_color ?? '';
      },
    },
    props.theme.name,
  );
}

function Picture(props: { theme: Theme }) {
  const [src, setSrc] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    previewPicture(props.theme).then(
      (url) => live && setSrc(url),
      () => live && setSrc(null),
    );
    return () => {
      live = false;
    };
  }, [props.theme]);
  const alt = `The dice of ${props.theme.name}, version ${props.theme.version}`;
  if (src) return h('img', { class: 'preview', src, alt, width: 360, height: 220 });
  return h('div', { class: 'preview empty', role: 'img', 'aria-label': alt }, src === null ? 'No picture: this browser has no WebGL.' : 'Drawing\u2026');
}

export function ThemeCard(props: {
  theme: Theme;
  latest: string | undefined;
  client: RestClient;
  onUpgraded: (theme: Theme) => void;
  onRemoved: (id: string) => void;
}) {
  const { theme, client } = props;
  const upgrade = useAction();
  const remove = useAction();
  const [confirming, setConfirming] = useState(false);
  const newer = props.latest !== undefined && props.latest !== theme.version ? props.latest : null;
  const base = `theme-${theme.id}`;
  return h('li', { class: 'theme card', 'data-theme': theme.id, 'data-version': theme.version, 'aria-labelledby': `${base}-name` }, [
    h(Picture, { theme }),
    h('h2', { id: `${base}-name` }, h('a', { href: themeHref(theme.id) }, theme.name)),
    h('p', { class: 'hint' }, [h('code', null, theme.id), ` \u00b7 version ${theme.version}`, theme.user ? ` \u00b7 by ${theme.user.username}` : null]),
    theme.description ? h('p', { class: 'description' }, theme.description) : null,
    newer ? h('p', { class: 'warning' }, `Version ${newer} is out.`) : null,
    h('div', { class: 'row' }, [
      newer
        ? h(
            'button',
            {
              type: 'button',
              disabled: upgrade.busy,
              'aria-label': `Upgrade to latest: ${theme.name} ${newer}`,
              'aria-describedby': `${base}-upgrade`,
              onClick: () => void upgrade.run(async () => props.onUpgraded(await client.upgradeDiceBoxTheme(theme.id))),
            },
            'Upgrade to latest',
          )
        : null,
      h(
        'button',
        { type: 'button', class: 'secondary', 'aria-label': `Remove ${theme.name}`, 'aria-describedby': `${base}-remove`, onClick: () => setConfirming(true) },
        'Remove',
      ),
    ]),
    confirming
      ? h(
          Confirm,
          {
            id: `${base}-confirm`,
            question: `Remove "${theme.name}" from your dice box?`,
            confirm: 'Remove',
            danger: true,
            busy: remove.busy,
            onCancel: () => setConfirming(false),
            onConfirm: () =>
              void remove
                .run(async () => {
                  await client.removeDiceBoxTheme(theme.id);
                  props.onRemoved(theme.id);
                })
                .then(() => setConfirming(false)),
          },
          h('p', { class: 'hint' }, 'You will no longer roll with it. The theme itself stays; a share link or a new version brings it back.'),
        )
      : null,
    h(Feedback, { id: `${base}-upgrade`, action: upgrade }),
    h(Feedback, { id: `${base}-remove`, action: remove }),
  ]);
}

/**
 * The share links of a theme, on its page, for its owner: create one (optionally with a number of uses
 * and an expiry), copy its link, see each link's uses and state, revoke it (POST, GET, DELETE
 * /api/1.0/share-request). Whoever opens a link lands on /share/{code} (src/pages/theme/accept.ts).
 * Browser module (Preact).
 */
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RestClient } from '../../client/rest';
import type { ShareRequest, Theme } from '../../client/types';
import { Confirm, Feedback, Field, useAction } from '../room/ui';
import { refusalOf } from '../diceBox/layout';

/** The owner's links of one theme (GET /share-request pages through all the owner's links, newest first). */
async function linksOf(client: RestClient, themeId: string): Promise<ShareRequest[]> {
  const out: ShareRequest[] = [];
  for (let page = 1; page <= 20; page++) {
    const answer = await client.listShareRequests({ page, per_page: 100 });
    out.push(...answer.data.filter((r) => r.theme?.id === themeId));
    if (!answer.links.next) break;
  }
  return out;
}

const STATUS: Record<ShareRequest['status'], string> = { active: 'works', expired: 'expired', used_up: 'used up' };

async function copy(text: string, field: HTMLInputElement | null): Promise<string> {
  try {
    await navigator.clipboard.writeText(text);
    return 'Link copied.';
  } catch {
    // No clipboard here (an insecure origin, a refusal): the link is selected for Ctrl+C.
    field?.focus();
    field?.select();
    return 'The link is selected: copy it with Ctrl+C (or \u2318C).';
  }
}

function LinkItem(props: { link: ShareRequest; client: RestClient; onRevoked: (id: string) => void }) {
  const { link } = props;
  const [field, setField] = useState<HTMLInputElement | null>(null);
  const [confirming, setConfirming] = useState(false);
  const copied = useAction();
  const revoke = useAction();
  const base = `link-${link.code}`;
  const uses = `${link.uses ?? 0} use${link.uses === 1 ? '' : 's'}${link.max_uses ? ` of ${link.max_uses}` : ''}`;
  return h('li', { 'data-code': link.code }, [
    h(
      'label',
      { for: `${base}-url` },
      `Share link (${STATUS[link.status]}, ${uses}${link.expires_at ? `, until ${new Date(link.expires_at).toLocaleString()}` : ''})`,
    ),
    h('input', { id: `${base}-url`, readOnly: true, value: link.url, ref: setField, onFocus: (e: Event) => (e.target as HTMLInputElement).select() }),
    h('div', { class: 'row' }, [
      h('button', { type: 'button', 'aria-describedby': `${base}-copy`, onClick: () => void copied.run(() => copy(link.url, field)) }, 'Copy link'),
      h('button', { type: 'button', class: 'secondary', onClick: () => setConfirming(true) }, 'Revoke'),
    ]),
    confirming
      ? h(
          Confirm,
          {
            id: `${base}-confirm`,
            question: 'Revoke this link?',
            confirm: 'Revoke link',
            danger: true,
            busy: revoke.busy,
            onCancel: () => setConfirming(false),
            onConfirm: () =>
              void revoke.run(async () => {
                await props.client.deleteShareRequest(link.id!);
                props.onRevoked(link.id!);
              }),
          },
          h('p', { class: 'hint' }, 'It stops working at once. Whoever already accepted it keeps the theme.'),
        )
      : null,
    h(Feedback, { id: `${base}-copy`, action: copied }),
    h(Feedback, { id: `${base}-revoke`, action: revoke }),
  ]);
}

export function ShareLinks(props: { theme: Theme; client: RestClient }) {
  const { theme, client } = props;
  const [links, setLinks] = useState<ShareRequest[] | null>(null);
  const [error, setError] = useState('');
  const [uses, setUses] = useState('');
  const [days, setDays] = useState('');
  const create = useAction();

  useEffect(() => {
    linksOf(client, theme.id).then(setLinks, (err) => setError(refusalOf(err)));
  }, [client, theme.id]);

  const submit = (e: Event) => {
    e.preventDefault();
    void create.run(async () => {
      const maxUses = uses.trim() ? Number(uses) : null;
      const expiresAt = days.trim() ? new Date(Date.now() + Number(days) * 86_400_000).toISOString() : null;
      const made = await client.createShareRequest({ theme: theme.id, max_uses: maxUses, expires_at: expiresAt });
      setLinks((shown) => [made, ...(shown ?? [])]);
      setUses('');
      setDays('');
      return 'A new link is ready: copy it below.';
    });
  };

  return h('section', { class: 'card', 'aria-labelledby': 'share-title' }, [
    h('h2', { id: 'share-title' }, 'Share links'),
    h('p', { class: 'hint' }, 'Whoever opens a share link can add this theme to their dice box, at its latest version.'),
    h('form', { class: 'inline', onSubmit: submit }, [
      h(Field, { id: 'share-uses', label: 'Uses allowed', type: 'number', value: uses, onInput: setUses, hint: 'Empty: any number.' }),
      h(Field, { id: 'share-days', label: 'Works for (days)', type: 'number', value: days, onInput: setDays, hint: 'Empty: until revoked.' }),
      h('button', { type: 'submit', disabled: create.busy, 'aria-describedby': 'share-create' }, 'Create a share link'),
    ]),
    h(Feedback, { id: 'share-create', action: create }),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    links === null
      ? h('p', { role: 'status' }, 'Loading the links\u2026')
      : links.length === 0
        ? h('p', { class: 'hint' }, 'No link shares this theme.')
        : h(
            'ul',
            { class: 'links-list', id: 'share-links' },
            links.map((link) =>
              h(LinkItem, { key: link.code, link, client, onRevoked: (id) => setLinks((shown) => shown?.filter((l) => l.id !== id) ?? shown) }),
            ),
          ),
  ]);
}

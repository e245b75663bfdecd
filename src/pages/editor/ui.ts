/**
 * Pieces the upload and editor pages share (Preact): the header, a labelled field with the server's
 * problems beside it, the problems no field owns, and the publishing progress.
 */
import { h, type ComponentChildren } from 'preact';
import { pageSession } from '../client/pageKey';

export const session = pageSession();

export function Header() {
  return h('header', { class: 'top' }, [
    h('a', { class: 'brand', href: '/' }, 'Open Dice'),
    h('nav', { class: 'who', 'aria-label': 'Dice' }, [
      h('a', { href: '/dice/new' }, 'New theme'),
      session ? h('span', null, ['Signed in as ', h('strong', null, session.user)]) : null,
    ]),
  ]);
}

/** The problems the server named for one field, said beside it (`id` for aria-describedby). */
export function Problems(props: { id: string; messages?: string[] }) {
  if (!props.messages?.length) return null;
  return h(
    'ul',
    { class: 'problems', id: props.id },
    props.messages.map((m) => h('li', null, m)),
  );
}

/** The aria attributes of a control with problems. */
export function invalid(id: string, messages?: string[]) {
  return messages?.length ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-problems` } : {};
}

/** A labelled text-like input with its problems. */
export function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  problems?: string[];
  type?: string;
  hint?: string;
  attrs?: Record<string, unknown>;
  multiline?: boolean;
}) {
  const control = h(props.multiline ? 'textarea' : 'input', {
    id: props.id,
    type: props.multiline ? undefined : (props.type ?? 'text'),
    value: props.value,
    onInput: (e: Event) => props.onInput((e.target as HTMLInputElement).value),
    ...invalid(props.id, props.problems),
    ...props.attrs,
  });
  return h('div', { class: `field${props.problems?.length ? ' has-problems' : ''}` }, [
    h('label', { for: props.id }, props.label),
    props.hint ? h('p', { class: 'hint' }, props.hint) : null,
    control,
    h(Problems, { id: `${props.id}-problems`, messages: props.problems }),
  ]);
}

export function Section(props: { id: string; title: string; children?: ComponentChildren; class?: string }) {
  return h('section', { class: `card ${props.class ?? ''}`, 'aria-labelledby': `${props.id}-title` }, [
    h('h2', { id: `${props.id}-title` }, props.title),
    props.children,
  ]);
}

/** The problems of a refused publish that no field owns, as sentences (never the raw body). */
export function OtherProblems(props: { message: string; messages?: string[] }) {
  return h('div', { class: 'message error', role: 'alert' }, [
    h('p', null, props.message),
    props.messages?.length
      ? h(
          'ul',
          null,
          props.messages.map((m) => h('li', null, m)),
        )
      : null,
  ]);
}

/** How much of the upload has gone. */
export function Progress(props: { sent: number; total: number }) {
  const pct = props.total ? Math.round((props.sent / props.total) * 100) : 0;
  return h('div', { class: 'progress' }, [
    h('label', { for: 'upload-progress' }, `Uploading: ${pct}%`),
    h('progress', { id: 'upload-progress', max: props.total || 1, value: props.sent }),
  ]);
}

export const kib = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

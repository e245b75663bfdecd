/**
 * The upload and editor pages' script (src/pages/editor/routes.ts serves it): `#app[data-view]` says
 * which page, `data-theme` which theme the editor opens. Preact; every value reaches the DOM as text.
 */
import { h, render } from 'preact';
import { EditorPage } from './editor';
import { UploadPage } from './upload';
import { Header } from './ui';

const root = document.getElementById('app')!;
const view = root.dataset.view;

function Page() {
  if (view === 'edit') return [h(Header, null), h('main', { class: 'content wide' }, h(EditorPage, { themeId: root.dataset.theme ?? '' }))];
  return [
    h(Header, null),
    h('main', { class: 'content' }, [
      h('h1', null, 'New dice theme'),
      h(
        'p',
        { class: 'lead' },
        'Fill in the manifest (or load a manifest file), add the files it names, and upload. You can change everything later in the editor.',
      ),
      h(UploadPage, null),
    ]),
  ];
}

render(h(Page, null), root);

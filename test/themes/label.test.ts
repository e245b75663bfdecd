import test from 'ava';
import { contrastRatio, fnv1a, isHexColor, nameColor, relativeLuminance, resolveLabel, textColorFor, WCAG_AA } from '../../src/themes/manifest/label';

test('WCAG luminance and contrast of known colours', (t) => {
  t.is(relativeLuminance('#000000'), 0);
  t.is(relativeLuminance('#ffffff'), 1);
  t.is(Math.round(contrastRatio('#000', '#fff') * 100) / 100, 21);
  t.is(contrastRatio('#777777', '#777777'), 1);
  // a value WebAIM's checker gives: #767676 on white is 4.54:1
  t.is(Math.round(contrastRatio('#767676', '#ffffff') * 100) / 100, 4.54);
});

test('FNV-1a matches its reference values', (t) => {
  t.is(fnv1a(''), 0x811c9dc5);
  t.is(fnv1a('a'), 0xe40c292c);
  t.is(fnv1a('foobar'), 0xbf9cf968);
});

test('a name always gives the same colour; case and surrounding spaces do not matter', (t) => {
  t.is(nameColor('Dragon Fire'), nameColor('Dragon Fire'));
  t.is(nameColor('Dragon Fire'), nameColor('  dragon fire '));
  t.not(nameColor('Dragon Fire'), nameColor('Dragon Ice'));
  t.true(isHexColor(nameColor('x')));
  t.regex(nameColor('Ünïcødé 🎲'), /^#[0-9a-f]{6}$/);
});

test('derived labels reach WCAG AA contrast for every name tried', (t) => {
  for (let i = 0; i < 2000; i++) {
    const label = resolveLabel(`Theme ${i}`, {});
    t.true(contrastRatio(label.color, label.background_color) >= WCAG_AA, `Theme ${i}: ${label.color} on ${label.background_color}`);
  }
});

test('black or white text, whichever contrasts more', (t) => {
  t.is(textColorFor('#ffff00'), '#000000');
  t.is(textColorFor('#000080'), '#ffffff');
});

test('given colours are kept; missing or empty ones are derived', (t) => {
  t.deepEqual(resolveLabel('X', { color: '#123456', background_color: '#abcdef' }), { color: '#123456', background_color: '#abcdef' });
  t.deepEqual(resolveLabel('X', { color: '', background_color: '' }), resolveLabel('X', {}));
  t.deepEqual(resolveLabel('X', { background_color: '#ffff00' }), { color: '#000000', background_color: '#ffff00' });
  const onlyText = resolveLabel('Some name', { color: '#777777' });
  t.is(onlyText.color, '#777777');
  t.true(contrastRatio(onlyText.color, onlyText.background_color) >= WCAG_AA);
  t.deepEqual(resolveLabel('X', null), resolveLabel('X', undefined));
});

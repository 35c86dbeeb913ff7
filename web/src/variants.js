// The variant catalogue (GET /api/variants): display names, families, a line of rules, side
// names and book per variant; the picker grouped by family with a small board picture each,
// and <select> options grouped the same way.

import { api } from './api.js';
import { h } from './util.js';
import { lookCss } from './pieces.js';

let loading = null;

/** The catalogue, loaded once: {groups: [{key, title}], variants: [...], byName: Map}. */
export function catalogue() {
  if (!loading) {
    loading = api('/api/variants').then((data) => ({ ...data, byName: new Map(data.variants.map((v) => [v.name, v])) }))
      .catch((err) => {
        loading = null;
        throw err;
      });
  }
  return loading;
}

/** A variant's entry, or a plain one for a name the catalogue lacks. */
export function entryOf(cat, name) {
  return (cat && cat.byName.get(name)) || { name, title: name, rules: '', sides: ['white', 'black'], book: name === 'chess', group: 'fairy' };
}

/** The display name of a variant (its internal name until the catalogue is loaded). */
export function titleOf(cat, name) {
  return entryOf(cat, name).title;
}

/** <option>s of every variant in <optgroup>s by family, values the internal names. */
export function variantOptions(cat, selected) {
  return cat.groups.map((g) => h('optgroup', { label: g.title },
    ...cat.variants.filter((v) => v.group === g.key).map((v) => h('option', { value: v.name, selected: v.name === selected }, v.title))))
    .filter((el) => el.children.length);
}

// One <style> per distinct look and board shape, shared by every mini board that has it.
const looks = new Map();
function lookClass(v) {
  const key = JSON.stringify([v.look, v.files, v.ranks]);
  if (!looks.has(key)) {
    const cls = `mini-look-${looks.size + 1}`;
    looks.set(key, cls);
    document.head.append(h('style', { 'data-mini': cls }, lookCss(`.${cls}`, v.look, v.files, v.ranks)));
  }
  return looks.get(key);
}

/** The pieces of a FEN's board part: [{file, row (0 = top), role, color}]. */
export function fenPieces(fen) {
  const board = fen.split(/[\s[]/)[0];
  const out = [];
  board.split('/').forEach((rank, row) => {
    let file = 0;
    let promoted = false;
    for (const m of rank.matchAll(/\d+|\+|~|[A-Za-z*]/g)) {
      const t = m[0];
      if (/\d/.test(t)) {
        file += Number(t);
      } else if (t === '+') {
        promoted = true;
      } else if (t !== '~') {
        if (t !== '*') {
          const letter = t.toLowerCase();
          out.push({ file, row, role: `${promoted ? 'p' : ''}${letter}-piece`, color: t === letter ? 'black' : 'white' });
        }
        promoted = false;
        file += 1;
      }
    }
  });
  return out;
}

/** A small picture of a variant's start position, drawn with its own board and pieces. */
export function miniBoard(v) {
  const family = (v.look && v.look.family) || 'chess';
  const board = h('cg-board', {});
  for (const p of fenPieces(v.fen)) {
    board.append(h('piece', { class: `${p.role} ${p.color}`, style: `transform: translate(${p.file * 100}%, ${p.row * 100}%)` }));
  }
  const wrap = h('div', {
    class: `mini-board cg-wrap orient-white family-${family} ${lookClass(v)}${v.ranks % 2 ? ' odd-ranks' : ''}`,
    style: `--files: ${v.files}; --ranks: ${v.ranks}`,
    'aria-hidden': 'true',
  }, board);
  return wrap;
}

/** Open the picker over the page: every variant by family, each with its picture, name and
 * rules; `onPick(entry)` when one is chosen (Escape or ✕ closes it without a choice). */
export async function openPicker(current, onPick) {
  const cat = await catalogue();
  const close = () => {
    overlay.remove();
    document.removeEventListener('keydown', keys);
  };
  const keys = (ev) => { if (ev.key === 'Escape') close(); };
  const card = (v) => h('button', {
    type: 'button', class: `variant-option${v.name === current ? ' current' : ''}`, 'data-variant': v.name, title: v.description,
    onclick: () => { close(); onPick(v); },
  }, miniBoard(v), h('span', { class: 'variant-text' }, h('strong', { class: 'variant-title' }, v.title), h('span', { class: 'variant-rules' }, v.rules)));
  const sections = cat.groups.map((g) => {
    const list = cat.variants.filter((v) => v.group === g.key);
    return list.length ? h('section', { class: 'variant-group', 'data-group': g.key },
      h('h2', {}, g.title), h('div', { class: 'variant-grid' }, ...list.map(card))) : null;
  });
  const dialog = h('div', { class: 'variant-picker', role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Choose a variant' },
    h('div', { class: 'picker-head' }, h('h1', {}, 'Choose a variant'),
      h('button', { type: 'button', class: 'picker-close', 'data-action': 'close-picker', title: 'Close', onclick: close }, '✕')),
    ...sections);
  const overlay = h('div', { class: 'picker-overlay', onclick: (ev) => { if (ev.target === overlay) close(); } }, dialog);
  document.addEventListener('keydown', keys);
  document.body.append(overlay);
  const chosen = dialog.querySelector('.variant-option.current');
  if (chosen) chosen.focus();
  return close;
}

// The games list and the new-game dialog.

import { api } from './api.js';
import { Board } from './board.js';
import { h } from './util.js';

/** List stored games, newest first, with links to resume or analyse them. */
export async function showGames(root) {
  root.replaceChildren(h('h1', {}, 'Games'), h('p', {}, h('a', { class: 'button primary', href: '#/new' }, 'New game')));
  let games;
  try {
    games = await api('/api/games');
  } catch (err) {
    root.append(h('p', { class: 'error' }, err.message));
    return;
  }
  if (!games.length) {
    root.append(h('p', { class: 'muted' }, 'No games yet.'));
    return;
  }
  const rows = games.map((g) => h('tr', { 'data-game': g.id },
    h('td', {}, new Date(g.created * 1000).toLocaleString()),
    h('td', {}, `${g.white} – ${g.black}`),
    h('td', {}, g.variant),
    h('td', {}, g.result || 'playing'),
    h('td', {}, String(Math.ceil(g.plies / 2))),
    h('td', {},
      h('a', { href: `#/game/${g.id}` }, g.result ? 'view' : 'resume'), ' · ',
      h('a', { href: `#/analysis/${g.id}` }, 'analyse'), ' · ',
      h('a', { href: `/api/games/${g.id}/pgn`, download: `ferz-${g.id}.pgn` }, 'PGN'))));
  root.append(h('table', { class: 'games' },
    h('thead', {}, h('tr', {}, ...['Started', 'Players', 'Variant', 'Result', 'Moves', ''].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows)));
}

/** The new-game form; on submit the server creates the game and we open it. */
export async function showNewGame(root) {
  let meta = { variants: ['chess'], elo_min: 1350, elo_max: 2850, max_think_ms: 60000 };
  try {
    meta = await api('/api/meta');
  } catch {
    // Keep the defaults; the server will refuse anything it does not support.
  }
  const error = h('p', { class: 'error', role: 'alert' });
  // The chosen variant's start position, pieces and pockets, drawn as the game will be.
  const preview = h('div', { class: 'variant-preview' });
  const about = h('p', { class: 'variant-about muted' });
  let board = null;
  const showVariant = async (name) => {
    let card;
    try {
      card = await api(`/api/variants/${encodeURIComponent(name)}`);
    } catch (err) {
      about.textContent = err.message;
      return;
    }
    if (form.elements.variant.value !== name) return; // the user has chosen another meanwhile
    if (board) {
      board.resize(card.files, card.ranks, card.pockets, card.look);
    } else {
      board = new Board(preview, { onMove: () => {}, files: card.files, ranks: card.ranks, pockets: card.pockets, look: card.look });
    }
    board.show({ fen: card.fen, turn: 'white' });
    about.textContent = `${card.files}×${card.ranks}${card.pockets ? ', drops' : ''}. ${card.description}`;
  };
  const mode = (value, label, checked) => h('label', {},
    h('input', { type: 'radio', name: 'mode', value, checked }), ' ', label);
  const form = h('form', { class: 'new-game', id: 'new-game' },
    h('h1', {}, 'New game'),
    h('fieldset', {}, h('legend', {}, 'You play'),
      ...['white', 'black', 'random'].map((c) => h('label', {},
        h('input', { type: 'radio', name: 'color', value: c, checked: c === 'white' }), ' ', c))),
    h('fieldset', {}, h('legend', {}, 'Time'),
      h('div', {}, mode('clock', 'Clock', true), ' ',
        h('input', { type: 'number', name: 'minutes', value: '5', min: '0.5', max: '180', step: '0.5', 'aria-label': 'minutes' }),
        ' min + ', h('input', { type: 'number', name: 'increment', value: '3', min: '0', max: '60', 'aria-label': 'increment' }), ' s'),
      h('div', {}, mode('movetime', 'Engine time per move', false), ' ',
        h('input', { type: 'number', name: 'movetime', value: '1', min: '0.05', max: String(meta.max_think_ms / 1000), step: '0.05', 'aria-label': 'seconds per move' }), ' s'),
      h('div', {}, mode('depth', 'Engine depth', false), ' ',
        h('input', { type: 'number', name: 'depth', value: '6', min: '1', max: '30', 'aria-label': 'depth' }))),
    h('fieldset', {}, h('legend', {}, 'Strength'),
      h('label', {}, h('input', { type: 'checkbox', name: 'full', checked: true }), ' full strength'), ' ',
      h('label', {}, 'or Elo ', h('input', { type: 'range', name: 'elo', min: String(meta.elo_min), max: String(meta.elo_max), step: '50', value: '1500',
        oninput: (e) => { form.querySelector('output').textContent = e.target.value; form.full.checked = false; } }),
      ' ', h('output', {}, '1500'))),
    h('fieldset', {}, h('legend', {}, 'Position'),
      h('label', {}, 'Variant ', h('select', { name: 'variant', onchange: (e) => showVariant(e.target.value) },
        ...meta.variants.map((v) => h('option', { value: v }, v)))),
      h('label', { class: 'wide' }, 'Start FEN (optional) ', h('input', { type: 'text', name: 'fen', placeholder: 'start position', spellcheck: 'false' })),
      h('div', { class: 'variant-card' }, preview, about)),
    error,
    h('button', { type: 'submit', class: 'primary' }, 'Play'));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const f = form.elements;
    const body = { color: f.color.value, variant: f.variant.value, fen: f.fen.value.trim() || null,
      elo: f.full.checked ? null : Number(f.elo.value) };
    const m = f.mode.value;
    if (m === 'clock') {
      body.clock = { initial_ms: Math.round(Number(f.minutes.value) * 60000), increment_ms: Math.round(Number(f.increment.value) * 1000) };
    } else if (m === 'movetime') {
      body.movetime_ms = Math.round(Number(f.movetime.value) * 1000);
    } else {
      body.depth = Number(f.depth.value);
    }
    try {
      const game = await api('/api/games', { method: 'POST', body });
      location.hash = `#/game/${game.id}`;
    } catch (err) {
      error.textContent = err.message;
    }
  });
  root.replaceChildren(form);
  showVariant(form.elements.variant.value);
}

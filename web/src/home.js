// The games list and the new-game dialog.

import { api } from './api.js';
import { Board } from './board.js';
import { h } from './util.js';

const PAGE = 25;

/** List stored games, newest first, a page at a time: the visitor's own ("my games", the
 * default), everyone's, or one person's by name; filtered by status and variant, with links
 * to resume (one's own), watch, analyse, download or delete (one's own) each. */
export async function showGames(root, query = {}) {
  const offset = Math.max(0, Number(query.offset) || 0);
  const status = query.status || 'all';
  const variant = query.variant || '';
  const player = query.player || '';
  const who = player ? 'player' : (query.who || 'me');
  const again = (change) => showGames(root, { offset, status, variant, who, player, ...change });
  const whoSelect = h('select', { name: 'who', 'aria-label': 'whose games', onchange: (e) => again({ who: e.target.value, player: '', offset: 0 }) },
    ...[['me', 'my games'], ['all', "everyone's games"]].map(([v, label]) => h('option', { value: v, selected: v === who }, label)),
    player ? h('option', { value: 'player', selected: true }, `${player}'s games`) : null);
  const playerInput = h('input', { type: 'search', name: 'player', placeholder: 'a player\'s name', 'aria-label': "a player's games", maxlength: '20', value: player,
    onchange: (e) => again({ player: e.target.value.trim(), offset: 0 }) });
  const statusSelect = h('select', { name: 'status', 'aria-label': 'show', onchange: (e) => again({ status: e.target.value, offset: 0 }) },
    ...[['all', 'all games'], ['playing', 'being played'], ['finished', 'finished'], ['imported', 'imported']]
      .map(([v, label]) => h('option', { value: v, selected: v === status }, label)));
  const variantSelect = h('select', { name: 'variant', 'aria-label': 'variant', onchange: (e) => again({ variant: e.target.value, offset: 0 }) },
    h('option', { value: '' }, 'every variant'));
  api('/api/meta').then((meta) => {
    variantSelect.append(...meta.variants.map((v) => h('option', { value: v, selected: v === variant }, v)));
  }).catch(() => {});
  const filters = h('div', { class: 'filters' }, whoSelect, playerInput, statusSelect, variantSelect);
  root.replaceChildren(h('h1', {}, player ? `${player}'s games` : (who === 'me' ? 'My games' : 'Games')),
    h('p', {}, h('a', { class: 'button primary', href: '#/new' }, 'New game')), filters);
  const params = new URLSearchParams({ offset: String(offset), limit: String(PAGE), status });
  if (variant) params.set('variant', variant);
  if (player) params.set('player', player);
  else params.set('who', who === 'all' ? 'all' : 'me');
  let page;
  try {
    page = await api(`/api/games?${params}`);
  } catch (err) {
    root.append(h('p', { class: 'error' }, err.message));
    return;
  }
  if (!page.games.length) {
    root.append(h('p', { class: 'muted' }, page.total ? 'No games on this page.' : (who === 'me' ? 'You have no games yet.' : 'No games yet.')));
    if (!offset) return;
  }
  const error = h('p', { class: 'error', role: 'alert' });
  const remove = async (g) => {
    if (!confirm(`Delete this game (${g.white} – ${g.black})?`)) return;
    try {
      await api(`/api/games/${encodeURIComponent(g.id)}`, { method: 'DELETE' });
      again({ offset: page.games.length === 1 && offset ? Math.max(0, offset - PAGE) : offset });
    } catch (err) {
      error.textContent = err.message;
    }
  };
  const state = (g) => (g.imported ? `imported${g.result ? ' ' + g.result : ''}` : g.result || 'playing');
  const rows = page.games.map((g) => h('tr', { 'data-game': g.id },
    h('td', { class: 'when' }, new Date(g.created * 1000).toLocaleString()),
    h('td', { class: 'players' }, `${g.white} – ${g.black}`),
    h('td', { class: 'variant' }, g.variant),
    h('td', { class: 'result' }, state(g)),
    h('td', { class: 'plies' }, String(Math.ceil(g.plies / 2))),
    h('td', { class: 'links' },
      h('a', { href: `#/game/${g.id}` }, g.result || g.imported ? 'view' : (g.mine ? 'resume' : 'watch')), ' · ',
      h('a', { href: `#/analysis/${g.id}` }, 'analyse'), ' · ',
      h('a', { href: `/api/games/${g.id}/pgn`, download: `ferz-${g.id}.pgn` }, 'PGN'),
      g.mine ? ' · ' : null,
      g.mine ? h('button', { class: 'link danger', 'data-action': 'delete', title: 'Delete this game', onclick: () => remove(g) }, 'delete') : null)));
  const last = Math.min(offset + page.games.length, page.total);
  const pager = h('div', { class: 'pager' },
    h('button', { 'data-action': 'newer', disabled: offset === 0, onclick: () => again({ offset: Math.max(0, offset - PAGE) }) }, '‹ newer'),
    h('span', { class: 'muted' }, page.total ? `${offset + 1}–${last} of ${page.total}` : ''),
    h('button', { 'data-action': 'older', disabled: last >= page.total, onclick: () => again({ offset: offset + PAGE }) }, 'older ›'));
  root.append(h('div', { class: 'table-box' }, h('table', { class: 'games' },
    h('thead', {}, h('tr', {}, ...['Started', 'Players', 'Variant', 'Result', 'Moves', ''].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows))), pager, error);
}

/** The new-game form (`preset`: variant and FEN, from "continue from here"); on submit the
 * server creates the game and we open it. */
export async function showNewGame(root, preset = {}) {
  // Used only if /api/meta fails; the server's range (ferz.engine's ELO_MIN/ELO_MAX) decides.
  let meta = { variants: ['chess'], elo_min: 1340, elo_max: 2500, max_think_ms: 60000 };
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
  const opponent = (value, label, checked) => h('label', {},
    h('input', { type: 'radio', name: 'opponent', value, checked, onchange: () => showOpponent() }), ' ', label);
  const form = h('form', { class: 'new-game', id: 'new-game' },
    h('h1', {}, 'New game'),
    h('fieldset', {}, h('legend', {}, 'Opponent'),
      opponent('engine', 'ferz', true),
      opponent('hotseat', 'hot-seat (two people, this screen)', false),
      opponent('friend', 'a friend (get a link)', false),
      opponent('seek', 'anyone (a seek in the lobby)', false),
      h('label', { class: 'for-hotseat' }, h('input', { type: 'checkbox', name: 'flip' }), ' turn the board to the side to move')),
    h('fieldset', {}, h('legend', {}, 'You play'),
      ...['white', 'black', 'random'].map((c) => h('label', {},
        h('input', { type: 'radio', name: 'color', value: c, checked: c === 'white' }), ' ', c))),
    h('fieldset', {}, h('legend', {}, 'Time'),
      h('div', {}, mode('clock', 'Clock', true), ' ',
        h('input', { type: 'number', name: 'minutes', value: '5', min: '0.5', max: '180', step: '0.5', 'aria-label': 'minutes' }),
        ' min + ', h('input', { type: 'number', name: 'increment', value: '3', min: '0', max: '60', 'aria-label': 'increment' }), ' s'),
      h('div', { class: 'for-people' }, mode('none', 'No clock', false)),
      h('div', { class: 'for-engine' }, mode('movetime', 'Engine time per move', false), ' ',
        h('input', { type: 'number', name: 'movetime', value: '1', min: '0.05', max: String(meta.max_think_ms / 1000), step: '0.05', 'aria-label': 'seconds per move' }), ' s'),
      h('div', { class: 'for-engine' }, mode('depth', 'Engine depth', false), ' ',
        h('input', { type: 'number', name: 'depth', value: '6', min: '1', max: '30', 'aria-label': 'depth' }))),
    h('fieldset', { class: 'not-hotseat' }, h('legend', {}, 'Mode'),
      h('label', {}, h('input', { type: 'checkbox', name: 'rated' }), ' rated (needs a clock; the result changes both ratings)')),
    h('fieldset', { class: 'for-engine' }, h('legend', {}, 'Engine'),
      h('label', {}, h('input', { type: 'checkbox', name: 'book', checked: true }), ' opening book (standard chess)'), ' ',
      h('label', {}, h('input', { type: 'checkbox', name: 'show_pv' }), " show the engine's lines while it thinks")),
    h('fieldset', { class: 'for-engine' }, h('legend', {}, 'Strength'),
      h('label', {}, h('input', { type: 'checkbox', name: 'full', checked: true }), ' full strength'), ' ',
      h('label', {}, 'or Elo ', h('input', { type: 'range', name: 'elo', min: String(meta.elo_min), max: String(meta.elo_max), step: '10', value: '1500',
        oninput: (e) => { form.querySelector('output').textContent = e.target.value; form.full.checked = false; } }),
      ' ', h('output', {}, '1500'))),
    h('fieldset', {}, h('legend', {}, 'Position'),
      h('label', {}, 'Variant ', h('select', { name: 'variant', onchange: (e) => showVariant(e.target.value) },
        ...meta.variants.map((v) => h('option', { value: v }, v)))),
      h('label', { class: 'wide' }, 'Start FEN (optional) ', h('input', { type: 'text', name: 'fen', placeholder: 'start position', spellcheck: 'false', value: preset.fen || '' })),
      h('div', { class: 'variant-card' }, preview, about)),
    error,
    h('button', { type: 'submit', class: 'primary' }, 'Play'));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const f = form.elements;
    const who = f.opponent.value;
    const body = { color: f.color.value, variant: f.variant.value, fen: f.fen.value.trim() || null, opponent: who };
    if (who === 'engine') Object.assign(body, { elo: f.full.checked ? null : Number(f.elo.value), show_pv: f.show_pv.checked, book: f.book.checked });
    if (who === 'hotseat') body.flip = f.flip.checked;
    else if (f.rated.checked) body.rated = true;
    const m = f.mode.value;
    if (m === 'none') {
      if (who === 'engine') {
        error.textContent = 'Against ferz choose a clock, a time per move or a depth.';
        return;
      }
    } else if (m === 'clock') {
      body.clock = { initial_ms: Math.round(Number(f.minutes.value) * 60000), increment_ms: Math.round(Number(f.increment.value) * 1000) };
    } else if (who !== 'engine') {
      error.textContent = 'A time per move or a depth is for games against ferz: choose a clock or none.';
      return;
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
  // Show only what the chosen opponent needs (ferz's strength, book, hints; hot-seat's flip).
  const showOpponent = () => {
    const who = form.elements.opponent.value;
    form.querySelectorAll('.for-engine').forEach((el) => { el.hidden = who !== 'engine'; });
    form.querySelectorAll('.for-people').forEach((el) => { el.hidden = who === 'engine'; });
    form.querySelectorAll('.for-hotseat').forEach((el) => { el.hidden = who !== 'hotseat'; });
    form.querySelectorAll('.not-hotseat').forEach((el) => { el.hidden = who === 'hotseat'; });
    const mode = form.elements.mode.value;
    if (who !== 'engine' && mode !== 'clock' && mode !== 'none') form.querySelector('input[name=mode][value=clock]').checked = true;
    if (who === 'engine' && mode === 'none') form.querySelector('input[name=mode][value=clock]').checked = true;
  };
  if (preset.variant && meta.variants.includes(preset.variant)) form.elements.variant.value = preset.variant;
  root.replaceChildren(form);
  showOpponent();
  showVariant(form.elements.variant.value);
}

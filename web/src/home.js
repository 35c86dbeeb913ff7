// The home page (a game in one click: the time-control grid seeks a person, "play ferz",
// "play a friend", "hot-seat", the variant picker), the games list and the new-game form.

import { api, Socket } from './api.js';
import { clockText } from './lobby.js';
import { Board } from './board.js';
import { h } from './util.js';
import { ratingText, speedOf } from './people.js';
import { catalogue, entryOf, miniBoard, openPicker, variantOptions } from './variants.js';

const PAGE = 25;

// The quick-pairing grid, as lichess's: minutes + seconds of increment.
export const TIME_CONTROLS = [[1, 0], [3, 0], [3, 2], [5, 3], [10, 0], [10, 5], [15, 10], [30, 0]];
// ferz's strength on the home page: a level, not full strength, unless one asks for it.
const DEFAULT_ELO = 1514; // ferz level 3 (ferz.engine.level_elo(3))
const DEFAULT_CLOCK = '10+5';

const clockOf = (text) => {
  if (!text || text === 'none') return null;
  const [m, s] = text.split('+').map(Number);
  return { initial_ms: Math.round(m * 60000), increment_ms: Math.round(s * 1000) };
};
const cap = (word) => word.charAt(0).toUpperCase() + word.slice(1);

/** The colour choices of a variant, named as its players name the sides (white/black,
 * sente/gote, red/black); the values stay white/black/random. */
export function colorOptions(v, selected = 'random') {
  const [a, b] = v.sides || ['white', 'black'];
  return [['random', 'random'], ['white', a], ['black', b]].map(([value, label]) => h('option', { value, selected: value === selected }, label));
}

/** The home page: one click starts a game (the grid seeks a person or joins their seek;
 * "play ferz" at a sensible level), with the variant picker above and my games below. */
export async function showHome(root, query = {}) {
  let cat = null;
  let variant = localStorage.getItem('ferz-variant') || 'chess';
  const error = h('p', { class: 'error', role: 'alert' });
  const choice = h('button', { type: 'button', class: 'variant-choice', 'data-action': 'pick-variant', title: 'Choose a variant',
    onclick: () => openPicker(variant, (v) => { variant = v.name; localStorage.setItem('ferz-variant', v.name); showChoice(); }) });
  const rated = h('input', { type: 'checkbox', name: 'rated' });
  const levels = h('select', { name: 'level', 'aria-label': "ferz's strength" },
    h('option', { value: String(DEFAULT_ELO) }, `ferz level 3 · ${DEFAULT_ELO}`));
  const clocks = h('select', { name: 'clock', 'aria-label': 'clock' },
    ...TIME_CONTROLS.map(([m, s]) => h('option', { value: `${m}+${s}`, selected: `${m}+${s}` === DEFAULT_CLOCK }, `${m}+${s}`)),
    h('option', { value: 'none' }, 'no clock'));
  const colors = h('select', { name: 'color', 'aria-label': 'your side' });
  const book = h('input', { type: 'checkbox', name: 'book', checked: true });
  const bookLabel = h('label', { class: 'book-option', title: 'ferz opens from its opening book, so its games vary' }, book, ' opening book');
  const showChoice = () => {
    const v = entryOf(cat, variant);
    if (cat && !cat.byName.has(variant)) variant = 'chess';
    choice.replaceChildren(...(v.fen ? [miniBoard(v)] : []),
      h('span', { class: 'variant-text' }, h('span', { class: 'muted' }, 'Variant'), h('strong', { class: 'variant-title' }, v.title),
        h('span', { class: 'variant-rules' }, v.rules)),
      h('span', { class: 'change' }, 'change ▾'));
    choice.dataset.variant = variant;
    const color = colors.value || 'random';
    colors.replaceChildren(...colorOptions(v, color));
    bookLabel.hidden = !v.book;
  };
  const start = async (path, body) => {
    error.textContent = '';
    try {
      const game = await api(path, { method: 'POST', body });
      location.hash = `#/game/${game.id}`;
    } catch (err) {
      error.textContent = err.message;
    }
  };
  // The grid pairs with a person (their seek, or one of mine in the lobby) or with ferz at the
  // level chosen in the panel beside it: a choice kept in the browser.
  let against = localStorage.getItem('ferz-grid') === 'ferz' ? 'ferz' : 'person';
  const quickTitle = h('h1', {});
  const quickNote = h('p', { class: 'muted' });
  const againstButtons = ['person', 'ferz'].map((who) => h('button', { type: 'button', role: 'radio', 'data-against': who,
    onclick: () => { against = who; localStorage.setItem('ferz-grid', who); showAgainst(); } }, who === 'person' ? 'a person' : 'ferz'));
  const tiles = TIME_CONTROLS.map(([m, s]) => {
    const clock = clockOf(`${m}+${s}`);
    return h('button', { type: 'button', class: 'tile', 'data-action': 'quick', 'data-clock': `${m}+${s}`,
      onclick: () => (against === 'ferz' ? playFerz(clock)
        : start('/api/seeks/quick', { variant, clock, ...(rated.checked ? { rated: true } : {}) })) },
    h('strong', {}, `${m}+${s}`), h('span', {}, cap(speedOf(clock))));
  });
  const showAgainst = () => {
    for (const b of againstButtons) b.setAttribute('aria-checked', String(b.dataset.against === against));
    quickTitle.textContent = against === 'ferz' ? 'Play ferz at a clock' : 'Play a person';
    for (const t of tiles) {
      t.title = against === 'ferz'
        ? `Play ferz at ${t.dataset.clock} (the level and side chosen beside)`
        : `Play a person at ${t.dataset.clock}: join someone's game or wait in the lobby for someone to join yours`;
    }
    quickNote.replaceChildren(...(against === 'ferz'
      ? ['One click: a game against ferz at the level chosen beside, with that clock.']
      : ['One click: you join the first game waiting with that clock, or open one in the ',
        h('a', { href: '#/lobby' }, 'lobby'), ' and play whoever joins it (colours drawn then).']));
  };
  const people = (opponent) => {
    const clock = clockOf(clocks.value);
    const body = { opponent, variant, color: opponent === 'hotseat' ? 'white' : colors.value, clock };
    if (opponent !== 'hotseat' && rated.checked) body.rated = true;
    start('/api/games', body);
  };
  const playFerz = (chosen) => {
    const clock = chosen || clockOf(clocks.value);
    const elo = levels.value === 'full' ? null : Number(levels.value);
    const body = { opponent: 'engine', variant, color: colors.value, elo, book: !bookLabel.hidden && book.checked, ...(clock ? { clock } : { movetime_ms: 1000 }) };
    if (clock && rated.checked) body.rated = true;
    start('/api/games', body);
  };
  const panel = h('section', { class: 'home' },
    h('div', { class: 'home-top' }, choice,
      h('label', { class: 'rated-option', title: 'the result changes the ratings (games with a clock, not hot-seat)' }, rated, ' rated')),
    h('div', { class: 'home-grid' },
      h('div', { class: 'quick' },
        h('div', { class: 'quick-head' }, quickTitle,
          h('div', { class: 'grid-against', role: 'radiogroup', 'aria-label': 'the grid pairs you with' }, ...againstButtons)),
        h('div', { class: 'tiles' }, ...tiles),
        quickNote),
      h('div', { class: 'play-panel' },
        h('h2', {}, 'Play ferz'),
        h('div', { class: 'play-options' }, levels, clocks, colors, bookLabel),
        h('button', { type: 'button', class: 'primary big', 'data-action': 'play-ferz', onclick: () => playFerz() }, 'Play ferz'),
        h('div', { class: 'actions' },
          h('button', { type: 'button', 'data-action': 'play-friend', title: 'A game with a link to send a friend (the clock and side above)', onclick: () => people('friend') }, 'Play a friend'),
          h('button', { type: 'button', 'data-action': 'hot-seat', title: 'Two people on this screen', onclick: () => people('hotseat') }, 'Hot-seat'),
          h('a', { class: 'button', href: '#/new', 'data-action': 'more-options' }, 'More options…')))),
    error);
  // The seeks waiting now (live, as in the lobby): one click plays one.
  const seeks = h('div', { class: 'home-seeks', hidden: true });
  let lastSeeks = [];
  const showSeeks = (all) => {
    lastSeeks = all;
    seeks.hidden = !all.length;
    seeks.replaceChildren(h('h2', {}, 'Waiting for an opponent'), h('ul', {}, ...all.map((s) => h('li', { 'data-seek': s.id },
      h('span', { class: 'seek-who' }, s.mine ? 'you' : s.name, s.mine ? '' : ratingText(s.rating)),
      h('span', { class: 'seek-what' }, `${clockText(s.clock)} · ${entryOf(cat, s.variant).title} · ${s.rated ? 'rated' : 'casual'}${s.color === 'random' ? ' · random' : ''}`),
      s.mine
        ? h('a', { class: 'button', href: `#/game/${s.id}` }, 'yours: open')
        : h('button', { type: 'button', class: 'primary', 'data-action': 'accept-seek', onclick: () => start(`/api/seeks/${encodeURIComponent(s.id)}/accept`, {}) }, 'Play')))));
  };
  const socket = new Socket('/ws/lobby', { onMessage: (msg) => { if (msg.type === 'seeks') showSeeks(msg.seeks); } });
  panel.querySelector('.quick').append(seeks);
  const list = h('section', { class: 'home-games' });
  root.replaceChildren(panel, list);
  showChoice();
  showAgainst();
  catalogue().then((c) => { cat = c; showChoice(); showSeeks(lastSeeks); }).catch(() => {});
  api('/api/seeks').then((lobby) => {
    const keep = levels.value;
    levels.replaceChildren(...lobby.bots.map((b) => h('option', { value: b.elo === null ? 'full' : String(b.elo) },
      b.elo === null ? 'ferz full strength' : `${b.name} · ${b.elo}`)));
    levels.value = [...levels.options].some((o) => o.value === keep) ? keep : String(DEFAULT_ELO);
  }).catch(() => {});
  await showGames(list, query);
  return () => socket.close();
}

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
  catalogue().then((cat) => {
    variantSelect.append(...variantOptions(cat, variant));
  }).catch(() => {});
  const filters = h('div', { class: 'filters' }, whoSelect, playerInput, statusSelect, variantSelect);
  root.replaceChildren(h('h2', {}, player ? `${player}'s games` : (who === 'me' ? 'My games' : 'Games')), filters);
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
    h('td', { class: 'variant', 'data-variant': g.variant }, g.variant),
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
  catalogue().then((cat) => {
    for (const td of root.querySelectorAll('td.variant[data-variant]')) td.textContent = entryOf(cat, td.dataset.variant).title;
  }).catch(() => {});
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
  let cat = null;
  try {
    cat = await catalogue();
  } catch {
    // plain names then
  }
  const error = h('p', { class: 'error', role: 'alert' });
  // The chosen variant's start position, pieces and pockets, drawn as the game will be.
  const preview = h('div', { class: 'variant-preview' });
  const about = h('p', { class: 'variant-about muted' });
  let board = null;
  const showVariant = async (name) => {
    // the sides as the variant's players name them; the book only where ferz has one
    const entry = entryOf(cat, name);
    form.querySelectorAll('.side-name').forEach((el) => { el.textContent = el.dataset.color === 'random' ? 'random' : entry.sides[el.dataset.color === 'white' ? 0 : 1]; });
    form.querySelectorAll('.for-book').forEach((el) => { el.hidden = !entry.book; });
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
        h('input', { type: 'radio', name: 'color', value: c, checked: c === 'white' }), ' ', h('span', { class: 'side-name', 'data-color': c }, c)))),
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
      h('label', { class: 'for-book' }, h('input', { type: 'checkbox', name: 'book', checked: true }), ' opening book'), ' ',
      h('label', {}, h('input', { type: 'checkbox', name: 'show_pv' }), " show the engine's lines while it thinks")),
    h('fieldset', { class: 'for-engine' }, h('legend', {}, 'Strength'),
      h('label', {}, h('input', { type: 'checkbox', name: 'full' }), ' full strength'), ' ',
      h('label', {}, 'or Elo ', h('input', { type: 'range', name: 'elo', min: String(meta.elo_min), max: String(meta.elo_max), step: '1', value: String(DEFAULT_ELO),
        oninput: (e) => { form.querySelector('output').textContent = e.target.value; form.full.checked = false; } }),
      ' ', h('output', {}, String(DEFAULT_ELO)))),
    h('fieldset', {}, h('legend', {}, 'Position'),
      h('label', {}, 'Variant ', h('select', { name: 'variant', onchange: (e) => showVariant(e.target.value) },
        ...(cat ? variantOptions(cat, preset.variant || 'chess') : meta.variants.map((v) => h('option', { value: v }, v))))),
      h('label', { class: 'wide' }, 'Start FEN (optional) ', h('input', { type: 'text', name: 'fen', placeholder: 'start position', spellcheck: 'false', value: preset.fen || '' })),
      h('div', { class: 'variant-card' }, preview, about)),
    error,
    h('button', { type: 'submit', class: 'primary' }, 'Play'));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const f = form.elements;
    const who = f.opponent.value;
    const body = { color: f.color.value, variant: f.variant.value, fen: f.fen.value.trim() || null, opponent: who };
    if (who === 'engine') Object.assign(body, { elo: f.full.checked ? null : Number(f.elo.value), show_pv: f.show_pv.checked, book: f.book.checked && entryOf(cat, body.variant).book });
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

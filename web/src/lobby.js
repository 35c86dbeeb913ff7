// The lobby: open seeks (variant, clock) that anyone accepts with one click, live from the
// server's /ws/lobby, and ferz's levels as bots to play at once.

import { api, Socket } from './api.js';
import { h, formatClock } from './util.js';
import { ratingText, speedOf } from './people.js';
import { catalogue, entryOf, titleOf, variantOptions } from './variants.js';

/** A clock as players write it: 5+3 (minutes + seconds), or "no clock". */
export function clockText(clock) {
  if (!clock) return 'no clock';
  return `${formatClock(clock.initial_ms).replace(/:00$/, '')}+${clock.increment_ms / 1000}`;
}

/** Show the lobby; returns the function that closes its socket. */
export async function showLobby(root) {
  let meta = { variants: ['chess'] };
  let cat = null;
  try {
    [meta, cat] = await Promise.all([api('/api/meta'), catalogue().catch(() => null)]);
  } catch {
    // the server refuses anything it does not support
  }
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', { class: 'seek-form' },
    h('label', {}, 'Variant ', h('select', { name: 'variant' }, ...(cat ? variantOptions(cat, 'chess') : meta.variants.map((v) => h('option', { value: v }, v))))),
    h('label', {}, h('input', { type: 'number', name: 'minutes', value: '5', min: '0', max: '180', step: '0.5', 'aria-label': 'minutes' }), ' min + '),
    h('label', {}, h('input', { type: 'number', name: 'increment', value: '3', min: '0', max: '60', 'aria-label': 'increment' }), ' s'),
    h('label', {}, 'Colour ', h('select', { name: 'color' }, ...['random', 'white', 'black'].map((c) => h('option', { value: c }, c)))),
    h('label', { title: 'the result changes the ratings (needs a clock)' }, h('input', { type: 'checkbox', name: 'rated' }), ' rated'),
    h('button', { type: 'submit', class: 'primary', 'data-action': 'create-seek' }, 'Create a seek'));
  /** The form's clock (none when 0 minutes). */
  const clock = () => {
    const minutes = Number(form.elements.minutes.value);
    if (!minutes) return null;
    return { initial_ms: Math.round(minutes * 60000), increment_ms: Math.round(Number(form.elements.increment.value) * 1000) };
  };
  const open = async (body) => {
    error.textContent = '';
    try {
      const game = await api('/api/games', { method: 'POST', body: { variant: form.elements.variant.value, ...body } });
      location.hash = `#/game/${game.id}`;
    } catch (err) {
      error.textContent = err.message;
    }
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    open({ opponent: 'seek', color: form.elements.color.value, clock: clock(), ...(form.elements.rated.checked ? { rated: true } : {}) });
  });
  const seeks = h('tbody', {});
  const bots = h('div', { class: 'bots actions' });
  const accept = async (id) => {
    error.textContent = '';
    try {
      const game = await api(`/api/seeks/${encodeURIComponent(id)}/accept`, { method: 'POST', body: {} });
      location.hash = `#/game/${game.id}`;
    } catch (err) {
      error.textContent = err.message;
    }
  };
  const cancel = async (id) => {
    try {
      await api(`/api/seeks/${encodeURIComponent(id)}`, { method: 'DELETE' });
    } catch (err) {
      error.textContent = err.message;
    }
  };
  let last = null;
  const show = (msg) => {
    last = msg;
    const rows = msg.seeks.map((s) => h('tr', { 'data-seek': s.id },
      h('td', { class: 'seeker' }, s.mine ? 'you' : (s.name === 'Anonymous' ? s.name : h('a', { href: `#/?player=${encodeURIComponent(s.name)}` }, s.name)), ratingText(s.rating)),
      h('td', { class: 'variant', 'data-variant': s.variant }, titleOf(cat, s.variant)),
      h('td', { class: 'seek-clock' }, clockText(s.clock)),
      h('td', { class: 'seek-mode' }, s.rated ? 'rated' : 'casual'),
      h('td', { class: 'seek-color' }, s.color === 'random' ? 'random' : `you play ${side(s.variant, s.mine ? s.color : (s.color === 'white' ? 'black' : 'white'))}`),
      h('td', {}, s.mine
        ? h('button', { 'data-action': 'cancel-seek', onclick: () => cancel(s.id) }, 'Cancel')
        : h('button', { class: 'primary', 'data-action': 'accept-seek', onclick: () => accept(s.id) }, 'Accept'))));
    seeks.replaceChildren(...(rows.length ? rows : [h('tr', {}, h('td', { colspan: '6', class: 'muted' }, 'No open seeks: create one.'))]));
    const speed = speedOf(clock());
    bots.replaceChildren(...msg.bots.map((b) => h('button', {
      'data-action': 'play-bot', 'data-elo': b.elo === null ? 'full' : String(b.elo),
      onclick: () => {
        const c = clock();
        open({ opponent: 'engine', elo: b.elo, book: true, color: form.elements.color.value,
          ...(c ? { clock: c } : { movetime_ms: 1000 }), ...(c && form.elements.rated.checked ? { rated: true } : {}) });
      },
    }, `${b.name}${b.elo === null ? ' (full strength)' : ''}${speed && b.ratings && b.ratings[speed] ? ` · ${b.ratings[speed]}` : ''}`)));
  };
  // the sides as the variant's players name them (sente/gote, red/black)
  const side = (variant, color) => entryOf(cat, variant).sides[color === 'white' ? 0 : 1];
  const sideLabels = () => {
    for (const o of form.elements.color.options) if (o.value !== 'random') o.textContent = side(form.elements.variant.value, o.value);
  };
  form.addEventListener('change', () => { sideLabels(); if (last) show(last); });
  root.replaceChildren(h('div', { class: 'lobby' },
    h('h1', {}, 'Lobby'), form, error,
    h('h2', {}, 'Open seeks'),
    h('div', { class: 'table-box' }, h('table', { class: 'games seeks' },
      h('thead', {}, h('tr', {}, ...['Player', 'Variant', 'Clock', 'Mode', 'Colour', ''].map((t) => h('th', {}, t)))), seeks)),
    h('h2', {}, 'Bots: play ferz now (the variant, clock and colour above)'), bots));
  const socket = new Socket('/ws/lobby', {
    onMessage: (msg) => { if (msg.type === 'seeks') show(msg); },
  });
  return () => socket.close();
}

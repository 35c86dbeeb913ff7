// Who the visitor is: the name chosen at the first visit (a bar under the header until they
// choose one), the account page (change the name, register a password, log in from another
// browser, log out, see one's ratings), and how names and ratings are written everywhere.

import { api } from './api.js';
import { h } from './util.js';

export const NAME_RULE = '2 to 20 letters, digits, _ or -';
let me = { name: null, account: false, logged_in: false, ratings: [] };
const listeners = [];

/** The visitor as last loaded. */
export function currentMe() {
  return me;
}

/** Load the visitor from the server and redraw what shows them. */
export async function loadMe() {
  try {
    me = await api('/api/me');
  } catch {
    // the page works without a name
  }
  listeners.forEach((f) => f(me));
  return me;
}

/** Call `f` whenever the visitor changes (name chosen, logged in or out). */
export function onMe(f) {
  listeners.push(f);
}

/** A rating as shown beside a name: " 1500" or " 1500?" while provisional; '' for none. */
export function ratingText(r) {
  if (!r) return '';
  return ` ${r.rating}${r.provisional ? '?' : ''}`;
}

/** A rating change: "+12", "−8", "±0". */
export function diffText(d) {
  if (d > 0) return `+${d}`;
  if (d < 0) return `−${-d}`;
  return '±0';
}

/** The speed of a clock as the server splits them (initial + 40 × increment, in seconds). */
export function speedOf(clock) {
  if (!clock) return null;
  const estimate = clock.initial_ms / 1000 + (40 * (clock.increment_ms || 0)) / 1000;
  if (estimate < 180) return 'bullet';
  if (estimate < 480) return 'blitz';
  if (estimate < 1500) return 'rapid';
  return 'classical';
}

/** A form that sets the visitor's name (the first-visit bar and the account page). */
function nameForm(label, done) {
  const error = h('span', { class: 'name-error', role: 'alert' });
  const input = h('input', { type: 'text', name: 'name', required: true, minlength: '2', maxlength: '20', pattern: '[A-Za-z0-9_\\-]{2,20}',
    placeholder: 'your name', autocomplete: 'nickname', spellcheck: 'false', 'aria-label': 'your name', title: NAME_RULE, value: me.name || '' });
  const form = h('form', { class: 'name-form' }, h('label', {}, label, ' ', input),
    h('button', { type: 'submit', class: 'primary', 'data-action': 'save-name' }, 'Save'), error);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    try {
      await api('/api/me/name', { method: 'POST', body: { name: input.value.trim() } });
      await loadMe();
      if (done) done();
    } catch (err) {
      error.textContent = err.message;
    }
  });
  return form;
}

/** The header's corner (the visitor's name, a link to their account) and, until they have
 * chosen a name, the bar that asks for one. */
export function mountMe(corner, bar) {
  const draw = (m) => {
    corner.replaceChildren(h('a', { href: '#/account', class: 'me-link', 'data-nav': 'account' },
      m.name ? m.name : 'choose a name'));
    if (m.name) {
      bar.replaceChildren();
      bar.hidden = true;
    } else if (!bar.childElementCount) {
      bar.hidden = false;
      bar.replaceChildren(nameForm('Choose a name others will see:'),
        h('span', { class: 'muted' }, ' or ', h('a', { href: '#/account', 'data-action': 'login-link' }, 'log in to your account')));
    }
  };
  onMe(draw);
  draw(me);
  loadMe();
}

/** The account page: name, password (register), log in elsewhere, log out, ratings. */
export async function showAccount(root) {
  await loadMe();
  const error = h('p', { class: 'error', role: 'alert' });
  const again = () => showAccount(root);
  const post = async (path, body) => {
    error.textContent = '';
    try {
      await api(path, { method: 'POST', body });
      again();
    } catch (err) {
      error.textContent = err.message;
    }
  };
  const password = (name, auto) => h('input', { type: 'password', name, required: true, minlength: '8', maxlength: '200', autocomplete: auto, 'aria-label': 'password' });
  const parts = [h('h1', {}, me.name ? me.name : 'Your name')];
  parts.push(nameForm(me.name ? 'Change your name:' : 'Choose a name:', again));
  if (me.name && !me.account) {
    const pw = password('password', 'new-password');
    const form = h('form', { class: 'account-form', 'data-form': 'register' },
      h('p', { class: 'muted' }, 'Keep your name, games and ratings: set a password, and log in with it from another browser.'),
      h('label', {}, 'Password ', pw), h('button', { type: 'submit', class: 'primary', 'data-action': 'register' }, 'Create the account'));
    form.addEventListener('submit', (ev) => { ev.preventDefault(); post('/api/account/register', { password: pw.value }); });
    parts.push(form);
  } else if (me.account) {
    parts.push(h('p', { class: 'muted' }, me.logged_in
      ? 'This browser is logged in to your account.'
      : 'You have an account: log in with your name and password from another browser.'));
  }
  if (me.logged_in) {
    parts.push(h('button', { 'data-action': 'logout', onclick: () => post('/api/account/logout', {}) }, 'Log out'));
  } else {
    const name = h('input', { type: 'text', name: 'login-name', required: true, maxlength: '20', autocomplete: 'username', 'aria-label': 'account name' });
    const pw = password('login-password', 'current-password');
    const form = h('form', { class: 'account-form', 'data-form': 'login' },
      h('h2', {}, 'Log in to an account'),
      h('label', {}, 'Name ', name), h('label', {}, 'Password ', pw),
      h('button', { type: 'submit', 'data-action': 'login' }, 'Log in'));
    form.addEventListener('submit', (ev) => { ev.preventDefault(); post('/api/account/login', { name: name.value.trim(), password: pw.value }); });
    parts.push(form);
  }
  parts.push(error, h('h2', {}, 'Ratings'));
  parts.push(me.ratings.length
    ? h('div', { class: 'table-box' }, h('table', { class: 'games ratings' },
      h('thead', {}, h('tr', {}, ...['Variant', 'Speed', 'Rating', 'Games'].map((t) => h('th', {}, t)))),
      h('tbody', {}, ...me.ratings.map((r) => h('tr', {},
        h('td', {}, r.variant), h('td', {}, r.speed), h('td', { class: 'rating' }, ratingText(r).trim()), h('td', {}, String(r.games)))))))
    : h('p', { class: 'muted' }, 'No rated games yet: tick "rated" when you start a game with a clock.'));
  root.replaceChildren(h('div', { class: 'account' }, ...parts));
}

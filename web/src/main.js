// Entry point: a tiny hash router over the games list, new game, play and analysis views.

import { showGames, showHome, showNewGame } from './home.js';
import { showGame } from './game.js';
import { showAnalysis } from './analysis.js';
import { showLobby } from './lobby.js';
import { mountMe, showAccount } from './people.js';

let leave = () => {};

/** Show the view named by the location hash. */
async function route() {
  leave();
  leave = () => {};
  const root = document.getElementById('app');
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const [page, id] = path.split('/');
  document.querySelectorAll('[data-nav]').forEach((a) => a.classList.toggle('active', a.dataset.nav === (page || 'home')));
  if (page === 'game' && id) leave = await showGame(root, id);
  else if (page === 'analysis') leave = await showAnalysis(root, id);
  else if (page === 'new') await showNewGame(root, Object.fromEntries(new URLSearchParams(query || '')));
  else if (page === 'lobby') leave = await showLobby(root);
  else if (page === 'account') await showAccount(root);
  else if (page === 'games') await showGames(root, Object.fromEntries(new URLSearchParams(query || '')));
  else leave = await showHome(root, Object.fromEntries(new URLSearchParams(query || '')));
}

const sound = document.getElementById('sound');
sound.checked = localStorage.getItem('ferz-sound') === '1';
sound.addEventListener('change', () => localStorage.setItem('ferz-sound', sound.checked ? '1' : '0'));
mountMe(document.getElementById('me'), document.getElementById('name-bar'));
window.addEventListener('hashchange', route);
route();

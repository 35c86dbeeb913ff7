// The play view: board, clocks, move list with navigation, actions and the result banner.

import { api, Socket } from './api.js';
import { Board } from './board.js';
import { h, formatClock, formatScore, splitUci, clickSound } from './util.js';

const other = (c) => (c === 'white' ? 'black' : 'white');

/** Open game `id`: load it, connect its WebSocket and keep the view in sync with the server. */
export async function showGame(root, id) {
  let game;
  try {
    game = await api(`/api/games/${encodeURIComponent(id)}`);
  } catch (err) {
    root.replaceChildren(h('p', { class: 'error' }, err.message), h('a', { href: '#/' }, 'Back to the games'));
    return () => {};
  }
  const view = new GameView(root, game);
  return () => view.close();
}

class GameView {
  constructor(root, game) {
    this.game = game;
    this.ply = game.moves.length; // the ply shown on the board
    this.received = performance.now();
    this.status = h('span', { class: 'status' });
    this.error = h('div', { class: 'error', role: 'alert' });
    // What the engine is doing: its depth (its lines only if the player asked for them).
    this.thinking = h('div', { class: 'thinking', 'aria-live': 'off' });
    // The sign that the engine works on its move, next to its name: seen at once, on phones too.
    this.badge = h('span', { class: 'thinking-badge', role: 'status', hidden: true });
    this.overText = h('strong', { class: 'game-over-text' });
    this.rematchBtn = h('button', { class: 'primary', 'data-action': 'rematch', onclick: () => this.rematch() }, 'Rematch');
    this.over = h('div', { class: 'game-over', role: 'status', hidden: true },
      this.overText,
      h('div', { class: 'actions' },
        this.rematchBtn,
        h('a', { class: 'button', href: '#/new', 'data-action': 'new-game' }, 'New game'),
        h('a', { class: 'button', href: `#/analysis/${game.id}`, 'data-action': 'analyse-game' }, 'Analyse')));
    this.clocks = { white: h('div', { class: 'clock', 'data-color': 'white' }), black: h('div', { class: 'clock', 'data-color': 'black' }) };
    this.names = { white: h('div', { class: 'name' }), black: h('div', { class: 'name' }) };
    this.moveList = h('ol', { class: 'moves', 'aria-label': 'Moves' });
    const boardBox = h('div', { class: 'board-col' });
    this.topBar = h('div', { class: 'player top' });
    this.bottomBar = h('div', { class: 'player bottom' });
    const btn = (label, title, onclick, cls = '') => h('button', { class: cls, title, 'data-action': title.toLowerCase().split(' ')[0], onclick }, label);
    // The buttons that only make sense while the game goes on (disabled once it is over).
    this.live = [
      btn('↶ Takeback', 'Takeback the last move', () => this.send({ type: 'takeback' })),
      btn('½ Draw', 'Draw offer', () => this.send({ type: 'draw' })),
      btn('⚑ Resign', 'Resign the game', () => { if (confirm('Resign this game?')) this.send({ type: 'resign' }); }),
    ];
    this.actions = h('div', { class: 'actions' },
      ...this.live,
      btn('⇅ Flip', 'Flip the board', () => this.board.flip()),
      btn('FEN', 'FEN copy', () => this.copyFen()),
      h('a', { class: 'button', href: `/api/games/${game.id}/pgn`, download: `ferz-${game.id}.pgn`, 'data-action': 'pgn' }, 'PGN'),
      h('a', { class: 'button', href: `#/analysis/${game.id}`, 'data-action': 'analyse' }, 'Analyse'));
    this.nav = h('div', { class: 'nav' },
      btn('«', 'First move', () => this.goto(0)),
      btn('‹', 'Previous move', () => this.goto(this.ply - 1)),
      btn('›', 'Next move', () => this.goto(this.ply + 1)),
      btn('»', 'Last move', () => this.goto(this.game.moves.length)));
    const side = h('div', { class: 'side-col' },
      this.over, this.thinking, this.moveList, this.nav, this.error, this.actions, this.status);
    root.replaceChildren(h('div', { class: 'game-view' }, boardBox, side));
    boardBox.append(this.topBar);
    this.board = new Board(boardBox, {
      files: game.files, ranks: game.ranks, pockets: game.pockets, look: game.look,
      orientation: game.human === 'black' ? 'black' : 'white',
      onMove: (uci) => this.userMove(uci),
    });
    boardBox.append(this.bottomBar);
    this.keys = (ev) => {
      if (ev.target.tagName === 'INPUT') return;
      if (ev.key === 'ArrowLeft') this.goto(this.ply - 1);
      else if (ev.key === 'ArrowRight') this.goto(this.ply + 1);
    };
    document.addEventListener('keydown', this.keys);
    this.render();
    this.timer = setInterval(() => this.tick(), 100);
    this.socket = new Socket(`/ws/games/${game.id}`, {
      onMessage: (msg) => this.onMessage(msg),
      onStatus: (s) => {
        const words = { online: '', offline: 'reconnecting…', closed: 'this game is no longer on the server' };
        this.status.textContent = words[s] ?? '';
      },
    });
  }

  close() {
    clearInterval(this.timer);
    document.removeEventListener('keydown', this.keys);
    this.socket.close();
  }

  send(msg) {
    this.error.textContent = '';
    if (!this.socket.send(msg)) this.error.textContent = 'Not connected to the server; try again.';
  }

  onMessage(msg) {
    if (msg.type === 'state') {
      const grew = msg.game.moves.length > this.game.moves.length;
      const atEnd = this.ply >= this.game.moves.length;
      this.game = msg.game;
      this.received = performance.now();
      if (atEnd || this.ply > this.game.moves.length) this.ply = this.game.moves.length;
      if (grew && this.game.moves.length) {
        const last = this.game.moves[this.game.moves.length - 1];
        clickSound(last.san.includes('x'));
      }
      if (this.game.moves.length < (this.lastLength || 0)) this.board.cancelPremove();
      this.lastLength = this.game.moves.length;
      this.queue = msg.game.queue || 0;
      if (!msg.game.thinking) this.thinking.textContent = '';
      this.render();
    } else if (msg.type === 'queue') {
      this.queue = msg.position;
      this.renderThinking();
    } else if (msg.type === 'info') {
      const i = msg.info;
      // The server sends the engine's lines and score only when the player asked for them.
      const pv = i.pv_san ? ` · ${formatScore(i.score_cp, i.score_mate)} · ${i.pv_san.slice(0, 6).join(' ')}` : '';
      this.thinking.textContent = `depth ${i.depth}${pv}`;
    } else if (msg.type === 'error') {
      this.error.textContent = msg.message;
      this.render(); // snap the board back to the server's position
    } else if (msg.type === 'draw') {
      this.error.textContent = msg.accepted ? '' : 'ferz declines the draw.';
    }
  }

  async rematch() {
    this.rematchBtn.disabled = true;
    try {
      const next = await api(`/api/games/${encodeURIComponent(this.game.id)}/rematch`, { method: 'POST', body: {} });
      location.hash = `#/game/${next.id}`;
    } catch (err) {
      this.error.textContent = err.message;
      this.rematchBtn.disabled = false;
    }
  }

  /** The engine's badge: thinking, or waiting in line for a search slot. */
  renderThinking() {
    const g = this.game;
    const on = Boolean(g.thinking) && !g.result;
    this.badge.hidden = !on;
    this.badge.textContent = this.queue > 0 ? `waiting for the engine (${this.queue} in line)` : 'thinking…';
  }

  userMove(uci) {
    if (uci === null) {
      this.render();
      return;
    }
    this.send({ type: 'move', uci, ply: this.game.moves.length });
  }

  goto(ply) {
    this.ply = Math.max(0, Math.min(this.game.moves.length, ply));
    this.render();
  }

  copyFen() {
    const fen = this.fenAt(this.ply);
    if (navigator.clipboard) navigator.clipboard.writeText(fen).catch(() => prompt('FEN', fen));
    else prompt('FEN', fen);
    this.error.textContent = '';
    this.status.textContent = 'FEN copied';
  }

  fenAt(ply) {
    return ply === 0 ? this.game.start_fen : this.game.moves[ply - 1].fen;
  }

  render() {
    const g = this.game;
    const live = this.ply === g.moves.length;
    const human = g.human;
    const playing = !g.result && !g.imported; // an imported game is shown, not played
    const myTurn = live && playing && g.turn === human;
    const last = this.ply > 0 ? splitUci(g.moves[this.ply - 1].uci) : null;
    this.board.show({
      fen: this.fenAt(this.ply),
      turn: live ? g.turn : (this.ply % 2 === 0) === (g.start_turn === 'white') ? 'white' : 'black',
      legal: myTurn ? g.legal : [],
      movable: live && playing ? human : undefined,
      lastMove: last ? [last[0].endsWith('@') ? last[1] : last[0], last[1]] : null,
      check: live ? g.check : g.moves[this.ply - 1] && g.moves[this.ply - 1].san.match(/[+#]$/),
      premove: live && playing && g.turn !== human,
    });
    const bottom = this.board.cg.state.orientation;
    const engine = other(human);
    const nameBox = (color) => (color === engine ? h('div', { class: 'name-box' }, this.names[color], this.badge) : this.names[color]);
    this.bottomBar.replaceChildren(nameBox(bottom), this.clocks[bottom]);
    this.topBar.replaceChildren(nameBox(other(bottom)), this.clocks[other(bottom)]);
    this.names.white.textContent = `○ ${g.white}`;
    this.names.black.textContent = `● ${g.black}`;
    this.renderMoves();
    this.renderThinking();
    const over = Boolean(g.result) || g.imported;
    for (const b of this.live) b.disabled = over;
    this.over.hidden = !g.result;
    if (g.result) this.overText.textContent = `${g.outcome_text || g.termination} · ${g.result}`;
    this.rematchBtn.hidden = Boolean(g.imported);
    this.tick();
  }

  renderMoves() {
    const g = this.game;
    const items = [];
    const blackFirst = g.start_turn === 'black';
    let number = g.start_fullmove;
    let li = null;
    g.moves.forEach((m, i) => {
      const white = ((i % 2 === 0) !== blackFirst);
      if (white || li === null) {
        li = h('li', { value: String(number) });
        if (!white) li.append(h('span', { class: 'move empty' }, '…'));
        items.push(li);
      }
      li.append(h('span', { class: 'move' + (i + 1 === this.ply ? ' current' : ''), 'data-ply': String(i + 1), onclick: () => this.goto(i + 1) }, m.text || m.san));
      if (!white) number += 1;
    });
    this.moveList.replaceChildren(...items);
    const cur = this.moveList.querySelector('.current');
    if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
  }

  tick() {
    const c = this.game.clock;
    for (const color of ['white', 'black']) {
      const el = this.clocks[color];
      if (!c) {
        el.hidden = true;
        continue;
      }
      el.hidden = false;
      let ms = c[color];
      const running = c.running === color;
      if (running) ms -= performance.now() - this.received;
      el.textContent = formatClock(ms);
      el.classList.toggle('running', running);
      el.classList.toggle('low', ms < 20000);
    }
  }
}

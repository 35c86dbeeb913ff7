// The play view: board, clocks, move list with navigation, actions, offers between people,
// the result banner. Who may move comes from the server: `you` lists the seats this browser
// holds (none: spectating).

import { api, Socket } from './api.js';
import { Board } from './board.js';
import { h, formatClock, formatScore, splitUci, clickSound, copyText } from './util.js';
import { diffText, ratingText } from './people.js';
import { catalogue, titleOf, fenPieces } from './variants.js';
import { pieceImage } from './pieces.js';

const other = (c) => (c === 'white' ? 'black' : 'white');
const cap = (word) => word.charAt(0).toUpperCase() + word.slice(1);

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
    // a rated game's rating changes, once the server has rated it
    this.ratingChange = h('div', { class: 'rating-change', hidden: true });
    // rated or casual, and the speed
    this.mode = h('div', { class: 'game-mode muted' });
    this.rematchBtn = h('button', { class: 'primary', 'data-action': 'rematch', onclick: () => this.rematch() }, 'Rematch');
    this.over = h('div', { class: 'game-over', role: 'status', hidden: true },
      this.overText,
      this.ratingChange,
      h('div', { class: 'actions' },
        this.rematchBtn,
        h('a', { class: 'button', href: '#/new', 'data-action': 'new-game' }, 'New game'),
        h('a', { class: 'button', href: `#/analysis/${game.id}`, 'data-action': 'analyse-game' }, 'Analyse')));
    // Between people: the opponent's offer to answer, our own waiting, an absent opponent,
    // the link to send a friend, a seek waiting in the lobby.
    this.notice = h('div', { class: 'notice', role: 'status', 'aria-live': 'polite' });
    this.spectating = h('span', { class: 'spectating', hidden: true }, 'spectating');
    this.clocks = { white: h('div', { class: 'clock', 'data-color': 'white' }), black: h('div', { class: 'clock', 'data-color': 'black' }) };
    this.names = { white: h('div', { class: 'name' }), black: h('div', { class: 'name' }) };
    // the pieces each side has more of than the other (and the points, for chess pieces)
    this.material = { white: h('div', { class: 'material', 'data-color': 'white' }), black: h('div', { class: 'material', 'data-color': 'black' }) };
    this.cat = null;
    catalogue().then((cat) => { this.cat = cat; this.render(); }).catch(() => {});
    this.moveList = h('ol', { class: 'moves', 'aria-label': 'Moves' });
    const boardBox = h('div', { class: 'board-col' });
    this.topBar = h('div', { class: 'player top' });
    this.bottomBar = h('div', { class: 'player bottom' });
    const btn = (label, title, onclick, cls = '') => h('button', { class: cls, title, 'data-action': title.toLowerCase().split(' ')[0], onclick }, label);
    // The buttons that only make sense while the game goes on (disabled once it is over).
    this.abortBtn = btn('✕ Abort', 'Abort the game', () => this.send({ type: 'abort' }));
    this.live = [
      btn('↶ Takeback', 'Takeback the last move', () => this.send({ type: 'takeback' })),
      btn('½ Draw', 'Draw offer', () => this.send({ type: 'draw' })),
      btn('⚑ Resign', 'Resign the game', () => { if (confirm('Resign this game?')) this.send({ type: 'resign' }); }),
      this.abortBtn,
    ];
    this.actions = h('div', { class: 'actions' },
      ...this.live,
      btn('⇅ Flip', 'Flip the board', () => this.board.flip()),
      btn('FEN', 'FEN copy', (ev) => this.copyFen(ev.currentTarget)),
      h('a', { class: 'button', href: `/api/games/${game.id}/pgn`, download: `ferz-${game.id}.pgn`, 'data-action': 'pgn' }, 'PGN'),
      h('a', { class: 'button', href: `#/analysis/${game.id}`, 'data-action': 'analyse' }, 'Analyse'),
      btn('Continue from here', 'Continue from here: a new game from the shown position', () => this.continueHere()));
    this.nav = h('div', { class: 'nav' },
      btn('«', 'First move', () => this.goto(0)),
      btn('‹', 'Previous move', () => this.goto(this.ply - 1)),
      btn('›', 'Next move', () => this.goto(this.ply + 1)),
      btn('»', 'Last move', () => this.goto(this.game.moves.length)));
    const side = h('div', { class: 'side-col' },
      this.over, this.mode, this.notice, this.thinking, this.moveList, this.nav, this.error, this.actions, this.status, this.spectating);
    root.replaceChildren(h('div', { class: 'game-view' }, boardBox, side));
    boardBox.append(this.topBar);
    this.board = new Board(boardBox, {
      files: game.files, ranks: game.ranks, pockets: game.pockets, look: game.look,
      orientation: this.mine().length === 1 ? this.mine()[0] : (this.mine().length ? 'white' : (game.opponent === 'engine' ? game.human : 'white')),
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
      const seatsBefore = this.mine().join();
      this.game = msg.game;
      // Just seated (a friend's link, a lobby seek): our side goes to the bottom.
      const mine = this.mine();
      if (mine.join() !== seatsBefore && mine.length === 1 && this.board.cg.state.orientation !== mine[0]) this.board.flip();
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
    } else if (msg.type === 'declined') {
      const mine = this.mine();
      const who = mine.includes(msg.by) ? 'You decline' : (mine.length ? 'Your opponent declines' : `${cap(msg.by)} declines`);
      this.error.textContent = `${who} the ${msg.offer === 'takeback' ? 'takeback' : msg.offer}.`;
    } else if (msg.type === 'rematch') {
      location.hash = `#/game/${msg.id}`;
    }
  }

  /** The colours this browser holds: [] spectating, one, or both (hot-seat). */
  mine() {
    return this.game.you || [];
  }

  /** A new game from the shown position (the new-game form, filled in). */
  continueHere() {
    const q = new URLSearchParams({ variant: this.game.variant, fen: this.fenAt(this.ply) });
    location.hash = `#/new?${q}`;
  }

  async rematch() {
    if (this.game.opponent !== 'engine' && this.game.opponent !== 'hotseat' && this.mine().length === 1) {
      const offered = this.game.offers && this.game.offers.rematch;
      this.send(offered && offered !== this.mine()[0] ? { type: 'accept', offer: 'rematch' } : { type: 'rematch' });
      return;
    }
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
    const on = Boolean(g.thinking) && !g.result && (!g.seats || g.seats[g.turn].kind === 'engine');
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

  copyFen(button) {
    const fen = this.fenAt(this.ply);
    this.error.textContent = '';
    copyText(fen, button, 'FEN');
  }

  fenAt(ply) {
    return ply === 0 ? this.game.start_fen : this.game.moves[ply - 1].fen;
  }

  render() {
    const g = this.game;
    const live = this.ply === g.moves.length;
    const mine = this.mine();
    const playing = !g.result && !g.imported; // an imported game is shown, not played
    const myTurn = live && playing && mine.includes(g.turn);
    const last = this.ply > 0 ? splitUci(g.moves[this.ply - 1].uci) : null;
    // Hot-seat with "flip": the side to move plays from the bottom.
    if (mine.length === 2 && g.settings.flip && live && playing && this.board.cg.state.orientation !== g.turn) this.board.flip();
    this.board.show({
      fen: this.fenAt(this.ply),
      turn: live ? g.turn : (this.ply % 2 === 0) === (g.start_turn === 'white') ? 'white' : 'black',
      legal: myTurn ? g.legal : [],
      movable: live && playing && mine.length ? (mine.length === 2 ? g.turn : mine[0]) : undefined,
      lastMove: last ? [last[0].endsWith('@') ? last[1] : last[0], last[1]] : null,
      check: live ? g.check : g.moves[this.ply - 1] && g.moves[this.ply - 1].san.match(/[+#]$/),
      premove: live && playing && mine.length === 1 && g.turn !== mine[0],
    });
    const bottom = this.board.cg.state.orientation;
    const seats = g.seats || {};
    const isEngine = (c) => (seats[c] ? seats[c].kind === 'engine' : c !== g.human);
    const nameBox = (color) => (isEngine(color) ? h('div', { class: 'name-box' }, this.names[color], this.badge) : this.names[color]);
    this.bottomBar.replaceChildren(h('div', { class: 'name-col' }, nameBox(bottom), this.material[bottom]), this.clocks[bottom]);
    this.topBar.replaceChildren(h('div', { class: 'name-col' }, nameBox(other(bottom)), this.material[other(bottom)]), this.clocks[other(bottom)]);
    for (const c of ['white', 'black']) {
      const mark = c === 'white' ? '○' : '●';
      this.names[c].textContent = `${mark} ${this.nameOf(c)}`;
      const seat = seats[c];
      const rating = seat && !seat.open && !g.imported ? ratingText(seat.rating) : '';
      this.names[c].append(rating ? h('span', { class: 'rating' }, rating) : '');
    }
    this.mode.textContent = g.imported ? '' : [g.settings && g.settings.rated ? 'Rated' : 'Casual', g.speed, titleOf(this.cat, g.variant)].filter(Boolean).join(' · ');
    this.renderMaterial(bottom);
    const change = g.rating_change;
    this.ratingChange.hidden = !change;
    if (change) {
      this.ratingChange.replaceChildren(...['white', 'black'].map((c) => h('div', { class: 'rating-line', 'data-color': c },
        `${this.nameOf(c)}: ${change[c].before} → ${change[c].after}${change[c].provisional ? '?' : ''} `,
        h('span', { class: change[c].diff > 0 ? 'up' : (change[c].diff < 0 ? 'down' : '') }, `(${diffText(change[c].diff)})`))));
    }
    this.renderMoves();
    this.renderThinking();
    const over = Boolean(g.result) || g.imported;
    const watching = !mine.length && !g.imported;
    for (const b of this.live) b.disabled = over || watching;
    this.abortBtn.hidden = g.moves.length >= 2 || over;
    this.spectating.hidden = !watching;
    this.over.hidden = !g.result;
    if (g.result) this.overText.textContent = `${this.outcomeText()} · ${g.result}`;
    this.over.dataset.outcome = this.outcomeKind();
    // no rematch after an abort (the server refuses one too)
    this.rematchBtn.hidden = Boolean(g.imported) || watching || g.termination === 'aborted';
    this.renderNotice();
    this.tick();
  }

  /** A side's name as this browser sees it: the person's name (You when they chose none),
   * ferz's level, an open seat. */
  nameOf(color) {
    const g = this.game;
    const mine = this.mine();
    const seat = g.seats && g.seats[color];
    if (!seat || g.imported) return g[color];
    if (seat.kind === 'engine') return seat.name;
    if (seat.open) return 'waiting for a player…';
    if (mine.length === 2) return seat.name === 'Anonymous' ? cap(this.side(color)) : `${seat.name} (${this.side(color)})`;
    if (mine.length === 1 && mine[0] === color && seat.name === 'Anonymous') return 'You';
    return seat.name;
  }

  /** The result as this browser sees it: win or loss (a player's), draw, or neutral (a
   * spectator's, hot-seat's, an aborted game's): the panel's colour. */
  outcomeKind() {
    const g = this.game;
    const mine = this.mine();
    if (g.result === '1/2-1/2') return 'draw';
    if (mine.length === 1 && (g.result === '1-0' || g.result === '0-1')) {
      return (g.result === '1-0' ? 'white' : 'black') === mine[0] ? 'win' : 'loss';
    }
    return 'neutral';
  }

  /** A side as the variant's players name it: white/black, sente/gote, red/black. */
  side(color) {
    const sides = (this.cat && this.cat.byName.get(this.game.variant) || {}).sides || ['white', 'black'];
    return sides[color === 'white' ? 0 : 1];
  }

  /** Who won, said to each player as a win or a loss. */
  outcomeText() {
    const g = this.game;
    const mine = this.mine();
    const why = g.termination || 'the result of the game';
    if (mine.length === 1 && (g.result === '1-0' || g.result === '0-1')) {
      const winner = g.result === '1-0' ? 'white' : 'black';
      return winner === mine[0] ? `You won (${why})` : `You lost (${why})`;
    }
    if (mine.length === 2 && (g.result === '1-0' || g.result === '0-1')) {
      return `${cap(this.side(g.result === '1-0' ? 'white' : 'black'))} won (${why})`;
    }
    return g.outcome_text || why;
  }

  /** Offers to answer, our own waiting, an absent opponent, the friend's link, the seek. */
  renderNotice() {
    const g = this.game;
    const mine = this.mine();
    const items = [];
    const me = mine.length === 1 ? mine[0] : null;
    const offers = g.offers || {};
    const words = { draw: 'offers a draw', takeback: 'asks to take back a move', rematch: 'offers a rematch' };
    for (const [offer, by] of Object.entries(offers)) {
      if (me && by !== me) {
        items.push(h('div', { class: 'offer', 'data-offer': offer }, `Your opponent ${words[offer]}. `,
          h('button', { class: 'primary', 'data-action': `accept-${offer}`, onclick: () => this.send({ type: 'accept', offer }) }, 'Accept'), ' ',
          h('button', { 'data-action': `decline-${offer}`, onclick: () => this.send({ type: 'decline', offer }) }, 'Decline')));
      } else if (me && by === me) {
        items.push(h('div', { class: 'offer mine', 'data-offer': offer }, `${cap(offer)} offered: waiting for your opponent… `,
          h('button', { class: 'link', 'data-action': `withdraw-${offer}`, onclick: () => this.send({ type: 'decline', offer }) }, 'withdraw')));
      } else if (!me) {
        items.push(h('div', { class: 'offer' }, `${cap(this.side(by))} ${words[offer]}.`));
      }
    }
    const away = g.away || {};
    if (me && !g.result && away[other(me)] !== undefined) {
      this.claimAt = performance.now() + away[other(me)];
      this.claimText = h('span', { class: 'claim-text' });
      this.claimBtns = [
        h('button', { class: 'primary', 'data-action': 'claim-win', onclick: () => this.send({ type: 'claim', result: 'win' }) }, 'Claim the win'),
        h('button', { 'data-action': 'claim-draw', onclick: () => this.send({ type: 'claim', result: 'draw' }) }, 'Call it a draw'),
      ];
      this.claimTotal = (g.abandon_s || 60) * 1000;
      this.awayBox = h('div', { class: 'offer away', 'data-away': other(me) }, this.claimText, ' ', ...this.claimBtns);
      items.push(this.awayBox);
    } else {
      this.claimAt = null;
    }
    // a timed game between people: whose first move is due, and the seconds left before the
    // game is aborted (as lichess shows it)
    if (g.first_move && !g.result) {
      this.firstAt = performance.now() + g.first_move.ms;
      this.firstColor = g.first_move.color;
      this.firstText = h('span', { class: 'first-move-text' });
      items.push(h('div', { class: 'offer first-move', 'data-first-move': g.first_move.color }, this.firstText));
    } else {
      this.firstAt = null;
    }
    const open = g.seats && ['white', 'black'].find((c) => g.seats[c].open);
    if (open && me && !g.result) {
      if (g.opponent === 'seek') {
        items.push(h('div', { class: 'offer seek' }, 'Waiting for someone to accept your seek in the ',
          h('a', { href: '#/lobby' }, 'lobby'), g.settings.random_color ? ' (colours: random, drawn when it is accepted)' : '', '… ',
          h('button', { 'data-action': 'cancel-seek', onclick: () => this.cancelSeek() }, 'Cancel')));
      } else {
        const link = `${location.origin}${location.pathname}#/game/${g.id}`;
        const plays = g.settings.random_color ? 'the other side (the colours are drawn when they open it)' : cap(this.side(open));
        items.push(h('div', { class: 'offer invite' }, 'Send this link to a friend; whoever opens it first plays ', plays, ': ',
          h('input', { class: 'invite-link', readonly: true, value: link, onclick: (e) => e.target.select() }), ' ',
          h('button', { 'data-action': 'copy-link', onclick: (ev) => copyText(link, ev.currentTarget, 'Link') }, 'Copy')));
      }
    }
    this.notice.replaceChildren(...items);
    this.notice.hidden = !items.length;
    this.tickClaim();
    this.tickFirstMove();
  }

  async cancelSeek() {
    try {
      await api(`/api/seeks/${encodeURIComponent(this.game.id)}`, { method: 'DELETE' });
      location.hash = '#/lobby';
    } catch (err) {
      this.error.textContent = err.message;
    }
  }

  /** Beside each name: the pieces that side has more of than the other, on the board and
   * in hand, as small pictures of the game's own pieces, and "+N" in points where every
   * piece is a chess piece. */
  renderMaterial() {
    const g = this.game;
    const fen = this.fenAt(this.ply);
    const count = { white: new Map(), black: new Map() };
    const add = (color, role) => count[color].set(role, (count[color].get(role) || 0) + 1);
    for (const p of fenPieces(fen)) add(p.color, p.role);
    const hand = /\[([^\]]*)\]/.exec(fen.split(' ')[0]);
    if (hand) for (const ch of hand[1]) if (/[A-Za-z]/.test(ch)) add(ch === ch.toLowerCase() ? 'black' : 'white', `${ch.toLowerCase()}-piece`);
    const pieces = (g.look && g.look.pieces) || {};
    const VALUES = { pawn: 1, knight: 3, bishop: 3, rook: 5, queen: 9, king: 0 };
    let points = 0;
    let known = true;
    const surplus = { white: [], black: [] };
    const roles = new Set([...count.white.keys(), ...count.black.keys()]);
    for (const role of roles) {
      const d = (count.white.get(role) || 0) - (count.black.get(role) || 0);
      const letter = role.replace(/-piece$/, '');
      const name = letter.startsWith('p') && letter.length === 2 ? null : pieces[letter];
      if (name in VALUES) points += d * VALUES[name];
      else if (d) known = false;
      if (d) surplus[d > 0 ? 'white' : 'black'].push([role, Math.abs(d), name]);
    }
    const order = (a, b) => (VALUES[b[2]] ?? 10) - (VALUES[a[2]] ?? 10) || a[0].localeCompare(b[0]);
    for (const color of ['white', 'black']) {
      const el = this.material[color];
      const icons = [];
      for (const [role, n] of surplus[color].sort(order)) {
        const url = pieceImage(g.look, role, color);
        for (let i = 0; i < n; i++) {
          icons.push(url
            ? h('span', { class: 'mat-piece', 'data-role': role, style: `background-image: ${url}` })
            : h('span', { class: 'mat-piece letter', 'data-role': role }, role.replace(/-piece$/, '').replace(/^p(.)$/, '+$1').toUpperCase()));
        }
      }
      const lead = known && (color === 'white' ? points > 0 : points < 0) ? `+${Math.abs(points)}` : '';
      el.replaceChildren(...icons, lead ? h('span', { class: 'mat-points' }, lead) : '');
    }
  }

  /** The countdown until the absent opponent can be claimed against. */
  tickFirstMove() {
    if (this.firstAt === null || this.firstAt === undefined || !this.firstText) return;
    const left = Math.ceil(Math.max(0, this.firstAt - performance.now()) / 1000);
    const mine = this.mine();
    this.firstText.textContent = mine.length === 1 && mine[0] === this.firstColor
      ? `Make your first move: ${left} s left, or the game is aborted.`
      : `${cap(this.side(this.firstColor))} has ${left} s to make a first move, or the game is aborted.`;
  }

  tickClaim() {
    if (this.claimAt === null || this.claimAt === undefined || !this.claimText) return;
    const left = Math.max(0, this.claimAt - performance.now());
    // A page closing and reopening (a reload, a friend still opening the link) is no news:
    // the notice shows once the opponent has been away for 3 s (or the claim is due).
    this.awayBox.hidden = left > 0 && this.claimTotal - left < 3000;
    this.claimText.textContent = left > 0
      ? `Your opponent left the game. You can claim the win in ${Math.ceil(left / 1000)} s.`
      : 'Your opponent left the game.';
    for (const b of this.claimBtns) b.disabled = left > 0;
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
    this.tickClaim();
    this.tickFirstMove();
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

// The board widget: chessgroundx driven by positions and legal moves that the server sends.

import { Chessground } from 'chessgroundx';
import { Notation } from 'chessgroundx/types.js';
import { h, toKey, toSquare, splitUci, destsOf, clickSound } from './util.js';
import { lookCss, familyOf } from './pieces.js';

let boardCount = 0;

// Promotion choices in the order a player expects them; '' is "do not promote".
const PROMO_ORDER = ['q', 'n', 'r', 'b', 'a', 'c', 'e', 'h', 'm', 'k', 'f', 's', 'g', '+', '-', ''];

// Names of the pieces a seirawan player gates in, for the chooser's labels.
const GATE_NAMES = { h: 'hawk', e: 'elephant' };

const ENGINE_BRUSHES = {
  pv1: { key: 'pv1', color: '#1b6ed1', opacity: 0.9, lineWidth: 15 },
  pv2: { key: 'pv2', color: '#3f7fbf', opacity: 0.55, lineWidth: 12 },
  pv3: { key: 'pv3', color: '#5a7f9f', opacity: 0.4, lineWidth: 10 },
  pv4: { key: 'pv4', color: '#5f6f7f', opacity: 0.3, lineWidth: 9 },
  pv5: { key: 'pv5', color: '#5f6f7f', opacity: 0.22, lineWidth: 8 },
};

/** A board that only shows positions and asks `onMove(uci)` when the user plays a move. */
export class Board {
  constructor(parent, { onMove, files = 8, ranks = 8, orientation = 'white', pockets = null, look = null }) {
    this.onMove = onMove;
    this.promos = new Map();
    this.drops = new Map();
    this.castles = new Map();
    boardCount += 1;
    this.wrap = h('div', { class: 'board-wrap', id: `board-${boardCount}` });
    // A pass (janggi) has no square to click: a button under the board, shown when legal.
    this.passButton = h('button', {
      class: 'pass-move', type: 'button', hidden: true, title: 'Pass: give the move to the other side',
      onclick: () => this.pass(),
    }, 'Pass');
    parent.append(this.wrap, this.passButton);
    this.build(files, ranks, pockets, orientation, look);
  }

  /**
   * (Re)create chessgroundx for a geometry, a set of pocket pieces (drop variants) and a look
   * (board family and piece names, from the server): xiangqi and shogi get their own board and
   * pieces, fairy pieces their own images; orthodox chess keeps the chess set.
   */
  build(files, ranks, pockets, orientation, look = null) {
    if (this.cg) this.cg.destroy();
    this.files = files;
    this.ranks = ranks;
    this.pockets = pockets;
    this.look = look;
    this.wrap.style.setProperty('--files', files);
    this.wrap.style.setProperty('--ranks', ranks);
    this.wrap.classList.toggle('odd-ranks', ranks % 2 === 1);
    const family = familyOf(look);
    for (const f of ['chess', 'xiangqi', 'shogi']) this.wrap.classList.toggle(`family-${f}`, f === family);
    this.wrap.dataset.family = family;
    this.setOrientation(orientation);
    const style = h('style', {}, lookCss(`#${this.wrap.id}`, look, files, ranks));
    // The layout sizes the board column from the board's shape (pockets add about two rows).
    const view = this.wrap.closest('.game-view');
    if (view) view.style.setProperty('--aspect', String(files / (ranks + (pockets ? 2.3 : 0))));
    this.el = h('div', { class: 'cg-board-el' });
    const top = pockets ? h('div', { class: 'cg-wrap pocket-box' }) : undefined;
    const bottom = pockets ? h('div', { class: 'cg-wrap pocket-box' }) : undefined;
    this.wrap.replaceChildren(...[style, top, this.el, bottom].filter(Boolean));
    const roles = pockets ? pockets.map((letter) => `${letter.toLowerCase()}-piece`) : undefined;
    // An empty board to start with (the caller shows the real position); with pockets, the
    // FEN must carry them ('[]') or chessgroundx has no pocket counts to draw.
    const empty = Array(ranks).fill(String(files)).join('/') + (pockets ? '[]' : '');
    this.cg = Chessground(this.el, {
      fen: empty,
      orientation,
      dimensions: { width: files, height: ranks },
      pocketRoles: roles ? { white: roles, black: roles } : undefined,
      coordinates: true,
      // The shogi family reads files 9-1 from right to left along the top and ranks a-i
      // down the side, as its moves are written (P-7f); the rest, chess's a-h / 1-8.
      notation: family === 'shogi' ? Notation.SHOGI_ENGLET : Notation.ALGEBRAIC,
      autoCastle: true,
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: true },
      movable: { free: false, color: undefined, showDests: true, events: {
        after: (orig, dest, meta) => this.afterMove(orig, dest, meta),
        afterNewPiece: (piece, key) => this.afterDrop(piece, key),
      } },
      premovable: { enabled: true },
      draggable: { enabled: true, showGhost: true },
      // The engine lines' arrows (analysis): the best line's the most visible, the others
      // fainter and thinner by rank.
      drawable: { enabled: true, brushes: ENGINE_BRUSHES },
    }, top, bottom);
  }

  /** Change the board's geometry, pockets or look (another variant): rebuild the widget. */
  resize(files, ranks, pockets = null, look = null) {
    const same = (a, b) => JSON.stringify(a || null) === JSON.stringify(b || null);
    if (files === this.files && ranks === this.ranks && same(pockets, this.pockets) && same(look, this.look)) return;
    this.build(files, ranks, pockets, this.cg.state.orientation, look);
  }

  /** Mark the wrapper with the side at the bottom (shogi pieces point away from their owner). */
  setOrientation(orientation) {
    this.wrap.classList.toggle('orient-white', orientation === 'white');
    this.wrap.classList.toggle('orient-black', orientation !== 'white');
  }

  /**
   * Show a position: fen, side to move, legal moves (UCI) for `movable` ('white', 'black',
   * 'both' or undefined for none), the last move and whether the side to move is in check.
   */
  show({ fen, turn, legal = [], movable, lastMove, check, premove = false }) {
    const { dests, promos, drops, passes } = destsOf(movable ? legal : []);
    this.promos = promos;
    this.drops = drops;
    this.passes = passes;
    this.passButton.hidden = passes.length === 0;
    const last = lastMove ? lastMove.map(toKey) : undefined;
    if (fen !== this.shownFen) {
      // A new position (maybe played in another tab): a piece selected in the old one must
      // not be played in it (a premove stays: it is meant for the new position).
      this.cg.selectSquare(null);
      this.wrap.querySelectorAll('.promotion').forEach((el) => el.remove());
      this.shownFen = fen;
    }
    this.cg.set({
      fen,
      turnColor: turn,
      lastMove: last,
      check: check ? turn : false,
      movable: { color: movable, dests },
      premovable: { enabled: premove },
    });
    this.castles = this.rookGates(dests, promos);
    if (this.castles.size) this.cg.set({ movable: { dests } });
    if (movable === turn || movable === 'both') this.cg.playPremove();
  }

  /** Drop the pending premove (after a takeback or a new position). */
  cancelPremove() {
    this.cg.cancelPremove();
  }

  /** Flip the board. */
  flip() {
    this.cg.toggleOrientation();
    this.setOrientation(this.cg.state.orientation);
  }

  /** Draw engine arrows: a list of [fromSquare, toSquare, brush]. */
  arrows(list) {
    this.cg.setAutoShapes(
      list.map(([from, to, brush]) => ({ orig: toKey(from), dest: toKey(to), brush })),
    );
  }

  /**
   * Seirawan castling that gates on the rook's square is written rook-onto-king (`h1e1h`):
   * rather than let the rook land on its own king, offer those moves with the king's castling
   * move (`e1g1`) in the chooser. Takes them out of `dests`; returns king move → extra UCIs.
   */
  rookGates(dests, promos) {
    const pieces = this.cg.state.boardState.pieces;
    const castles = new Map();
    for (const [move, suffixes] of promos) {
      const [from, to] = splitUci(move) || [];
      if (!from) continue;
      const rook = pieces.get(toKey(from));
      const king = pieces.get(toKey(to));
      if (!rook || !king || rook.color !== king.color || king.role !== 'k-piece' || rook.role === 'k-piece') continue;
      // The king's castling move towards this rook: along the rank, the farthest of its moves.
      const [kf, rf] = [to.charCodeAt(0), from.charCodeAt(0)];
      const rank = to.slice(1);
      const towards = (dests.get(toKey(to)) || []).map(toSquare)
        .filter((sq) => sq.slice(1) === rank && Math.sign(sq.charCodeAt(0) - kf) === Math.sign(rf - kf));
      if (!towards.length) continue; // (no king move to attach them to: the rook's own move stays)
      const target = towards.sort((a, b) => Math.abs(b.charCodeAt(0) - kf) - Math.abs(a.charCodeAt(0) - kf))[0];
      const key = to + target;
      if (!castles.has(key)) castles.set(key, []);
      castles.get(key).push(...suffixes.map((s) => move + s));
      const left = dests.get(toKey(from)).filter((k) => k !== toKey(to));
      if (left.length) dests.set(toKey(from), left);
      else dests.delete(toKey(from));
    }
    return castles;
  }

  /** Called by chessgroundx after a user move: ask for a promotion or gating choice if there is one. */
  afterMove(orig, dest, meta) {
    const from = toSquare(orig);
    const to = toSquare(dest);
    const suffixes = this.promos.get(from + to) || [''];
    const choices = [...suffixes.map((s) => from + to + s), ...(this.castles.get(from + to) || [])];
    clickSound(Boolean(meta && meta.captured));
    if (choices.length > 1) {
      this.chooseMove(to, choices);
    } else {
      this.onMove(choices[0]);
    }
    // The server answers with the real position; until then nobody moves.
    this.cg.set({ movable: { dests: new Map() } });
  }

  /** Called by chessgroundx after a piece was dropped from a pocket: ask which side up if both may be. */
  afterDrop(piece, key) {
    clickSound(false);
    const letter = piece.role.slice(0, piece.role.indexOf('-')).toUpperCase();
    const to = toSquare(key);
    const sides = this.drops.get(`${letter}@${to}`) || [''];
    const choices = sides.map((side) => `${side}${letter}@${to}`);
    if (choices.length > 1) this.chooseMove(to, choices);
    else this.onMove(choices[0]);
    this.cg.set({ movable: { dests: new Map() } });
  }

  /** Play the pass (janggi's king staying where it is). */
  pass() {
    if (!this.passes || !this.passes.length) return;
    const move = this.passes[0];
    this.passButton.hidden = true;
    this.cg.set({ movable: { dests: new Map() } });
    this.onMove(move);
  }

  /**
   * Show the chooser over the board for the moves that end on `to` (a promotion, gating or
   * the side a piece is dropped with); cancelling restores the position.
   */
  chooseMove(to, choices) {
    const moved = this.cg.state.boardState.pieces.get(toKey(to));
    const color = moved ? moved.color : this.cg.state.turnColor;
    const base = moved ? moved.role.replace(/^p(?=.-piece$)/, '') : 'p-piece';
    // Gating (seirawan): a piece other than a pawn brings a piece in from the hand.
    const gating = Boolean(this.pockets) && base !== 'p-piece'
      && choices.some((uci) => /[a-z]$/.test(uci) && !uci.includes('@'));
    const describe = (uci) => {
      if (uci.includes('@')) {
        const promoted = uci.startsWith('+');
        return { suffix: promoted ? '+' : '', role: promoted ? `p${base}` : base, title: promoted ? 'drop promoted side up' : 'drop unpromoted side up' };
      }
      const [from, , suffix] = splitUci(uci);
      if (suffix === '') return { suffix, role: base, title: gating ? 'no gating' : 'no promotion' };
      if (suffix === '+') return { suffix, role: `p${base}`, title: 'promote' };
      if (suffix === '-') return { suffix, role: base, title: 'demote' };
      if (!gating) return { suffix, role: `${suffix}-piece`, title: `=${suffix}` };
      // The piece comes in where the move starts: the king's or (`h1e1h`) the rook's square.
      return { suffix, role: `${suffix}-piece`, title: `${GATE_NAMES[suffix] || suffix} on ${from}`, square: from };
    };
    const ordered = choices.map((uci) => ({ uci, ...describe(uci) }))
      .sort((a, b) => PROMO_ORDER.indexOf(a.suffix) - PROMO_ORDER.indexOf(b.suffix) || (a.square || '').localeCompare(b.square || ''));
    const close = () => overlay.remove();
    const label = gating ? 'Gate a piece' : (choices[0].includes('@') ? 'Drop side up' : 'Promote to');
    const overlay = h('div', { class: 'promotion', role: 'dialog', 'aria-label': label },
      h('div', { class: 'promotion-box cg-wrap' },
        ...ordered.map((c) => h('button', {
          class: 'promo-choice', 'data-piece': c.suffix || '=', 'data-uci': c.uci, title: c.title, 'aria-label': c.title,
          onclick: () => { close(); this.onMove(c.uci); },
        }, h('piece', { class: `${c.role} ${color}` }), c.square ? h('span', { class: 'promo-square' }, c.square) : null)),
        h('button', { class: 'promo-cancel', title: 'cancel', onclick: () => { close(); this.onMove(null); } },
          '✕')));
    this.wrap.append(overlay);
  }
}

// The board widget: chessgroundx driven by positions and legal moves that the server sends.

import { Chessground } from 'chessgroundx';
import { h, toKey, toSquare, destsOf, clickSound } from './util.js';
import { lookCss, familyOf } from './pieces.js';

let boardCount = 0;

// Promotion choices in the order a player expects them; '' is "do not promote".
const PROMO_ORDER = ['q', 'n', 'r', 'b', 'a', 'c', 'e', 'h', 'm', 'k', 'f', 's', 'g', '+', ''];

/** A board that only shows positions and asks `onMove(uci)` when the user plays a move. */
export class Board {
  constructor(parent, { onMove, files = 8, ranks = 8, orientation = 'white', pockets = null, look = null }) {
    this.onMove = onMove;
    this.promos = new Map();
    boardCount += 1;
    this.wrap = h('div', { class: 'board-wrap', id: `board-${boardCount}` });
    parent.append(this.wrap);
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
      autoCastle: true,
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: true },
      movable: { free: false, color: undefined, showDests: true, events: {
        after: (orig, dest, meta) => this.afterMove(orig, dest, meta),
        afterNewPiece: (piece, key) => this.afterDrop(piece, key),
      } },
      premovable: { enabled: true },
      draggable: { enabled: true, showGhost: true },
      drawable: { enabled: true },
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
    const { dests, promos } = destsOf(movable ? legal : []);
    this.promos = promos;
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

  /** Called by chessgroundx after a user move: ask for a promotion choice if there is one. */
  afterMove(orig, dest, meta) {
    const from = toSquare(orig);
    const to = toSquare(dest);
    const choices = this.promos.get(from + to) || [''];
    clickSound(Boolean(meta && meta.captured));
    if (choices.length > 1) {
      this.choosePromotion(from, to, choices);
    } else {
      this.onMove(from + to + choices[0]);
    }
    // The server answers with the real position; until then nobody moves.
    this.cg.set({ movable: { dests: new Map() } });
  }

  /** Called by chessgroundx after a piece was dropped from a pocket. */
  afterDrop(piece, key) {
    clickSound(false);
    this.onMove(`${piece.role.slice(0, piece.role.indexOf('-')).toUpperCase()}@${toSquare(key)}`);
    this.cg.set({ movable: { dests: new Map() } });
  }

  /** Show the promotion chooser over the board; cancelling restores the position. */
  choosePromotion(from, to, choices) {
    const moved = this.cg.state.boardState.pieces.get(toKey(to));
    const color = moved ? moved.color : this.cg.state.turnColor;
    const base = moved ? moved.role.replace(/^p(?=.-piece$)/, '') : 'p-piece';
    const roleFor = (suffix) => {
      if (suffix === '') return base;
      if (suffix === '+') return `p${base}`;
      return `${suffix}-piece`;
    };
    const ordered = [...choices].sort((a, b) => PROMO_ORDER.indexOf(a) - PROMO_ORDER.indexOf(b));
    const close = () => overlay.remove();
    const overlay = h('div', { class: 'promotion', role: 'dialog', 'aria-label': 'Promote to' },
      h('div', { class: 'promotion-box cg-wrap' },
        ...ordered.map((suffix) => h('button', {
          class: 'promo-choice', 'data-piece': suffix || '=', title: suffix ? `=${suffix}` : 'no promotion',
          onclick: () => { close(); this.onMove(from + to + suffix); },
        }, h('piece', { class: `${roleFor(suffix)} ${color}` }))),
        h('button', { class: 'promo-cancel', onclick: () => { close(); this.onMove(null); } },
          '✕')));
    this.wrap.append(overlay);
  }
}

// The board widget: chessgroundx driven by positions and legal moves that the server sends.

import { Chessground } from 'chessgroundx';
import { h, toKey, toSquare, destsOf, clickSound } from './util.js';

const PROMO_ORDER = ['q', 'n', 'r', 'b', 'a', 'c', 'e', 'h', 'm', 'k', 'f', 's', 'g'];

/** A board that only shows positions and asks `onMove(uci)` when the user plays a move. */
export class Board {
  constructor(parent, { onMove, files = 8, ranks = 8, orientation = 'white' }) {
    this.onMove = onMove;
    this.files = files;
    this.ranks = ranks;
    this.promos = new Map();
    this.wrap = h('div', { class: 'board-wrap' });
    this.el = h('div', { class: 'cg-board-el' });
    this.wrap.append(this.el);
    parent.append(this.wrap);
    this.setSize(files, ranks);
    this.cg = Chessground(this.el, {
      orientation,
      dimensions: { width: files, height: ranks },
      coordinates: true,
      autoCastle: true,
      animation: { enabled: true, duration: 150 },
      highlight: { lastMove: true, check: true },
      movable: { free: false, color: undefined, showDests: true,
        events: { after: (orig, dest, meta) => this.afterMove(orig, dest, meta) } },
      premovable: { enabled: true },
      draggable: { enabled: true, showGhost: true },
      drawable: { enabled: true },
    });
  }

  /** Tell the CSS how many files and ranks to lay out. */
  setSize(files, ranks) {
    this.files = files;
    this.ranks = ranks;
    this.wrap.style.setProperty('--files', files);
    this.wrap.style.setProperty('--ranks', ranks);
    this.wrap.classList.toggle('odd-ranks', ranks % 2 === 1);
  }

  /** Change the board's geometry (another variant): chessgroundx redraws everything. */
  resize(files, ranks) {
    if (files === this.files && ranks === this.ranks) return;
    this.setSize(files, ranks);
    this.cg.set({ dimensions: { width: files, height: ranks } });
    this.cg.redrawAll();
  }

  /**
   * Show a position: fen, side to move, legal moves (UCI) for `movable` ('white', 'black',
   * 'both' or undefined for none), the last move and whether the side to move is in check.
   */
  show({ fen, turn, legal = [], movable, lastMove, check, premove = false }) {
    const { dests, promos } = destsOf(movable ? legal : []);
    this.promos = promos;
    const last = lastMove ? lastMove.map(toKey) : undefined;
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
  }

  /** Set which side is at the bottom. */
  orient(color) {
    this.cg.set({ orientation: color });
  }

  /** Draw engine arrows: a list of [fromSquare, toSquare, brush]. */
  arrows(list) {
    this.cg.setAutoShapes(
      list.map(([from, to, brush]) => ({ orig: toKey(from), dest: toKey(to), brush })),
    );
  }

  /** Called by chessgroundx after a user move: ask for a promotion piece if needed. */
  afterMove(orig, dest, meta) {
    const from = toSquare(orig);
    const to = toSquare(dest);
    const choices = this.promos.get(from + to);
    clickSound(Boolean(meta && meta.captured));
    if (choices && choices.length) {
      this.choosePromotion(from, to, choices);
    } else {
      this.onMove(from + to);
    }
    // The server answers with the real position; until then nobody moves.
    this.cg.set({ movable: { dests: new Map() } });
  }

  /** Show the promotion chooser over the board; cancelling restores the position. */
  choosePromotion(from, to, choices) {
    const piece = this.cg.state.boardState.pieces.get(toKey(to));
    const color = piece ? piece.color : this.cg.state.turnColor;
    const ordered = [...choices].sort((a, b) => PROMO_ORDER.indexOf(a) - PROMO_ORDER.indexOf(b));
    const close = () => overlay.remove();
    const overlay = h('div', { class: 'promotion', role: 'dialog', 'aria-label': 'Promote to' },
      h('div', { class: 'promotion-box cg-wrap' },
        ...ordered.map((letter) => h('button', {
          class: 'promo-choice', 'data-piece': letter, title: letter.toUpperCase(),
          onclick: () => { close(); this.onMove(from + to + letter); },
        }, h('piece', { class: `${letter}-piece ${color}` }))),
        h('button', { class: 'promo-cancel', onclick: () => { close(); this.onMove(null); } },
          '✕')));
    this.wrap.append(overlay);
  }
}

// The analysis board: the engine thinks about the shown position with MultiPV lines, an
// evaluation bar and arrows; PGN/FEN import, step-through with per-move evaluation.

import { api, Socket } from './api.js';
import { Board } from './board.js';
import { h, formatScore, barShare, splitUci } from './util.js';

const BRUSHES = ['paleBlue', 'paleGreen', 'paleGrey', 'paleGrey', 'paleGrey'];

/** Open the analysis board, optionally on stored game `id`. */
export async function showAnalysis(root, id) {
  let line = { variant: 'chess', start_fen: null, moves: [], tags: {}, result: null };
  if (id) {
    try {
      const g = await api(`/api/games/${encodeURIComponent(id)}`);
      // An exported line keeps the game's players, event and result (the result only while
      // the line is the game's own).
      const tags = g.imported ? g.tags : { Event: 'ferz web game', White: g.white, Black: g.black };
      line = { variant: g.variant, start_fen: g.start_fen, moves: g.moves.map((m) => m.uci), tags, result: g.result };
    } catch (err) {
      root.replaceChildren(h('p', { class: 'error' }, err.message));
      return () => {};
    }
  }
  const view = new AnalysisView(root, line);
  return () => view.close();
}

/** How a reviewed move is marked, by the NAG the server judged it (ferz.analyse.judge). */
const MARKS = {
  6: { sign: '?!', cls: 'inaccuracy' },
  2: { sign: '?', cls: 'mistake' },
  4: { sign: '??', cls: 'blunder' },
};

class AnalysisView {
  constructor(root, line) {
    this.variant = line.variant;
    this.startFen = line.start_fen;
    this.pending = line.moves;
    this.source = { moves: line.moves.join(' '), tags: line.tags || {}, result: line.result || null };
    this.moves = []; // [{uci, san, fen}] as validated by the server
    this.ply = 0;
    this.seq = 0;
    this.lines = new Map();
    this.reviews = new Map(); // ply -> {score_cp, score_mate}
    this.position = null;
    this.barWhite = h('div', { class: 'bar-white' });
    this.barLabel = h('div', { class: 'bar-label' });
    const bar = h('div', { class: 'eval-bar', 'aria-label': 'evaluation' }, this.barWhite, this.barLabel);
    const boardBox = h('div', { class: 'board-col' });
    this.pvBox = h('div', { class: 'pvs', 'aria-label': 'Engine lines' });
    this.moveList = h('ol', { class: 'moves' });
    this.error = h('div', { class: 'error', role: 'alert' });
    this.status = h('div', { class: 'status' });
    this.multipv = h('select', { 'aria-label': 'lines', onchange: () => this.analyse() },
      ...[1, 2, 3, 4, 5].map((n) => h('option', { value: String(n), selected: n === 3 }, `${n} line${n > 1 ? 's' : ''}`)));
    this.engineOn = h('input', { type: 'checkbox', checked: true, onchange: () => this.analyse() });
    this.variantSelect = h('select', { 'aria-label': 'variant', name: 'variant', onchange: () => {
      this.variant = this.variantSelect.value;
      this.reviews = new Map();
      this.source = { moves: '', tags: {}, result: null };
      this.setLine(null, [], 0);
    } }, h('option', { value: this.variant }, this.variant));
    api('/api/meta').then((meta) => {
      const names = meta.variants.includes(this.variant) ? meta.variants : [this.variant, ...meta.variants];
      this.variantSelect.replaceChildren(...names.map((v) => h('option', { value: v, selected: v === this.variant }, v)));
    }).catch(() => {});
    const btn = (label, title, onclick) => h('button', { title, onclick, 'data-action': title.toLowerCase().split(' ')[0] }, label);
    this.pgnText = h('textarea', { rows: '5', placeholder: 'Paste a PGN or a FEN', spellcheck: 'false', 'aria-label': 'PGN or FEN' });
    const side = h('div', { class: 'side-col' },
      h('div', { class: 'engine-row' }, h('label', {}, this.engineOn, ' engine'), ' ', this.multipv, ' ', this.variantSelect, this.status),
      this.pvBox,
      this.moveList,
      h('div', { class: 'nav' },
        btn('«', 'First move', () => this.goto(0)),
        btn('‹', 'Previous move', () => this.goto(this.ply - 1)),
        btn('›', 'Next move', () => this.goto(this.ply + 1)),
        btn('»', 'Last move', () => this.goto(this.moves.length))),
      h('div', { class: 'actions' },
        btn('⇅ Flip', 'Flip the board', () => this.board.flip()),
        btn('Review', 'Review every move', () => this.review()),
        btn('FEN', 'FEN copy', () => this.copyFen()),
        btn('PGN', 'PGN export', () => this.exportPgn())),
      this.pgnText,
      h('div', { class: 'actions' }, btn('Load', 'Load PGN or FEN', () => this.load())),
      this.error);
    root.replaceChildren(h('div', { class: 'game-view analysis' }, bar, boardBox, side));
    this.board = new Board(boardBox, { onMove: (uci) => this.userMove(uci) });
    this.keys = (ev) => {
      if (ev.target.tagName === 'TEXTAREA' || ev.target.tagName === 'INPUT') return;
      if (ev.key === 'ArrowLeft') this.goto(this.ply - 1);
      else if (ev.key === 'ArrowRight') this.goto(this.ply + 1);
    };
    document.addEventListener('keydown', this.keys);
    this.socket = new Socket('/ws/analysis', {
      onMessage: (msg) => this.onMessage(msg),
      onOpen: () => this.setLine(this.startFen, this.pending, this.pending.length),
    });
  }

  close() {
    document.removeEventListener('keydown', this.keys);
    this.socket.close();
  }

  /** Ask the server to validate a line and analyse its position at `ply`. */
  setLine(fen, moves, ply) {
    this.startFen = fen;
    this.pending = moves;
    this.ply = ply;
    this.analyse();
  }

  analyse() {
    this.seq += 1;
    this.lines = new Map();
    this.error.textContent = '';
    this.socket.send({
      type: 'analyse', seq: this.seq, variant: this.variant, fen: this.startFen,
      moves: this.pending, ply: this.ply, multipv: Number(this.multipv.value), think: this.engineOn.checked,
    });
  }

  onMessage(msg) {
    if (msg.type === 'position' && msg.seq === this.seq) {
      this.position = msg;
      this.startFen = msg.start_fen;
      this.moves = msg.moves;
      this.pending = msg.moves.map((m) => m.uci);
      this.ply = msg.ply;
      this.render();
    } else if (msg.type === 'info' && msg.seq === this.seq) {
      this.lines.set(msg.info.multipv || 1, msg.info);
      this.renderLines();
    } else if (msg.type === 'queue' && msg.seq === this.seq) {
      // Games' moves go first; analyses share the engines: say when this one waits.
      if (msg.position > 0) this.status.textContent = msg.review ? 'waits for the review to end' : `waiting for the engine (${msg.position} in line)`;
      else if (/^wait/.test(this.status.textContent)) this.status.textContent = 'thinking…';
    } else if (msg.type === 'done' && msg.seq === this.seq) {
      this.status.textContent = 'paused (think-time ceiling)';
    } else if (msg.type === 'review') {
      this.reviews.set(msg.ply, msg);
      this.status.textContent = `review ${msg.ply}/${this.moves.length}`;
      this.renderMoves();
    } else if (msg.type === 'review_done') {
      this.status.textContent = 'review done';
    } else if (msg.type === 'error') {
      this.error.textContent = msg.message;
      if (this.position) this.render();
    }
  }

  userMove(uci) {
    if (uci === null) {
      this.render();
      return;
    }
    const next = this.moves[this.ply];
    const keep = next && next.uci === uci ? this.pending : this.pending.slice(0, this.ply).concat([uci]);
    if (!(next && next.uci === uci)) this.reviews = new Map();
    this.setLine(this.startFen, keep, this.ply + 1);
  }

  goto(ply) {
    const p = Math.max(0, Math.min(this.moves.length, ply));
    if (p === this.ply && this.position) return;
    this.ply = p;
    this.analyse();
  }

  load() {
    const text = this.pgnText.value.trim();
    if (!text) return;
    api('/api/import', { method: 'POST', body: { text, variant: this.variant } }).then((line) => {
      this.source = { moves: line.moves.join(' '), tags: line.tags || {}, result: line.result && line.result !== '*' ? line.result : null };
      this.variant = line.variant;
      this.variantSelect.value = line.variant;
      this.reviews = new Map();
      this.setLine(line.start_fen, line.moves, line.moves.length);
    }).catch((err) => { this.error.textContent = err.message; });
  }

  review() {
    this.reviews = new Map();
    this.socket.send({ type: 'review', variant: this.variant, fen: this.startFen, moves: this.pending });
  }

  copyFen() {
    const fen = this.position ? this.position.fen : '';
    if (navigator.clipboard) navigator.clipboard.writeText(fen).catch(() => prompt('FEN', fen));
    else prompt('FEN', fen);
  }

  async exportPgn() {
    const evals = this.moves.map((_, i) => this.reviews.get(i + 1) || null);
    try {
      const same = this.pending.join(' ') === this.source.moves;
      const body = { variant: this.variant, fen: this.startFen, moves: this.pending, evals, tags: this.source.tags, result: same ? this.source.result : null };
      const res = await api('/api/export', { method: 'POST', body });
      const blob = new Blob([res.pgn], { type: 'application/x-chess-pgn' });
      const a = h('a', { href: URL.createObjectURL(blob), download: 'ferz-analysis.pgn' });
      document.body.append(a);
      a.click();
      a.remove();
    } catch (err) {
      this.error.textContent = err.message;
    }
  }

  render() {
    const p = this.position;
    this.board.resize(p.files, p.ranks, p.pockets, p.look);
    const last = this.ply > 0 ? splitUci(this.moves[this.ply - 1].uci) : null;
    this.board.show({ fen: p.fen, turn: p.turn, legal: p.legal, movable: p.outcome ? undefined : p.turn,
      lastMove: last ? [last[0].endsWith('@') ? last[1] : last[0], last[1]] : null, check: p.check });
    this.board.arrows([]);
    this.status.textContent = p.outcome ? p.outcome : (this.engineOn.checked ? 'thinking…' : '');
    this.renderLines();
    this.renderMoves();
  }

  renderLines() {
    // Lines come one at a time, so for a moment two of them (from different depths) can start
    // with the same move: show each first move once, from its best-ranked line.
    const seen = new Set();
    const sorted = [...this.lines.values()]
      .sort((a, b) => (a.multipv || 1) - (b.multipv || 1))
      .filter((i) => {
        const first = i.pv_uci[0];
        if (seen.has(first)) return false;
        seen.add(first);
        return true;
      });
    this.pvBox.replaceChildren(...sorted.map((i) => h('div', { class: 'pv' },
      h('span', { class: 'score' }, formatScore(i.score_cp, i.score_mate)), ' ',
      h('span', { class: 'depth' }, `d${i.depth}`), ' ', i.pv_san.slice(0, 10).join(' '))));
    const best = sorted[0];
    const share = best ? barShare(best.score_cp, best.score_mate) : 0.5;
    this.barWhite.style.height = `${(share * 100).toFixed(1)}%`;
    this.barLabel.textContent = best ? formatScore(best.score_cp, best.score_mate) : '';
    this.board.arrows(sorted.filter((i) => i.pv_uci.length).map((i, n) => {
      const m = splitUci(i.pv_uci[0]);
      return [m[0].endsWith('@') ? m[1] : m[0], m[1], BRUSHES[n]];
    }));
  }

  renderMoves() {
    const items = [];
    const blackFirst = this.position && this.position.start_turn === 'black';
    let number = this.position ? this.position.start_fullmove : 1;
    let li = null;
    this.moves.forEach((m, i) => {
      const white = (i % 2 === 0) !== blackFirst;
      if (white || li === null) {
        li = h('li', { value: String(number) });
        if (!white) li.append(h('span', { class: 'move empty' }, '…'));
        items.push(li);
      }
      const mark = this.mark(i + 1);
      const review = this.reviews.get(i + 1);
      li.append(h('span', { class: `move${i + 1 === this.ply ? ' current' : ''}${mark ? ' ' + mark.cls : ''}`,
        'data-ply': String(i + 1), onclick: () => this.goto(i + 1) }, m.san + (mark ? mark.sign : ''),
        review ? h('small', { class: 'eval' }, review.outcome || formatScore(review.score_cp, review.score_mate)) : null));
      if (!white) number += 1;
    });
    this.moveList.replaceChildren(...items);
    const cur = this.moveList.querySelector('.current');
    if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
  }

  /** The mark of the move that led to `ply`, as the server's review judged it. */
  mark(ply) {
    const review = this.reviews.get(ply);
    return review ? MARKS[review.nag] || null : null;
  }
}

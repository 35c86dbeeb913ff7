// The analysis board: the engine thinks about the shown position with MultiPV lines, an
// evaluation bar and arrows; PGN/FEN import, step-through with per-move evaluation.

import { catalogue, variantOptions } from './variants.js';
import { api, Socket } from './api.js';
import { Board } from './board.js';
import { h, formatScore, barShare, splitUci, copyText } from './util.js';

// The engine lines' arrows, the best line's the most visible and the others fainter by rank
// (brushes of board.js).
const BRUSHES = ['pv1', 'pv2', 'pv3', 'pv4', 'pv5'];
const MAX_IMPORT_MB = 32; // the largest database the server takes (ferz/web/explorer.py)

/** An SVG element (h() makes HTML ones). */
function svgEl(tag, attrs = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, v);
  for (const c of children.flat()) if (c) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** White's winning chances (-1..1) of a reviewed position, lichess's curve (cp within +-1000). */
function whiteChances(r) {
  if (r.outcome) return r.outcome === '1-0' ? 1 : r.outcome === '0-1' ? -1 : 0;
  if (r.score_mate !== null && r.score_mate !== undefined) return r.score_mate > 0 ? 1 : -1;
  if (r.score_cp === null || r.score_cp === undefined) return 0;
  const cp = Math.max(-1000, Math.min(1000, r.score_cp));
  return 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
}

/** A move's category is the next side's: the mover's is the other way round. */
const FLIP = { win: 'loss', loss: 'win', 'cursed-win': 'blessed-loss', 'blessed-loss': 'cursed-win', draw: 'draw' };

/**
 * A tablebase verdict in words for the side it is given for: "win, mate in 2", "loss, mated
 * in 3", "draw", "win, DTZ 11", "win by the perpetual-check rule". `dtm` is in plies from the
 * position (`after`: 1 for a move's, counted from the position after it, so one ply more from
 * the one before); a win's mate in (plies + 1) // 2 moves, a loss's in plies // 2. `rule` names
 * the rule that decides a win or a loss that is not a mate.
 */
export function tbText(category, dtm, dtz, after = 0, rule = null) {
  const words = { win: 'win', loss: 'loss', draw: 'draw', 'cursed-win': 'win prevented by the 50-move rule',
    'blessed-loss': 'loss saved by the 50-move rule' }[category] || category;
  if (category === 'draw') return words;
  if (rule) return `${words} by the ${rule} rule`;
  if (dtm !== null && dtm !== undefined) {
    const plies = Math.abs(dtm) + after;
    if (category === 'win') return `${words}, mate in ${Math.floor((plies + 1) / 2)}`;
    if (category === 'loss') return plies ? `${words}, mated in ${Math.floor(plies / 2)}` : `${words}, mated`;
  }
  if (dtz !== null && dtz !== undefined && dtz !== 0) return `${words}, DTZ ${Math.abs(dtz)}`;
  return words;
}

/** The side to move and the move number of a FEN (the last number of its fields). */
export function fenTurn(fen) {
  const fields = (fen || '').split(' ');
  const numbers = fields.slice(2).filter((f) => /^\d+$/.test(f));
  return { white: fields[1] !== 'b', number: numbers.length ? Math.max(1, Number(numbers[numbers.length - 1])) : 1 };
}

/**
 * Moves as players write a line from a position: "12. Nf3 Nc6 13. Bb5", or "12... Nc6 13. Bb5"
 * from Black's move. Returns [{num, text, index}] (num: the number written before the move).
 */
export function numbered(texts, white, number) {
  return texts.map((text, index) => {
    const isWhite = (index % 2 === 0) === white;
    const n = number + Math.floor((index + (white ? 0 : 1)) / 2);
    const num = isWhite ? `${n}.` : index === 0 ? `${n}...` : null;
    return { num, text, index };
  });
}

/** Open the analysis board, optionally on stored game `id` (its tree of moves is kept with it). */
export async function showAnalysis(root, id) {
  let line = { variant: 'chess', start_fen: null, tree: { comment: '', nodes: [] }, tags: {}, result: null, id: null };
  if (id) {
    try {
      const g = await api(`/api/games/${encodeURIComponent(id)}`);
      const kept = await api(`/api/games/${encodeURIComponent(id)}/tree`);
      // An exported line keeps the game's players, event and result (the result only while
      // the main line is the game's own).
      const tags = g.imported ? g.tags : { Event: 'ferz web game', White: g.white, Black: g.black };
      line = { variant: g.variant, start_fen: g.start_fen, tree: kept.tree, tags, result: g.result, id, moves: g.moves.map((m) => m.uci) };
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

/** The glyphs of the usual NAGs (PGN standard and lichess's set); others show as $n. */
export const GLYPHS = {
  1: '!', 2: '?', 3: '!!', 4: '??', 5: '!?', 6: '?!', 7: '□', 10: '=', 13: '∞', 14: '⩲', 15: '⩱',
  16: '±', 17: '∓', 18: '+−', 19: '−+', 22: '⨀', 32: '⟳', 36: '→', 40: '↑', 132: '⇆', 146: 'N',
};

/** A flat tree from the server ({comment, nodes: [{parent, uci, text, ...}]}) with child lists. */
function indexTree(tree) {
  const nodes = tree.nodes.map((n) => ({ ...n, children: [] }));
  const root = { children: [], comment: tree.comment || '', path: [] };
  nodes.forEach((n) => {
    const parent = n.parent < 0 ? root : nodes[n.parent];
    n.path = parent.path.concat([n.uci]);
    n.up = parent;
    parent.children.push(n);
  });
  return root;
}

/** A tree as the server takes it back: only what it keeps (it works out the notations). */
function bare(tree) {
  const nodes = tree.nodes.map((n) => {
    const out = { parent: n.parent, uci: n.uci };
    if (n.comment) out.comment = n.comment;
    if (n.start) out.start = n.start;
    if (n.nags && n.nags.length) out.nags = n.nags;
    return out;
  });
  return tree.comment ? { comment: tree.comment, nodes } : { nodes };
}

/** The node a path of UCI moves leads to from `root`, or null. */
function nodeAt(root, path) {
  let node = root;
  for (const uci of path) {
    node = node.children.find((c) => c.uci === uci);
    if (!node) return null;
  }
  return node;
}

/** The UCI moves of the main line below `node`. */
function mainline(node) {
  const out = [];
  for (let n = node.children[0]; n; n = n.children[0]) out.push(n.uci);
  return out;
}

class AnalysisView {
  constructor(root, line) {
    this.variant = line.variant;
    this.startFen = line.start_fen;
    this.gameId = line.id || null; // a stored game: every edit of the tree is kept with it
    this.setTree(line.tree);
    this.path = mainline(this.root);
    this.source = { moves: (line.moves || this.path).join(' '), tags: line.tags || {}, result: line.result || null };
    this.moves = []; // the shown path's moves [{uci, san, fen}] as validated by the server
    this.seq = 0;
    this.lines = new Map();
    this.reviews = new Map(); // ply of the main line -> {score_cp, score_mate, nag}
    this.reviewed = '';
    this.position = null;
    this.barWhite = h('div', { class: 'bar-white' });
    this.barLabel = h('div', { class: 'bar-label' });
    const bar = h('div', { class: 'eval-bar', 'aria-label': 'evaluation' }, this.barWhite, this.barLabel);
    const boardBox = h('div', { class: 'board-col' });
    this.pvBox = h('div', { class: 'pvs', 'aria-label': 'Engine lines' });
    // The endgame tables' verdict on the shown position, when the server has tables for it.
    this.tbBox = h('div', { class: 'tablebase', 'aria-label': 'Tablebase', hidden: true });
    this.tbCache = new Map(); // variant + FEN -> the answer (null: not covered)
    this.noTables = new Set(); // variants the server has no tables for (404)
    // The opening explorer: the moves played from the shown position in the games the server
    // knows (its finished games and the databases imported here), hidden where there are none.
    this.exBox = h('div', { class: 'explorer', 'aria-label': 'Opening explorer', hidden: true });
    this.exCache = new Map(); // variant + FEN -> the answer
    this.moveList = h('div', { class: 'moves tree', 'aria-label': 'Moves' });
    this.error = h('div', { class: 'error', role: 'alert' });
    this.status = h('div', { class: 'status' });
    this.multipv = h('select', { 'aria-label': 'lines', onchange: () => this.analyse() },
      ...[1, 2, 3, 4, 5].map((n) => h('option', { value: String(n), selected: n === 3 }, `${n} line${n > 1 ? 's' : ''}`)));
    this.engineOn = h('input', { type: 'checkbox', checked: true, onchange: () => this.analyse() });
    this.variantSelect = h('select', { 'aria-label': 'variant', name: 'variant', onchange: () => {
      this.variant = this.variantSelect.value;
      this.reviews = new Map();
      this.source = { moves: '', tags: {}, result: null };
      this.gameId = null;
      this.keepAddress();
      this.startFen = null;
      this.setTree({ comment: '', nodes: [] });
      this.goto([]);
    } }, h('option', { value: this.variant }, this.variant));
    catalogue().then((cat) => {
      this.cat = cat;
      // the variants by family under their names (one the catalogue lacks first, by its own)
      const own = cat.byName.has(this.variant) ? [] : [h('option', { value: this.variant, selected: true }, this.variant)];
      this.variantSelect.replaceChildren(...own, ...variantOptions(cat, this.variant));
    }).catch(() => {});
    const btn = (label, title, onclick) => h('button', { title, onclick, 'data-action': title.toLowerCase().split(' ')[0] }, label);
    this.pgnText = h('textarea', { rows: '5', placeholder: 'Paste a PGN or a FEN', spellcheck: 'false', 'aria-label': 'PGN or FEN' });
    // What can be done to the shown move: promote its line, delete it, mark it, comment it.
    this.promoteBtn = btn('↑ Main line', 'Promote this variation to the main line', () => this.edit({ op: 'promote', path: this.path }));
    this.deleteBtn = btn('✕ Delete', 'Delete this move and what follows', () => this.edit({ op: 'delete', path: this.path }));
    this.nagSelect = h('select', { name: 'nag', 'aria-label': 'glyph', onchange: () => {
      const nag = Number(this.nagSelect.value);
      this.edit({ op: 'nags', path: this.path, nags: nag ? [nag] : [] });
    } }, h('option', { value: '0' }, 'glyph'), ...Object.entries(GLYPHS).map(([n, g]) => h('option', { value: n }, g)));
    this.commentText = h('input', { type: 'text', name: 'comment', maxlength: '2000', placeholder: 'Comment on this move', spellcheck: 'false', 'aria-label': 'comment',
      onkeydown: (ev) => { if (ev.key === 'Enter') this.edit({ op: 'comment', path: this.path, comment: this.commentText.value }); } });
    const tools = h('div', { class: 'node-tools' },
      h('div', { class: 'actions' }, this.promoteBtn, this.deleteBtn, this.nagSelect),
      this.commentText,
      h('div', { class: 'actions' },
        btn('Save comment', 'Comment save', () => this.edit({ op: 'comment', path: this.path, comment: this.commentText.value })),
        btn('Remove comment', 'Uncomment this move', () => this.edit({ op: 'comment', path: this.path, comment: '' }))));
    // A PGN database for the explorer: sent as it is, its games counted by the server, which
    // tells how far it is as it goes (lines of JSON).
    this.dbFile = h('input', { type: 'file', name: 'database', accept: '.pgn,application/x-chess-pgn,text/plain', hidden: true,
      'aria-label': 'PGN database', onchange: () => this.importDatabase() });
    this.importStatus = h('div', { class: 'import-status', role: 'status' });
    const side = h('div', { class: 'side-col' },
      h('div', { class: 'engine-row' }, h('label', {}, this.engineOn, ' engine'), ' ', this.multipv, ' ', this.variantSelect, this.status),
      this.pvBox,
      this.tbBox,
      this.exBox,
      this.moveList,
      h('div', { class: 'nav' },
        btn('«', 'First move', () => this.goto([])),
        btn('‹', 'Previous move', () => this.goto(this.path.slice(0, -1))),
        btn('›', 'Next move', () => this.next()),
        btn('»', 'Last move', () => this.goto(this.path.concat(mainline(this.node() || this.root))))),
      tools,
      h('div', { class: 'actions' },
        btn('⇅ Flip', 'Flip the board', () => this.board.flip()),
        btn('Review', 'Review every move of the main line', () => this.review()),
        btn('FEN', 'FEN copy', (ev) => this.copyFen(ev.currentTarget)),
        btn('PGN', 'PGN export', () => this.exportPgn())),
      this.pgnText,
      h('div', { class: 'actions' }, btn('Load', 'Load PGN or FEN', () => this.load()),
        btn('Import a database', 'Database import: every game of a PGN file into the opening explorer', () => this.dbFile.click())),
      this.dbFile,
      this.importStatus,
      this.error);
    this.bar = bar;
    this.boardBox = boardBox;
    root.replaceChildren(h('div', { class: 'game-view analysis' }, bar, boardBox, side));
    this.board = new Board(boardBox, { onMove: (uci) => this.userMove(uci) });
    // The review under the board: the evaluation graph (a point a move; a click goes there)
    // and each side's figures, judged as `ferz analyse` judges them (by the server).
    this.graph = h('div', { class: 'eval-graph', 'aria-label': 'Evaluation graph' });
    this.summaryBox = h('div', { class: 'review-summary', 'aria-label': 'Review summary' });
    this.reviewBox = h('div', { class: 'review-box', hidden: true }, this.graph, this.summaryBox);
    boardBox.append(this.reviewBox);
    this.summary = null;
    // The bar is exactly as tall as the board (not its column, nor the panel beside it), at
    // every layout: it follows the board's box whenever the board or the window changes.
    this.fitBar = () => this.sizeBar();
    this.resizer = typeof ResizeObserver === 'function' ? new ResizeObserver(this.fitBar) : null;
    if (this.resizer) this.resizer.observe(boardBox);
    window.addEventListener('resize', this.fitBar);
    this.sizeBar();
    this.keys = (ev) => {
      if (['TEXTAREA', 'INPUT', 'SELECT'].includes(ev.target.tagName)) return;
      if (ev.key === 'ArrowLeft') this.goto(this.path.slice(0, -1));
      else if (ev.key === 'ArrowRight') this.next();
      else if (ev.key === 'ArrowUp' || ev.key === 'ArrowDown') this.sibling(ev.key === 'ArrowUp' ? -1 : 1);
      else return;
      ev.preventDefault();
    };
    document.addEventListener('keydown', this.keys);
    this.socket = new Socket('/ws/analysis', {
      onMessage: (msg) => this.onMessage(msg),
      onOpen: () => this.analyse(),
    });
  }

  close() {
    document.removeEventListener('keydown', this.keys);
    window.removeEventListener('resize', this.fitBar);
    if (this.resizer) this.resizer.disconnect();
    this.socket.close();
  }

  /** Give the bar the board's height and top (the board square, not its pockets). */
  sizeBar() {
    const el = this.boardBox.querySelector('cg-board') || this.boardBox.querySelector('.cg-board-el');
    if (!el) return;
    const box = el.getBoundingClientRect();
    const col = this.boardBox.getBoundingClientRect();
    if (!box.height) return;
    this.bar.style.height = `${box.height.toFixed(2)}px`;
    this.bar.style.marginTop = `${Math.max(0, box.top - col.top).toFixed(2)}px`;
  }

  /** Ask the server's tables about the shown position (up to 7 pieces) and show their answer. */
  async tablebase(p) {
    const variant = this.variant;
    const key = `${variant} ${p.fen}`;
    this.tbKey = key;
    const pieces = (p.fen.split(' ')[0].split('[')[0].match(/[a-zA-Z]/g) || []).length;
    if (p.outcome || pieces > 7 || this.noTables.has(variant)) {
      this.showTablebase(null);
      return;
    }
    if (!this.tbCache.has(key)) {
      this.showTablebase(null);
      let answer = null;
      try {
        const res = await fetch(`/api/tablebase?fen=${encodeURIComponent(p.fen)}&variant=${encodeURIComponent(variant)}`);
        if (res.status === 404) this.noTables.add(variant);
        if (res.ok) answer = await res.json();
      } catch {
        return; // offline: nothing to show, asked again at the next position
      }
      this.tbCache.set(key, answer);
      if (this.tbCache.size > 500) this.tbCache.delete(this.tbCache.keys().next().value);
    }
    if (this.tbKey === key) this.showTablebase(this.tbCache.get(key));
  }

  /**
   * The tables' verdict as lichess shows it: "Tablebase: win, mate in 2" (ferz's own tables,
   * distance to mate in plies) or "win, DTZ 11" (Syzygy), and the moves best first, each with
   * what it leads to for the side playing it; a click plays the move. Nothing where the
   * position is not in the tables.
   */
  showTablebase(answer) {
    if (!answer || !answer.category || answer.category === 'unknown') {
      this.tbBox.hidden = true;
      this.tbBox.replaceChildren();
      return;
    }
    const moves = (answer.moves || []).filter((m) => m.category !== 'unknown').slice(0, 8);
    this.tbBox.hidden = false;
    this.tbBox.replaceChildren(
      h('div', { class: `tb-verdict tb-${answer.category}` }, 'Tablebase: ', h('strong', {}, tbText(answer.category, answer.dtm, answer.dtz, 0, answer.rule))),
      h('div', { class: 'tb-moves' }, ...moves.map((m) => {
        const mine = FLIP[m.category] || m.category;
        return h('button', { type: 'button', class: `tb-move tb-${mine}`, 'data-uci': m.uci, title: 'Play this move',
          onclick: () => this.playLine([m.uci]) },
        h('span', { class: 'tb-san' }, m.text || m.san), ' ', h('span', { class: 'tb-what' }, tbText(mine, m.dtm, m.dtz, 1, m.rule)));
      })));
  }

  /** Ask the explorer which moves were played from the shown position, and show them. */
  async explore(p) {
    const variant = this.variant;
    const key = `${variant} ${p.fen}`;
    this.exKey = key;
    if (!this.exCache.has(key)) {
      let answer = null;
      try {
        const res = await fetch(`/api/explorer?fen=${encodeURIComponent(p.fen)}&variant=${encodeURIComponent(variant)}`);
        if (res.ok) answer = await res.json();
      } catch {
        return; // offline: asked again at the next position
      }
      this.exCache.set(key, answer);
      if (this.exCache.size > 500) this.exCache.delete(this.exCache.keys().next().value);
    }
    if (this.exKey === key) this.showExplorer(this.exCache.get(key));
  }

  /**
   * The explorer's moves as lichess shows them: the move, its games, a bar of White's wins,
   * draws and Black's wins, the games' average rating; a click plays the move.
   */
  showExplorer(answer) {
    const moves = answer ? answer.moves || [] : [];
    if (!moves.length) {
      this.exBox.hidden = true;
      this.exBox.replaceChildren();
      return;
    }
    const pct = (n, of) => (of ? (100 * n) / of : 0);
    const bar = (m) => {
      const decided = m.white + m.draws + m.black;
      const part = (cls, n) => {
        const share = pct(n, decided);
        return h('span', { class: cls, style: `width:${share.toFixed(1)}%`, title: `${share.toFixed(0)}%` }, share >= 12 ? `${share.toFixed(0)}%` : '');
      };
      return h('div', { class: 'ex-bar' }, part('ex-white', m.white), part('ex-draws', m.draws), part('ex-black', m.black));
    };
    const row = (m, total) => h('tr', { class: 'ex-move', 'data-uci': m.uci, title: 'Play this move', onclick: () => this.playLine([m.uci]) },
      h('td', { class: 'ex-san' }, m.text || m.san),
      h('td', { class: 'ex-share' }, `${pct(m.games, total).toFixed(0)}%`),
      h('td', { class: 'ex-games' }, h('span', { class: 'ex-count' }, String(m.games))),
      h('td', { class: 'ex-rating' }, m.averageRating ? String(m.averageRating) : ''),
      h('td', { class: 'ex-score' }, bar(m)));
    this.exBox.hidden = false;
    this.exBox.replaceChildren(
      h('div', { class: 'ex-title' }, 'Opening explorer ', h('span', { class: 'ex-total' }, `${answer.games} game${answer.games === 1 ? '' : 's'}`)),
      h('table', {}, h('tbody', {}, ...moves.slice(0, 12).map((m) => row(m, answer.games)),
        h('tr', { class: 'ex-sum' }, h('td', {}, 'Σ'), h('td', {}), h('td', {}, String(answer.games)), h('td', {}), h('td', {}, bar(answer))))));
  }

  /** Send the chosen PGN file to the explorer, showing how many games are counted so far. */
  async importDatabase() {
    const file = this.dbFile.files && this.dbFile.files[0];
    this.dbFile.value = '';
    if (!file) return;
    this.error.textContent = '';
    if (file.size > MAX_IMPORT_MB * 1024 * 1024) { // the server refuses it too (413): not sent
      this.error.textContent = `the PGN is over ${MAX_IMPORT_MB} MB, the most ferz web imports at once: split it, or build a book from it with \`ferz book build\`, which reads a file of any size`;
      return;
    }
    this.importStatus.textContent = `importing ${file.name}…`;
    let report = null;
    try {
      const res = await fetch(`/api/explorer/import?variant=${encodeURIComponent(this.variant)}`,
        { method: 'POST', body: file, headers: { 'content-type': 'application/x-chess-pgn' } });
      if (!res.ok) {
        let message = `${res.status} ${res.statusText}`;
        try { message = (await res.json()).error || message; } catch { /* not JSON */ }
        throw new Error(message);
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        const lines = text.split('\n');
        text = lines.pop();
        for (const line of lines.filter((l) => l.trim())) {
          const msg = JSON.parse(line);
          if (msg.done) report = msg;
          else this.importStatus.textContent = `importing… ${msg.games} games${msg.bad ? ` (${msg.bad} bad)` : ''}`;
        }
      }
      if (text.trim()) report = JSON.parse(text);
      if (!report || report.error) throw new Error(report ? report.error : 'the import was cut off');
    } catch (err) {
      this.importStatus.textContent = '';
      this.error.textContent = err.message;
      return;
    }
    const bad = report.bad ? `; ${report.bad} bad game${report.bad === 1 ? '' : 's'} left out${report.errors.length ? ` (${report.errors[0].error}${report.bad > 1 ? ', …' : ''})` : ''}` : '';
    this.importStatus.textContent = `Imported ${report.indexed} game${report.indexed === 1 ? '' : 's'} into the explorer${bad}.`;
    this.exCache.clear();
    if (this.position) this.explore(this.position);
  }

  /** The address names the stored game the board edits (a reload comes back to it). */
  keepAddress() {
    history.replaceState(null, '', this.gameId ? `#/analysis/${this.gameId}` : '#/analysis');
  }

  /** Take a tree from the server (flat) and index it. */
  setTree(tree) {
    this.tree = tree;
    this.root = indexTree(tree);
  }

  /** The shown node (the root at the start). */
  node() {
    return nodeAt(this.root, this.path);
  }

  /** Show the node at `path` and think about it. */
  goto(path) {
    if (!nodeAt(this.root, path)) return;
    this.path = path;
    this.analyse();
  }

  /** The previous (-1) or next (1) alternative to the shown move. */
  sibling(step) {
    const node = this.node();
    if (!node || !node.up) return;
    const at = node.up.children.indexOf(node) + step;
    if (at >= 0 && at < node.up.children.length) this.goto(node.up.children[at].path);
  }

  /** One move forward along the line below the shown node. */
  next() {
    const node = this.node();
    if (node && node.children.length) this.goto(this.path.concat([node.children[0].uci]));
  }

  /** Ask the server to validate the shown path and analyse its last position. */
  analyse() {
    this.seq += 1;
    this.lines = new Map();
    this.error.textContent = '';
    this.socket.send({
      type: 'analyse', seq: this.seq, variant: this.variant, fen: this.startFen,
      moves: this.path, ply: this.path.length, multipv: Number(this.multipv.value), think: this.engineOn.checked,
    });
  }

  /**
   * Change the tree (add a move, promote, delete, comment, glyph) on the server, which keeps it
   * with a stored game; then show the node it names.
   */
  async edit(op) {
    try {
      const res = this.gameId
        ? await api(`/api/games/${encodeURIComponent(this.gameId)}/tree`, { method: 'POST', body: op })
        : await api('/api/tree', { method: 'POST', body: { ...op, variant: this.variant, fen: this.startFen, tree: bare(this.tree) } });
      const before = mainline(this.root).join(' ');
      this.setTree(res.tree);
      if (mainline(this.root).join(' ') !== before) this.reviews = new Map(); // marks of another line
      this.path = res.path;
      this.analyse();
    } catch (err) {
      this.error.textContent = err.message;
      if (this.position) this.render();
    }
  }

  onMessage(msg) {
    if (msg.type === 'position' && msg.seq === this.seq) {
      this.position = msg;
      this.startFen = msg.start_fen;
      this.moves = msg.moves;
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
      // the positions come last first, a verified one again: count the positions scored
      this.status.textContent = `review ${this.reviews.size}/${this.reviewed.split(' ').filter(Boolean).length + 1}`;
      this.renderMoves();
    } else if (msg.type === 'review_done') {
      this.summary = msg.summary || null;
      this.status.textContent = 'review done';
      this.renderReview();
    } else if (msg.type === 'error') {
      this.error.textContent = msg.message;
      if (this.position) this.render();
    }
  }

  /** A move made on the board: a new one starts a variation, a known one is followed. */
  userMove(uci) {
    if (uci === null) {
      this.render();
      return;
    }
    const known = (this.node() || this.root).children.find((c) => c.uci === uci);
    if (known) this.goto(this.path.concat([uci]));
    else this.edit({ op: 'add', path: this.path, uci });
  }

  load() {
    const text = this.pgnText.value.trim();
    if (!text) return;
    api('/api/import', { method: 'POST', body: { text, variant: this.variant } }).then((line) => {
      this.source = { moves: line.moves.join(' '), tags: line.tags || {}, result: line.result && line.result !== '*' ? line.result : null };
      this.variant = line.variant;
      this.variantSelect.value = line.variant;
      this.reviews = new Map();
      this.startFen = line.start_fen;
      // A PGN is stored as a game: the board now edits that game's tree, and a reload keeps it.
      this.gameId = line.id || null;
      this.keepAddress();
      this.setTree(line.tree || { comment: '', nodes: [] });
      this.goto(mainline(this.root));
    }).catch((err) => { this.error.textContent = err.message; });
  }

  review() {
    this.reviews = new Map();
    this.summary = null;
    this.reviewed = mainline(this.root).join(' ');
    this.socket.send({ type: 'review', variant: this.variant, fen: this.startFen, moves: mainline(this.root) });
  }

  copyFen(button) {
    copyText(this.position ? this.position.fen : '', button, 'FEN');
  }

  async exportPgn() {
    const main = mainline(this.root);
    const keep = ['score_cp', 'score_mate', 'ply', 'best', 'outcome', 'type', 'nag', 'loss'];
    const evals = main.map((_, i) => {
      const r = this.reviews.get(i + 1);
      return r ? Object.fromEntries(keep.filter((k) => k in r).map((k) => [k, r[k]])) : null;
    });
    try {
      const same = main.join(' ') === this.source.moves;
      const body = { variant: this.variant, fen: this.startFen, moves: main, evals, tags: this.source.tags, result: same ? this.source.result : null, tree: bare(this.tree) };
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
    const ply = this.path.length;
    const last = ply > 0 && this.moves[ply - 1] ? splitUci(this.moves[ply - 1].uci) : null;
    this.board.show({ fen: p.fen, turn: p.turn, legal: p.legal, movable: p.outcome ? undefined : p.turn,
      lastMove: last ? [last[0].endsWith('@') ? last[1] : last[0], last[1]] : null, check: p.check });
    this.board.arrows([]);
    this.sizeBar();
    this.tablebase(p);
    this.explore(p);
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
    const p = this.position;
    const { white, number } = fenTurn(p ? p.fen : '');
    // Each line with its move numbers ("12. Nf3 Nc6 13. ..." or "12... Nc6"); a click on a move
    // plays the line up to it, a click elsewhere on the line its first move.
    this.pvBox.replaceChildren(...sorted.map((i) => h('div', { class: 'pv', title: 'Play this line',
      'data-multipv': String(i.multipv || 1), onclick: (ev) => {
        const at = ev.target.closest('[data-index]');
        this.playLine(i.pv_uci.slice(0, at ? Number(at.dataset.index) + 1 : 1));
      } },
      h('span', { class: 'score' }, formatScore(i.score_cp, i.score_mate)), ' ',
      h('span', { class: 'depth' }, `d${i.depth}`), ' ',
      ...numbered(i.pv_san.slice(0, 12), white, number).flatMap((m) => [
        m.num ? h('span', { class: 'num' }, m.num) : null, m.num ? ' ' : null,
        h('span', { class: 'pv-move', 'data-index': String(m.index) }, m.text), ' ',
      ]))));
    const best = sorted[0];
    this.setBar(best ? this.share(best.score_cp, best.score_mate) : this.endShare(), best ? formatScore(best.score_cp, best.score_mate) : null);
    this.board.arrows(sorted.filter((i) => i.pv_uci.length).map((i, n) => {
      const m = splitUci(i.pv_uci[0]);
      return [m[0].endsWith('@') ? m[1] : m[0], m[1], BRUSHES[n] || BRUSHES[BRUSHES.length - 1]];
    }));
  }

  /**
   * White's share (0..1) of the bar for a score from White's side: a mate puts it at the end
   * of the scale (#0, the side to move mated, at the mated side's end).
   */
  share(cp, mate) {
    if (mate === 0) return this.position && this.position.turn === 'black' ? 1 : 0;
    return barShare(cp, mate);
  }

  /** The bar of a finished game (the winner's end, a draw in the middle), else 0.5 (no line yet). */
  endShare() {
    const outcome = this.position && this.position.outcome;
    if (!outcome) return 0.5;
    return outcome.startsWith('1-0') ? 1 : outcome.startsWith('0-1') ? 0 : 0.5;
  }

  setBar(share, label) {
    this.barWhite.style.height = `${(share * 100).toFixed(1)}%`;
    this.bar.dataset.share = share.toFixed(3);
    const outcome = this.position && this.position.outcome;
    this.barLabel.textContent = label || (outcome ? outcome.split(' ')[0] : '');
  }

  /** Play the moves of an engine line from the shown position (each as a move on the board). */
  async playLine(ucis) {
    let path = this.path;
    for (const uci of ucis) {
      const known = (nodeAt(this.root, path) || this.root).children.find((c) => c.uci === uci);
      if (known) {
        path = path.concat([uci]);
        continue;
      }
      try {
        const op = { op: 'add', path, uci };
        const res = this.gameId
          ? await api(`/api/games/${encodeURIComponent(this.gameId)}/tree`, { method: 'POST', body: op })
          : await api('/api/tree', { method: 'POST', body: { ...op, variant: this.variant, fen: this.startFen, tree: bare(this.tree) } });
        this.setTree(res.tree);
        path = res.path;
      } catch (err) {
        this.error.textContent = err.message;
        break;
      }
    }
    this.path = path;
    this.analyse();
  }

  /**
   * The move tree as lichess shows it: the main line, and each variation in parentheses after
   * the move it replaces, nested; comments in braces' place, glyphs after the moves. Main-line
   * moves carry their ply (`data-ply`), every move its path (`data-path`).
   */
  renderMoves() {
    const p = this.position;
    const blackFirst = p && p.start_turn === 'black';
    const firstMove = p ? p.start_fullmove : 1;
    const current = this.path.join(' ');
    const out = [];
    if (this.root.comment) out.push(h('span', { class: 'comment' }, this.root.comment));
    // `force`: write the move number even for Black (after a variation or a comment)
    const moveSpan = (node, ply, onMain, force) => {
      const white = (ply % 2 === 1) !== blackFirst;
      const number = firstMove + Math.floor((ply - (blackFirst ? 0 : 1)) / 2);
      const parts = [];
      if (node.start) parts.push(h('span', { class: 'comment' }, node.start));
      if (white || force) parts.push(h('span', { class: 'num' }, white ? `${number}.` : `${number}…`));
      const mark = onMain ? this.mark(ply) : null;
      const review = onMain ? this.reviews.get(ply) : null;
      const glyphs = (node.nags || []).filter((n) => !(mark && n === Number(Object.keys(MARKS).find((k) => MARKS[k] === mark))))
        .map((n) => GLYPHS[n] || `$${n}`).join('');
      const key = node.path.join(' ');
      const attrs = { class: `move${onMain ? ' main' : ''}${key === current ? ' current' : ''}${mark ? ' ' + mark.cls : ''}`,
        'data-path': key, onclick: () => this.goto(node.path) };
      if (onMain) attrs['data-ply'] = String(ply);
      parts.push(h('span', attrs, node.text || node.san, mark ? mark.sign : '', glyphs ? h('span', { class: 'glyph' }, glyphs) : null,
        review ? h('small', { class: 'eval' }, review.outcome || formatScore(review.score_cp, review.score_mate)) : null));
      if (node.comment) parts.push(h('span', { class: 'comment' }, node.comment));
      return parts.flatMap((part) => [part, ' ']); // spaced as PGN is, for reading and copying
    };
    // A line from `node` (whose children continue it), written as flat parts with nested
    // variations; iterative over the main line, recursive only into variations.
    const line = (node, ply, onMain, force) => {
      const parts = [];
      let n = node;
      let p2 = ply;
      let f = force;
      while (n.children.length) {
        const [main, ...others] = n.children;
        parts.push(...moveSpan(main, p2 + 1, onMain, f));
        f = Boolean(main.comment);
        for (const alt of others) {
          const inner = [...moveSpan(alt, p2 + 1, false, true), ...line(alt, p2 + 1, false, Boolean(alt.comment))];
          parts.push(h('span', { class: 'variation' }, '(', ...inner.slice(0, -1), ')'), ' ');
          f = true;
        }
        n = main;
        p2 += 1;
      }
      return parts;
    };
    out.push(...line(this.root, 0, true, true));
    this.moveList.replaceChildren(...out);
    const cur = this.moveList.querySelector('.current');
    if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
    const node = this.node();
    const onMove = Boolean(node && node !== this.root);
    this.promoteBtn.disabled = !onMove || node.up.children[0] === node && this.onMainline(node);
    this.deleteBtn.disabled = !onMove;
    this.nagSelect.disabled = !onMove;
    this.nagSelect.value = onMove && node.nags && node.nags.length && GLYPHS[node.nags[0]] ? String(node.nags[0]) : '0';
    if (document.activeElement !== this.commentText) this.commentText.value = onMove ? node.comment || '' : this.root.comment;
    this.renderReview();
  }

  /** The main line's moves that were reviewed (the review is of the main line as it stood). */
  reviewedMoves() {
    const main = mainline(this.root);
    return this.reviews.size && this.reviewed === main.join(' ') ? main : null;
  }

  /** The evaluation graph and the summary under the board, while a review of the main line holds. */
  renderReview() {
    const main = this.reviewedMoves();
    this.reviewBox.hidden = !main || !main.length;
    if (this.reviewBox.hidden) return;
    const n = main.length;
    const W = 600;
    const H = 120;
    const pad = 4;
    const x = (ply) => (n === 1 ? W / 2 : pad + ((ply - 1) * (W - 2 * pad)) / (n - 1));
    const y = (w) => H / 2 - (w * (H / 2 - pad));
    const points = [];
    for (let ply = 1; ply <= n; ply += 1) {
      const r = this.reviews.get(ply);
      if (r) points.push({ ply, x: x(ply), y: y(whiteChances(r)), mark: MARKS[r.nag] || null, r });
    }
    const current = this.onMainline(this.node() || this.root) ? this.path.length : 0;
    const line = points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    const area = points.length ? `${points[0].x.toFixed(1)},${H} ${line} ${points[points.length - 1].x.toFixed(1)},${H}` : '';
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'graph', role: 'img',
      'aria-label': `White's winning chances after each of the ${n} moves` },
    svgEl('rect', { x: 0, y: 0, width: W, height: H, class: 'graph-bg' }),
    area ? svgEl('polygon', { points: area, class: 'graph-white' }) : null,
    svgEl('line', { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: 'graph-mid' }),
    line ? svgEl('polyline', { points: line, class: 'graph-line' }) : null,
    current > 0 && current <= n ? svgEl('line', { x1: x(current), x2: x(current), y1: 0, y2: H, class: 'graph-now' }) : null,
    ...points.map((p) => svgEl('circle', { cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: p.mark ? 5 : 3,
      class: `graph-point${p.mark ? ' ' + p.mark.cls : ''}${p.ply === current ? ' current' : ''}`, 'data-ply': String(p.ply) },
    svgEl('title', {}, `${this.moveLabel(p.ply)} ${p.r.outcome || formatScore(p.r.score_cp, p.r.score_mate)}${p.mark ? ' ' + p.mark.sign : ''}`))));
    // A click anywhere on the graph goes to the nearest move's position.
    svg.addEventListener('click', (ev) => {
      const box = svg.getBoundingClientRect();
      const at = ((ev.clientX - box.left) / box.width) * W;
      let best = 1;
      for (let ply = 1; ply <= n; ply += 1) if (Math.abs(x(ply) - at) < Math.abs(x(best) - at)) best = ply;
      this.goto(main.slice(0, best));
    });
    this.graph.replaceChildren(svg);
    this.summaryBox.replaceChildren(...this.summaryRows());
  }

  /** "12. Nf3" / "12... Nc6": the main-line move that led to `ply`. */
  moveLabel(ply) {
    const { white, number } = fenTurn(this.position ? this.position.start_fen : '');
    const isWhite = ((ply - 1) % 2 === 0) === white;
    const num = number + Math.floor((ply - 1 + (white ? 0 : 1)) / 2);
    const n = nodeAt(this.root, mainline(this.root).slice(0, ply));
    return `${num}${isWhite ? '.' : '...'} ${n ? n.text || n.san || n.uci : ''}`;
  }

  /** Each side's inaccuracies, mistakes, blunders, average centipawn loss and accuracy. */
  summaryRows() {
    if (!this.summary) {
      const total = this.reviewed.split(' ').filter(Boolean).length + 1;
      return [h('p', { class: 'muted' }, `Reviewing… ${this.reviews.size}/${total} positions`)];
    }
    const entry = this.cat ? this.cat.byName.get(this.variant) : null;
    const sides = (entry && entry.sides) || ['white', 'black'];
    const tags = this.source.tags || {};
    const name = (color, i) => {
      const side = sides[i].charAt(0).toUpperCase() + sides[i].slice(1);
      const player = tags[color === 'white' ? 'White' : 'Black'];
      return player && player !== '?' ? `${player} (${side})` : side;
    };
    const word = (sign, text) => [sign, h('span', { class: 'word' }, ` ${text}`)];
    const head = h('tr', {}, h('th', {}, ''), h('th', { title: 'inaccuracies' }, ...word('?!', 'inaccuracies')),
      h('th', { title: 'mistakes' }, ...word('?', 'mistakes')), h('th', { title: 'blunders' }, ...word('??', 'blunders')),
      h('th', { title: 'average centipawn loss' }, 'ACPL'), h('th', {}, 'Accuracy'));
    const rows = ['white', 'black'].map((color, i) => {
      const s = this.summary[color];
      return h('tr', { 'data-side': color },
        h('th', { class: 'who' }, name(color, i)),
        h('td', { class: 'inaccuracy', 'data-count': 'inaccuracies' }, String(s.inaccuracies)),
        h('td', { class: 'mistake', 'data-count': 'mistakes' }, String(s.mistakes)),
        h('td', { class: 'blunder', 'data-count': 'blunders' }, String(s.blunders)),
        h('td', { 'data-count': 'acpl' }, String(s.acpl)),
        h('td', { 'data-count': 'accuracy' }, `${s.accuracy.toFixed(1)} %`));
    });
    return [h('table', { class: 'summary' }, h('thead', {}, head), h('tbody', {}, ...rows))];
  }

  /** Whether a node is on the main line. */
  onMainline(node) {
    for (let n = node; n.up; n = n.up) if (n.up.children[0] !== n) return false;
    return true;
  }

  /** The mark of the main-line move that led to `ply`, as the server's review judged it. */
  mark(ply) {
    const review = this.reviews.get(ply);
    return review ? MARKS[review.nag] || null : null;
  }
}

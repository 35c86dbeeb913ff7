// Small helpers shared by the views: DOM building, square names, formatting.

import { files as cgFiles, ranks as cgRanks } from 'chessgroundx/types.js';

/** Create an element with attributes and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// UCI names ranks 1..16 with digits; chessgroundx keys use one character per rank.
/** Convert a UCI square name ("a10") to a chessgroundx key. */
export function toKey(square) {
  const file = square[0];
  const rank = parseInt(square.slice(1), 10);
  return file + cgRanks[rank - 1];
}

/** Convert a chessgroundx key to a UCI square name. */
export function toSquare(key) {
  return key[0] + String(cgRanks.indexOf(key[1]) + 1);
}

/**
 * Split a UCI move into [from, to, promotion letter, '+' (shogi promotion), '-' (kyoto's
 * demotion) or '']. A drop of a piece's promoted side (`+L@b1`) keeps its '+' in the origin.
 */
export function splitUci(uci) {
  const m = /^([a-p])(\d{1,2})([a-p])(\d{1,2})([a-z+-]?)$/.exec(uci);
  if (m) return [m[1] + m[2], m[3] + m[4], m[5]];
  const drop = /^(\+?[A-Z])@([a-p]\d{1,2})$/.exec(uci);
  if (drop) return [drop[1] + '@', drop[2], ''];
  return null;
}

/**
 * Legal UCI moves → the chessgroundx dests map (drops as 'P@' origins); per from+to, every
 * suffix the move can take ('' a plain move, a promotion or gating letter, '+' or '-' for
 * shogi); per drop ('L@b1'), the sides it may be dropped with ('' and/or '+', kyoto shogi);
 * and the passes (`e2e2`, janggi), which have no destination on the board.
 */
export function destsOf(legal) {
  const dests = new Map();
  const promos = new Map();
  const drops = new Map();
  const passes = [];
  for (const uci of legal) {
    const parts = splitUci(uci);
    if (!parts) continue;
    const [from, to, suffix] = parts;
    if (from === to) {
      passes.push(uci);
      continue;
    }
    const drop = from.endsWith('@');
    // A drop of a piece's promoted side starts from the same pocket piece as a plain one.
    const side = drop && from.startsWith('+') ? '+' : '';
    const orig = drop ? from.replace(/^\+/, '') : toKey(from);
    const dest = toKey(to);
    if (!dests.has(orig)) dests.set(orig, []);
    if (!dests.get(orig).includes(dest)) dests.get(orig).push(dest);
    const key = drop ? orig + to : from + to;
    const table = drop ? drops : promos;
    if (!table.has(key)) table.set(key, []);
    table.get(key).push(drop ? side : suffix);
  }
  return { dests, promos, drops, passes };
}

/** Format milliseconds as m:ss (or h:mm:ss), with tenths under ten seconds. */
export function formatClock(ms) {
  const t = Math.max(0, ms);
  if (t < 10000) return (t / 1000).toFixed(1);
  const s = Math.floor(t / 1000);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** Format a white-relative score for display. */
export function formatScore(cp, mate) {
  if (mate !== null && mate !== undefined) return (mate > 0 ? '#' : '#-') + Math.abs(mate);
  if (cp === null || cp === undefined) return '…';
  const v = cp / 100;
  return (v > 0 ? '+' : '') + v.toFixed(2);
}

/** Map a white-relative score to the white share (0..1) of the evaluation bar. */
export function barShare(cp, mate) {
  if (mate !== null && mate !== undefined) return mate > 0 ? 1 : 0;
  if (cp === null || cp === undefined) return 0.5;
  return 1 / (1 + Math.exp(-0.004 * cp));
}

/** Number of files and ranks known to chessgroundx (its largest board). */
export const MAX_FILES = cgFiles.length;

let audio = null;
/** A short click for a move, if the player switched sound on. */
export function clickSound(capture = false) {
  const box = document.getElementById('sound');
  if (!box || !box.checked) return;
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = capture ? 220 : 440;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.08);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.09);
  } catch {
    // Sound is optional; a browser without Web Audio simply stays silent.
  }
}

/** Copy `text` and say so on the button for a moment ("Copied ✓"); a prompt without a
 * clipboard. */
export function copyText(text, button, what = 'Text') {
  const done = (ok) => {
    if (!button) return;
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = ok ? 'Copied ✓' : 'Copy failed';
    button.classList.toggle('copied', ok);
    clearTimeout(button.copyTimer);
    button.copyTimer = setTimeout(() => { button.textContent = label; button.classList.remove('copied'); }, 1500);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => done(true), () => { prompt(what, text); done(false); });
  } else {
    // plain http on another host: no clipboard API; the old way, else a prompt to copy from
    const area = h('textarea', { style: 'position:fixed;opacity:0' }, text);
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    if (!ok) prompt(what, text);
    done(ok);
  }
}

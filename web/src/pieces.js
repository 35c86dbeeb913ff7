// Artwork for what chessgroundx's chess set does not cover: xiangqi and shogi boards and pieces,
// and the fairy chess pieces. Everything is SVG written here (GPL-3.0-or-later, like ferz).
//
// The server sends a variant's "look": its board family (chess, xiangqi, shogi) and the name of
// the piece behind each FEN letter, because a letter means different pieces in different
// variants (A is an archbishop, an amazon or a xiangqi advisor). lookCss() turns that into
// CSS rules scoped to one board.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG document as a CSS url() value. */
function svgUrl(body, width = 100, height = 100) {
  const doc = `<svg xmlns="${SVG_NS}" viewBox="0 0 ${width} ${height}">${body}</svg>`;
  return `url("data:image/svg+xml,${encodeURIComponent(doc)}")`;
}

// Fonts with the traditional Chinese characters (xiangqi) and the Japanese kanji (shogi), most
// specific first; the last entries are the CJK fonts of common Linux distributions.
const ZH_FONTS = "'Noto Serif CJK TC','Noto Serif CJK SC','Source Han Serif TC','AR PL UMing TW',"
  + "'AR PL UMing CN','Songti TC','Songti SC','PMingLiU','SimSun','Noto Sans CJK TC',"
  + "'Noto Sans CJK SC','Microsoft JhengHei','Microsoft YaHei','PingFang TC','PingFang SC',"
  + "'WenQuanYi Zen Hei','WenQuanYi Micro Hei','Droid Sans Fallback',serif";
const JA_FONTS = "'Noto Serif CJK JP','Source Han Serif JP','Yu Mincho','YuMincho',"
  + "'Hiragino Mincho ProN','MS Mincho','IPAexMincho','IPAMincho','Noto Sans CJK JP',"
  + "'Yu Gothic','Hiragino Sans','Meiryo','IPAexGothic','TakaoPGothic','VL Gothic',"
  + "'WenQuanYi Zen Hei','WenQuanYi Micro Hei','Droid Sans Fallback',serif";
const LATIN_FONTS = "'DejaVu Sans','Liberation Sans',Arial,sans-serif";

const glyphCache = new Map();
/**
 * Whether the machine has a font for two different CJK characters: drawn with the font list,
 * two real glyphs differ, while two missing ones are the same empty box.
 */
export function hasGlyphs(a, b, fonts) {
  const key = `${a}${b}${fonts}`;
  if (!glyphCache.has(key)) {
    let ok = true;
    try {
      const canvas = document.createElement('canvas');
      canvas.width = 48;
      canvas.height = 48;
      const ctx = canvas.getContext('2d', { willReadFrequently: true });
      const draw = (ch) => {
        ctx.clearRect(0, 0, 48, 48);
        ctx.font = `40px ${fonts}`;
        ctx.textBaseline = 'middle';
        ctx.fillText(ch, 4, 24);
        return ctx.getImageData(0, 0, 48, 48).data.join();
      };
      ok = draw(a) !== draw(b);
    } catch {
      ok = true; // no canvas: trust the fonts
    }
    glyphCache.set(key, ok);
  }
  return glyphCache.get(key);
}

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A text element centred on (x, y). */
function text(x, y, s, size, fill, fonts, extra = '') {
  return `<text x="${x}" y="${y}" text-anchor="middle" dominant-baseline="central" font-size="${size}" fill="${fill}" font-family="${fonts}" ${extra}>${esc(s)}</text>`;
}

// ---------------------------------------------------------------------------------------------
// Xiangqi: discs with the traditional characters, red (White, who moves first) and black.

const XQ_RED = '#c1261b';
const XQ_BLACK = '#1d1d1d';
const XIANGQI = {
  king: ['帥', '將'], fers: ['仕', '士'], elephant: ['相', '象'], horse: ['傌', '馬'],
  rook: ['俥', '車'], cannon: ['炮', '砲'], soldier: ['兵', '卒'], banner: ['旗', '旗'],
  // janggi's pieces (its king and soldier draw as xiangqi's)
  wazir: ['士', '士'], janggiElephant: ['象', '象'], janggiCannon: ['包', '包'],
};

/** A xiangqi piece: a wooden disc, a ring and the character (or the FEN letter). */
function xiangqiPiece(name, letter, color, cjk) {
  const ink = color === 'white' ? XQ_RED : XQ_BLACK;
  const chars = XIANGQI[name];
  const label = cjk && chars ? chars[color === 'white' ? 0 : 1] : letter.toUpperCase();
  const glyph = cjk && chars
    ? text(50, 51, label, 52, ink, ZH_FONTS, 'font-weight="bold"')
    : text(50, 52, label, 50, ink, LATIN_FONTS, 'font-weight="bold"');
  return svgUrl(
    '<circle cx="50" cy="53" r="45" fill="#7a5326" opacity="0.55"/>'
    + '<circle cx="50" cy="50" r="45" fill="#f4e3c1" stroke="#7a5326" stroke-width="2.5"/>'
    + `<circle cx="50" cy="50" r="37" fill="none" stroke="${ink}" stroke-width="2.5"/>`
    + glyph,
  );
}

/**
 * The xiangqi family's board: lines through the square centres and the palaces with their
 * diagonals (`look.palaces`, from the rules); where the rules split the board in two
 * (`look.river`: xiangqi, not janggi) the river with its text and, on 9x10, the marks where
 * cannons and soldiers start.
 */
function xiangqiBoard(files, ranks, cjk, look) {
  const W = files * 100;
  const H = ranks * 100;
  const c = (i) => i * 100 + 50;
  const river = Boolean(look && look.river) && ranks % 2 === 0 && ranks >= 4;
  const mid = ranks / 2; // the river lies between row mid - 1 and row mid (from the top)
  let d = '';
  for (let j = 0; j < ranks; j++) d += `M${c(0)} ${c(j)}H${c(files - 1)}`;
  for (let i = 0; i < files; i++) {
    if (river && i > 0 && i < files - 1) {
      d += `M${c(i)} ${c(0)}V${c(mid - 1)}M${c(i)} ${c(mid)}V${c(ranks - 1)}`;
    } else {
      d += `M${c(i)} ${c(0)}V${c(ranks - 1)}`;
    }
  }
  // Palaces: [first file, first rank, last file, last rank], rank 0 at the bottom.
  for (const [f0, r0, f1, r1] of (look && look.palaces) || []) {
    const [top, bottom] = [ranks - 1 - r1, ranks - 1 - r0];
    d += `M${c(f0)} ${c(top)}L${c(f1)} ${c(bottom)}M${c(f1)} ${c(top)}L${c(f0)} ${c(bottom)}`;
  }
  // The marks where cannons and soldiers start (the xiangqi board's, 9x10 only).
  if (river && files === 9 && ranks === 10) {
    const points = [[1, 2], [7, 2], [1, 7], [7, 7]];
    for (const i of [0, 2, 4, 6, 8]) points.push([i, 3], [i, 6]);
    const g = 7;
    const l = 14;
    for (const [i, j] of points) {
      for (const dx of [-1, 1]) {
        if ((i === 0 && dx < 0) || (i === files - 1 && dx > 0)) continue;
        for (const dy of [-1, 1]) {
          const x = c(i);
          const y = c(j);
          d += `M${x + dx * g} ${y + dy * (g + l)}V${y + dy * g}H${x + dx * (g + l)}`;
        }
      }
    }
  }
  let body = `<rect width="${W}" height="${H}" fill="#ecc98c"/>`
    + `<path d="${d}" fill="none" stroke="#4d3414" stroke-width="2.5"/>`
    + `<rect x="${c(0)}" y="${c(0)}" width="${W - 100}" height="${H - 100}" fill="none" stroke="#4d3414" stroke-width="5"/>`;
  if (river && cjk) {
    const y = mid * 100;
    body += text(W * 0.3, y, '楚 河', 46, '#7a5326', ZH_FONTS)
      + text(W * 0.7, y, '漢 界', 46, '#7a5326', ZH_FONTS);
  }
  return svgUrl(body, W, H);
}

// ---------------------------------------------------------------------------------------------
// Shogi: five-sided koma with kanji, promoted pieces in red; Gote's point the other way.

const SHOGI = {
  shogiPawn: '歩', silver: '銀', gold: '金', bishop: '角', rook: '飛', lance: '香',
  shogiKnight: '桂', dragonHorse: '馬', bers: '龍', tokin: 'と',
};
const SHOGI_PROMOTED = {
  shogiPawn: 'と', silver: '全', shogiKnight: '圭', lance: '杏', bishop: '馬', rook: '龍',
};
// By letter, for pieces of a user's variant whose names are not shogi's (euroshogi's knight).
const SHOGI_BY_LETTER = { p: 'shogiPawn', s: 'silver', g: 'gold', b: 'bishop', r: 'rook', l: 'lance', n: 'shogiKnight', h: 'dragonHorse', d: 'bers' };
// Bigger pieces for the stronger ones, as in a real set.
const SHOGI_SIZE = { king: 1, rook: 0.96, bishop: 0.96, bers: 0.96, dragonHorse: 0.96, gold: 0.92, silver: 0.92, shogiKnight: 0.89, lance: 0.89, shogiPawn: 0.85, tokin: 0.85 };

/**
 * A shogi piece pointing up (or down when `down`), with its kanji or its letter. `face` is
 * what a turned-over piece is in kyoto and micro shogi ({name, letter} from the server: the
 * lance's other side is a tokin), drawn as that piece rather than as a promoted form.
 */
function shogiPiece(name, letter, color, promoted, down, cjk, face = null) {
  let kind = SHOGI[name] || name === 'king' ? name : SHOGI_BY_LETTER[letter] || name;
  let label;
  let fallback = (promoted ? '+' : '') + letter.toUpperCase();
  if (face) {
    kind = face.name;
    label = SHOGI[kind];
    fallback = face.letter;
  } else if (kind === 'king') {
    label = color === 'white' ? '玉' : '王';
  } else {
    label = promoted ? SHOGI_PROMOTED[kind] : SHOGI[kind];
  }
  // Red for a promoted piece, and in kyoto and micro shogi for a turned-over one (it is
  // written `+L` and turns back), as for the dragon and the horse.
  const red = promoted || kind === 'dragonHorse' || kind === 'bers';
  const ink = red ? '#c1261b' : '#161616';
  let glyph;
  if (cjk && label) {
    glyph = text(50, 58, label, 54, ink, JA_FONTS);
  } else {
    glyph = text(50, 60, fallback, fallback.length > 1 ? 38 : 46, ink, LATIN_FONTS, 'font-weight="bold"');
  }
  const scale = SHOGI_SIZE[kind] || 0.92;
  const turn = down ? 'rotate(180 50 50) ' : '';
  return svgUrl(
    `<defs><linearGradient id="w" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fbe7bb"/><stop offset="1" stop-color="#e4bf7c"/></linearGradient></defs>`
    + `<g transform="${turn}translate(50 52) scale(${scale}) translate(-50 -52)">`
    + '<path d="M50 6 L78 18 L88 95 L12 95 L22 18 Z" fill="#6b4a1f" opacity="0.45" transform="translate(1.5 2)"/>'
    + '<path d="M50 6 L78 18 L88 95 L12 95 L22 18 Z" fill="url(#w)" stroke="#6b4a1f" stroke-width="2.5" stroke-linejoin="round"/>'
    + `${glyph}</g>`,
  );
}

/** The shogi board: a plain wooden grid, with the four star points on 9x9. */
function shogiBoard(files, ranks) {
  const W = files * 100;
  const H = ranks * 100;
  let d = '';
  for (let i = 1; i < files; i++) d += `M${i * 100} 0V${H}`;
  for (let j = 1; j < ranks; j++) d += `M0 ${j * 100}H${W}`;
  let body = `<rect width="${W}" height="${H}" fill="#e7bf75"/>`
    + `<path d="${d}" stroke="#3b2a10" stroke-width="2"/>`
    + `<rect x="2" y="2" width="${W - 4}" height="${H - 4}" fill="none" stroke="#3b2a10" stroke-width="4"/>`;
  if (files === 9 && ranks === 9) {
    for (const x of [300, 600]) for (const y of [300, 600]) body += `<circle cx="${x}" cy="${y}" r="7" fill="#3b2a10"/>`;
  }
  return svgUrl(body, W, H);
}

// ---------------------------------------------------------------------------------------------
// Fairy chess pieces, drawn like the chess set's: a white or black body with a dark outline,
// standing on a base, with an emblem of each way the piece moves on top (the archbishop has the
// bishop's mitre and the knight's head).

// Emblems in a local box around (0, 0), about 18 units wide and 20 high; `d` is the detail.
const EMBLEMS = {
  bishop: {
    body: 'M0 -9C5 -4 7.5 1 5.5 8H-5.5C-7.5 1 -5 -4 0 -9Z M0 -13a2.2 2.2 0 1 0 0.01 0Z',
    d: 'M-2.5 0L2.5 -5M-5 4.5H5',
  },
  rook: {
    body: 'M-6 8V-3H-8.5V-9.5H-5V-6.5H-1.8V-9.5H1.8V-6.5H5V-9.5H8.5V-3H6V8Z',
    d: 'M-6 -3H6',
  },
  knight: {
    body: 'M7 8H-3.5C-3.5 3.5 -1 1.5 0.5 -0.5L-5 1.5C-8 2 -9.5 -0.5 -8 -2.5L-3 -7.5L-2.5 -11L0.5 -8.5C5.5 -8.5 8.5 -4 8.5 1Z',
    d: 'M-3.5 -4.5h0.1M-6.5 -0.5L-5 -1.5',
  },
  queen: {
    body: 'M-8 8L-9.5 -5L-4.5 1L0 -8L4.5 1L9.5 -5L8 8Z M-9.5 -7.5a2 2 0 1 0 0.01 0Z M0 -10.5a2 2 0 1 0 0.01 0Z M9.5 -7.5a2 2 0 1 0 0.01 0Z',
    d: 'M-7.5 4.5H7.5',
  },
  king: {
    body: 'M-8 8C-10 1 -6 -3 0 -2C6 -3 10 1 8 8Z M-1.2 -2V-7H-4V-9.4H-1.2V-12.5H1.2V-9.4H4V-7H1.2V-2Z',
    d: 'M-7.5 4.5H7.5',
  },
  man: {
    body: 'M-8 8C-8 2 -5 0 0 0C5 0 8 2 8 8Z M0 -10a4.4 4.4 0 1 0 0.01 0Z M-4 -10.2V-13.5H4V-10.2Z M-6.5 -8.6H6.5V-10.4H-6.5Z',
    d: 'M-4 4.5H4',
  },
  wazir: {
    body: 'M-8 -10H8V6H-8Z',
    d: 'M0 -6.5V2.5M-4.5 -2H4.5',
  },
  fers: {
    body: 'M0 -11L8 -1.5L0 8L-8 -1.5Z',
    d: 'M0 -6.5L4 -1.5L0 3.5L-4 -1.5Z',
  },
  elephant: {
    body: 'M-9 -3C-11 -9 -6 -11 -3 -8C-1 -10 1 -10 3 -8C6 -11 11 -9 9 -3C8 0 5 0 3.5 -1V4C3.5 7 1 9 -1 8L-1 6C0.5 6 1 5 1 4V0C0 0.5 -1 0.5 -2 0C-5 1 -8 0 -9 -3Z',
    d: 'M-3 -5h0.1M3 -5h0.1M-5.5 -5.5C-7 -4.5 -7 -2.5 -5.5 -2',
  },
  cannon: {
    body: 'M-9.5 -0.5L7 -10.5L9.5 -6L-6.5 4Z M8 -11.5L10.5 -7L11.5 -7.6L9 -12.1Z M-2 0a5.5 5.5 0 1 0 0.01 0Z',
    d: 'M-2 5.5h0.1M-7.5 -0.8L-5.5 2.8',
  },
};

// Which emblems each fairy piece shows (by its name in the rules).
const FAIRY = {
  archbishop: ['bishop', 'knight'], chancellor: ['rook', 'knight'], amazon: ['queen', 'knight'],
  centaur: ['king', 'knight'], aiwok: ['rook', 'knight', 'fers'], commoner: ['man'],
  wazir: ['wazir'], fers: ['fers'], alfil: ['elephant'], fersAlfil: ['elephant', 'fers'],
  cannon: ['cannon'], clobber: ['stone'], bers: ['rook', 'fers'],
};
// Pieces that players of those games see as a chess piece: shown with the chess set's image,
// unless the variant has that chess piece too (courier has bishops and alfils).
const CHESS_LOOK = {
  alfil: 'bishop', fers: 'queen', silver: 'bishop', commoner: 'king', knibis: 'knight',
  biskni: 'bishop', rookni: 'rook', kniroo: 'knight', breakthrough: 'pawn',
};
const CHESS_LETTER = { pawn: 'p', knight: 'n', bishop: 'b', rook: 'r', queen: 'q', king: 'k' };

/** A fairy piece: base, body and one to three emblems, in the side's colours. */
function fairyPiece(emblems, color) {
  const fill = color === 'white' ? '#fff' : '#111';
  const detail = color === 'white' ? '#000' : '#fff';
  const line = 'stroke="#000" stroke-width="1.5" stroke-linejoin="round" stroke-linecap="round"';
  if (emblems[0] === 'stone') {
    return svgUrl(`<circle cx="22.5" cy="22.5" r="15" fill="${fill}" ${line}/>`
      + `<circle cx="22.5" cy="22.5" r="10" fill="none" stroke="${detail}" stroke-width="1.2"/>`, 45, 45);
  }
  const two = emblems.length > 1;
  const base = `<path d="M8.5 39.5H36.5V36.5C31 34 14 34 8.5 36.5Z" fill="${fill}" ${line}/>`;
  const body = two
    ? `<path d="M10.5 34.5C11.5 31 11.5 28 10 25H35C33.5 28 33.5 31 34.5 34.5Z" fill="${fill}" ${line}/>`
    : `<path d="M13 34.5C15 31 16.5 28 16 25H29C28.5 28 30 31 32 34.5Z" fill="${fill}" ${line}/>`;
  const place = two ? [[15, 15.5, 0.95], [30.5, 15.5, 0.95]] : [[22.5, 15.5, 1.1]];
  let heads = '';
  emblems.slice(0, 2).forEach((name, i) => {
    const e = EMBLEMS[name];
    const [x, y, s] = place[i];
    heads += `<g transform="translate(${x} ${y}) scale(${s})">`
      + `<path d="${e.body}" fill="${fill}" ${line}/>`
      + `<path d="${e.d}" fill="none" stroke="${detail}" stroke-width="1.3" stroke-linecap="round"/></g>`;
  });
  // A third way of moving (the ai-wok's fers step) is a badge on the body.
  const badge = emblems[2]
    ? `<path d="M22.5 26.5L25.5 29.8L22.5 33L19.5 29.8Z" fill="${detail}"/>`
    : `<path d="M${two ? 12 : 15.5} 30.5H${two ? 33 : 29.5}" stroke="${detail}" stroke-width="1.2"/>`;
  return svgUrl(base + body + badge + heads, 45, 45);
}

let chessProbe = null;
/** The chess set's image of a chess piece (from the bundled CSS), for the look-alikes. */
function chessImage(letter, color) {
  if (!chessProbe) {
    chessProbe = document.createElement('div');
    chessProbe.className = 'cg-wrap';
    chessProbe.style.cssText = 'position:absolute;width:0;height:0;overflow:hidden;visibility:hidden';
    chessProbe.append(document.createElement('piece'));
    document.body.append(chessProbe);
  }
  const piece = chessProbe.firstChild;
  piece.className = `${letter}-piece ${color}`;
  const url = getComputedStyle(piece).backgroundImage;
  return url && url !== 'none' ? url : null;
}

/** Does a variant's board family draw its own board (no chess checkering)? */
export function familyOf(look) {
  return (look && look.family) || 'chess';
}

/**
 * CSS rules for one board (`scope` is a selector of its wrapper, which carries the class
 * `orient-white` or `orient-black`): the board's background and every piece's image.
 */
export function lookCss(scope, look, files, ranks) {
  const family = familyOf(look);
  const pieces = (look && look.pieces) || {};
  const rules = [];
  const set = (sel, url) => {
    rules.push(`${sel} { background-image: ${url}; }`);
  };
  const colors = ['white', 'black'];
  const hide = (role) => rules.push(`${scope} piece.${role}::after { content: none; }`);
  if (family === 'xiangqi') {
    const cjk = hasGlyphs('帥', '將', ZH_FONTS);
    rules.push(`${scope} cg-board { background: ${xiangqiBoard(files, ranks, cjk, look)} center / 100% 100% no-repeat; }`);
    for (const [letter, name] of Object.entries(pieces)) {
      for (const color of colors) set(`${scope} piece.${letter}-piece.${color}`, xiangqiPiece(name, letter, color, cjk));
      hide(`${letter}-piece`);
    }
  } else if (family === 'shogi') {
    const cjk = hasGlyphs('歩', '飛', JA_FONTS);
    rules.push(`${scope} cg-board { background: ${shogiBoard(files, ranks)} center / 100% 100% no-repeat; }`);
    const faces = (look && look.faces) || {};
    for (const [letter, name] of Object.entries(pieces)) {
      const roles = [[`${letter}-piece`, false]];
      const face = faces[`+${letter}`] || null;
      if (face || SHOGI_PROMOTED[SHOGI[name] ? name : SHOGI_BY_LETTER[letter]]) roles.push([`p${letter}-piece`, true]);
      for (const [role, promoted] of roles) {
        const turned = promoted ? face : null;
        for (const color of colors) {
          const other = color === 'white' ? 'black' : 'white';
          set(`${scope} piece.${role}.${color}`, shogiPiece(name, letter, color, promoted, false, cjk, turned));
          // The opponent's pieces (on the board and in hand) point at the player below.
          set(`${scope}.orient-${other} :is(cg-board, .pocket-box) piece.${role}.${color}`,
            shogiPiece(name, letter, color, promoted, true, cjk, turned));
        }
        hide(role);
      }
    }
  } else {
    const names = new Set(Object.values(pieces));
    for (const [letter, name] of Object.entries(pieces)) {
      if (CHESS_LETTER[name] === letter) continue; // the chess set as it is
      const alias = CHESS_LOOK[name] || (CHESS_LETTER[name] ? name : null);
      if (alias && (alias === name || !names.has(alias))) {
        for (const color of colors) {
          const url = chessImage(CHESS_LETTER[alias], color);
          if (url) set(`${scope} piece.${letter}-piece.${color}`, url);
        }
        hide(`${letter}-piece`);
      } else if (FAIRY[name]) {
        for (const color of colors) set(`${scope} piece.${letter}-piece.${color}`, fairyPiece(FAIRY[name], color));
        hide(`${letter}-piece`);
      }
      // Anything else (a user's custom piece) keeps its letter.
    }
  }
  return rules.join('\n');
}

/**
 * One piece's image as a CSS url() (null: the piece shows its letter), as lookCss draws it on
 * the board: `role` is chessgroundx's ('n-piece', 'pl-piece' for a promoted lance).
 */
export function pieceImage(look, role, color) {
  const family = familyOf(look);
  const pieces = (look && look.pieces) || {};
  const promoted = /^p[a-z]-piece$/.test(role);
  const letter = role.replace(/-piece$/, '').slice(promoted ? 1 : 0);
  const name = pieces[letter];
  if (!name) return null;
  if (family === 'xiangqi') return promoted ? null : xiangqiPiece(name, letter, color, hasGlyphs('帥', '將', ZH_FONTS));
  if (family === 'shogi') {
    const face = promoted ? ((look && look.faces) || {})[`+${letter}`] || null : null;
    return shogiPiece(name, letter, color, promoted, false, hasGlyphs('歩', '飛', JA_FONTS), face);
  }
  if (promoted) return null;
  if (CHESS_LETTER[name] === letter) return chessImage(letter, color);
  const names = new Set(Object.values(pieces));
  const alias = CHESS_LOOK[name] || (CHESS_LETTER[name] ? name : null);
  if (alias && (alias === name || !names.has(alias))) return chessImage(CHESS_LETTER[alias], color);
  if (FAIRY[name]) return fairyPiece(FAIRY[name], color);
  return null;
}

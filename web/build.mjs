// Bundle the browser app into ferz/web/static (committed, so pip users need no npm).
// Reproducible: exact versions in package-lock.json, no timestamps, no source maps.
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'ferz', 'web', 'static');
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(here, 'src', 'main.js')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  legalComments: 'none',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});

// chessgroundx ships the cburnett pieces under lichess's class names (pawn, knight...);
// chessgroundx itself names roles after FEN letters (p-piece, n-piece...), so rename them.
const roles = { pawn: 'p', knight: 'n', bishop: 'b', rook: 'r', queen: 'q', king: 'k' };
const cg = join(here, 'node_modules', 'chessgroundx', 'assets');
let pieces = readFileSync(join(cg, 'chessground.cburnett.css'), 'utf8');
for (const [name, letter] of Object.entries(roles)) {
  pieces = pieces.replaceAll(`piece.${name}.`, `piece.${letter}-piece.`);
}
const css = [
  readFileSync(join(cg, 'chessground.base.css'), 'utf8'),
  pieces,
  readFileSync(join(here, 'src', 'style.css'), 'utf8'),
].join('\n');
writeFileSync(join(out, 'app.css'), css);
copyFileSync(join(here, 'src', 'index.html'), join(out, 'index.html'));
console.log(`built ${out}`);

// The first load's JavaScript budget: what index.html loads before any
// lazily loaded chunk (the PDF viewer, the dashboard's chart), at most
// 200 KB gzipped. The build fails past it, so a heavy import shows at once.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET = 200 * 1024;
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const scripts = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*modulepreload[^>]*\shref)="\/([^"]+\.js)"/g)].map((m) => m[1]);
let total = 0;
for (const file of scripts) {
  const size = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  total += size;
  console.log(`first load: ${file} ${(size / 1024).toFixed(1)} KB gzipped`);
}
console.log(`first load: ${(total / 1024).toFixed(1)} KB of JavaScript gzipped (budget ${BUDGET / 1024} KB)`);
if (scripts.length === 0 || total > BUDGET) {
  console.error(scripts.length === 0 ? 'check-budget: no script found in dist/index.html' : 'check-budget: the first load is over budget');
  process.exit(1);
}

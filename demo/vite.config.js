// The demo's Vite config: `npm run demo` (dev server) and `npm run build:demo` (static site in
// demo/dist/, relative paths so any static file server can host it).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

// meshweld/inspect (the engine's trace) resolves to the package's own entry when package.json
// exports one that has traceWeld, and otherwise to a stand-in that exports nothing: the page then says that the
// step-by-step trace needs a newer module (see src/trace.js).
function inspectEntry() {
  const entry = JSON.parse(readFileSync(here('../package.json'), 'utf8')).exports?.['./inspect'];
  const path = typeof entry === 'string' ? entry : entry?.default ?? entry?.import;
  // meshweld/inspect exists (the teaching helpers) before it has the trace: use it only with one
  const traced = path && /export (async )?function traceWeld\b|export \{[^}]*\btraceWeld\b/.test(readFileSync(here(`../${path}`), 'utf8'));
  return traced ? here(`../${path}`) : here('src/inspect-fallback.js');
}

export default {
  root: here('.'),
  base: './',
  resolve: {
    alias: [
      { find: /^meshweld\/three$/, replacement: here('../js/three.js') },
      { find: /^meshweld\/inspect$/, replacement: inspectEntry() },
      { find: /^meshweld$/, replacement: here('../js/index.js') },
    ],
  },
  worker: { format: 'es' },
  build: { outDir: here('dist'), emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 1500 },
};

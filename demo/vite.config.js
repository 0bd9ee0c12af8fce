// The demo's Vite config: `npm run demo` (dev server) and `npm run build:demo` (static site in
// demo/dist/, relative paths so any static file server can host it).
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export default {
  root: here('.'),
  base: './',
  resolve: {
    alias: [
      { find: /^meshweld\/three$/, replacement: here('../js/three.js') },
      { find: /^meshweld\/inspect$/, replacement: here('../js/inspect.js') },
      { find: /^meshweld$/, replacement: here('../js/index.js') },
    ],
  },
  build: { outDir: here('dist'), emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 1500 },
};

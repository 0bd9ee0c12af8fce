// What the browser tests share: a static file server on 127.0.0.1, the Chromium launch, and a
// Vite build served and opened in one call.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.stl': 'model/stl',
};

export async function serve(dir) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path.endsWith('/') ? `${path}index.html` : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launch() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/**
 * Builds a site with Vite (config as for vite's build(), without the output folder) into a
 * temporary folder, serves it and launches Chromium: { out, url, browser, close() }.
 */
export async function openSite(name, config) {
  if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath} (apt-get install chromium)`);
  const { build } = await import('vite');
  const out = mkdtempSync(join(tmpdir(), `meshweld-${name}-`));
  await build({ logLevel: 'warn', ...config, build: { ...config.build, outDir: out, emptyOutDir: true } });
  const server = await serve(out);
  const browser = await launch();
  return {
    out,
    url: server.url,
    browser,
    async close() {
      await browser.close();
      await server.close();
      rmSync(out, { recursive: true, force: true });
    },
  };
}

// Where the benchmark imports meshweld from. run.mjs copies js/*.js into bench/data/js/ when it
// starts and points MESHWELD_BENCH_JS there, so that the whole run (its memory children too)
// welds with one build even if js/ is rebuilt meanwhile. Without the variable: js/ itself.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const source = new URL('../js/', import.meta.url);

/** Copies js/*.js into dir and makes every later import (here and in children) use the copy. */
export function snapshotModule(dir) {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(source)) if (name.endsWith('.js')) copyFileSync(new URL(name, source), `${dir}/${name}`);
  process.env.MESHWELD_BENCH_JS = dir;
}

let loaded = null;
/** meshweld's index.js (the snapshot when there is one), instantiated. */
export async function meshweldModule() {
  if (!loaded) {
    const dir = process.env.MESHWELD_BENCH_JS;
    const url = dir ? pathToFileURL(`${dir}/index.js`).href : new URL('index.js', source).href;
    loaded = await import(url);
    await loaded.ready;
  }
  return loaded;
}

let loadedThree = null;
/** meshweld/three (the snapshot's three.js when there is one), ready. */
export async function meshweldThreeModule() {
  if (!loadedThree) {
    const dir = process.env.MESHWELD_BENCH_JS;
    const url = dir ? pathToFileURL(`${dir}/three.js`).href : new URL('three.js', source).href;
    loadedThree = await import(url);
    await loadedThree.ready;
  }
  return loadedThree;
}

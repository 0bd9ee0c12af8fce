import { run } from './weld-checks.js';

const out = document.getElementById('out');
const page = await run();
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const fromWorker = await new Promise((resolve, reject) => {
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => reject(new Error(event.message));
});
window.__results = { page, worker: fromWorker };
out.textContent = JSON.stringify(window.__results, null, 2);

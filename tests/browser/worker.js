import { run } from './weld-checks.js';

run().then((results) => postMessage(results));

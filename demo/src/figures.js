// The explanation figures (small SVGs with fixed viewBoxes), the comparison table, the code
// snippets and the live numbers in the text: all follow the method, store and r of the state.
import { bound, cells, lookups, weld } from 'meshweld';
import { boxMeetsDisc, cellPolygon, hexCentre, kdShape, tilingSegments } from './geometry.js';
import { METHODS } from './state.js';
import { mulberry32 } from './points.js';
import { memo, spacingRule } from './derive.js';

const SQRT3 = Math.sqrt(3);
const $ = (selector) => document.querySelector(selector);
const f2 = (v) => v.toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 });
const pts = (list) => list.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
const esc = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

const AREA = { naive: '–', 'grid-r': '9 r²', 'grid-2r': '16 r²', hex: `${f2(18 * SQRT3)} r²`, kdtree: '–', grid: '4 r² box' };
const CELLS = {
  naive: 'none: every kept point',
  'grid-r': 'squares of side r, the 3×3 block',
  'grid-2r': 'squares of side 2r, store grid offset by r',
  hex: 'hexagons of side 2r, 3 around the dual triangle',
  kdtree: 'a kd-tree range search',
  grid: 'squares sized to the data; the cells the r-box touches',
};
const measures = (method) => method === 'naive' || method === 'kdtree' || method === 'grid';

export function renderExplanations(state, live) {
  const R = live.R / state.r;
  for (const node of document.querySelectorAll('[data-live]')) {
    const key = node.dataset.live;
    node.textContent = {
      r: String(state.r),
      R: f2(live.R),
      Rr: f2(R),
      method: state.method === 'kdtree' ? 'kd-tree' : state.method,
      store: state.store,
      far: live.far === null ? '–' : f2(live.far / state.r),
    }[key] ?? node.textContent;
  }
  for (const node of document.querySelectorAll('[data-method-section]')) {
    node.classList.toggle('current', node.dataset.methodSection === state.method);
  }
  $('#code-call').textContent = callSnippet(state, live);
  methodFigures(state.method, state.store, state.r, R);
  gridFigure(live.points, state.r, live.grid, state.method === 'grid');
}

// the figures that follow the method, store and r (memoised on them)
const methodFigures = memo((method, store, r, R) => {
  const state = { method, store, r };
  $('#code-loop').textContent = loopSnippet(state);
  $('#fig-rules').innerHTML = rulesFigure(state, R);
  $('#fig-grid-r').innerHTML = cellFigure(state, 'grid-r');
  $('#fig-grid-2r').innerHTML = cellFigure(state, 'grid-2r');
  $('#fig-hex').innerHTML = cellFigure(state, 'hex');
  $('#fig-kd').innerHTML = kdFigure(state);
  renderTable(state);
  renderTwins();
});

function callSnippet(state, live) {
  const store = measures(state.method) ? '' : `, store: '${state.store}'`;
  const result = live.count === null ? 'naive: press "run it" above' : `${live.n.toLocaleString('en-US')} points in, ${live.count.toLocaleString('en-US')} out`;
  return `import { ready, weld } from 'meshweld';

await ready;
const { remap, count, positions } = weld(points, { dim: 2, radius: ${state.r}, method: '${state.method}'${store} });
// ${result}; remap[i] is the output of point i`;
}

// The greedy loop of the chosen method, written out. `exact` (the table of exact positions) runs
// first in every method.
function loopSnippet({ method, store, r }) {
  const declare = {
    naive: 'const kept = [];                      // the outputs so far, in order',
    grid: `const s = cellSizeFromData(points, r);   // see "Cells sized to the data"
const table = new CellTable();        // cell -> its kept points: a sparse hash map`,
    kdtree: 'const tree = new KdTree();            // the outputs so far',
  }[method] ?? `const table = new CellTable();        // cell -> ${store === 'loose' ? 'one kept point' : 'its kept points'}: a sparse hash map`;
  const head = `const r = ${r};
const exact = new Map();               // exact position -> its output
${declare}
for (const p of points) {
  const twin = exact.get(\`\${p.x},\${p.y}\`);
  if (twin !== undefined) { join(p, twin); continue; }   // exact copies first
`;
  const tail = `  if (found) join(p, found);            // p takes found's output
  else found = keep(p);                 // p becomes a new output
  exact.set(\`\${p.x},\${p.y}\`, found);
}`;
  if (method === 'naive') {
    return `${head}  // compare with every kept point, in order: the first within r wins
  let found = kept.find((q) => distance(p, q) <= r);
${tail}`;
  }
  if (method === 'grid') {
    return `${head}  // cells of side s, sized to the data once (the spacing x 1.236, at least 2r)
  const home = [Math.floor(p.x / s), Math.floor(p.y / s)];
  // every cell that the box [p - r, p + r] touches: one for most points
  let found = null;
  for (const cell of cellsTouchedBy(p.x - r, p.y - r, p.x + r, p.y + r, s))
    for (const q of table.get(cell) ?? [])
      if (distance(p, q) <= r && (!found || q.output < found.output)) found = q;
${tail.replace('found = keep(p);                 // p becomes a new output', 'table.add(home, found = keep(p));   // p becomes a new output')}`;
  }
  if (method === 'kdtree') {
    return `${head}  // a range search in a kd-tree of the kept points:
  // the earliest kept point within r, the same answer as naive
  let found = tree.earliestWithin(p, r);
${tail.replace('found = keep(p);                 // p becomes a new output', 'tree.insert(found = keep(p));   // p becomes a new output')}`;
  }
  let cellsCode;
  if (method === 'grid-r') {
    cellsCode = `  const c = r;                         // cells of side r
  const i = Math.floor(p.x / c), j = Math.floor(p.y / c);
  const home = [i, j];
  const search = [home];                // the 3x3 block, own cell first
  for (let dj = -1; dj <= 1; dj++)
    for (let di = -1; di <= 1; di++) if (di || dj) search.push([i + di, j + dj]);`;
  } else if (method === 'grid-2r') {
    cellsCode = `  const c = 2 * r;                     // cells of side 2r
  const i = Math.floor(p.x / c), j = Math.floor(p.y / c);   // the search cell
  const home = [Math.floor(p.x / c + 0.5), Math.floor(p.y / c + 0.5)];  // store grid: offset by r
  // the 4 store cells that share the search cell's centre as a corner, home first
  const search = [home, ...[[i, j], [i + 1, j], [i, j + 1], [i + 1, j + 1]]
    .filter(([a, b]) => a !== home[0] || b !== home[1])];`;
  } else {
    cellsCode = `  const c = 2 * Math.sqrt(3) * r;      // hexagon centres this far apart: side 2r
  const v = p.y / (c * Math.sqrt(3) / 2), u = p.x / c - v / 2;   // lattice coordinates
  const i = Math.floor(u), j = Math.floor(v);
  // the dual triangle holding p: its 3 corners are the hexagons searched
  const search = u - i + v - j < 1 ? [[i, j], [i + 1, j], [i, j + 1]]
                                   : [[i + 1, j + 1], [i + 1, j], [i, j + 1]];
  sortByDistance(search, p);            // nearest centre first: p's own hexagon
  const home = search[0];`;
  }
  const probe = store === 'loose'
    ? `  // loose store: one point per cell; the first filled cell wins, no distance check
  let found = null;
  for (const cell of search) if ((found = table.get(cell))) break;
${tail.replace('found = keep(p);                 // p becomes a new output', 'table.set(home, found = keep(p));   // p becomes a new output')}`
    : `  // precise store: a list per cell; the earliest kept point within r wins
  let found = null;
  for (const cell of search)
    for (const q of table.get(cell) ?? [])
      if (distance(p, q) <= r && (!found || q.output < found.output)) found = q;
${tail.replace('found = keep(p);                 // p becomes a new output', 'table.add(home, found = keep(p));   // p becomes a new output')}`;
  return `${head}${cellsCode}\n${probe}`;
}

function renderTable(state) {
  const rows = METHODS.map((m) => {
    const loose = bound({ method: m, store: 'loose', dim: 2, radius: state.r });
    const precise = bound({ method: m, store: 'precise', dim: 2, radius: state.r });
    const look = m === 'naive' ? 'all kept' : m === 'kdtree' ? '1 search' : m === 'grid' ? '1–4' : String(lookups(m, 2));
    return `<tr class="${m === state.method ? 'current' : ''}" data-row="${m}"><th>${m === 'kdtree' ? 'kd-tree' : m}</th><td>${CELLS[m]}</td><td>${look}</td><td>${AREA[m]}</td><td>${f2(loose / state.r)} r = ${f2(loose)}</td><td>${f2(precise / state.r)} r</td></tr>`;
  });
  $('#methods-table tbody').innerHTML = rows.join('');
}

const current = (state, method) => (state.method === method ? ' class="current-figure"' : '');

// r, R and the three zones around a point
function rulesFigure(state, ratio) {
  const u = Math.min(42, 88 / Math.max(ratio, 1));
  const cx = 130, cy = 100;
  const at = (d, angle) => [cx + d * u * Math.cos(angle), cy + d * u * Math.sin(angle)];
  const [q1x, q1y] = at(0.75, -0.5);
  const [q2x, q2y] = at((1 + ratio) / 2, 2.6);
  const [q3x, q3y] = at(ratio + 0.35, 0.9);
  const may = ratio > 1.001
    ? `<circle cx="${cx}" cy="${cy}" r="${ratio * u}" class="ring-R"/>
       <line x1="${cx}" y1="${cy}" x2="${q2x}" y2="${q2y}" class="maybe"/><circle cx="${q2x}" cy="${q2y}" r="4" class="pt"/>
       <text x="${q2x - 6}" y="${q2y + 16}" text-anchor="end">may merge</text>`
    : '';
  return `<svg viewBox="0 0 340 200" role="img" aria-label="the distances r and R around a point">
    ${may}
    <circle cx="${cx}" cy="${cy}" r="${u}" class="ring-r"/>
    <line x1="${cx}" y1="${cy}" x2="${q1x}" y2="${q1y}" class="merge"/><circle cx="${q1x}" cy="${q1y}" r="4" class="pt"/>
    <circle cx="${q3x}" cy="${q3y}" r="4" class="pt far"/>
    <circle cx="${cx}" cy="${cy}" r="5" class="pt focus"/>
    <text x="${q1x + 6}" y="${q1y - 6}">must be able to merge</text>
    <text x="${q3x + 8}" y="${q3y + 4}">never merges directly</text>
    <text x="258" y="40" class="key">r = ${state.r}</text>
    <text x="258" y="58" class="key">R = ${f2(ratio)} r</text>
    <text x="258" y="76" class="key">${state.method === 'kdtree' ? 'kd-tree' : state.method}${ratio > 1.001 ? `, ${state.store}` : ''}</text>
  </svg>`;
}

// The cell figures: a point p (in units of r) that the reader can drag; the cells it searches
// come from the module's cells() with r = 1, the tiling and the distances are drawn here.
const CELL_FIGURES = {
  'grid-r': { scale: 40, view: [5.5, 5.5], clamp: [2, 2, 3.5, 3.5], p: [2.45, 2.9], most: '2√2 r ≈ 2.83 r', label: ['side r', '9 look-ups'] },
  'grid-2r': { scale: 28, view: [9, 9], clamp: [3, 3, 6, 6], p: [3.6, 3.3], most: '3√2 r ≈ 4.24 r', label: ['side 2r', '4 look-ups'] },
  hex: { scale: 20, view: [12.5, 9.5], clamp: [4.5, 3.5, 8, 6.5], p: [6.5, 4.2], most: '2√7 r ≈ 5.29 r', label: ['side 2r', '3 look-ups'] },
};
const KD_FIGURE = { box: [5, 5, 255, 155], p: null };

function cellFigure(state, method) {
  const f = CELL_FIGURES[method];
  const S = f.scale, [vw, vh] = f.view, [px, py] = f.p;
  const { keys, size: c } = cells(f.p, { method, dim: 2, radius: 1 });
  const poly = (vertices, cls) => `<polygon points="${pts(vertices.map(([x, y]) => [x * S, y * S]))}" class="${cls}"/>`;
  const lines = (segments, cls) => segments.map(([x0, y0, x1, y1]) => `<line x1="${(x0 * S).toFixed(1)}" y1="${(y0 * S).toFixed(1)}" x2="${(x1 * S).toFixed(1)}" y2="${(y1 * S).toFixed(1)}" class="${cls}"/>`).join('');
  let body = `<rect x="0" y="0" width="${vw * S}" height="${vh * S}" class="cell"/>`;
  const searched = [];
  for (let k = 0; k < keys.length / 3; k++) searched.push(cellPolygon(method, keys[3 * k], keys[3 * k + 1], c));
  body += searched.map((v) => poly(v, 'searched')).join('');
  body += lines(tilingSegments(method, c, [0, 0, vw, vh]), 'grid');
  if (method === 'grid-2r') {
    body += lines(tilingSegments(method, c, [0, 0, vw, vh], { search: true }), 'search-grid');
    const i = Math.floor(px / c), j = Math.floor(py / c);
    body += `<rect x="${i * c * S}" y="${j * c * S}" width="${c * S}" height="${c * S}" class="search-cell"/>`;
    body += `<circle cx="${(i + 0.5) * c * S}" cy="${(j + 0.5) * c * S}" r="3" class="corner"/>`;
  }
  if (method === 'hex') {
    const corners = [0, 1, 2].map((k) => hexCentre(keys[3 * k], keys[3 * k + 1], c));
    body += poly(corners, 'triangle') + corners.map(([x, y]) => `<circle cx="${x * S}" cy="${y * S}" r="3" class="corner"/>`).join('');
  }
  body += poly(searched[0], 'home-outline');
  // the farthest point of the searched cells: how far a loose store can merge from here
  let far = [px, py], d = 0;
  for (const v of searched) for (const q of v) if (Math.hypot(q[0] - px, q[1] - py) > d) (d = Math.hypot(q[0] - px, q[1] - py)), (far = q);
  body += `<line x1="${px * S}" y1="${py * S}" x2="${far[0] * S}" y2="${far[1] * S}" class="maybe"/>`;
  body += `<circle cx="${px * S}" cy="${py * S}" r="${S}" class="ring-r"/><circle cx="${px * S}" cy="${py * S}" r="6" class="pt focus handle"/>`;
  const x = vw * S + 14;
  return `<svg viewBox="0 0 ${x + 150} ${vh * S}" role="img" aria-label="${method}: the cells searched from a point you can drag"${current(state, method)} data-figure="${method}">
    <clipPath id="clip-${method}"><rect x="0" y="0" width="${vw * S}" height="${vh * S}"/></clipPath>
    <g clip-path="url(#clip-${method})">${body}</g>
    <text x="${x}" y="20" class="key">${f.label[0]}</text><text x="${x}" y="36" class="key">${f.label[1]}</text>
    <text x="${x}" y="62">blue: the cell p</text><text x="${x}" y="77">is stored in</text>
    <text x="${x}" y="103">farthest point of</text><text x="${x}" y="118">a searched cell:</text>
    <text x="${x}" y="135" class="key far">${d.toFixed(2)} r from here</text>
    <text x="${x}" y="151">at most ${f.most}</text>
    <text x="${x}" y="${Math.max(vh * S - 6, 176)}" class="tiny">drag the black point</text>
  </svg>`;
}

function kdFigure(state) {
  const random = mulberry32(5);
  const list = [];
  for (let i = 0; i < 70; i++) list.push(20 + random() * 70, 20 + random() * 60); // a dense corner
  for (let i = 0; i < 30; i++) list.push(10 + random() * 240, 10 + random() * 140);
  const points = Float32Array.from(list);
  const { splits, leaves } = kdShape(points, KD_FIGURE.box, { leaf: 4 });
  const q = KD_FIGURE.p ?? (KD_FIGURE.p = [points[0], points[1]]);
  const rr = 14;
  const hit = leaves.filter((b) => boxMeetsDisc(b, q[0], q[1], rr));
  let dots = '';
  for (let i = 0; i < points.length / 2; i++) dots += `<circle cx="${points[2 * i].toFixed(1)}" cy="${points[2 * i + 1].toFixed(1)}" r="2" class="pt small"/>`;
  return `<svg viewBox="0 0 360 160" role="img" aria-label="a kd-tree's splits and a range search from a point you can drag"${current(state, 'kdtree')} data-figure="kd">
    <rect x="5" y="5" width="250" height="150" class="cell"/>
    ${hit.map((b) => `<rect x="${b[0]}" y="${b[1]}" width="${b[2] - b[0]}" height="${b[3] - b[1]}" class="leaf-hit"/>`).join('')}
    ${splits.map(([x0, y0, x1, y1, d]) => `<line x1="${x0}" y1="${y0}" x2="${x1}" y2="${y1}" class="split" style="stroke-width:${Math.max(0.6, 2.4 - d * 0.4)}"/>`).join('')}
    ${dots}
    <circle cx="${q[0]}" cy="${q[1]}" r="${rr}" class="ring-r"/>
    <circle cx="${q[0]}" cy="${q[1]}" r="5" class="pt focus handle"/>
    <text x="266" y="40" class="key">splits follow</text><text x="266" y="58" class="key">the points</text>
    <text x="266" y="90">shaded: the ${hit.length}</text><text x="266" y="106">${hit.length === 1 ? 'leaf' : 'leaves'} a search</text><text x="266" y="122">within r visits</text>
    <text x="266" y="150" class="tiny">drag the black point</text>
  </svg>`;
}

// Dragging in a figure: pointer capture on the figure's container, which survives the redraws.
export function setupFigureDrags(getState) {
  const targets = { 'fig-grid-r': 'grid-r', 'fig-grid-2r': 'grid-2r', 'fig-hex': 'hex', 'fig-kd': 'kd' };
  for (const [id, name] of Object.entries(targets)) {
    const box = document.getElementById(id);
    let dragging = false;
    const move = (event) => {
      const svg = box.querySelector('svg');
      const m = svg.getScreenCTM().inverse();
      const x = m.a * event.clientX + m.c * event.clientY + m.e, y = m.b * event.clientX + m.d * event.clientY + m.f;
      if (name === 'kd') {
        const [x0, y0, x1, y1] = KD_FIGURE.box;
        KD_FIGURE.p = [Math.min(x1, Math.max(x0, x)), Math.min(y1, Math.max(y0, y))];
        box.innerHTML = kdFigure(getState());
      } else {
        const f = CELL_FIGURES[name];
        f.p = [Math.min(f.clamp[2], Math.max(f.clamp[0], x / f.scale)), Math.min(f.clamp[3], Math.max(f.clamp[1], y / f.scale))];
        box.innerHTML = cellFigure(getState(), name);
      }
    };
    box.addEventListener('pointerdown', (event) => {
      if (!box.querySelector('svg')) return;
      dragging = true;
      box.setPointerCapture(event.pointerId);
      move(event);
      event.preventDefault();
    });
    box.addEventListener('pointermove', (event) => dragging && move(event));
    const stop = () => (dragging = false);
    box.addEventListener('pointerup', stop);
    box.addEventListener('pointercancel', stop);
  }
}

// Twins: four points on a row of 2r store cells. A is kept; B (cell 1) finds A in cell 0; C is
// kept in cell 1; B' (B's exact copy) searches cell 1 first and would meet C there.
function renderTwins() {
  const unit = 1; // r = 1 for the module's answer; the drawing is in units of r
  const A = [0.4, 0.4], B = [1.2, 0.4], C = [2.8, 0.4];
  const orderB = cells(B, { method: 'grid-2r', dim: 2, radius: unit }).keys;
  const { remap } = weld([...A, ...B, ...C, ...B], { dim: 2, radius: unit, method: 'grid-2r', store: 'loose' });
  const sx = 30, ox = 50, oy = 40; // 1 r = 30 px; cell k spans [(2k - 1) r, (2k + 1) r)
  const X = ([x]) => ox + x * sx, Y = ([, y]) => oy + y * sx;
  const panel = (title, content) => `<figure class="twin"><svg viewBox="0 0 240 80" role="img" aria-label="${esc(title)}">
    ${[0, 1, 2].map((k) => `<rect x="${ox + (2 * k - 1) * sx}" y="${oy - sx}" width="${2 * sx}" height="${2 * sx}" class="cell"/><text x="${ox + 2 * k * sx}" y="${oy + sx - 4}" text-anchor="middle" class="tiny">cell ${k}</text>`).join('')}
    ${content}</svg><figcaption>${title}</figcaption></figure>`;
  const dot = (p, label, cls = '') => `<circle cx="${X(p)}" cy="${Y(p)}" r="4" class="pt ${cls}"/><text x="${X(p)}" y="${Y(p) - 8}" text-anchor="middle">${label}</text>`;
  const line = (p, q, cls) => `<line x1="${X(p)}" y1="${Y(p)}" x2="${X(q)}" y2="${Y(q)}" class="${cls}"/>`;
  const order = Array.from({ length: orderB.length / 3 }, (_, k) => `(${orderB[3 * k]}, ${orderB[3 * k + 1]})`).join(', ');
  $('#fig-twins').innerHTML = [
    panel('1. A: nothing near, kept in cell 0.', dot(A, 'A', 'rep')),
    panel('2. B: its own cell 1 is empty; cell 0 holds A, so B joins A.', dot(A, 'A', 'rep') + line(B, A, 'merge') + dot(B, 'B')),
    panel('3. C: cells 1 and 2 are empty; C is kept in cell 1.', dot(A, 'A', 'rep') + line(B, A, 'merge') + dot(B, 'B') + dot(C, 'C', 'rep')),
    panel("4. B′, B's exact copy, searches cell 1 first: it would meet C. The twins would split.", dot(A, 'A', 'rep') + line(B, A, 'merge') + dot(C, 'C', 'rep') + line(B, C, 'bad') + dot(B, 'B′', 'focus')),
  ].join('');
  $('#twins-order').textContent = order;
  $('#twins-remap').textContent = `[${Array.from(remap).join(', ')}]`;
}

// How grid sizes its cells, on the playground's points: the sampled gaps sorted, their median,
// the spacing of a uniform cloud, the factor, the floor 2r; then how many cells the r-boxes touch.
const gridFigure = memo((points, r, grid, current) => {
  const box = document.getElementById('fig-grid');
  if (!box || !points) return;
  const rule = spacingRule(points, r);
  const gaps = rule.gaps;
  const W = 300, H = 150, x0 = 30, y0 = 10;
  const top = Math.max(rule.spread, rule.median, rule.floor, rule.size, gaps[Math.floor(gaps.length * 0.9)] ?? 0) * 1.15 || 1;
  const Y = (v) => y0 + H - (Math.min(v, top) / top) * H;
  const bw = W / Math.max(1, gaps.length);
  const bars = gaps.map((g, k) => `<rect x="${(x0 + k * bw).toFixed(1)}" y="${Y(g).toFixed(1)}" width="${Math.max(0.6, bw - 0.3).toFixed(2)}" height="${(y0 + H - Y(g)).toFixed(1)}" class="gap${k === gaps.length >> 1 ? ' median' : ''}"/>`).join('');
  const hline = (v, cls, label) => `<line x1="${x0}" x2="${x0 + W}" y1="${Y(v).toFixed(1)}" y2="${Y(v).toFixed(1)}" class="${cls}"/><text x="${x0 + W + 4}" y="${(Y(v) + 4).toFixed(1)}" class="${cls}-text">${label}</text>`;
  const touched = [...grid?.touched.histogram ?? []].sort((a, b) => a[0] - b[0]);
  const n = points.length / 2;
  const size = grid ? grid.size : rule.size;
  const from = grid?.from === 'module' ? 'the module (traceWeld)' : "this page's reading of the rule (the module's own size needs traceWeld)";
  const lines = touched.map(([c, k]) => `${c} ${c === 1 ? 'cell' : 'cells'}: ${((100 * k) / n).toFixed(1)} %`).join(', ');
  box.innerHTML = `<svg viewBox="0 0 520 ${H + 40}" role="img" aria-label="how grid chooses its cell size from the points"${current ? ' class="current-figure"' : ''} data-figure="grid">
    ${bars}
    ${hline(rule.median, 'median', `median gap ${f2(rule.median)}`)}
    ${hline(rule.spread, 'spread', `uniform spacing ${f2(rule.spread)}`)}
    ${hline(rule.floor, 'floor', `floor 2r = ${f2(rule.floor)}`)}
    ${hline(size, 'size', `cell side s = ${f2(size)}`)}
    <text x="${x0}" y="${y0 + H + 16}" class="tiny">the gaps between consecutive points of a ${gaps.length}-point sample, sorted (the median in blue)</text>
    <text x="${x0}" y="${y0 + H + 31}" class="tiny">s = min(median, uniform spacing) × 1.236, at least 2r; from ${from}</text>
  </svg>
  <p class="small" id="grid-touched">r-boxes of the ${n.toLocaleString('en-US')} points in cells of side ${f2(size)}: ${lines || '–'}.</p>`;
});

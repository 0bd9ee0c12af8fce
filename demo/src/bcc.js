// BCC in 3D, the grid nobody builds: the truncated octahedra around a point the reader drags,
// the 4 of them searched (around the Delaunay tetrahedron that holds the point) beside the 8
// cubes of grid-2r, the loose store's bound R as a sphere; then a 3D cloud welded live with both,
// loose, to show what the 4 large cells cost. Cells come from the module's cells(), R from
// bound(), merges from weld(); this file only draws them (units of r: radius 1).
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { ConvexGeometry } from 'three/examples/jsm/geometries/ConvexGeometry.js';
import { bound, cells, weld } from 'meshweld';
import { memo } from './derive.js';
import { mulberry32 } from './points.js';
import { BCC_BOX } from './state.js';

const CELL_COLOURS = ['#1f5fa8', '#2a9d3c', '#f58231', '#911eb4', '#d4a017', '#0fa3b1', '#e6194b', '#6b8e23'];
const PALETTE = ['#e6194b', '#3c8dbc', '#2a9d3c', '#f58231', '#911eb4', '#0fa3b1', '#d4a017', '#f032e6', '#6b8e23', '#8b4513'];
const f2 = (v) => v.toFixed(2);
const int = (v) => v.toLocaleString('en-US');

function hasWebGL() {
  try {
    const c = document.createElement('canvas');
    return !!(c.getContext('webgl2') || c.getContext('webgl'));
  } catch {
    return false;
  }
}

// The truncated octahedron of the BCC lattice with cube edge c: the permutations of
// (0, ±c/4, ±c/2) around its centre.
function truncatedOctahedron(c) {
  const v = [];
  const a = c / 4, b = c / 2;
  for (const s1 of [-1, 1])
    for (const s2 of [-1, 1])
      for (const [x, y, z] of [[0, s1 * a, s2 * b], [0, s1 * b, s2 * a], [s1 * a, 0, s2 * b], [s1 * b, 0, s2 * a], [s1 * a, s2 * b, 0], [s1 * b, s2 * a, 0]])
        v.push(new THREE.Vector3(x, y, z));
  return new ConvexGeometry(v);
}

class Scene3D {
  constructor(canvas, camera) {
    this.canvas = canvas;
    this.camera = camera;
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color('#f6f7f9');
    this.scene.add(new THREE.HemisphereLight('#ffffff', '#8090a0', 2.4));
    const sun = new THREE.DirectionalLight('#ffffff', 1.2);
    sun.position.set(2, 3, 4);
    this.scene.add(sun);
    this.group = new THREE.Group();
    this.scene.add(this.group);
  }
  clear() {
    for (const o of [...this.group.children]) {
      this.group.remove(o);
      o.traverse?.((p) => p.geometry?.dispose());
    }
  }
  draw() {
    const width = this.canvas.clientWidth || 400, height = this.canvas.clientHeight || 300;
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.renderer.render(this.scene, this.camera);
  }
}

const lineMaterial = (colour, opacity = 1) => new THREE.LineBasicMaterial({ color: colour, transparent: opacity < 1, opacity });
const sphere = (radius, colour, opacity, wire = false) =>
  new THREE.Mesh(new THREE.SphereGeometry(radius, 32, 16), new THREE.MeshBasicMaterial({ color: colour, transparent: true, opacity, wireframe: wire, depthWrite: false }));

// A cloud of vertices, each written 2 or 3 times with a little noise (a soup exported with
// rounding): the true vertices on a jittered lattice 4.5 r apart, the copies within 0.3 r.
function soupCloud() {
  const random = mulberry32(11);
  const out = [];
  let vertices = 0;
  for (let i = 0; i < 7; i++)
    for (let j = 0; j < 7; j++)
      for (let k = 0; k < 7; k++) {
        const x = (i - 3) * 4.5 + (random() - 0.5) * 1.5, y = (j - 3) * 4.5 + (random() - 0.5) * 1.5, z = (k - 3) * 4.5 + (random() - 0.5) * 1.5;
        vertices++;
        const copies = 2 + (random() < 0.5 ? 1 : 0);
        for (let c = 0; c < copies; c++) out.push(x + (random() - 0.5) * 0.35, y + (random() - 0.5) * 0.35, z + (random() - 0.5) * 0.35);
      }
  // the copies come in file order: shuffle the triples so neighbours are not adjacent
  const n = out.length / 3, order = Array.from({ length: n }, (_, k) => k);
  for (let k = n - 1; k > 0; k--) {
    const q = Math.floor(random() * (k + 1));
    [order[k], order[q]] = [order[q], order[k]];
  }
  return { points: Float32Array.from(order.flatMap((k) => [out[3 * k], out[3 * k + 1], out[3 * k + 2]])), vertices };
}

/** The section's WebGL views start when it first comes near the screen. */
export function setupBcc(section, sections) {
  let views = null;
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting) || views) return;
    observer.disconnect();
    views = startBcc(section, sections);
    sections.update({}); // draw
  }, { rootMargin: '200px' });
  observer.observe(section);
  return { render: (s) => views?.render(s) };
}

function startBcc(section, { getState, update }) {
  const $ = (selector) => section.querySelector(selector);
  if (!hasWebGL()) {
    $('#bcc-status').textContent = 'This browser gave the page no WebGL: the 3D views cannot be drawn.';
    return { render() {} };
  }
  const camera = new THREE.PerspectiveCamera(35, 4 / 3, 0.1, 500);
  camera.position.set(13, 10, 18);
  const cloudCamera = new THREE.PerspectiveCamera(35, 4 / 3, 0.1, 500);
  cloudCamera.position.set(34, 26, 44);
  const views = { bcc: new Scene3D($('#bcc-cells'), camera), cubes: new Scene3D($('#bcc-cubes'), camera) };
  const clouds = { 'grid-2r': new Scene3D($('#bcc-cloud-grid'), cloudCamera), bcc: new Scene3D($('#bcc-cloud-bcc'), cloudCamera) };
  const redraw = () => Object.values(views).forEach((v) => v.draw());
  const redrawClouds = () => Object.values(clouds).forEach((v) => v.draw());

  // where the point is on each canvas (CSS pixels): where a press picks it up
  const placeHandles = () => {
    const p = new THREE.Vector3(...getState().bcc).project(camera);
    for (const v of Object.values(views)) v.canvas.dataset.handle = `${(((p.x + 1) / 2) * v.canvas.clientWidth).toFixed(1)} ${(((1 - p.y) / 2) * v.canvas.clientHeight).toFixed(1)}`;
  };

  // drag the point: a press near it moves it in the plane facing the camera; elsewhere it turns the view
  const controls = [];
  const raycaster = new THREE.Raycaster();
  let drag = null;
  for (const view of Object.values(views)) {
    const canvas = view.canvas;
    canvas.addEventListener('pointerdown', (event) => {
      const rect = canvas.getBoundingClientRect();
      const p = new THREE.Vector3(...getState().bcc).project(camera);
      const sx = rect.left + ((p.x + 1) / 2) * rect.width, sy = rect.top + ((1 - p.y) / 2) * rect.height;
      if (Math.hypot(event.clientX - sx, event.clientY - sy) > (event.pointerType === 'mouse' ? 14 : 24)) return;
      const normal = camera.getWorldDirection(new THREE.Vector3());
      drag = { plane: new THREE.Plane().setFromNormalAndCoplanarPoint(normal, new THREE.Vector3(...getState().bcc)), canvas };
      controls.forEach((c) => (c.enabled = false));
      canvas.setPointerCapture(event.pointerId);
      canvas.classList.add('dragging-point');
    });
    canvas.addEventListener('pointermove', (event) => {
      if (!drag || drag.canvas !== canvas) return;
      const rect = canvas.getBoundingClientRect();
      raycaster.setFromCamera(new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1, 1 - ((event.clientY - rect.top) / rect.height) * 2), camera);
      const hit = raycaster.ray.intersectPlane(drag.plane, new THREE.Vector3());
      if (hit) update({ bcc: hit.toArray().map((v) => Math.round(Math.min(BCC_BOX, Math.max(-BCC_BOX, v)) * 100) / 100) });
    });
    const stop = () => {
      if (!drag) return;
      drag = null;
      controls.forEach((c) => (c.enabled = true));
      canvas.classList.remove('dragging-point');
    };
    canvas.addEventListener('pointerup', stop);
    canvas.addEventListener('pointercancel', stop);
    const c = new OrbitControls(camera, canvas);
    c.addEventListener('change', () => (redraw(), placeHandles()));
    controls.push(c);
  }
  for (const view of Object.values(clouds)) new OrbitControls(cloudCamera, view.canvas).addEventListener('change', redrawClouds);
  for (const [axis, k] of [['x', 0], ['y', 1], ['z', 2]]) {
    $(`#bcc-${axis}`).addEventListener('input', (event) => update((s) => ({ bcc: s.bcc.map((v, q) => (q === k ? Number(event.target.value) : v)) })));
  }
  window.addEventListener('resize', () => (redraw(), redrawClouds()));

  const drawCells = memo((x, y, z) => {
    const point = [x, y, z];
    const b = cells(point, { method: 'bcc', dim: 3, radius: 1 });
    const g = cells(point, { method: 'grid-2r', dim: 3, radius: 1 });
    const R = { bcc: bound({ method: 'bcc', store: 'loose', dim: 3, radius: 1 }), cubes: bound({ method: 'grid-2r', store: 'loose', dim: 3, radius: 1 }) };
    const keyList = (keys) => Array.from({ length: keys.length / 3 }, (_, k) => [keys[3 * k], keys[3 * k + 1], keys[3 * k + 2]]);
    const here = new THREE.Vector3(...point);
    const common = (view, radiusR) => {
      const dot = new THREE.Mesh(new THREE.SphereGeometry(0.28, 20, 12), new THREE.MeshStandardMaterial({ color: '#000' }));
      dot.position.copy(here);
      const ringR = sphere(1, '#1f5fa8', 0.35);
      ringR.position.copy(here);
      const bigR = sphere(radiusR, '#888888', 0.22, true);
      bigR.position.copy(here);
      view.group.add(dot, ringR, bigR);
    };
    // BCC: the 4 truncated octahedra and the tetrahedron of their centres
    const v = views.bcc;
    v.clear();
    const c = b.size;
    const shape = truncatedOctahedron(c);
    const edges = new THREE.EdgesGeometry(shape, 1);
    const centres = keyList(b.keys).map(([i, j, k]) => new THREE.Vector3(i, j, k).multiplyScalar(c / 2));
    centres.forEach((centre, q) => {
      const mesh = new THREE.Mesh(shape, new THREE.MeshStandardMaterial({ color: CELL_COLOURS[q], transparent: true, opacity: q === 0 ? 0.22 : 0.12, depthWrite: false, side: THREE.DoubleSide }));
      const lines = new THREE.LineSegments(edges, lineMaterial(CELL_COLOURS[q], 0.9));
      mesh.position.copy(centre);
      lines.position.copy(centre);
      v.group.add(mesh, lines);
    });
    const tetra = [];
    for (let a = 0; a < 4; a++) for (let q = a + 1; q < 4; q++) tetra.push(centres[a], centres[q]);
    v.group.add(new THREE.LineSegments(new THREE.BufferGeometry().setFromPoints(tetra), lineMaterial('#b8860b')));
    common(v, R.bcc);
    // grid-2r: 8 cubes of side 2r, centred on the store lattice
    const u = views.cubes;
    u.clear();
    const cube = new THREE.BoxGeometry(g.size, g.size, g.size);
    const cubeEdges = new THREE.EdgesGeometry(cube);
    keyList(g.keys).forEach(([i, j, k], q) => {
      const mesh = new THREE.Mesh(cube, new THREE.MeshStandardMaterial({ color: CELL_COLOURS[q], transparent: true, opacity: q === 0 ? 0.22 : 0.1, depthWrite: false }));
      const lines = new THREE.LineSegments(cubeEdges, lineMaterial(CELL_COLOURS[q], 0.9));
      mesh.position.set(i * g.size, j * g.size, k * g.size);
      lines.position.copy(mesh.position);
      u.group.add(mesh, lines);
    });
    common(u, R.cubes);
    // the farthest corner of a searched cell: how far a loose merge can reach from here
    const reach = (list, vertices) => Math.max(...list.flatMap((centre) => vertices.map((p) => p.clone().add(centre).distanceTo(here))));
    const octVertices = [];
    const pos = shape.getAttribute('position');
    for (let q = 0; q < pos.count; q++) octVertices.push(new THREE.Vector3().fromBufferAttribute(pos, q));
    const cubeCorners = [];
    for (const sx of [-1, 1]) for (const sy of [-1, 1]) for (const sz of [-1, 1]) cubeCorners.push(new THREE.Vector3(sx, sy, sz).multiplyScalar(g.size / 2));
    const cubeCentres = keyList(g.keys).map(([i, j, k]) => new THREE.Vector3(i, j, k).multiplyScalar(g.size));
    return {
      bcc: { keys: keyList(b.keys), size: c, R: R.bcc, reach: reach(centres, octVertices), volume: 4 * (c ** 3 / 2) },
      cubes: { keys: keyList(g.keys), size: g.size, R: R.cubes, reach: reach(cubeCentres, cubeCorners), volume: 8 * g.size ** 3 },
    };
  });

  const cloud = soupCloud();
  const cloudWelds = memo(() => {
    const out = {};
    for (const [method, view] of Object.entries(clouds)) {
      const start = performance.now();
      const w = weld(cloud.points, { dim: 3, radius: 1, method, store: 'loose' });
      const ms = performance.now() - start;
      const precise = weld(cloud.points, { dim: 3, radius: 1, method, store: 'precise' }).count;
      const n = cloud.points.length / 3;
      const colours = new Float32Array(n * 3), merges = [];
      let far = 0;
      const firstOf = new Int32Array(w.count).fill(-1);
      const sizes = new Uint32Array(w.count);
      for (let i = 0; i < n; i++) sizes[w.remap[i]]++;
      for (let i = 0; i < n; i++) {
        const m = w.remap[i];
        const colour = new THREE.Color(sizes[m] > 3 ? PALETTE[m % PALETTE.length] : '#9aa3ad');
        colour.toArray(colours, 3 * i);
        if (firstOf[m] < 0) firstOf[m] = i;
        else {
          const d = Math.hypot(cloud.points[3 * i] - w.positions[3 * m], cloud.points[3 * i + 1] - w.positions[3 * m + 1], cloud.points[3 * i + 2] - w.positions[3 * m + 2]);
          far = Math.max(far, d);
          if (d > 0.6) merges.push(new THREE.Vector3().fromArray(cloud.points, 3 * i), new THREE.Vector3().fromArray(w.positions, 3 * m));
        }
      }
      view.clear();
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.BufferAttribute(cloud.points, 3));
      geometry.setAttribute('color', new THREE.BufferAttribute(colours, 3));
      view.group.add(new THREE.Points(geometry, new THREE.PointsMaterial({ size: 0.45, vertexColors: true })));
      view.group.add(new THREE.LineSegments(new THREE.BufferGeometry().setFromPoints(merges), lineMaterial('#d62728', 0.8)));
      out[method] = { count: w.count, precise, far, ms, longMerges: merges.length / 2, n };
    }
    return out;
  });

  $('#bcc-status').textContent = 'Drag the black point (or use the sliders); drag elsewhere to turn the view.';
  // drawn again only when the point or the canvas width changed
  const show = memo((point, width) => {
    void width;
    const s = { bcc: point };
    const info = drawCells(...s.bcc);
    s.bcc.forEach((v, k) => ($(`#bcc-${'xyz'[k]}`).value = String(v)));
    $('#bcc-point').textContent = `(${s.bcc.map(f2).join(', ')}) r`;
    const keys = (list) => list.map((k) => `(${k.join(', ')})`).join(' ');
    $('#bcc-cells-caption').innerHTML = `<strong>bcc</strong>: <strong>${info.bcc.keys.length}</strong> truncated octahedra searched (cube edge ${f2(info.bcc.size)} r), ${f2(info.bcc.volume)} r³ in all; keys ${keys(info.bcc.keys)}. Farthest corner from the point: ${f2(info.bcc.reach)} r; loose <var>R</var> = <strong>${f2(info.bcc.R)} r</strong> (grey sphere).`;
    $('#bcc-cubes-caption').innerHTML = `<strong>grid-2r</strong>: <strong>${info.cubes.keys.length}</strong> cubes of side ${f2(info.cubes.size)} r searched, ${f2(info.cubes.volume)} r³ in all. Farthest corner: ${f2(info.cubes.reach)} r; loose <var>R</var> = <strong>${f2(info.cubes.R)} r</strong>.`;
    section.dataset.point = s.bcc.join('_');
    redraw();
    placeHandles();
    const welds = cloudWelds();
    for (const [method, id] of [['grid-2r', 'grid'], ['bcc', 'bcc']]) {
      const w = welds[method];
      $(`#bcc-cloud-${id}-caption`).innerHTML = `<strong>${method}</strong>, loose: ${int(w.n)} points → <strong data-out>${int(w.count)}</strong> (the precise store keeps ${int(w.precise)}; ${int(cloud.vertices)} true vertices); largest merge ${f2(w.far)} r, ${int(w.longMerges)} merges longer than the copies' noise (red), in ${w.ms.toFixed(1)} ms.`;
    }
    redrawClouds();
    section.dataset.drawn = String(Number(section.dataset.drawn || 0) + 1);
  });
  return { render: (s) => show(s.bcc, $('#bcc-cells').clientWidth) };
}

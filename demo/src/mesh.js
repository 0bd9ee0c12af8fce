// The 3D section: a mesh (dropped STL/OBJ/PLY, or the bundled gear wheel) welded by the module
// with the method and store of the page, before and after side by side, open edges in red.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { weldMesh } from 'meshweld';
import { boundaryEdges } from 'meshweld/three';
import sampleUrl from 'stl-models/objects/gearwheel.bin.stl?url';
import { TOLERANCES } from './state.js';

const NAIVE_MAX = 30000; // distinct-vertex count above which naive is replaced by its twin, kdtree

function hasWebGL() {
  try {
    const canvas = document.createElement('canvas');
    return !!(canvas.getContext('webgl2') || canvas.getContext('webgl'));
  } catch {
    return false;
  }
}

// positions (and indices or null) of a file's contents, by extension
function parse(name, buffer) {
  const ext = name.toLowerCase().split('.').pop();
  if (ext === 'stl') return fromGeometry(new STLLoader().parse(buffer));
  if (ext === 'ply') return fromGeometry(new PLYLoader().parse(buffer));
  if (ext === 'obj') {
    const group = new OBJLoader().parse(new TextDecoder().decode(buffer));
    const parts = [];
    group.updateMatrixWorld(true);
    group.traverse((o) => {
      if (o.isMesh) parts.push(o.geometry.clone().applyMatrix4(o.matrixWorld).toNonIndexed().getAttribute('position').array);
    });
    if (!parts.length) throw new Error('the OBJ file holds no triangle mesh');
    const positions = new Float32Array(parts.reduce((s, a) => s + a.length, 0));
    let at = 0;
    for (const a of parts) positions.set(a, (at += a.length) - a.length);
    return { positions, indices: null };
  }
  throw new Error(`.${ext} is not a mesh format this page reads (STL, OBJ, PLY)`);
}

function fromGeometry(geometry) {
  const position = geometry.getAttribute('position');
  const positions = Float32Array.from(position.array.subarray(0, position.count * 3));
  const index = geometry.getIndex();
  return { positions, indices: index ? Uint32Array.from(index.array) : null };
}

function makeGeometry(positions, indices) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  if (indices) g.setIndex(new THREE.BufferAttribute(indices, 1));
  g.computeVertexNormals();
  g.computeBoundingSphere();
  return g;
}

function edgeLines(geometry) {
  const pairs = boundaryEdges(geometry);
  const p = geometry.getAttribute('position').array;
  const out = new Float32Array(pairs.length * 3);
  for (let k = 0; k < pairs.length; k++) out.set(p.subarray(pairs[k] * 3, pairs[k] * 3 + 3), k * 3);
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(out, 3));
  return { lines: g, count: pairs.length / 2 };
}

// One view: WebGL through three.js, or a plain 2D-canvas wireframe when WebGL is missing.
class View {
  constructor(canvas, camera, webgl) {
    this.canvas = canvas;
    this.camera = camera;
    this.webgl = webgl;
    if (webgl) {
      this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
      this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
      this.scene = new THREE.Scene();
      this.scene.background = new THREE.Color('#f6f7f9');
      this.scene.add(new THREE.HemisphereLight('#ffffff', '#8090a0', 2.2));
      const sun = new THREE.DirectionalLight('#ffffff', 1.4);
      sun.position.set(1, 2, 3);
      this.scene.add(sun);
      this.material = new THREE.MeshStandardMaterial({ color: '#9fb4c8', flatShading: true, side: THREE.DoubleSide, polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 });
      this.edgeMaterial = new THREE.LineBasicMaterial({ color: '#d62728' });
    }
  }

  show(geometry, edges, wireframe) {
    this.geometry = geometry;
    this.edges = edges;
    this.wireframe = wireframe;
    if (this.webgl) {
      for (const o of [this.mesh, this.lines]) if (o) (this.scene.remove(o), o.geometry.dispose());
      this.material.wireframe = wireframe;
      this.mesh = new THREE.Mesh(geometry, this.material);
      this.lines = new THREE.LineSegments(edges, this.edgeMaterial);
      this.scene.add(this.mesh, this.lines);
    }
    this.draw();
  }

  draw() {
    const width = this.canvas.clientWidth || 400, height = this.canvas.clientHeight || 300;
    if (this.webgl) {
      this.renderer.setSize(width, height, false);
      this.renderer.render(this.scene, this.camera);
      return;
    }
    // fallback: project with the same camera, draw triangle edges and open edges
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    this.canvas.width = width * dpr;
    this.canvas.height = height * dpr;
    const ctx = this.canvas.getContext('2d');
    ctx.fillStyle = '#f6f7f9';
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    if (!this.geometry) return;
    this.camera.updateMatrixWorld();
    const m = new THREE.Matrix4().multiplyMatrices(this.camera.projectionMatrix, this.camera.matrixWorldInverse);
    const project = (array) => {
      const out = new Float32Array((array.length / 3) * 2), v = new THREE.Vector3();
      for (let i = 0; i < array.length / 3; i++) {
        v.fromArray(array, i * 3).applyMatrix4(m);
        out[2 * i] = ((v.x + 1) / 2) * this.canvas.width;
        out[2 * i + 1] = ((1 - v.y) / 2) * this.canvas.height;
      }
      return out;
    };
    const p = project(this.geometry.getAttribute('position').array);
    const index = this.geometry.getIndex()?.array;
    const corners = index ? index.length : p.length / 2;
    ctx.strokeStyle = 'rgba(60, 80, 100, 0.35)';
    ctx.lineWidth = dpr * 0.6;
    ctx.beginPath();
    for (let t = 0; t + 2 < corners; t += 3) {
      const [a, b, c] = index ? [index[t], index[t + 1], index[t + 2]] : [t, t + 1, t + 2];
      ctx.moveTo(p[2 * a], p[2 * a + 1]);
      ctx.lineTo(p[2 * b], p[2 * b + 1]);
      ctx.lineTo(p[2 * c], p[2 * c + 1]);
      ctx.closePath();
    }
    ctx.stroke();
    const e = project(this.edges.getAttribute('position').array);
    ctx.strokeStyle = '#d62728';
    ctx.lineWidth = dpr;
    ctx.beginPath();
    for (let k = 0; k < e.length; k += 4) {
      ctx.moveTo(e[k], e[k + 1]);
      ctx.lineTo(e[k + 2], e[k + 3]);
    }
    ctx.stroke();
  }
}

export function setupMesh(section, { getState, update }) {
  const $ = (selector) => section.querySelector(selector);
  const webgl = hasWebGL();
  const camera = new THREE.PerspectiveCamera(35, 4 / 3, 0.01, 1000);
  let views = null, model = null, controls = [];
  $('#mesh-renderer').textContent = webgl ? 'WebGL (three.js)' : 'a plain 2D wireframe (this browser gave the page no WebGL)';

  const tolerance = $('#mesh-tolerance');
  TOLERANCES.forEach((t, k) => tolerance.append(new Option(`${t} × diagonal`, String(k))));
  tolerance.value = String(TOLERANCES.indexOf(getState().tol));
  tolerance.addEventListener('change', () => update({ tol: TOLERANCES[Number(tolerance.value)] }));
  $('#mesh-wireframe').addEventListener('change', () => refresh());

  function ensureViews() {
    if (views) return views;
    views = [new View($('#mesh-before'), camera, webgl), new View($('#mesh-after'), camera, webgl)];
    const redraw = () => views.forEach((v) => v.draw());
    for (const v of views) {
      const c = new OrbitControls(camera, v.canvas);
      c.addEventListener('change', () => {
        controls.forEach((o) => o !== c && o.target.copy(c.target));
        redraw();
      });
      controls.push(c);
    }
    window.addEventListener('resize', redraw);
    return views;
  }

  function status(text, error = false) {
    $('#mesh-status').textContent = text;
    $('#mesh-status').classList.toggle('error', error);
  }

  async function load(name, buffer) {
    try {
      const parsed = parse(name, buffer);
      if (parsed.positions.length < 9) throw new Error('no triangles in the file');
      const box = new THREE.Box3().setFromArray(parsed.positions);
      model = { name, ...parsed, diagonal: box.max.distanceTo(box.min), box };
      const sphere = box.getBoundingSphere(new THREE.Sphere());
      ensureViews();
      camera.aspect = ($('#mesh-before').clientWidth || 4) / ($('#mesh-before').clientHeight || 3);
      camera.near = sphere.radius / 100;
      camera.far = sphere.radius * 100;
      camera.position.copy(sphere.center).add(new THREE.Vector3(0.9, 0.7, 1.6).normalize().multiplyScalar(sphere.radius * 3.2));
      camera.updateProjectionMatrix();
      for (const c of controls) {
        c.target.copy(sphere.center);
        c.update();
      }
      refresh();
    } catch (error) {
      model = null;
      status(`Could not read ${name}: ${error.message}`, true);
    }
  }

  // welds again only when the model or what the weld reads changed
  let shown = null;
  function refresh(force = true) {
    if (!model) return;
    const state = getState();
    const { method, store } = state;
    const wanted = [model, method, store, state.tol, $('#mesh-wireframe').checked];
    if (!force && shown && wanted.every((v, k) => Object.is(v, shown[k]))) return;
    shown = wanted;
    let method3 = method === 'hex' ? 'bcc' : method; // hex is 2D only: its 3D counterpart
    const radius = state.tol * model.diagonal;
    const corners = model.indices ? model.indices.length : model.positions.length / 3;
    let note = method === 'hex' ? 'hex is 2D only: bcc, its 3D counterpart, runs here. ' : '';
    if (method3 === 'naive' && model.positions.length / 3 > NAIVE_MAX) {
      method3 = 'kdtree';
      note += 'naive would take seconds on this many vertices: the kd-tree, whose result is identical, runs instead. ';
    }
    const start = performance.now();
    const welded = weldMesh(model.positions, model.indices, { radius, method: method3, store });
    const ms = performance.now() - start;
    const before = makeGeometry(model.positions, model.indices);
    const after = makeGeometry(welded.positions, welded.indices);
    const edgesBefore = edgeLines(before), edgesAfter = edgeLines(after);
    const wire = $('#mesh-wireframe').checked;
    views[0].show(before, edgesBefore.lines, wire);
    views[1].show(after, edgesAfter.lines, wire);
    const int = (v) => v.toLocaleString('en-US');
    $('#mesh-before-vertices').textContent = int(model.positions.length / 3);
    $('#mesh-before-triangles').textContent = int(corners / 3);
    $('#mesh-before-open').textContent = int(edgesBefore.count);
    $('#mesh-after-vertices').textContent = int(welded.vertexCount);
    $('#mesh-after-triangles').textContent = int(welded.triangleCount);
    $('#mesh-after-open').textContent = int(edgesAfter.count);
    $('#mesh-after-removed').textContent = int(welded.degenerateRemoved);
    $('#mesh-time').textContent = `${ms.toFixed(1)} ms`;
    $('#mesh-code').textContent = `import { ready, weldMesh } from 'meshweld';

await ready;
const welded = weldMesh(positions, ${model.indices ? 'indices' : 'null /* a triangle soup */'}, {
  radius: ${+radius.toPrecision(4)},   // ${state.tol} × the bounding-box diagonal
  method: '${method3}', store: '${store}',
});
// ${int(model.positions.length / 3)} vertices in, ${int(welded.vertexCount)} out; ${int(welded.triangleCount)} triangles kept`;
    status(`${model.name}: welded with r = ${+radius.toPrecision(4)} (${state.tol} × the diagonal ${+model.diagonal.toPrecision(4)}). ${note}`);
    section.dataset.loaded = String(Number(section.dataset.loaded || 0) + 1);
  }

  // loading: the sample, a file input, or a file dropped anywhere on the section
  const sampleName = 'gearwheel.bin.stl';
  $('#mesh-sample').addEventListener('click', async () => {
    status('loading the sample…');
    const response = await fetch(sampleUrl);
    load(sampleName, await response.arrayBuffer());
  });
  $('#mesh-file').addEventListener('change', async (event) => {
    const file = event.target.files[0];
    if (file) load(file.name, await file.arrayBuffer());
  });
  section.addEventListener('dragover', (event) => {
    event.preventDefault();
    section.classList.add('dragging');
  });
  section.addEventListener('dragleave', () => section.classList.remove('dragging'));
  section.addEventListener('drop', async (event) => {
    event.preventDefault();
    section.classList.remove('dragging');
    const file = event.dataTransfer?.files?.[0];
    if (file) load(file.name, await file.arrayBuffer());
  });

  for (const control of section.querySelectorAll('[disabled]')) control.disabled = false;
  status('No model yet.');
  return {
    render(state) {
      tolerance.value = String(TOLERANCES.indexOf(state.tol));
      refresh(false);
    },
  };
}

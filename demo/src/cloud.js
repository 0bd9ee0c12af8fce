// The playground canvas: points coloured by cluster, the method's cells, and the current point's
// search. It draws a `view` (see main.js) and keeps no state of its own beyond the transform.
import { WORLD } from './points.js';
import { boxMeetsDisc, cellCentre, cellPolygon, hexCentre, tilingSegments } from './geometry.js';

const PALETTE = ['#e6194b', '#3c8dbc', '#2a9d3c', '#f58231', '#911eb4', '#0fa3b1', '#d4a017', '#f032e6', '#6b8e23', '#8b4513'];
const PALETTE_RGB = PALETTE.map((c) => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16)));
const SINGLE = '#4a4a4a', WAITING = '#c8c8c8';
const BIG = 4000; // above this many points, pixels instead of discs

export class Cloud {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.scratch = document.createElement('canvas');
    this.scale = 1;
    this.zoom = 1;
    this.origin = [0, 0]; // the world point at the top-left corner
  }

  /** Shows the field magnified `zoom` times around world point `centre` (kept inside the field). */
  setView(zoom, [cx, cy]) {
    const w = WORLD.width / zoom, h = WORLD.height / zoom;
    this.zoom = zoom;
    this.origin = [Math.min(WORLD.width - w, Math.max(0, cx - w / 2)), Math.min(WORLD.height - h, Math.max(0, cy - h / 2))];
    return [this.origin[0] + w / 2, this.origin[1] + h / 2];
  }

  /** The visible part of the field: [x0, y0, x1, y1]. */
  visible() {
    const [x, y] = this.origin;
    return [x, y, x + WORLD.width / this.zoom, y + WORLD.height / this.zoom];
  }

  resize() {
    const width = this.canvas.clientWidth || 800;
    const height = Math.round((width * WORLD.height) / WORLD.width);
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    this.canvas.style.height = `${height}px`;
    if (this.canvas.width !== Math.round(width * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
    }
    this.dpr = dpr;
    this.scale = ((width * dpr) / WORLD.width) * this.zoom; // device pixels per world unit
  }

  /** World coordinates of a pointer event's position. */
  toWorld(event) {
    const rect = this.canvas.getBoundingClientRect();
    const [x0, y0, x1, y1] = this.visible();
    return [x0 + ((event.clientX - rect.left) / rect.width) * (x1 - x0), y0 + ((event.clientY - rect.top) / rect.height) * (y1 - y0)];
  }

  /** The nearest point within `pixels` CSS pixels of (x, y), or -1. */
  pick(points, x, y, pixels = 9) {
    const limit = (pixels * this.dpr) / this.scale;
    let best = limit * limit, found = -1;
    for (let i = 0; i < points.length / 2; i++) {
      const dx = points[2 * i] - x, dy = points[2 * i + 1] - y;
      const d = dx * dx + dy * dy;
      if (d <= best) (best = d), (found = i);
    }
    return found;
  }

  draw(view) {
    this.resize();
    const { ctx, scale } = this;
    const s = scale;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.setTransform(s, 0, 0, s, -this.origin[0] * s, -this.origin[1] * s); // world units from here on
    const px = 1 / s; // one device pixel in world units
    const box = this.visible();

    // the method's structure
    const c = view.cellSize;
    if (c > 0 && c * s >= 7 * this.dpr) {
      ctx.lineWidth = px;
      ctx.strokeStyle = '#d5d9e0';
      this.segments(tilingSegments(view.method, c, box));
      if (view.method === 'grid-2r') {
        ctx.setLineDash([4 * px, 4 * px]);
        ctx.strokeStyle = '#e3c9a8';
        this.segments(tilingSegments(view.method, c, box, { search: true }));
        ctx.setLineDash([]);
      }
    }
    if (view.kd) {
      for (const [x0, y0, x1, y1, depth] of view.kd.splits) {
        ctx.lineWidth = Math.max(px, (2.2 - depth * 0.2) * px * this.dpr);
        ctx.strokeStyle = `rgba(120, 90, 160, ${Math.max(0.25, 0.8 - depth * 0.06)})`;
        this.segments([[x0, y0, x1, y1]]);
      }
    }
    if (view.occupied && c > 0) {
      ctx.fillStyle = 'rgba(60, 141, 188, 0.07)';
      for (const [i, j] of view.occupied) this.polygon(cellPolygon(view.method, i, j, c), true);
    }

    // each kept point's disc of radius r/2: no two overlap (no two outputs within r)
    const { count, reps } = view;
    if (reps && count <= 3000 && (view.r / 2) * s >= 1.5 * this.dpr) {
      ctx.fillStyle = 'rgba(0, 0, 0, 0.045)';
      ctx.beginPath();
      for (let k = 0; k < count; k++) {
        ctx.moveTo(reps[2 * k] + view.r / 2, reps[2 * k + 1]);
        ctx.arc(reps[2 * k], reps[2 * k + 1], view.r / 2, 0, Math.PI * 2);
      }
      ctx.fill();
    }

    if (view.focus) this.drawSearch(view, view.focus);
    this.drawPoints(view);
    if (view.focus) this.drawFocus(view, view.focus);
  }

  segments(list) {
    const { ctx } = this;
    ctx.beginPath();
    for (const [x0, y0, x1, y1] of list) {
      ctx.moveTo(x0, y0);
      ctx.lineTo(x1, y1);
    }
    ctx.stroke();
  }

  polygon(vertices, fill) {
    const { ctx } = this;
    ctx.beginPath();
    vertices.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
    if (fill) ctx.fill();
    else ctx.stroke();
  }

  // Below the points: the cells searched (numbered in search order), the one that held the
  // representative, the one the point is stored in, the dual triangle, the kd leaves visited.
  drawSearch(view, focus) {
    const { ctx } = this;
    const px = 1 / this.scale;
    const c = focus.size;
    if (view.method === 'kdtree' && view.kd) {
      ctx.fillStyle = 'rgba(145, 30, 180, 0.10)';
      for (const b of view.kd.leaves) if (boxMeetsDisc(b, focus.x, focus.y, view.r)) ctx.fillRect(b[0], b[1], b[2] - b[0], b[3] - b[1]);
    }
    if (focus.box) {
      // grid: the r-box around the point and the cells it touches (most often one)
      for (const [i, j] of focus.box) {
        ctx.fillStyle = 'rgba(255, 200, 0, 0.22)';
        this.polygon(cellPolygon('grid', i, j, c), true);
        ctx.strokeStyle = 'rgba(200, 140, 0, 0.9)';
        ctx.lineWidth = 1.2 * px * this.dpr;
        this.polygon(cellPolygon('grid', i, j, c), false);
      }
      ctx.strokeStyle = '#1f5fa8';
      ctx.lineWidth = 3 * px * this.dpr;
      this.polygon(cellPolygon('grid', focus.storeKey[0], focus.storeKey[1], c), false);
      ctx.setLineDash([5 * px * this.dpr, 4 * px * this.dpr]);
      ctx.strokeStyle = '#f58231';
      ctx.lineWidth = 1.5 * px * this.dpr;
      ctx.strokeRect(focus.x - view.r, focus.y - view.r, 2 * view.r, 2 * view.r);
      ctx.setLineDash([]);
      return;
    }
    if (!focus.keys || focus.keys.length === 0) return;
    const n = focus.keys.length / 3;
    if (view.method === 'grid-2r') {
      // the search cell containing the point: its centre is the corner the 4 store cells share
      const i = Math.floor(focus.x / c), j = Math.floor(focus.y / c);
      ctx.fillStyle = 'rgba(245, 130, 49, 0.10)';
      ctx.fillRect(i * c, j * c, c, c);
      ctx.setLineDash([5 * px * this.dpr, 4 * px * this.dpr]);
      ctx.strokeStyle = '#f58231';
      ctx.lineWidth = 1.5 * px * this.dpr;
      ctx.strokeRect(i * c, j * c, c, c);
      ctx.setLineDash([]);
    }
    for (let k = 0; k < n; k++) {
      const [i, j] = [focus.keys[3 * k], focus.keys[3 * k + 1]];
      const looked = k < focus.lookupsMade;
      ctx.fillStyle = looked ? 'rgba(255, 200, 0, 0.22)' : 'rgba(255, 200, 0, 0.08)';
      this.polygon(cellPolygon(view.method, i, j, c), true);
      ctx.strokeStyle = looked ? 'rgba(200, 140, 0, 0.9)' : 'rgba(200, 140, 0, 0.4)';
      ctx.lineWidth = 1.2 * px * this.dpr;
      this.polygon(cellPolygon(view.method, i, j, c), false);
    }
    if (view.method === 'hex') {
      const corners = Array.from({ length: 3 }, (_, k) => hexCentre(focus.keys[3 * k], focus.keys[3 * k + 1], c));
      ctx.strokeStyle = '#b8860b';
      ctx.lineWidth = 1.5 * px * this.dpr;
      ctx.setLineDash([5 * px * this.dpr, 3 * px * this.dpr]);
      this.polygon(corners, false);
      ctx.setLineDash([]);
    }
    const mark = (key, colour, width) => {
      if (!key) return;
      ctx.strokeStyle = colour;
      ctx.lineWidth = width * px * this.dpr;
      this.polygon(cellPolygon(view.method, key[0], key[1], c), false);
    };
    mark(focus.storeKey, '#1f5fa8', 3);
    mark(focus.hitKey, '#1e8c3a', 3);
    // search order numbers, when the cells are big enough to hold them
    if (c * this.scale >= 22 * this.dpr) {
      ctx.fillStyle = '#7a5a00';
      const size = Math.min(18, Math.max(11, (c * this.scale) / this.dpr / 6));
      ctx.font = `${size * px * this.dpr}px system-ui, sans-serif`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (let k = 0; k < n; k++) {
        const [x, y] = cellCentre(view.method, focus.keys[3 * k], focus.keys[3 * k + 1], c);
        ctx.fillText(String(k + 1), x, y + c * 0.3);
      }
    }
  }

  drawPoints(view) {
    const { ctx } = this;
    const { points, n, done, remap, sizes, isRep } = view;
    const colourOf = (i) => {
      if (i >= done || !remap) return -2;
      const m = remap[i];
      return sizes[m] > 1 ? m % PALETTE.length : -1;
    };
    const px = 1 / this.scale;
    // merge lines: each merged point to its representative
    if (remap && view.reps && n <= 20000) {
      ctx.lineWidth = 1 * px * this.dpr;
      ctx.strokeStyle = 'rgba(60, 60, 60, 0.45)';
      ctx.beginPath();
      for (let i = 0; i < done; i++) {
        if (isRep[i]) continue;
        const m = remap[i];
        ctx.moveTo(points[2 * i], points[2 * i + 1]);
        ctx.lineTo(view.reps[2 * m], view.reps[2 * m + 1]);
      }
      ctx.stroke();
    }
    if (n > BIG) return this.drawPixels(view, colourOf);
    const dot = 2.4 * px * this.dpr, repDot = 4 * px * this.dpr;
    const groups = new Map();
    for (let i = 0; i < n; i++) {
      const key = `${colourOf(i)}:${isRep && isRep[i] ? 1 : 0}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(i);
    }
    for (const [key, list] of groups) {
      const [colour, rep] = key.split(':').map(Number);
      ctx.fillStyle = colour === -2 ? WAITING : colour === -1 ? SINGLE : PALETTE[colour];
      const radius = rep ? repDot : dot;
      ctx.beginPath();
      for (const i of list) {
        ctx.moveTo(points[2 * i] + radius, points[2 * i + 1]);
        ctx.arc(points[2 * i], points[2 * i + 1], radius, 0, Math.PI * 2);
      }
      ctx.fill();
      if (rep) {
        ctx.lineWidth = 1.2 * px * this.dpr;
        ctx.strokeStyle = '#111';
        ctx.stroke();
      }
    }
  }

  // Many points: 2x2 device pixels each (3x3 for representatives) into an ImageData.
  drawPixels(view, colourOf) {
    const { points, n, isRep } = view;
    const { width, height } = this.canvas;
    const image = new ImageData(width, height);
    const data = image.data;
    const s = this.scale;
    for (let i = 0; i < n; i++) {
      const colour = colourOf(i);
      const [r, g, b] = colour === -2 ? [200, 200, 200] : colour === -1 ? [74, 74, 74] : PALETTE_RGB[colour];
      const x = Math.floor((points[2 * i] - this.origin[0]) * s), y = Math.floor((points[2 * i + 1] - this.origin[1]) * s);
      const size = isRep && isRep[i] ? 3 : 2;
      for (let dy = 0; dy < size; dy++)
        for (let dx = 0; dx < size; dx++) {
          const xx = x + dx - 1, yy = y + dy - 1;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const o = (yy * width + xx) * 4;
          data[o] = r;
          data[o + 1] = g;
          data[o + 2] = b;
          data[o + 3] = 255;
        }
    }
    this.scratch.width = width;
    this.scratch.height = height;
    this.scratch.getContext('2d').putImageData(image, 0, 0);
    this.ctx.save();
    this.ctx.setTransform(1, 0, 0, 1, 0, 0);
    this.ctx.drawImage(this.scratch, 0, 0);
    this.ctx.restore();
  }

  // Above the points: the circles r and R around the point, the merge line, the rings.
  drawFocus(view, focus) {
    const { ctx } = this;
    const px = (1 / this.scale) * this.dpr;
    ctx.lineWidth = 1.5 * px;
    ctx.strokeStyle = '#222';
    ctx.beginPath();
    ctx.arc(focus.x, focus.y, view.r, 0, Math.PI * 2);
    ctx.stroke();
    if (view.R > view.r * 1.001) {
      ctx.setLineDash([6 * px, 5 * px]);
      ctx.strokeStyle = '#888';
      ctx.beginPath();
      ctx.arc(focus.x, focus.y, view.R, 0, Math.PI * 2);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    if (focus.rep) {
      ctx.strokeStyle = '#d62728';
      ctx.lineWidth = 3 * px;
      ctx.beginPath();
      ctx.moveTo(focus.x, focus.y);
      ctx.lineTo(focus.rep[0], focus.rep[1]);
      ctx.stroke();
      ctx.lineWidth = 2.5 * px;
      ctx.beginPath();
      ctx.arc(focus.rep[0], focus.rep[1], 7 * px, 0, Math.PI * 2);
      ctx.stroke();
    }
    ctx.strokeStyle = '#000';
    ctx.lineWidth = 2.5 * px;
    ctx.beginPath();
    ctx.arc(focus.x, focus.y, 6 * px, 0, Math.PI * 2);
    ctx.stroke();
  }
}

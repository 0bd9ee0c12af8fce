/* GRID: square cells sized to the data, precise.
 * A point p merges into the earliest representative within r (the NAIVE result, whatever the
 * cell size); it searches the cells that the box [p - r, p + r] touches. Cells at least 2r wide
 * make that at most 2 per axis, and cells as wide as the points' spacing make it 1 for most
 * points of a sparse set (a mesh, a soup: r is far below the edge length). The representatives
 * are the whole state, so the cells can be rebuilt at another size at any time: when chains grow
 * long (cells too wide for the density) and when coordinates outgrow the cell indices. */
#include "internal.h"

#include <math.h>

#define MW_GRID_WORK 24.0 /* chain steps per point searched above which cells shrink */

/* The typical spacing of the points, from a sample of 256: the median gap between consecutive
 * points (meshes and soups store neighbours together), or the spacing of a uniform cloud in the
 * sample's bounding box, whichever is smaller. Only speed depends on it. */
static double mw_spacing(const meshweld_Welder* w, const float* points, size_t count, size_t stride)
{
    double gaps[257], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int n = 0, sampled = 0;
    size_t step = count / 256 > 0 ? count / 256 : 1;
    for (size_t i = 0; i < count && sampled < 257; i += step, ++sampled) {
        const float* a = mw_point(points, stride, i);
        double g = 0;
        for (int k = 0; k < w->dim; ++k) {
            if (!isfinite(a[k]))
                return 0.0; /* the weld reports it */
            lo[k] = sampled ? fmin(lo[k], a[k]) : a[k];
            hi[k] = sampled ? fmax(hi[k], a[k]) : a[k];
            if (i + 1 < count)
                g = fmax(g, fabs((double)a[k] - (double)mw_point(points, stride, i + 1)[k]));
        }
        if (g > 0 && isfinite(g))
            gaps[n++] = g;
    }
    double volume = 1.0;
    int axes = 0;
    for (int k = 0; k < w->dim; ++k)
        if (hi[k] > lo[k])
            volume *= hi[k] - lo[k], axes++;
    double spread = axes ? pow(volume / (double)count, 1.0 / axes) : 0.0;
    if (n == 0)
        return spread;
    for (int i = 1; i < n; ++i) /* insertion sort, n <= 257 */
        for (int j = i; j > 0 && gaps[j - 1] > gaps[j]; --j) {
            double t = gaps[j];
            gaps[j] = gaps[j - 1], gaps[j - 1] = t;
        }
    double median = gaps[n / 2];
    /* times an irrational factor, so that lattice data (tiles, grids) does not line up with the
     * cell boundaries, where every point would search two cells per axis */
    return (spread > 0 && spread < median ? spread : median) * 1.2360679774997896;
}

static void mw_gridHome(const meshweld_Welder* w, const float* q, uint32_t key[3])
{
    key[0] = (uint32_t)mw_floor((double)q[0] * w->inverse);
    key[1] = (uint32_t)mw_floor((double)q[1] * w->inverse);
    key[2] = w->dim == 3 ? (uint32_t)mw_floor((double)q[2] * w->inverse) : 0u;
}

/* Appends representative rep to the chain of cell e (found for key), the cell its position is in. */
static void mw_gridLink(meshweld_Welder* w, mw_Entry* e, const uint32_t key[3], uint32_t rep)
{
    if (e->value == MW_NONE) {
        memcpy(e->key, key, 3 * sizeof(uint32_t));
        w->next[rep] = rep;
        w->cells.count++;
    } else {
        w->next[rep] = w->next[e->value]; /* the oldest */
        w->next[e->value] = rep;
    }
    e->value = rep;
}

/* Appends representative rep to the chain of its cell; the table has room. */
static void mw_gridInsert(meshweld_Welder* w, uint32_t rep)
{
    uint32_t key[3];
    mw_gridHome(w, &w->reps[rep * 3], key);
    mw_gridLink(w, mw_tableFindHashed(&w->cells, mw_cellHash(key[0], key[1], key[2]), key[0], key[1], key[2]), key, rep);
}

/* Sets the cell size and rebuilds the cells from the representatives. The reach of a search, in
 * cells, covers r and every rounding of the products (cell indices stay below 2^28, where a
 * double is exact to 2^-24 of a cell). */
static int mw_gridRebuild(meshweld_Welder* w, double size, size_t room)
{
    mw_Table cells = {0};
    if (mw_tableReserveWith(&cells, w->rep_count + room, mw_cellHash))
        return meshweld_ErrorMemory;
    mw_tableFree(&w->cells);
    w->cells = cells;
    w->inverse = 1.0 / size;
    w->reach = w->radius * w->inverse * MW_SLACK + 0x1p-20;
    for (size_t q = 0; q < w->rep_count; ++q)
        mw_gridInsert(w, (uint32_t)q);
    w->work = w->searched = 0;
    return meshweld_Ok;
}

/* The earliest representative of a chain (given by its newest) within r of p, below best. */
static uint32_t mw_gridChain(meshweld_Welder* w, uint32_t newest, const double p[3], uint32_t best)
{
    uint32_t q = w->next[newest]; /* oldest first: the first match is the chain's earliest */
    for (;;) {
        w->work++;
        if (q >= best)
            return best;
        if (mw_distance2(p, &w->reps[q * 3], w->dim) <= w->r2)
            return q;
        if (q == newest)
            return best;
        q = w->next[q];
    }
}

/* The earliest representative within r of p, or MW_NONE; s is p in cells. *home receives the
 * slot of the cell p is in, and key its key (for the insertion of a new representative). */
static uint32_t mw_gridSearch(meshweld_Welder* w, const double p[3], const double s[3], mw_Entry** home, uint32_t key[3])
{
    /* the cells of s - e and s + e: floor(s), one less when s is within e of its cell's start,
     * one more when within e of its end (s - floor(s) is exact) */
    double e = w->reach, f = 1.0 - e;
    int32_t fx = mw_floor(s[0]), fy = mw_floor(s[1]), fz = mw_floor(s[2]);
    double ux = s[0] - fx, uy = s[1] - fy, uz = s[2] - fz;
    int32_t x0 = fx - (ux < e), x1 = fx + (ux > f), y0 = fy - (uy < e), y1 = fy + (uy > f);
    int32_t z0 = fz - (w->dim == 3 && uz < e), z1 = fz + (w->dim == 3 && uz > f);
    w->searched++;
    key[0] = (uint32_t)fx, key[1] = (uint32_t)fy, key[2] = (uint32_t)fz;
    if (x0 == x1 && y0 == y1 && z0 == z1) { /* the r-box lies in one cell: a sparse set's usual case */
        mw_Entry* c = mw_tableFindHashed(&w->cells, mw_cellHash(key[0], key[1], key[2]), key[0], key[1], key[2]);
        *home = c;
        return c->value == MW_NONE ? MW_NONE : mw_gridChain(w, c->value, p, MW_NONE);
    }
    uint32_t best = MW_NONE;
    for (int32_t z = z0; z <= z1; ++z)
        for (int32_t y = y0; y <= y1; ++y) {
            uint32_t pre = (uint32_t)y * MW_K1 + (uint32_t)z * MW_K2;
            for (int32_t x = x0; x <= x1; ++x) {
                mw_Entry* c = mw_tableFindHashed(&w->cells, mw_mix(pre + (uint32_t)x * MW_K0), (uint32_t)x,
                                                 (uint32_t)y, (uint32_t)z);
                if (x == fx && y == fy && z == fz)
                    *home = c;
                if (c->value != MW_NONE)
                    best = mw_gridChain(w, c->value, p, best);
            }
        }
    return best;
}

/* GRID on a flat cell array (one-shot welds of dense points): the same search without hashing,
 * and most cells answered by the position they hold inline. */
static uint32_t mw_gridSearchFlat(meshweld_Welder* w, const double p[3], const double s[3], mw_FlatCell** home)
{
    double e = w->reach, f = 1.0 - e;
    int32_t fx = mw_floor(s[0]), fy = mw_floor(s[1]), fz = mw_floor(s[2]);
    double ux = s[0] - fx, uy = s[1] - fy, uz = s[2] - fz;
    ptrdiff_t sy = (ptrdiff_t)w->extent[0], sz = (ptrdiff_t)(w->extent[0] * w->extent[1]);
    ptrdiff_t at = (fx - w->origin[0]) + sy * (fy - w->origin[1]) + sz * (fz - w->origin[2]);
    int x0 = -(ux < e), x1 = ux > f, y0 = -(uy < e), y1 = uy > f;
    int z0 = -(w->dim == 3 && uz < e), z1 = w->dim == 3 && uz > f;
    *home = &w->flat[at];
    w->searched++;
    uint32_t best = MW_NONE;
    for (int z = z0; z <= z1; ++z)
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                const mw_FlatCell* c = &w->flat[at + x + sy * y + sz * z];
                uint32_t q = c->first;
                if (q >= best) /* empty (MW_NONE), or nothing earlier than best here */
                    continue;
                w->work++;
                if (mw_distance2(p, c->p, w->dim) <= w->r2) {
                    best = q; /* the cell's earliest */
                    continue;
                }
                for (q = w->next[q]; q != MW_NONE; q = w->next[q]) {
                    w->work++;
                    if (q < best && mw_distance2(p, &w->reps[q * 3], w->dim) <= w->r2)
                        best = q;
                }
            }
    return best;
}

static void mw_gridLinkFlat(meshweld_Welder* w, mw_FlatCell* c, uint32_t rep)
{
    if (c->first == MW_NONE) {
        memcpy(c->p, &w->reps[rep * 3], sizeof(c->p));
        c->first = rep;
        w->next[rep] = MW_NONE;
    } else {
        w->next[rep] = w->next[c->first];
        w->next[c->first] = rep;
    }
}

/* The bounding box of every step-th point, non-finite ones left out (the weld reports them). */
static void mw_box(const meshweld_Welder* w, const float* points, size_t count, size_t stride, size_t step,
                   float lo[3], float hi[3])
{
    int seen = 0;
    for (int a = 0; a < 3; ++a)
        lo[a] = hi[a] = 0.0f;
    for (size_t i = 0; i < count; i += step) {
        const float* q = mw_point(points, stride, i);
        float v[3] = {q[0], q[1], w->dim == 3 ? q[2] : 0.0f};
        if ((v[0] - v[0]) + (v[1] - v[1]) + (v[2] - v[2]) != 0.0f)
            continue;
        for (int a = 0; a < 3; ++a) {
            lo[a] = !seen || v[a] < lo[a] ? v[a] : lo[a];
            hi[a] = !seen || v[a] > hi[a] ? v[a] : hi[a];
        }
        seen = 1;
    }
}

/* A one-shot GRID weld uses a flat cell array when the points' bounding box, in cells (with a
 * margin of one for the reach), holds at most two cells per point: dense clouds. */
static void mw_gridDense(meshweld_Welder* w, const float* points, size_t count, size_t stride)
{
    if (!w->oneshot || w->flat)
        return;
    float lo[3], hi[3];
    /* a sample's box first: the full pass only when it can be small enough */
    mw_box(w, points, count, stride, count / 256 > 0 ? count / 256 : 1, lo, hi);
    double sampled = 1.0;
    for (int a = 0; a < w->dim; ++a)
        sampled *= ((double)hi[a] - lo[a]) * w->inverse + 1.0;
    if (sampled > 2.0 * (double)count + 4096.0)
        return;
    mw_box(w, points, count, stride, 1, lo, hi);
    double cells = 1.0;
    for (int a = 0; a < 3; ++a) {
        double l = lo[a] * w->inverse, h = hi[a] * w->inverse;
        if (!(fabs(l) < MW_CELL_LIMIT / 4 && fabs(h) < MW_CELL_LIMIT / 4))
            return;
        w->origin[a] = a < w->dim ? mw_floor(l) - 1 : 0;
        w->extent[a] = a < w->dim ? (size_t)(mw_floor(h) - mw_floor(l) + 3) : 1;
        cells *= (double)w->extent[a];
    }
    if (cells > 2.0 * (double)count + 4096.0)
        return;
    w->flat = (mw_FlatCell*)mw_allocate((size_t)cells, sizeof(mw_FlatCell));
    if (w->flat) /* else the hash table serves */
        for (size_t i = 0; i < (size_t)cells; ++i)
            w->flat[i].first = MW_NONE;
}

/* Undoes a GRID batch: the representatives it made go, the cells are rebuilt without them, and
 * the exact cache (only a cache) is dropped. */
static void mw_rollbackAdaptive(meshweld_Welder* w, size_t rep_before)
{
    w->rep_count = rep_before;
    mw_tableFree(&w->exact);
    mw_deallocate(w->flat);
    w->flat = NULL;
    if (mw_gridRebuild(w, 1.0 / w->inverse, 0))
        mw_tableFree(&w->cells); /* no room even for that: rebuilt at the next batch */
}

/* GRID, point by point. Bitwise-identical positions are looked up in an exact cache first (they
 * have the same answer: later representatives are never earlier), which makes triangle soups
 * cheap; the cache is dropped when it hits less than one point in eight. Tables grow as
 * representatives come; cells grow when a coordinate outgrows the cell indices and shrink when
 * chains grow long. On failure the welder is left as it was. */
int mw_addAdaptive(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride,
                   meshweld_Info* info)
{
    size_t rep_before = w->rep_count;
    double floor_size = 2.0 * w->radius * MW_SLACK;
    int error = meshweld_Ok;
    if (w->cells.entries == NULL || w->inverse == 0) {
        double size = w->inverse > 0 ? 1.0 / w->inverse : fmax(mw_spacing(w, points, count, stride), floor_size);
        if (w->spacing == 0)
            w->spacing = size;
        w->inverse = 1.0 / size; /* what mw_gridDense sizes its array with; the rebuild sets it again */
        mw_gridDense(w, points, count, stride);
        if ((error = mw_gridRebuild(w, size, w->flat ? 0 : count / 4)) != meshweld_Ok)
            return error;
    }
    /* a first guess at the room needed (a quarter of the points), then doubling */
    int cache = 1, estimated = 0;
    size_t looks = 0, hits = 0;
    if (mw_reserveReps(w, count / 4) ||
        (!w->flat && mw_tableReserveWith(&w->cells, w->cells.count + count / 4, mw_cellHash)) ||
        mw_tableReserve(&w->exact, w->exact.count + count / 4)) {
        mw_rollbackAdaptive(w, rep_before);
        return meshweld_ErrorMemory;
    }
    const int dim = w->dim;
    for (size_t base = 0; base < count; base += MW_WINDOW) {
        size_t m = count - base < MW_WINDOW ? count - base : MW_WINDOW;
        if ((w->rep_count + m > w->rep_capacity && mw_reserveReps(w, m)) ||
            (!w->flat && w->cells.count + m > (w->cells.mask + 1) / 2 &&
             mw_tableReserveWith(&w->cells, w->cells.count + m, mw_cellHash)) ||
            (cache && w->exact.count + m > (w->exact.mask + 1) / 2 && mw_tableReserve(&w->exact, w->exact.count + m))) {
            error = meshweld_ErrorMemory;
            break;
        }
        for (size_t i = base; i < base + m; ++i) {
            const float* src = mw_point(points, stride, i);
            float fx = src[0], fy = src[1], fz = dim == 3 ? src[2] : 0.0f;
            mw_Entry* slot = NULL;
            uint32_t key[3];
            if (cache) {
                float v[3] = {fx + 0.0f, fy + 0.0f, fz + 0.0f}; /* -0 + 0 = +0 */
                memcpy(key, v, sizeof(key));
                slot = mw_tableFind(&w->exact, key[0], key[1], key[2]);
                looks++;
                if (slot->value != MW_NONE) { /* a position seen (and checked) before */
                    remap[i] = slot->value;
                    hits++;
                    continue;
                }
            }
            if ((fx - fx) + (fy - fy) + (fz - fz) != 0.0f) { /* NaN or infinite */
                error = meshweld_ErrorNonFinite;
                if (info)
                    info->error_point = i, info->error_axis = isfinite(fx) ? (isfinite(fy) ? 2 : 1) : 0;
                break;
            }
            double p[3] = {fx, fy, fz};
            double s[3] = {p[0] * w->inverse, p[1] * w->inverse, p[2] * w->inverse};
            if (!(fabs(s[0]) < MW_CELL_LIMIT / 2 && fabs(s[1]) < MW_CELL_LIMIT / 2 && fabs(s[2]) < MW_CELL_LIMIT / 2)) {
                /* a coordinate beyond the cell indices: larger cells, or the kd-tree for AUTO when
                 * cells that large would hold crowds */
                double size = fmax(fabs(p[0]), fmax(fabs(p[1]), fabs(p[2]))) / (MW_CELL_LIMIT / 8);
                if (w->automatic && size > 64.0 * w->spacing) {
                    mw_rollbackAdaptive(w, rep_before);
                    mw_tableFree(&w->cells);
                    mw_setMethod(w, meshweld_MethodKdtree);
                    return MW_SWITCHED; /* the caller runs the kd-tree on the whole batch */
                }
                mw_deallocate(w->flat);
                w->flat = NULL;
                if ((error = mw_gridRebuild(w, size, m)) != meshweld_Ok)
                    break;
                for (int a = 0; a < 3; ++a)
                    s[a] = p[a] * w->inverse;
            }
            uint32_t rep;
            if (w->flat) {
                mw_FlatCell* home = NULL;
                rep = mw_gridSearchFlat(w, p, s, &home);
                if (rep == MW_NONE) {
                    rep = mw_newRep(w, p);
                    mw_gridLinkFlat(w, home, rep);
                }
            } else {
                mw_Entry* home = NULL;
                uint32_t cell[3];
                rep = mw_gridSearch(w, p, s, &home, cell);
                if (rep == MW_NONE) {
                    rep = mw_newRep(w, p);
                    mw_gridLink(w, home, cell, rep);
                }
            }
            if (slot) {
                memcpy(slot->key, key, sizeof(key));
                slot->value = rep;
                w->exact.count++;
            }
            remap[i] = rep;
        }
        if (error)
            break;
        if (cache && looks >= 4096) {
            if (!estimated) {
                /* room for the representatives this hit rate predicts, in one step */
                size_t expect = (size_t)((double)(count - base) * (1.0 - (double)hits / (double)looks)) + m;
                if (mw_reserveReps(w, expect) ||
                    (!w->flat && mw_tableReserveWith(&w->cells, w->cells.count + expect, mw_cellHash))) {
                    error = meshweld_ErrorMemory;
                    break;
                }
                estimated = 1;
            }
            if (hits * 8 < looks) { /* few duplicates: the cache costs more than it saves */
                cache = 0;
                mw_tableFree(&w->exact);
            }
            looks = hits = 0;
        }
        /* cells too wide for the density: halve them (never below 2r) */
        if (w->searched >= 1024 && (double)w->work > MW_GRID_WORK * (double)w->searched) {
            double smaller = fmax(0.5 / w->inverse, floor_size);
            if (smaller < 1.0 / w->inverse) {
                mw_deallocate(w->flat); /* the flat array was sized for the old cells */
                w->flat = NULL;
                if ((error = mw_gridRebuild(w, smaller, m)) != meshweld_Ok)
                    break;
            }
            w->work = w->searched = 0;
        }
    }
    if (error)
        mw_rollbackAdaptive(w, rep_before);
    return error;
}

void mw_adaptiveRestore(meshweld_Welder* w)
{
    mw_setMethod(w, meshweld_MethodGrid);
    mw_tableFree(&w->exact);
    if (mw_gridRebuild(w, 1.0 / w->inverse, 0))
        mw_tableFree(&w->cells); /* rebuilt at the next batch */
}

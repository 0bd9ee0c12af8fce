/* The article's grids (grid-r, grid-2r, hex, bcc; their cells in cells_article.c) after the exact
 * pass, in either store policy over either container:
 *   containers: a cell's slot in the hash table of cells, or, for one-shot square-grid welds of
 *               dense points, in a flat cell array (mw_slot);
 *   loose:      the first representative stored in the point's cells, in search order; one
 *               representative per cell (mw_storeLoose);
 *   precise:    the earliest representative within r among all the point's cells, each cell
 *               holding a ring of them (reps.c); the naive result (mw_storePrecise).
 * A cell scheme yields the point's cells (store cell first), the container their slots, and each
 * policy is written once over those. */
#include "internal.h"

#include <math.h>
#include <stddef.h>

static int mw_cellKeys(const meshweld_Welder* w, const double p[3], mw_Key* keys);

/* The cell table's slot of a cell. Its entries hold the low words of the cell coordinates; while
 * every cell seen fits int32 those are the whole key. Once some batch reached beyond
 * MW_NEAR_CELLS (w->far), a slot whose low words match is checked against the store cell of its
 * representative (the newest of a precise ring: they all share the cell), recomputed from its
 * position: cells 2^32 apart never meet. */
static mw_Entry* mw_cellFindFar(const meshweld_Welder* w, const mw_Key* k)
{
    const mw_Table* table = &w->cells;
    size_t i = k->hash & table->mask;
    for (;;) {
        mw_Entry* e = &table->entries[i];
        if (e->value == MW_NONE)
            return e;
        if (e->key[0] == k->key[0] && e->key[1] == k->key[1] && e->key[2] == k->key[2]) {
            const float* q = &w->reps.xyz[e->value * 3];
            double p[3] = {q[0], q[1], q[2]};
            mw_Key home[27];
            mw_cellKeys(w, p, home);
            if (home[0].cell[0] == k->cell[0] && home[0].cell[1] == k->cell[1] && home[0].cell[2] == k->cell[2])
                return e;
        }
        i = (i + 1) & table->mask;
    }
}

static inline mw_Entry* mw_cellFind(const meshweld_Welder* w, const mw_Key* k)
{
    return w->far ? mw_cellFindFar(w, k) : mw_find(&w->cells, k);
}

/* The square grids' search orders, as offsets d = dx + 2 dy + 4 dz (grid-2r, by the store cell's
 * offset o: o first, then the others in order) or (dx + 1) + 3 (dy + 1) + 9 (dz + 1) (grid-r:
 * the point's cell first), the order of mw_gridCells, written out so that the hot loop has no
 * data-dependent branch. */
static const uint8_t mw_order2[8][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 2, 3, 4, 5, 6, 7}, {2, 0, 1, 3, 4, 5, 6, 7}, {3, 0, 1, 2, 4, 5, 6, 7},
    {4, 0, 1, 2, 3, 5, 6, 7}, {5, 0, 1, 2, 3, 4, 6, 7}, {6, 0, 1, 2, 3, 4, 5, 7}, {7, 0, 1, 2, 3, 4, 5, 6}};
static const uint8_t mw_order1[27] = {13, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                      14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26};
static const uint8_t mw_order1Flat[9] = {13, 9, 10, 11, 12, 14, 15, 16, 17}; /* the plane dz = 0 */

/* A square grid's cells of a point: the search order and the cell (f, pre-hash) the offsets
 * apply to. */
typedef struct mw_Square {
    int64_t f[3];       /* the corner cell of the block searched */
    const uint8_t* order;
    int count;
    int radius;         /* offsets run from -radius to 1 */
} mw_Square;

static void mw_square(const meshweld_Welder* w, const double p[3], mw_Square* q)
{
    q->f[2] = 0;
    if (w->method == meshweld_MethodGrid2R) {
        int oi = 0;
        for (int a = 0; a < w->dim; ++a) {
            double s = mw_scaled(p[a], w->split); /* p * scale rounded once, fused or not */
            q->f[a] = mw_floor64(s);
            oi |= (int)(mw_floor64(s + 0.5) - q->f[a]) << a; /* the store cell's offset, 0 or 1 */
        }
        q->order = mw_order2[oi];
        q->count = 1 << w->dim;
        q->radius = 0;
    } else {
        for (int a = 0; a < w->dim; ++a)
            q->f[a] = mw_floor64(mw_scaled(p[a], w->split));
        q->order = w->dim == 3 ? mw_order1 : mw_order1Flat;
        q->count = w->dim == 3 ? 27 : 9;
        q->radius = 1;
    }
}

/* Offset d of a square grid in cells, per axis. */
static inline int32_t mw_dx(int d, int radius) { return radius ? d % 3 - 1 : d & 1; }
static inline int32_t mw_dy(int d, int radius) { return radius ? d / 3 % 3 - 1 : (d >> 1) & 1; }
static inline int32_t mw_dz(int d, int radius) { return radius ? d / 9 - 1 : d >> 2; }

/* The cells of a point, with their hashes, in the order of mw_gridCells. The hash is linear in
 * the low words of the cell coordinates (mw_cellHash), so neighbours are one addition apart. */
static int mw_cellKeys(const meshweld_Welder* w, const double p[3], mw_Key* keys)
{
    if (w->method == meshweld_MethodGrid2R || w->method == meshweld_MethodGridR) {
        mw_Square q;
        mw_square(w, p, &q);
        uint32_t f[3];
        mw_cellFactors(&w->cells, f);
        uint32_t base = (uint32_t)q.f[0] * f[0] + (uint32_t)q.f[1] * f[1] + (uint32_t)q.f[2] * f[2];
        for (int k = 0; k < q.count; ++k) {
            int d = q.order[k];
            int32_t dx = mw_dx(d, q.radius), dy = mw_dy(d, q.radius), dz = mw_dz(d, q.radius);
            keys[k].cell[0] = q.f[0] + dx;
            keys[k].cell[1] = q.f[1] + dy;
            keys[k].cell[2] = q.f[2] + dz;
            keys[k].key[0] = (uint32_t)keys[k].cell[0];
            keys[k].key[1] = (uint32_t)keys[k].cell[1];
            keys[k].key[2] = (uint32_t)keys[k].cell[2];
            keys[k].hash = mw_mix(base + (uint32_t)dx * f[0] + (uint32_t)dy * f[1] + (uint32_t)dz * f[2]);
        }
        return q.count;
    }
    mw_Cells cells;
    double s[3] = {mw_scaled(p[0], w->split), mw_scaled(p[1], w->split), mw_scaled(p[2], w->split)};
    mw_gridCells(&cells, w->method, w->dim, s);
    for (int k = 0; k < cells.count; ++k) {
        uint32_t a = (uint32_t)cells.key[k][0], b = (uint32_t)cells.key[k][1], c = (uint32_t)cells.key[k][2];
        memcpy(keys[k].cell, cells.key[k], sizeof(keys[k].cell));
        keys[k].key[0] = a, keys[k].key[1] = b, keys[k].key[2] = c;
        keys[k].hash = mw_cellHash(&w->cells, a, b, c);
    }
    return cells.count;
}

/* A one-shot square-grid weld uses a flat cell array when the batch's cells, with the neighbours
 * searched, number at most four per point (plus a little): dense point sets such as uniform
 * clouds, where it replaces every hash probe by one load. */
static int mw_denseSetup(meshweld_Welder* w, size_t count)
{
    if (!w->oneshot || w->far || (w->method != meshweld_MethodGrid2R && w->method != meshweld_MethodGridR))
        return 0;
    int pad = w->method == meshweld_MethodGridR; /* grid-r searches f - 1 .. f + 1, grid-2r f .. f + 1 */
    double cells = 1.0;
    for (int a = 0; a < 3; ++a) {
        if (a == 2 && w->dim == 2) {
            w->origin[a] = 0, w->extent[a] = 1;
            continue;
        }
        int32_t lo = mw_floor(w->low[a]), hi = mw_floor(w->high[a]);
        w->origin[a] = lo - pad;
        w->extent[a] = (size_t)((int64_t)hi - lo + 2 + 2 * pad);
        cells *= (double)w->extent[a];
    }
    if (cells > 4.0 * (double)count + 65536.0)
        return 0;
    w->dense = (uint32_t*)mw_allocate((size_t)cells, sizeof(uint32_t));
    if (!w->dense)
        return 0; /* the hash table needs less memory: use it */
    memset(w->dense, 0xff, (size_t)cells * sizeof(uint32_t));
    return 1;
}

/* The flat-array indices of a point's cells, in the order of mw_gridCells, in keys[k].hash. */
static int mw_denseCells(const meshweld_Welder* w, const double p[3], mw_Key* keys)
{
    mw_Square q;
    mw_square(w, p, &q);
    ptrdiff_t sy = (ptrdiff_t)w->extent[0], sz = (ptrdiff_t)(w->extent[0] * w->extent[1]);
    ptrdiff_t base = (ptrdiff_t)(q.f[0] - w->origin[0]) + sy * (ptrdiff_t)(q.f[1] - w->origin[1]) +
                     sz * (ptrdiff_t)(q.f[2] - w->origin[2]);
    for (int k = 0; k < q.count; ++k) {
        int d = q.order[k];
        keys[k].hash = (uint32_t)(base + mw_dx(d, q.radius) + sy * mw_dy(d, q.radius) + sz * mw_dz(d, q.radius));
    }
    return q.count;
}

/* The slot of a cell: in the flat array when the batch has one (dense; k->hash is then the cell's
 * index there), else in the hash table (found or empty; nothing is inserted until mw_slotClaim). */
static inline uint32_t* mw_slot(const meshweld_Welder* w, int dense, const mw_Key* k)
{
    return dense ? &w->dense[k->hash] : &mw_cellFind(w, k)->value;
}

/* An empty table slot about to receive its first representative takes the cell's key. */
static void mw_slotClaim(meshweld_Welder* w, int dense, uint32_t* slot, const mw_Key* k)
{
    if (dense || *slot != MW_NONE)
        return;
    mw_Entry* e = (mw_Entry*)(void*)((char*)slot - offsetof(mw_Entry, value));
    memcpy(e->key, k->key, sizeof(e->key));
    w->cells.count++;
}

/* The loose store: the representative stored in the first of the point's cells that has one, or
 * a new one stored in the store cell. */
static inline uint32_t mw_storeLoose(meshweld_Welder* w, int dense, const double p[3], const mw_Key* cells, int count)
{
    uint32_t* home = NULL;
    for (int k = 0; k < count; ++k) {
        uint32_t* slot = mw_slot(w, dense, &cells[k]);
        if (*slot != MW_NONE)
            return *slot;
        home = k == 0 ? slot : home;
    }
    mw_slotClaim(w, dense, home, &cells[0]);
    return *home = mw_repsAdd(&w->reps, p);
}

/* The precise store: the earliest representative within r in the rings of all the point's
 * cells, or a new one that joins the store cell's ring. */
static inline uint32_t mw_storePrecise(meshweld_Welder* w, int dense, const double p[3], const mw_Key* cells, int count)
{
    mw_Query q = mw_query(p, w->dim, w->r2, NULL, 0);
    uint32_t* home = NULL;
    for (int k = 0; k < count; ++k) {
        uint32_t* slot = mw_slot(w, dense, &cells[k]);
        if (*slot != MW_NONE)
            mw_ringEarliest(&w->reps, *slot, &q);
        home = k == 0 ? slot : home;
    }
    if (q.best != MW_NONE)
        return q.best;
    uint32_t rep = mw_repsAdd(&w->reps, p);
    mw_slotClaim(w, dense, home, &cells[0]);
    mw_ringLink(&w->reps, home, rep);
    return rep;
}

/* The exact-duplicate key of a point (-0 folded onto +0) and its hash. */
static void mw_exactHashed(const meshweld_Welder* w, const float* src, mw_Key* k)
{
    mw_exactKey(src, w->dim, k->key);
    k->hash = mw_keyHash(&w->exact, k->key[0], k->key[1], k->key[2]);
}

/* Undoes a grid batch that failed part-way: removes the representatives made since rep_before
 * from the cell table (newest first, so precise rings unwind), and the exact keys of the
 * points listed in fresh. Without fresh (the welder was empty before the batch) it empties all. */
static void mw_rollbackGrid(meshweld_Welder* w, size_t rep_before, const uint32_t* fresh, size_t fresh_count,
                            const float* points, size_t stride)
{
    if (!fresh) {
        mw_tableFree(&w->exact);
        mw_tableFree(&w->cells);
        w->reps.count = 0;
        return;
    }
    mw_Key keys[27];
    while (w->reps.count > rep_before) {
        uint32_t rep = (uint32_t)--w->reps.count;
        double p[3] = {w->reps.xyz[rep * 3], w->reps.xyz[rep * 3 + 1], w->reps.xyz[rep * 3 + 2]};
        mw_cellKeys(w, p, keys);
        mw_Entry* home = mw_cellFind(w, &keys[0]);
        if (w->store == meshweld_StorePrecise)
            mw_ringUnlink(&w->reps, &home->value);
        else
            home->value = MW_NONE;
        if (home->value == MW_NONE)
            mw_tableEraseWith(&w->cells, home, mw_cellHash);
    }
    for (size_t j = 0; j < fresh_count; ++j) {
        mw_Key k;
        mw_exactHashed(w, mw_point(points, stride, fresh[j]), &k);
        mw_tableErase(&w->exact, mw_find(&w->exact, &k));
    }
}

/* The grid methods, point by point after the exact pass; the tables grow every MW_WINDOW points.
 * On failure the welder is rolled back to its state before the batch. */
int mw_addGrid(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride)
{
    size_t rep_before = w->reps.count, fresh_count = 0;
    uint32_t* fresh = NULL; /* points of this batch whose position was new: needed to undo */
    if (w->fed > 0 && !(fresh = (uint32_t*)mw_allocate(count, sizeof(uint32_t))))
        return meshweld_ErrorMemory;
    int error = meshweld_Ok, dense = mw_denseSetup(w, count), loose = w->store == meshweld_StoreLoose;
    mw_Key cells[27];
    for (size_t i = 0; i < count; ++i) {
        if (i % MW_WINDOW == 0) {
            size_t m = count - i < MW_WINDOW ? count - i : MW_WINDOW;
            if (mw_repsReserve(&w->reps, m) || mw_tableReserve(&w->exact, w->exact.count + m) ||
                (!dense && mw_tableReserveWith(&w->cells, w->cells.count + m, mw_cellHash))) {
                mw_rollbackGrid(w, rep_before, fresh, fresh_count, points, stride);
                error = meshweld_ErrorMemory;
                break;
            }
        }
        const float* src = mw_point(points, stride, i);
        mw_Key key;
        mw_exactHashed(w, src, &key);
        mw_Entry* e = mw_find(&w->exact, &key);
        if (e->value == MW_NONE) {
            double p[3];
            mw_load(p, src, w->dim);
            int n = dense ? mw_denseCells(w, p, cells) : mw_cellKeys(w, p, cells);
            uint32_t rep; /* each policy specialised for each container (a constant argument) */
            if (dense)
                rep = loose ? mw_storeLoose(w, 1, p, cells, n) : mw_storePrecise(w, 1, p, cells, n);
            else
                rep = loose ? mw_storeLoose(w, 0, p, cells, n) : mw_storePrecise(w, 0, p, cells, n);
            memcpy(e->key, key.key, sizeof(e->key));
            e->value = rep;
            w->exact.count++;
            if (fresh)
                fresh[fresh_count++] = (uint32_t)i;
        }
        remap[i] = e->value;
    }
    mw_deallocate(fresh);
    return error;
}

/* The greedy weld: one loop over the points, each merged into a representative found by the
 * method or made a representative itself. Incremental by construction; meshweld_weld is one
 * batch.
 *
 * Exact duplicates are resolved first, by a hash of the coordinates' bits (-0 folded onto +0):
 * only the first occurrence of a position meets the method, the others copy its answer. This is
 * what makes guarantee 3 hold for the loose store, where the answer for a position depends on
 * the representatives stored so far (the article's loop lets a duplicate find a representative
 * stored after its twin was welded). It also makes triangle soups cheap: each corner is hashed
 * once and only distinct positions are searched.
 *
 * The precise store, NAIVE and KDTREE all merge a point into the earliest representative within
 * r; they return the same remap, and that remap is the same whatever the order of cells.
 */
#include "internal.h"

#include <math.h>

/* The grid methods run in windows of MW_WINDOW points. Each stage of a window first computes the
 * hash slots it will need and touches them (independent loads the processor overlaps), then does
 * the real work, in input order, on cache lines already on their way: the result is exactly the
 * one-point-at-a-time loop's. Exact-table values from MW_PLACEHOLDER up mark positions of the
 * current window whose output is not known yet, so outputs stay below MW_PLACEHOLDER. */
#define MW_WINDOW 32
#define MW_PLACEHOLDER (MW_NONE - MW_WINDOW)

struct meshweld_Welder {
    int dim;
    int method;
    int store;
    int automatic; /* method was AUTO: may switch to KDTREE */
    double radius, r2, scale;

    float* reps; /* 3 floats per representative (z = 0 in 2D) */
    uint32_t* next; /* precise store: next representative in the same cell */
    size_t rep_count, rep_capacity;

    size_t fed; /* points added so far */
    mw_Table exact; /* position bits -> output index */
    mw_Table cells; /* cell -> representative (loose) or newest representative (precise) */

    mw_Kdtree tree; /* KDTREE: representatives of earlier batches */
    uint32_t sink;  /* what the cache-warming loads read, kept so that they are not optimised away */

    /* GRID: cells of size 1 / inverse, chains of representatives oldest first (the entry holds
     * the newest, whose next is the oldest); work counts the chain steps, to shrink the cells
     * when they hold too many representatives. */
    double inverse, reach, spacing; /* spacing: the first batch's, for AUTO's switch to KDTREE */
    size_t work, searched;

    /* One-shot square grids whose cells fit a flat array (dense points): cell (a, b, c) is
     * dense[(a - origin[0]) + extent[0] * ((b - origin[1]) + extent[1] * (c - origin[2]))],
     * a representative (loose) or the newest of a chain (precise). */
    int oneshot;
    double low[3], high[3]; /* the batch's scaled coordinates, checked for the grid */
    uint32_t* dense;
    int32_t origin[3];
    size_t extent[3];
};

static int mw_isGrid(int method)
{
    return method >= meshweld_MethodGridR && method <= meshweld_MethodBcc;
}

static int mw_autoMethod(int dim)
{
    (void)dim;
    return meshweld_MethodGrid;
}

static int mw_checkOptions(const meshweld_Options* options, int* dim, int* method, int* store)
{
    if (!options)
        return meshweld_ErrorNull;
    *dim = options->dim == 0 ? 3 : options->dim;
    if (*dim != 2 && *dim != 3)
        return meshweld_ErrorDim;
    float r = options->radius;
    if (!(r >= 0.0f) || !isfinite(r))
        return meshweld_ErrorRadius;
    *method = options->method;
    if (*method < meshweld_MethodAuto || *method > meshweld_MethodGrid)
        return meshweld_ErrorMethod;
    if ((*method == meshweld_MethodHex && *dim != 2) || (*method == meshweld_MethodBcc && *dim != 3))
        return meshweld_ErrorMethodDim;
    *store = options->store;
    if (*store != meshweld_StoreLoose && *store != meshweld_StorePrecise)
        return meshweld_ErrorStore;
    return meshweld_Ok;
}

static void mw_setMethod(meshweld_Welder* w, int method)
{
    w->method = method;
    w->scale = w->radius > 0 && mw_isGrid(method) ? mw_gridScale(method, w->radius) : 1.0;
}

static int mw_init(meshweld_Welder* w, const meshweld_Options* options)
{
    int dim, method, store;
    int error = mw_checkOptions(options, &dim, &method, &store);
    if (error)
        return error;
    memset(w, 0, sizeof(*w));
    w->dim = dim;
    w->store = store;
    w->radius = options->radius;
    w->r2 = w->radius * w->radius;
    w->automatic = method == meshweld_MethodAuto;
    mw_setMethod(w, w->automatic ? mw_autoMethod(dim) : method);
    return meshweld_Ok;
}

static void mw_release(meshweld_Welder* w)
{
    mw_deallocate(w->reps);
    mw_deallocate(w->next);
    mw_tableFree(&w->exact);
    mw_tableFree(&w->cells);
    mw_kdFree(&w->tree);
    mw_deallocate(w->dense);
    w->reps = NULL;
    w->next = NULL;
    w->dense = NULL;
}

static void mw_report(meshweld_Info* info, const meshweld_Welder* w)
{
    if (info) {
        info->unique_count = w->rep_count;
        info->method = w->method;
    }
}

/* Checks a batch before anything changes: sizes, finiteness, grid range. Switches an AUTO
 * welder to KDTREE when the grid range does not hold the batch. */
static int mw_checkBatch(meshweld_Welder* w, const unsigned int* remap, const float* points, size_t count,
                         size_t stride, meshweld_Info* info)
{
    if (count == 0)
        return meshweld_Ok;
    if (!remap || !points)
        return meshweld_ErrorNull;
    if (mw_badStride(stride, (size_t)w->dim))
        return meshweld_ErrorStride;
    if (count >= MW_PLACEHOLDER - w->fed || count > SIZE_MAX / stride)
        return meshweld_ErrorCount;

    /* one branch-free pass: x - x summed stays 0 unless some coordinate is NaN or infinite, and
     * (but for GRID, which sizes its cells as it goes) the bounding box */
    int dim = w->dim;
    float lo[3] = {points[0], points[1], dim == 3 ? points[2] : 0.0f}, hi[3] = {lo[0], lo[1], lo[2]};
    float bad = 0.0f;
    if (w->method == meshweld_MethodGrid && w->radius > 0) {
        return meshweld_Ok; /* GRID checks the points it has not seen before as it welds them */
    } else {
        for (size_t i = 0; i < count; ++i) {
            const float* p = mw_point(points, stride, i);
            float x = p[0], y = p[1], z = dim == 3 ? p[2] : 0.0f;
            bad += (x - x) + (y - y) + (z - z);
            lo[0] = x < lo[0] ? x : lo[0], hi[0] = x > hi[0] ? x : hi[0];
            lo[1] = y < lo[1] ? y : lo[1], hi[1] = y > hi[1] ? y : hi[1];
            lo[2] = z < lo[2] ? z : lo[2], hi[2] = z > hi[2] ? z : hi[2];
        }
    }
    int grid = mw_isGrid(w->method) && w->radius > 0; /* radius 0: the exact pass is the whole weld */
    for (int a = 0; a < 3; ++a) {
        w->low[a] = (double)lo[a] * w->scale;
        w->high[a] = (double)hi[a] * w->scale;
    }
    if (bad == 0.0f && !(grid && fmax(fabs(w->low[0]), fmax(fabs(w->high[0]), fmax(fabs(w->low[1]), fmax(fabs(w->high[1]),
                          fmax(fabs(w->low[2]), fabs(w->high[2])))))) >= MW_CELL_LIMIT))
        return meshweld_Ok;

    /* something is wrong: find the first offending coordinate */
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        for (int a = 0; a < dim; ++a) {
            int error = !isfinite(p[a]) ? meshweld_ErrorNonFinite
                        : grid && bad == 0.0f && fabs((double)p[a] * w->scale) >= MW_CELL_LIMIT ? meshweld_ErrorRange
                                                                                              : meshweld_Ok;
            if (error) {
                if (info)
                    info->error_point = i, info->error_axis = a;
                return error;
            }
        }
    }
    return meshweld_Ok; /* not reached */
}

/* Makes room for count more representatives (and their precise-store links). */
static int mw_reserveReps(meshweld_Welder* w, size_t count)
{
    size_t total = w->rep_count + count;
    if (total <= w->rep_capacity)
        return meshweld_Ok;
    int linked = (w->store == meshweld_StorePrecise && mw_isGrid(w->method)) || w->method == meshweld_MethodGrid;
    size_t capacity = w->rep_capacity * 2 > total ? w->rep_capacity * 2 : total;
    float* reps = (float*)mw_allocate(capacity, 3 * sizeof(float));
    uint32_t* next = linked && reps ? (uint32_t*)mw_allocate(capacity, sizeof(uint32_t)) : NULL;
    if (!reps || (linked && !next)) {
        mw_deallocate(reps);
        return meshweld_ErrorMemory;
    }
    if (w->rep_count) {
        memcpy(reps, w->reps, w->rep_count * 3 * sizeof(float));
        if (next && w->next)
            memcpy(next, w->next, w->rep_count * sizeof(uint32_t));
    }
    mw_deallocate(w->reps);
    mw_deallocate(w->next);
    w->reps = reps;
    w->next = next;
    w->rep_capacity = capacity;
    return meshweld_Ok;
}

/* Makes room for count more points in every table, so that the batch allocates nothing else. */
static int mw_reserve(meshweld_Welder* w, size_t count)
{
    if (mw_reserveReps(w, count) || mw_tableReserve(&w->exact, w->exact.count + count))
        return meshweld_ErrorMemory;
    return meshweld_Ok;
}

static uint32_t mw_newRep(meshweld_Welder* w, const double p[3])
{
    uint32_t rep = (uint32_t)w->rep_count++;
    float* q = &w->reps[rep * 3];
    q[0] = (float)p[0];
    q[1] = (float)p[1];
    q[2] = (float)p[2];
    return rep;
}

/* A cell key and its hash. */
typedef struct mw_Key {
    uint32_t key[3];
    uint32_t hash;
} mw_Key;

static mw_Entry* mw_find(const mw_Table* table, const mw_Key* k)
{
    return mw_tableFindHashed(table, k->hash, k->key[0], k->key[1], k->key[2]);
}

/* The representative p merges into, given its cells (store cell first), creating one (and
 * storing it) when there is none. */
static uint32_t mw_weldGrid(meshweld_Welder* w, const double p[3], const mw_Key* cells, int count)
{
    mw_Entry* home = mw_find(&w->cells, &cells[0]);
    if (w->store == meshweld_StoreLoose) {
        if (home->value != MW_NONE)
            return home->value;
        for (int k = 1; k < count; ++k) {
            mw_Entry* e = mw_find(&w->cells, &cells[k]);
            if (e->value != MW_NONE)
                return e->value;
        }
        uint32_t rep = mw_newRep(w, p);
        memcpy(home->key, cells[0].key, sizeof(home->key));
        home->value = rep;
        w->cells.count++;
        return rep;
    }

    uint32_t best = MW_NONE;
    for (int k = 0; k < count; ++k) {
        const mw_Entry* e = k == 0 ? home : mw_find(&w->cells, &cells[k]);
        for (uint32_t q = e->value; q != MW_NONE; q = w->next[q])
            if (q < best && mw_distance2(p, &w->reps[q * 3], w->dim) <= w->r2)
                best = q;
    }
    if (best != MW_NONE)
        return best;
    uint32_t rep = mw_newRep(w, p);
    if (home->value == MW_NONE) {
        memcpy(home->key, cells[0].key, sizeof(home->key));
        w->cells.count++;
    }
    w->next[rep] = home->value;
    home->value = rep;
    return rep;
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
 * apply to. Returns the number of cells. */
typedef struct mw_Square {
    int32_t f[3];       /* the corner cell of the block searched */
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
            double s = p[a] * w->scale;
            q->f[a] = mw_floor(s);
            oi |= (mw_floor(s + 0.5) - q->f[a]) << a; /* the store cell's offset, 0 or 1 */
        }
        q->order = mw_order2[oi];
        q->count = 1 << w->dim;
        q->radius = 0;
    } else {
        for (int a = 0; a < w->dim; ++a)
            q->f[a] = mw_floor(p[a] * w->scale);
        q->order = w->dim == 3 ? mw_order1 : mw_order1Flat;
        q->count = w->dim == 3 ? 27 : 9;
        q->radius = 1;
    }
}

/* Offset d of a square grid in cells, per axis. */
static inline int32_t mw_dx(int d, int radius) { return radius ? d % 3 - 1 : d & 1; }
static inline int32_t mw_dy(int d, int radius) { return radius ? d / 3 % 3 - 1 : (d >> 1) & 1; }
static inline int32_t mw_dz(int d, int radius) { return radius ? d / 9 - 1 : d >> 2; }

/* The cells of a point, with their hashes, in the order of mw_gridCells. */
static int mw_cellKeys(const meshweld_Welder* w, const double p[3], mw_Key* keys)
{
    if (w->method == meshweld_MethodGrid2R || w->method == meshweld_MethodGridR) {
        mw_Square q;
        mw_square(w, p, &q);
        uint32_t base = (uint32_t)q.f[0] * MW_K0 + (uint32_t)q.f[1] * MW_K1 + (uint32_t)q.f[2] * MW_K2;
        for (int k = 0; k < q.count; ++k) {
            int d = q.order[k];
            int32_t dx = mw_dx(d, q.radius), dy = mw_dy(d, q.radius), dz = mw_dz(d, q.radius);
            keys[k].key[0] = (uint32_t)(q.f[0] + dx);
            keys[k].key[1] = (uint32_t)(q.f[1] + dy);
            keys[k].key[2] = (uint32_t)(q.f[2] + dz);
            keys[k].hash = mw_mix(base + (uint32_t)dx * MW_K0 + (uint32_t)dy * MW_K1 + (uint32_t)dz * MW_K2);
        }
        return q.count;
    }
    mw_Cells cells;
    double s[3] = {p[0] * w->scale, p[1] * w->scale, p[2] * w->scale};
    mw_gridCells(&cells, w->method, w->dim, s);
    for (int k = 0; k < cells.count; ++k) {
        uint32_t a = (uint32_t)cells.key[k][0], b = (uint32_t)cells.key[k][1], c = (uint32_t)cells.key[k][2];
        keys[k].key[0] = a, keys[k].key[1] = b, keys[k].key[2] = c;
        keys[k].hash = mw_cellHash(a, b, c);
    }
    return cells.count;
}

static uint32_t mw_weldNaive(meshweld_Welder* w, const double p[3])
{
    for (size_t q = 0; q < w->rep_count; ++q)
        if (mw_distance2(p, &w->reps[q * 3], w->dim) <= w->r2)
            return (uint32_t)q;
    return mw_newRep(w, p);
}

static void mw_load(double p[3], const float* src, int dim)
{
    p[0] = src[0];
    p[1] = src[1];
    p[2] = dim == 3 ? src[2] : 0.0;
}

/* The exact-duplicate slot of a point; -0 and +0 share one. */
static mw_Entry* mw_exactSlot(meshweld_Welder* w, const float* src, uint32_t key[3])
{
    float v[3] = {src[0] + 0.0f, src[1] + 0.0f, w->dim == 3 ? src[2] + 0.0f : 0.0f}; /* -0 + 0 = +0 */
    memcpy(key, v, sizeof(v));
    return mw_tableFind(&w->exact, key[0], key[1], key[2]);
}

static void mw_exactInsert(meshweld_Welder* w, mw_Entry* slot, const uint32_t key[3], uint32_t value)
{
    memcpy(slot->key, key, 3 * sizeof(uint32_t));
    slot->value = value;
    w->exact.count++;
}

typedef struct mw_Absorb {
    uint32_t* owner; /* per distinct new position: its representative or MW_NONE */
    uint32_t rep;
} mw_Absorb;

static void mw_absorb(void* context, uint32_t id)
{
    mw_Absorb* a = (mw_Absorb*)context;
    if (a->owner[id] == MW_NONE)
        a->owner[id] = a->rep;
}

/* KDTREE: first every new distinct position looks for the earliest earlier representative
 * within r (tree of earlier batches), then the rest are welded among themselves the way Blender
 * does it: in input order, a position not yet taken becomes a representative and takes every
 * free position within r. Both steps give the earliest representative within r, so the result
 * equals NAIVE's. All scratch is allocated before anything changes. */
static int mw_addKdtree(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride)
{
    int error = meshweld_Ok;
    uint32_t* ordinal = (uint32_t*)mw_allocate(count, sizeof(uint32_t)); /* per point: its new position or MW_NONE */
    uint32_t* owner = (uint32_t*)mw_allocate(count, sizeof(uint32_t));   /* per new position: its representative */
    mw_Entry** slots = (mw_Entry**)mw_allocate(count, sizeof(mw_Entry*)); /* per new position: its exact slot */
    uint32_t* first = (uint32_t*)mw_allocate(count, sizeof(uint32_t));   /* per new position: its first point */
    mw_Kdtree fresh = {0};
    if (!ordinal || !owner || !slots || !first || mw_kdAllocate(&fresh, count, w->dim)) {
        error = meshweld_ErrorMemory;
        goto done;
    }
    if (w->tree.count != w->rep_count) {
        mw_Kdtree rebuilt = {0};
        if ((error = mw_kdBuild(&rebuilt, w->reps, w->rep_count, 3 * sizeof(float), w->dim)))
            goto done;
        mw_kdFree(&w->tree);
        w->tree = rebuilt;
    }

    /* pass 1: exact duplicates, then earlier representatives. A new position n is marked in the
     * exact table by MW_NONE - 1 - n until its output is known: those values lie above every
     * output of earlier batches, since fed + count < MW_NONE. */
    uint32_t placeholder = MW_NONE - 1 - (uint32_t)count; /* values above it are this batch's */
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) {
        const float* src = mw_point(points, stride, i);
        uint32_t key[3];
        mw_Entry* slot = mw_exactSlot(w, src, key);
        ordinal[i] = MW_NONE;
        if (slot->value != MW_NONE && slot->value > placeholder) {
            ordinal[i] = MW_NONE - 1 - slot->value;
        } else if (slot->value != MW_NONE) {
            remap[i] = slot->value;
        } else {
            double p[3];
            mw_load(p, src, w->dim);
            owner[n] = mw_kdEarliest(&w->tree, p, w->r2);
            if (owner[n] == MW_NONE) {
                fresh.ids[fresh.count] = (uint32_t)n;
                memcpy(&fresh.coords[fresh.count * 3], key, 3 * sizeof(float));
                fresh.count++;
            }
            mw_exactInsert(w, slot, key, MW_NONE - 1 - (uint32_t)n);
            slots[n] = slot;
            first[n] = (uint32_t)i;
            ordinal[i] = (uint32_t)n++;
        }
    }

    /* pass 2: the free positions among themselves, in input order */
    mw_kdFinish(&fresh);
    mw_Absorb absorb = {owner, 0};
    for (size_t d = 0; d < n; ++d) {
        if (owner[d] != MW_NONE)
            continue;
        double p[3];
        mw_load(p, mw_point(points, stride, first[d]), w->dim);
        absorb.rep = mw_newRep(w, p);
        mw_kdVisit(&fresh, p, w->r2, mw_absorb, &absorb);
    }

    /* pass 3: every output is known */
    for (size_t d = 0; d < n; ++d)
        slots[d]->value = owner[d];
    for (size_t i = 0; i < count; ++i)
        if (ordinal[i] != MW_NONE)
            remap[i] = owner[ordinal[i]];

done:
    mw_kdFree(&fresh);
    mw_deallocate(ordinal);
    mw_deallocate(owner);
    mw_deallocate(slots);
    mw_deallocate(first);
    return error;
}

meshweld_Welder* meshweld_welderCreate(const meshweld_Options* options, int* error)
{
    meshweld_Welder probe;
    int e = mw_init(&probe, options);
    meshweld_Welder* w = NULL;
    if (!e) {
        w = (meshweld_Welder*)mw_allocate(1, sizeof(meshweld_Welder));
        if (w)
            *w = probe;
        else
            e = meshweld_ErrorMemory;
    }
    if (error)
        *error = e;
    return w;
}

/* A one-shot square-grid weld uses a flat cell array when the batch's cells, with the neighbours
 * searched, number at most four per point (plus a little): dense point sets such as uniform
 * clouds, where it replaces every hash probe by one load. */
static int mw_denseSetup(meshweld_Welder* w, size_t count)
{
    if (!w->oneshot || (w->method != meshweld_MethodGrid2R && w->method != meshweld_MethodGridR))
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
    ptrdiff_t base = (q.f[0] - w->origin[0]) + sy * (q.f[1] - w->origin[1]) + sz * (q.f[2] - w->origin[2]);
    for (int k = 0; k < q.count; ++k) {
        int d = q.order[k];
        keys[k].hash = (uint32_t)(base + mw_dx(d, q.radius) + sy * mw_dy(d, q.radius) + sz * mw_dz(d, q.radius));
    }
    return q.count;
}

/* mw_weldGrid on the flat cell array. */
static uint32_t mw_weldDense(meshweld_Welder* w, const double p[3], const mw_Key* cells, int count)
{
    uint32_t* home = &w->dense[cells[0].hash];
    if (w->store == meshweld_StoreLoose) {
        if (*home != MW_NONE)
            return *home;
        for (int k = 1; k < count; ++k) {
            uint32_t v = w->dense[cells[k].hash];
            if (v != MW_NONE)
                return v;
        }
        return *home = mw_newRep(w, p);
    }
    uint32_t best = MW_NONE;
    for (int k = 0; k < count; ++k)
        for (uint32_t q = w->dense[cells[k].hash]; q != MW_NONE; q = w->next[q])
            if (q < best && mw_distance2(p, &w->reps[q * 3], w->dim) <= w->r2)
                best = q;
    if (best != MW_NONE)
        return best;
    uint32_t rep = mw_newRep(w, p);
    w->next[rep] = *home;
    *home = rep;
    return rep;
}

/* The exact-duplicate key of a point (-0 folded onto +0) and its hash. */
static void mw_exactKey(const meshweld_Welder* w, const float* src, mw_Key* k)
{
    float v[3] = {src[0] + 0.0f, src[1] + 0.0f, w->dim == 3 ? src[2] + 0.0f : 0.0f}; /* -0 + 0 = +0 */
    memcpy(k->key, v, sizeof(v));
    k->hash = mw_hash(k->key[0], k->key[1], k->key[2]);
}

/* Undoes a grid batch that failed part-way: removes the representatives made since rep_before
 * from the cell table (newest first, so precise chains unwind), and the exact keys of the
 * points listed in fresh. Without fresh (the welder was empty before the batch) it empties all. */
static void mw_rollbackGrid(meshweld_Welder* w, size_t rep_before, const uint32_t* fresh, size_t fresh_count,
                            const float* points, size_t stride)
{
    if (!fresh) {
        mw_tableFree(&w->exact);
        mw_tableFree(&w->cells);
        w->rep_count = 0;
        return;
    }
    mw_Key keys[27];
    while (w->rep_count > rep_before) {
        uint32_t rep = (uint32_t)--w->rep_count;
        double p[3] = {w->reps[rep * 3], w->reps[rep * 3 + 1], w->reps[rep * 3 + 2]};
        mw_cellKeys(w, p, keys);
        mw_Entry* home = mw_find(&w->cells, &keys[0]);
        if (w->store == meshweld_StorePrecise && w->next[rep] != MW_NONE)
            home->value = w->next[rep];
        else
            mw_tableEraseWith(&w->cells, home, mw_cellHash);
    }
    for (size_t j = 0; j < fresh_count; ++j) {
        mw_Key k;
        mw_exactKey(w, mw_point(points, stride, fresh[j]), &k);
        mw_tableErase(&w->exact, mw_find(&w->exact, &k));
    }
}

/* Scratch of one grid window. */
typedef struct mw_Window {
    mw_Key exact[MW_WINDOW];   /* per point: its exact key */
    uint32_t result[MW_WINDOW]; /* per point: its output, or MW_PLACEHOLDER + j for pending j */
    uint32_t pending[MW_WINDOW];   /* per new position j: its point in the window */
    mw_Entry* slot[MW_WINDOW];     /* per new position j: its exact-table slot */
    uint32_t output[MW_WINDOW];    /* per new position j: its output */
    int cell_count[MW_WINDOW];
    mw_Key cells[MW_WINDOW][27];   /* per new position j: its cells */
} mw_Window;

/* The grid methods, window by window; tables grow between windows. On failure the welder is
 * rolled back to its state before the batch. */
static int mw_addGrid(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride)
{
    size_t rep_before = w->rep_count, fresh_count = 0;
    uint32_t* fresh = NULL; /* points of this batch whose position was new: needed to undo */
    mw_Window* win = (mw_Window*)mw_allocate(1, sizeof(mw_Window));
    if (!win || (w->fed > 0 && !(fresh = (uint32_t*)mw_allocate(count, sizeof(uint32_t))))) {
        mw_deallocate(win);
        return meshweld_ErrorMemory;
    }
    int error = meshweld_Ok;
    uint32_t sink = 0;
    int dense = mw_denseSetup(w, count);
    for (size_t base = 0; base < count; base += MW_WINDOW) {
        size_t m = count - base < MW_WINDOW ? count - base : MW_WINDOW;
        if (mw_reserveReps(w, m) || mw_tableReserve(&w->exact, w->exact.count + m) ||
            (!dense && mw_tableReserveWith(&w->cells, w->cells.count + m, mw_cellHash))) {
            mw_rollbackGrid(w, rep_before, fresh, fresh_count, points, stride);
            error = meshweld_ErrorMemory;
            break;
        }
        /* exact keys, and their slots touched */
        for (size_t k = 0; k < m; ++k) {
            mw_exactKey(w, mw_point(points, stride, base + k), &win->exact[k]);
            sink ^= w->exact.entries[win->exact[k].hash & w->exact.mask].value;
        }
        /* duplicates take their output; new positions are marked pending */
        size_t n = 0;
        for (size_t k = 0; k < m; ++k) {
            mw_Entry* e = mw_find(&w->exact, &win->exact[k]);
            if (e->value == MW_NONE) {
                memcpy(e->key, win->exact[k].key, sizeof(e->key));
                e->value = MW_PLACEHOLDER + (uint32_t)n;
                w->exact.count++;
                win->slot[n] = e;
                win->pending[n++] = (uint32_t)k;
            }
            win->result[k] = e->value;
        }
        /* the cells of the new positions, their slots touched */
        for (size_t j = 0; j < n; ++j) {
            double p[3];
            mw_load(p, mw_point(points, stride, base + win->pending[j]), w->dim);
            if (dense) {
                win->cell_count[j] = mw_denseCells(w, p, win->cells[j]);
                for (int k = 0; k < win->cell_count[j]; ++k)
                    sink ^= w->dense[win->cells[j][k].hash];
            } else {
                win->cell_count[j] = mw_cellKeys(w, p, win->cells[j]);
                for (int k = 0; k < win->cell_count[j]; ++k)
                    sink ^= w->cells.entries[win->cells[j][k].hash & w->cells.mask].value;
            }
        }
        /* the weld itself, in input order */
        for (size_t j = 0; j < n; ++j) {
            double p[3];
            mw_load(p, mw_point(points, stride, base + win->pending[j]), w->dim);
            win->output[j] = dense ? mw_weldDense(w, p, win->cells[j], win->cell_count[j])
                                   : mw_weldGrid(w, p, win->cells[j], win->cell_count[j]);
            win->slot[j]->value = win->output[j];
            if (fresh)
                fresh[fresh_count++] = (uint32_t)(base + win->pending[j]);
        }
        for (size_t k = 0; k < m; ++k) {
            uint32_t v = win->result[k];
            remap[base + k] = v >= MW_PLACEHOLDER && v != MW_NONE ? win->output[v - MW_PLACEHOLDER] : v;
        }
    }
    w->sink ^= sink;
    mw_deallocate(win);
    mw_deallocate(fresh);
    return error;
}

/* ---- GRID: square cells sized to the data, precise ----
 * A point p merges into the earliest representative within r (the NAIVE result, whatever the
 * cell size); it searches the cells that the box [p - r, p + r] touches. Cells at least 2r wide
 * make that at most 2 per axis, and cells as wide as the points' spacing make it 1 for most
 * points of a sparse set (a mesh, a soup: r is far below the edge length). The representatives
 * are the whole state, so the cells can be rebuilt at another size at any time: when chains grow
 * long (cells too wide for the density) and when coordinates outgrow the cell indices. */

#define MW_GRID_WORK 24.0
#define MW_SWITCHED 1 /* mw_addAdaptive handed an AUTO welder to the kd-tree */ /* chain steps per point searched above which cells shrink */

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

/* GRID on a flat cell array (one-shot welds of dense points): the same search without hashing. */
static uint32_t mw_gridSearchDense(meshweld_Welder* w, const double p[3], const double s[3], uint32_t** home)
{
    double e = w->reach, f = 1.0 - e;
    int32_t fx = mw_floor(s[0]), fy = mw_floor(s[1]), fz = mw_floor(s[2]);
    double ux = s[0] - fx, uy = s[1] - fy, uz = s[2] - fz;
    ptrdiff_t sy = (ptrdiff_t)w->extent[0], sz = (ptrdiff_t)(w->extent[0] * w->extent[1]);
    ptrdiff_t at = (fx - w->origin[0]) + sy * (fy - w->origin[1]) + sz * (fz - w->origin[2]);
    int x0 = -(ux < e), x1 = ux > f, y0 = -(uy < e), y1 = uy > f;
    int z0 = -(w->dim == 3 && uz < e), z1 = w->dim == 3 && uz > f;
    *home = &w->dense[at];
    w->searched++;
    uint32_t best = MW_NONE;
    for (int z = z0; z <= z1; ++z)
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                uint32_t head = w->dense[at + x + sy * y + sz * z];
                if (head != MW_NONE)
                    best = mw_gridChain(w, head, p, best);
            }
    return best;
}

static void mw_gridLinkDense(meshweld_Welder* w, uint32_t* head, uint32_t rep)
{
    if (*head == MW_NONE) {
        w->next[rep] = rep;
    } else {
        w->next[rep] = w->next[*head]; /* the oldest */
        w->next[*head] = rep;
    }
    *head = rep;
}

/* A one-shot GRID weld uses a flat cell array when the points' bounding box, in cells (with a
 * margin of one for the reach), holds at most two cells per point: dense clouds. */
static void mw_gridDense(meshweld_Welder* w, const float* points, size_t count, size_t stride)
{
    if (!w->oneshot || w->dense)
        return;
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int seen = 0;
    /* a sample's box first: the full pass only when it can be small enough */
    size_t step = count / 256 > 0 ? count / 256 : 1;
    for (size_t i = 0; i < count; i += step) {
        const float* q = mw_point(points, stride, i);
        float x = q[0], y = q[1], z = w->dim == 3 ? q[2] : 0.0f;
        if ((x - x) + (y - y) + (z - z) != 0.0f)
            continue;
        if (!seen++)
            lo[0] = hi[0] = x, lo[1] = hi[1] = y, lo[2] = hi[2] = z;
        lo[0] = x < lo[0] ? x : lo[0], hi[0] = x > hi[0] ? x : hi[0];
        lo[1] = y < lo[1] ? y : lo[1], hi[1] = y > hi[1] ? y : hi[1];
        lo[2] = z < lo[2] ? z : lo[2], hi[2] = z > hi[2] ? z : hi[2];
    }
    double sampled = 1.0;
    for (int a = 0; a < w->dim; ++a)
        sampled *= ((double)hi[a] - lo[a]) * w->inverse + 1.0;
    if (sampled > 2.0 * (double)count + 4096.0)
        return;
    seen = 0;
    for (size_t i = 0; i < count; ++i) {
        const float* q = mw_point(points, stride, i);
        float x = q[0], y = q[1], z = w->dim == 3 ? q[2] : 0.0f;
        if ((x - x) + (y - y) + (z - z) != 0.0f)
            continue; /* reported by the weld */
        if (!seen++)
            lo[0] = hi[0] = x, lo[1] = hi[1] = y, lo[2] = hi[2] = z;
        lo[0] = x < lo[0] ? x : lo[0], hi[0] = x > hi[0] ? x : hi[0];
        lo[1] = y < lo[1] ? y : lo[1], hi[1] = y > hi[1] ? y : hi[1];
        lo[2] = z < lo[2] ? z : lo[2], hi[2] = z > hi[2] ? z : hi[2];
    }
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
    w->dense = (uint32_t*)mw_allocate((size_t)cells, sizeof(uint32_t));
    if (w->dense)
        memset(w->dense, 0xff, (size_t)cells * sizeof(uint32_t)); /* else the hash table serves */
}

/* Undoes a GRID batch: the representatives it made go, the cells are rebuilt without them, and
 * the exact cache (only a cache) is dropped. */
static void mw_rollbackAdaptive(meshweld_Welder* w, size_t rep_before)
{
    w->rep_count = rep_before;
    mw_tableFree(&w->exact);
    mw_deallocate(w->dense);
    w->dense = NULL;
    if (mw_gridRebuild(w, 1.0 / w->inverse, 0))
        mw_tableFree(&w->cells); /* no room even for that: rebuilt at the next batch */
}

/* GRID, point by point. Bitwise-identical
 * positions are looked up in an exact cache first (they have the same answer: later
 * representatives are never earlier), which makes triangle soups cheap; the cache is dropped
 * when it hits less than one point in eight. Tables grow as representatives come; cells grow
 * when a coordinate outgrows the cell indices and shrink when chains grow long. On failure the
 * welder is left as it was. */
static int mw_addAdaptive(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride,
                          meshweld_Info* info)
{
    size_t rep_before = w->rep_count;
    double floor_size = 2.0 * w->radius * MW_SLACK;
    int error = meshweld_Ok;
    if (w->cells.entries == NULL || w->inverse == 0) {
        double size = w->inverse > 0 ? 1.0 / w->inverse : fmax(mw_spacing(w, points, count, stride), floor_size);
        if (w->spacing == 0)
            w->spacing = size;
        if ((error = mw_gridRebuild(w, size, count / 4)) != meshweld_Ok)
            return error;
        mw_gridDense(w, points, count, stride);
    }
    /* a first guess at the room needed (a quarter of the points), then doubling */
    int cache = 1, estimated = 0;
    size_t looks = 0, hits = 0;
    if (mw_reserveReps(w, count / 4) || mw_tableReserveWith(&w->cells, w->cells.count + count / 4, mw_cellHash) ||
        mw_tableReserveWith(&w->exact, w->exact.count + count / 4, mw_exactHash)) {
        mw_rollbackAdaptive(w, rep_before);
        return meshweld_ErrorMemory;
    }
    const int dim = w->dim;
    for (size_t base = 0; base < count; base += MW_WINDOW) {
        size_t m = count - base < MW_WINDOW ? count - base : MW_WINDOW;
        if ((w->rep_count + m > w->rep_capacity && mw_reserveReps(w, m)) ||
            (w->cells.count + m > (w->cells.mask + 1) / 2 && mw_tableReserveWith(&w->cells, w->cells.count + m, mw_cellHash)) ||
            (cache && w->exact.count + m > (w->exact.mask + 1) / 2 && mw_tableReserveWith(&w->exact, w->exact.count + m, mw_exactHash))) {
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
                slot = mw_tableFindHashed(&w->exact, mw_exactHash(key[0], key[1], key[2]), key[0], key[1], key[2]);
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
                mw_deallocate(w->dense);
                w->dense = NULL;
                if ((error = mw_gridRebuild(w, size, m)) != meshweld_Ok)
                    break;
                for (int a = 0; a < 3; ++a)
                    s[a] = p[a] * w->inverse;
            }
            uint32_t rep;
            if (w->dense) {
                uint32_t* head = NULL;
                rep = mw_gridSearchDense(w, p, s, &head);
                if (rep == MW_NONE) {
                    rep = mw_newRep(w, p);
                    mw_gridLinkDense(w, head, rep);
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
                if (mw_reserveReps(w, expect) || mw_tableReserveWith(&w->cells, w->cells.count + expect, mw_cellHash)) {
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
                mw_deallocate(w->dense); /* the flat array was sized for the old cells */
                w->dense = NULL;
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

int meshweld_welderAdd(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride,
                       meshweld_Info* info)
{
    if (!w)
        return meshweld_ErrorNull;
    int error = mw_checkBatch(w, remap, points, count, stride, info);
    if (error || count == 0) {
        mw_report(info, w);
        return error;
    }

    int adaptive = w->method == meshweld_MethodGrid && w->radius > 0;
    if (adaptive && (error = mw_addAdaptive(w, remap, points, count, stride, info)) == MW_SWITCHED)
        adaptive = 0, error = meshweld_Ok;
    if (adaptive || error) {
        /* done, or failed with the welder as it was */
    } else if (mw_isGrid(w->method) && w->radius > 0) {
        error = mw_addGrid(w, remap, points, count, stride);
    } else if ((error = mw_reserve(w, count)) != meshweld_Ok) {
        /* nothing changed */
    } else if (w->method == meshweld_MethodKdtree && w->radius > 0) {
        error = mw_addKdtree(w, remap, points, count, stride);
    } else {
        for (size_t i = 0; i < count; ++i) {
            const float* src = mw_point(points, stride, i);
            uint32_t key[3];
            mw_Entry* slot = mw_exactSlot(w, src, key);
            if (slot->value == MW_NONE) {
                double p[3];
                mw_load(p, src, w->dim);
                mw_exactInsert(w, slot, key, w->radius == 0 ? mw_newRep(w, p) : mw_weldNaive(w, p));
            }
            remap[i] = slot->value;
        }
    }
    if (!error)
        w->fed += count;
    mw_report(info, w);
    return error;
}

size_t meshweld_welderCount(const meshweld_Welder* w)
{
    return w ? w->rep_count : 0;
}

int meshweld_welderMethod(const meshweld_Welder* w)
{
    return w ? w->method : meshweld_ErrorNull;
}

void meshweld_welderPositions(const meshweld_Welder* w, float* destination)
{
    if (!w || !destination)
        return;
    for (size_t i = 0; i < w->rep_count; ++i)
        for (int a = 0; a < w->dim; ++a)
            destination[i * w->dim + a] = w->reps[i * 3 + a];
}

void meshweld_welderDestroy(meshweld_Welder* w)
{
    if (!w)
        return;
    mw_release(w);
    mw_deallocate(w);
}

int meshweld_weld(unsigned int* remap, const float* points, size_t count, size_t stride,
                  const meshweld_Options* options, meshweld_Info* info)
{
    meshweld_Welder w;
    int error = mw_init(&w, options);
    if (error)
        return error;
    w.oneshot = 1;
    error = meshweld_welderAdd(&w, remap, points, count, stride, info);
    mw_release(&w);
    return error;
}

int meshweld_weldKept(unsigned int* remap, float* kept, const float* points, size_t count, size_t stride,
                      const meshweld_Options* options, meshweld_Info* info)
{
    meshweld_Welder w;
    int error = mw_init(&w, options);
    if (error)
        return error;
    if (count > 0 && !kept)
        return meshweld_ErrorNull;
    w.oneshot = 1;
    error = meshweld_welderAdd(&w, remap, points, count, stride, info);
    if (!error)
        meshweld_welderPositions(&w, kept);
    mw_release(&w);
    return error;
}

int meshweld_gather(float* destination, size_t unique_count, const unsigned int* remap, const float* points,
                    size_t count, size_t stride, int dim, int centroid)
{
    if (dim != 2 && dim != 3)
        return meshweld_ErrorDim;
    if (count == 0)
        return meshweld_Ok;
    if (!destination || !remap || !points)
        return meshweld_ErrorNull;
    if (mw_badStride(stride, (size_t)dim))
        return meshweld_ErrorStride;
    if (count > SIZE_MAX / stride)
        return meshweld_ErrorCount;
    for (size_t i = 0; i < count; ++i)
        if (remap[i] >= unique_count)
            return meshweld_ErrorIndex;

    size_t cells = centroid ? unique_count * (size_t)(dim + 1) : (unique_count + 7) / 8;
    double* sum = NULL;
    unsigned char* seen = NULL;
    if (centroid)
        sum = (double*)mw_allocate(cells, sizeof(double));
    else
        seen = (unsigned char*)mw_allocate(cells, 1);
    if (!sum && !seen)
        return meshweld_ErrorMemory;
    if (sum)
        memset(sum, 0, cells * sizeof(double));
    else
        memset(seen, 0, cells);

    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        size_t k = remap[i];
        if (sum) {
            for (int a = 0; a < dim; ++a)
                sum[k * (dim + 1) + a] += p[a];
            sum[k * (dim + 1) + dim] += 1.0;
        } else if (!(seen[k >> 3] & (1u << (k & 7)))) {
            seen[k >> 3] |= (unsigned char)(1u << (k & 7));
            for (int a = 0; a < dim; ++a)
                destination[k * dim + a] = p[a];
        }
    }
    if (sum)
        for (size_t k = 0; k < unique_count; ++k) {
            double n = sum[k * (dim + 1) + dim];
            for (int a = 0; a < dim; ++a)
                destination[k * dim + a] = n > 0 ? (float)(sum[k * (dim + 1) + a] / n) : 0.0f;
        }
    mw_deallocate(sum);
    mw_deallocate(seen);
    return meshweld_Ok;
}

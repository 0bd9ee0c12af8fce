/* The greedy weld: one loop over the points, each merged into a representative found by the
 * method or made a representative itself. Incremental by construction; meshweld_weld is one
 * batch. This file holds the welder, its checks, NAIVE, KDTREE and the public functions;
 * squares.c the article's grids, method_grid.c GRID (on engine.c and cells_data.c).
 *
 * Exact duplicates are resolved first, by a hash of the coordinates' bits (-0 folded onto +0):
 * only the first occurrence of a position meets the method, the others copy its answer. This is
 * what makes guarantee 3 hold for the loose store, where the answer for a position depends on
 * the representatives stored so far (the article's loop lets a duplicate find a representative
 * stored after its twin was welded). It also makes triangle soups cheap: each corner is hashed
 * once and only distinct positions are searched. (GRID keeps the same table as a cache only.)
 *
 * The precise store, NAIVE, KDTREE and GRID all merge a point into the earliest representative
 * within r; they return the same remap, and that remap is the same whatever the order of cells.
 */
#include "internal.h"

#include <math.h>

int mw_isGrid(int method)
{
    return method >= meshweld_MethodGridR && method <= meshweld_MethodBcc;
}

void mw_setMethod(meshweld_Welder* w, int method)
{
    w->method = method;
    w->scale = w->radius > 0 && mw_isGrid(method) ? mw_gridScale(method, w->radius) : 1.0;
    mw_splitScale(w->scale, w->split);
}

static int mw_init(meshweld_Welder* w, const meshweld_Options* options)
{
    mw_Parsed o;
    int error = mw_parseOptions(options, &o);
    if (error)
        return error;
    memset(w, 0, sizeof(*w));
    w->dim = o.dim;
    w->store = o.store;
    w->radius = o.radius;
    w->r2 = w->radius * w->radius;
    w->automatic = o.method == meshweld_MethodAuto;
    mw_setMethod(w, w->automatic ? meshweld_MethodGrid : o.method);
    return meshweld_Ok;
}

static void mw_release(meshweld_Welder* w)
{
    mw_repsFree(&w->reps);
    mw_tableFree(&w->exact);
    mw_tableFree(&w->cells);
    for (int k = 0; k < MW_FOREST; ++k)
        mw_kdFree(&w->forest[k]);
    mw_indexFree(&w->index);
    mw_deallocate(w->dense);
    w->dense = NULL;
}

static void mw_report(meshweld_Info* info, const meshweld_Welder* w)
{
    if (info) {
        info->unique_count = w->reps.count;
        info->method = w->method;
    }
}

/* Checks a batch before anything changes: sizes, finiteness, the article's grids' range (GRID
 * checks the points as it reads them). */
static int mw_checkBatch(meshweld_Welder* w, const unsigned int* remap, const float* points, size_t count,
                         size_t stride, meshweld_Info* info)
{
    if (count == 0)
        return meshweld_Ok;
    if (!remap)
        return meshweld_ErrorNull;
    int error = mw_checkBuffer(points, count, stride, w->dim, MW_NONE - w->fed);
    if (error || (w->method == meshweld_MethodGrid && w->radius > 0))
        return error; /* GRID checks the points it has not seen before as it welds them */

    /* one branch-free pass: x - x summed stays 0 unless some coordinate is NaN or infinite, and
     * for the grids the bounding box (their range, and the flat array of one-shot welds) */
    int dim = w->dim, grid = mw_isGrid(w->method) && w->radius > 0; /* radius 0: the exact pass is all */
    float lo[3] = {points[0], points[1], dim == 3 ? points[2] : 0.0f}, hi[3] = {lo[0], lo[1], lo[2]};
    float bad = 0.0f;
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        float x = p[0], y = p[1], z = dim == 3 ? p[2] : 0.0f;
        bad += (x - x) + (y - y) + (z - z);
        if (grid) {
            lo[0] = x < lo[0] ? x : lo[0], hi[0] = x > hi[0] ? x : hi[0];
            lo[1] = y < lo[1] ? y : lo[1], hi[1] = y > hi[1] ? y : hi[1];
            lo[2] = z < lo[2] ? z : lo[2], hi[2] = z > hi[2] ? z : hi[2];
        }
    }
    double extent = 0.0;
    for (int a = 0; a < 3; ++a) {
        w->low[a] = (double)lo[a] * w->scale;
        w->high[a] = (double)hi[a] * w->scale;
        extent = fmax(extent, fmax(fabs(w->low[a]), fabs(w->high[a])));
    }
    double limit = grid ? mw_gridLimit(w->method, w->radius) : 0.0;
    if (bad == 0.0f && !(grid && extent >= limit)) {
        if (grid && extent >= MW_NEAR_CELLS)
            w->far = 1; /* cell keys beyond int32 from now on (kept if the batch fails: only slower) */
        return meshweld_Ok;
    }

    /* something is wrong: find the first offending coordinate */
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        for (int a = 0; a < dim; ++a) {
            error = !isfinite(p[a]) ? meshweld_ErrorNonFinite
                    : grid && bad == 0.0f && fabs((double)p[a] * w->scale) >= limit ? meshweld_ErrorRange
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

/* Makes room for count more points in every table, so that the batch allocates nothing else. */
static int mw_reserve(meshweld_Welder* w, size_t count)
{
    if (mw_repsReserve(&w->reps, count) || mw_tableReserve(&w->exact, w->exact.count + count))
        return meshweld_ErrorMemory;
    return meshweld_Ok;
}

/* NAIVE: the earliest representative within r, by a scan of them all. */
static uint32_t mw_weldNaive(meshweld_Welder* w, const double p[3])
{
    for (size_t q = 0; q < w->reps.count; ++q)
        if (mw_distance2(p, &w->reps.xyz[q * 3], w->dim) <= w->r2)
            return (uint32_t)q;
    return mw_repsAdd(&w->reps, p);
}

/* The exact-duplicate slot of a point; -0 and +0 share one. */
static mw_Entry* mw_exactSlot(meshweld_Welder* w, const float* src, uint32_t key[3])
{
    mw_exactKey(src, w->dim, key);
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

/* KDTREE's forest over the representatives of earlier batches: the binary digits of their count
 * (rounded down to MW_TAIL; the newest fewer than MW_TAIL are scanned, the tail) say which trees are full. Bringing it up to date rebuilds only the trees below the highest digit
 * that changes (a binary counter): each representative is rebuilt into O(log n) trees in all, so a
 * batch costs what its size says however the points are cut into batches. New trees are built
 * before old ones are freed: on failure the forest is as before. */
#define MW_TAIL 64 /* a power of two */

static int mw_forestSync(meshweld_Welder* w)
{
    size_t covered = 0;
    for (int k = 0; k < MW_FOREST; ++k)
        covered += w->forest[k].count;
    size_t total = w->reps.count & ~(size_t)(MW_TAIL - 1); /* the newest ones stay in the tail */
    if (covered == total)
        return meshweld_Ok;
    int h = MW_FOREST - 1; /* counts stay below 2^32: 64-bit shifts are defined for every digit */
    while (!(((uint64_t)covered ^ (uint64_t)total) >> h & 1))
        h--;
    mw_Kdtree built[MW_FOREST];
    memset(built, 0, sizeof(built));
    size_t at = (size_t)((uint64_t)covered & ~(((uint64_t)2 << h) - 1)); /* the reps of the trees above h */
    for (int k = h; k >= 0; --k) {
        if (!((uint64_t)total >> k & 1))
            continue;
        size_t size = (size_t)1 << k;
        if (mw_kdAllocate(&built[k], size, w->dim)) {
            for (int j = h; j > k; --j)
                mw_kdFree(&built[j]);
            return meshweld_ErrorMemory;
        }
        for (size_t i = 0; i < size; ++i)
            built[k].ids[i] = (uint32_t)(at + i);
        memcpy(built[k].coords, &w->reps.xyz[at * 3], size * 3 * sizeof(float));
        built[k].count = size;
        mw_kdFinish(&built[k]);
        at += size;
    }
    for (int k = 0; k <= h; ++k) {
        mw_kdFree(&w->forest[k]);
        w->forest[k] = built[k];
    }
    return meshweld_Ok;
}

/* The earliest representative of the forest within r of p: trees from the oldest, the first hit wins, then the tail. */
static uint32_t mw_forestEarliest(const meshweld_Welder* w, const double p[3])
{
    size_t covered = 0;
    for (int k = MW_FOREST - 1; k >= 0; --k) {
        if (w->forest[k].count == 0)
            continue;
        uint32_t q = mw_kdEarliest(&w->forest[k], p, w->r2);
        if (q != MW_NONE)
            return q;
        covered += w->forest[k].count;
    }
    for (size_t q = covered; q < w->reps.count; ++q) /* the tail, in order */
        if (mw_distance2(p, &w->reps.xyz[q * 3], w->dim) <= w->r2)
            return (uint32_t)q;
    return MW_NONE;
}

/* KDTREE: first every new distinct position looks for the earliest earlier representative
 * within r (the forest of earlier batches), then the rest are welded among themselves the way Blender
 * does it: in input order, a position not yet taken becomes a representative and takes every
 * free position within r. Both steps give the earliest representative within r, so the result
 * equals NAIVE's. All scratch is allocated before anything changes. */
static int mw_addKdtree(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride)
{
    int error = meshweld_Ok;
    /* one block (a batch of one point costs few allocations): per point its new position or
     * MW_NONE; per new position its representative, and its first point */
    uint32_t* ordinal = count <= SIZE_MAX / 3 ? (uint32_t*)mw_allocate(count * 3, sizeof(uint32_t)) : NULL;
    uint32_t* owner = ordinal ? ordinal + count : NULL;
    uint32_t* first = ordinal ? ordinal + 2 * count : NULL;
    mw_Entry** slots = (mw_Entry**)mw_allocate(count, sizeof(mw_Entry*)); /* per new position: its exact slot */
    mw_Kdtree fresh = {0};
    if (!ordinal || !slots || mw_kdAllocate(&fresh, count, w->dim)) {
        error = meshweld_ErrorMemory;
        goto done;
    }
    if ((error = mw_forestSync(w)))
        goto done;

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
            owner[n] = mw_forestEarliest(w, p);
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
        absorb.rep = mw_repsAdd(&w->reps, p);
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
    mw_deallocate(slots);
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

    int switched = 0;
    if (w->method == meshweld_MethodGrid && w->radius > 0) {
        /* AUTO leaves GRID for the kd-tree, for good, when a coordinate lies so far out that cells
         * holding it would be 64 times the data's spacing (crowds in every cell): the one place
         * where AUTO decides */
        error = mw_addData(w, remap, points, count, stride, !w->automatic, info);
        if (error != MW_COARSE)
            goto done;
        mw_setMethod(w, meshweld_MethodKdtree);
        switched = 1;
        if ((error = mw_checkBatch(w, remap, points, count, stride, info)) != meshweld_Ok)
            goto done;
    }
    if (mw_isGrid(w->method) && w->radius > 0) {
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
                mw_exactInsert(w, slot, key, w->radius == 0 ? mw_repsAdd(&w->reps, p) : mw_weldNaive(w, p));
            }
            remap[i] = slot->value;
        }
    }
done:
    if (!error)
        w->fed += count;
    else if (switched)
        mw_setMethod(w, meshweld_MethodGrid); /* a failed batch leaves the welder as it was */
    mw_report(info, w);
    return error;
}

size_t meshweld_welderCount(const meshweld_Welder* w)
{
    return w ? w->reps.count : 0;
}

int meshweld_welderMethod(const meshweld_Welder* w)
{
    return w ? w->method : meshweld_ErrorNull;
}

void meshweld_welderPositions(const meshweld_Welder* w, float* destination)
{
    if (!w || !destination)
        return;
    for (size_t i = 0; i < w->reps.count; ++i)
        for (int a = 0; a < w->dim; ++a)
            destination[i * w->dim + a] = w->reps.xyz[i * 3 + a];
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

int meshweld_trace(unsigned int* remap, const float* points, size_t count, size_t stride,
                   const meshweld_Options* options, meshweld_Trace* trace, meshweld_Info* info)
{
    if (!trace || !options)
        return meshweld_ErrorNull;
    meshweld_Options grid = *options;
    grid.method = meshweld_MethodGrid;
    if (!(options->radius > 0.0f))
        return meshweld_ErrorRadius;
    meshweld_Welder w;
    int error = mw_init(&w, &grid);
    if (error)
        return error;
    trace->nodes = trace->cells = trace->tests = trace->pair_count = 0;
    trace->cell_size = 0;
    trace->engine = 0;
    w.oneshot = 1;
    w.trace = trace;
    error = meshweld_welderAdd(&w, remap, points, count, stride, info);
    mw_release(&w);
    return error;
}

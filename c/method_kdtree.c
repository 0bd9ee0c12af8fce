/* KDTREE: the precise rule over a kd-tree (kdtree.c). A welder keeps its representatives in a
 * forest of static trees of sizes 2^k (Bentley-Saxe), so a batch costs what its size says. A batch
 * first asks the forest for each new position's earliest representative within r, then welds the
 * rest among themselves the way Blender does: in input order, a position not yet taken becomes a
 * representative and takes every free position within r. Both steps give the earliest
 * representative within r, so the result equals NAIVE's. */
#include "internal.h"

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
    mw_Query q = mw_query(p, w->dim, w->r2, NULL, 0);
    mw_runEarliest(&w->reps, covered, w->reps.count, &q); /* the tail, in order */
    return q.best;
}

/* KDTREE: first every new distinct position looks for the earliest earlier representative
 * within r (the forest of earlier batches), then the rest are welded among themselves the way Blender
 * does it: in input order, a position not yet taken becomes a representative and takes every
 * free position within r. Both steps give the earliest representative within r, so the result
 * equals NAIVE's. All scratch is allocated before anything changes. */
int mw_addKdtree(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride)
{
    /* room for every point first (representatives, exact slots), before the welder changes */
    if (mw_repsReserve(&w->reps, count) || mw_tableReserve(&w->exact, w->exact.count + count))
        return meshweld_ErrorMemory;
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
        mw_Entry* slot = mw_exactSlot(&w->exact, src, w->dim, key);
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
            mw_exactInsert(&w->exact, slot, key, MW_NONE - 1 - (uint32_t)n);
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


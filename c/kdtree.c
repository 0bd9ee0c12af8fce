/* A static kd-tree in flat arrays (ids and coordinates in tree order), split at the median as in
 * mourner's kdbush, but along the widest side of the node's box rather than the axis cycling by
 * depth: on points in a plane or along a line a cycled axis splits nothing at a third or two
 * thirds of the levels, where a query must then walk both sides (a row of points took n^(2/3)
 * nodes per query). The box is the parent's cut at the median, so it costs no pass over the
 * points; the axis of each node is kept for the queries. The tree's shape changes only speed:
 * every query answers a question about the set of points within r. */
#include "internal.h"

#include <math.h>

#define MW_LEAF 16
#define MW_STACK 256

static void mw_kdSwap(mw_Kdtree* t, size_t i, size_t j)
{
    uint32_t id = t->ids[i];
    t->ids[i] = t->ids[j];
    t->ids[j] = id;
    float c[3];
    memcpy(c, &t->coords[i * 3], sizeof(c));
    memcpy(&t->coords[i * 3], &t->coords[j * 3], sizeof(c));
    memcpy(&t->coords[j * 3], c, sizeof(c));
}

/* Rearranges [lo, hi] so that element k is in its sorted place along axis, smaller (or equal)
 * ones before it and larger (or equal) ones after. Pivots come from a fixed hash of the range,
 * so the tree is the same on every platform and no input order can make it quadratic in
 * practice. */
static void mw_kdSelect(mw_Kdtree* t, size_t k_, size_t lo_, size_t hi_, int axis)
{
    int64_t k = (int64_t)k_, lo = (int64_t)lo_, hi = (int64_t)hi_;
    while (hi > lo) {
        int64_t pick = lo + (int64_t)(mw_hash((uint32_t)lo, (uint32_t)hi, 0x5bd1e995u) % (uint64_t)(hi - lo + 1));
        mw_kdSwap(t, (size_t)pick, (size_t)k);
        float pivot = t->coords[k * 3 + axis];
        int64_t i = lo, j = hi;
        /* partition around the pivot, kept at lo or hi as a sentinel */
        mw_kdSwap(t, (size_t)lo, (size_t)k);
        if (t->coords[hi * 3 + axis] > pivot)
            mw_kdSwap(t, (size_t)lo, (size_t)hi);
        while (i < j) {
            mw_kdSwap(t, (size_t)i, (size_t)j);
            i++;
            j--;
            while (t->coords[i * 3 + axis] < pivot)
                i++;
            while (t->coords[j * 3 + axis] > pivot)
                j--;
        }
        if (t->coords[lo * 3 + axis] == pivot)
            mw_kdSwap(t, (size_t)lo, (size_t)j);
        else {
            j++;
            mw_kdSwap(t, (size_t)j, (size_t)hi);
        }
        if (j <= k)
            lo = j + 1;
        if (k <= j)
            hi = j - 1;
    }
}

/* The widest side of a box (the lowest such axis on a tie). */
static int mw_kdWidest(const float low[3], const float high[3], int dim)
{
    int axis = 0;
    double widest = (double)high[0] - (double)low[0];
    for (int a = 1; a < dim; ++a)
        if ((double)high[a] - (double)low[a] > widest)
            widest = (double)high[a] - (double)low[a], axis = a;
    return axis;
}

static void mw_kdSort(mw_Kdtree* t, size_t lo, size_t hi)
{
    /* explicit stack instead of recursion: depth is at most log2(count); each entry a range and
     * its box */
    size_t stack[MW_STACK][2];
    float boxes[MW_STACK][6];
    int top = 1;
    stack[0][0] = lo, stack[0][1] = hi;
    for (int a = 0; a < 3; ++a)
        boxes[0][a] = boxes[0][3 + a] = t->coords[lo * 3 + a];
    for (size_t i = lo; i <= hi; ++i)
        for (int a = 0; a < 3; ++a) {
            float v = t->coords[i * 3 + a];
            boxes[0][a] = v < boxes[0][a] ? v : boxes[0][a];
            boxes[0][3 + a] = v > boxes[0][3 + a] ? v : boxes[0][3 + a];
        }
    while (top > 0) {
        --top;
        lo = stack[top][0], hi = stack[top][1];
        if (hi - lo <= MW_LEAF)
            continue;
        float box[6];
        memcpy(box, boxes[top], sizeof(box));
        size_t m = (lo + hi) >> 1;
        int axis = mw_kdWidest(box, box + 3, t->dim);
        t->axes[m] = (unsigned char)axis;
        mw_kdSelect(t, m, lo, hi, axis);
        float cut = t->coords[m * 3 + axis];
        stack[top][0] = lo, stack[top][1] = m - 1;
        memcpy(boxes[top], box, sizeof(box));
        boxes[top][3 + axis] = cut;
        top++;
        stack[top][0] = m + 1, stack[top][1] = hi;
        memcpy(boxes[top], box, sizeof(box));
        boxes[top][axis] = cut;
        top++;
    }
}

int mw_kdAllocate(mw_Kdtree* tree, size_t capacity, int dim)
{
    tree->dim = dim;
    tree->count = 0;
    tree->ids = (uint32_t*)mw_allocate(capacity, sizeof(uint32_t));
    tree->coords = (float*)mw_allocate(capacity, 3 * sizeof(float));
    tree->axes = (unsigned char*)mw_allocate(capacity, 1);
    if (!tree->ids || !tree->coords || !tree->axes) {
        mw_kdFree(tree);
        return meshweld_ErrorMemory;
    }
    return meshweld_Ok;
}

void mw_kdFinish(mw_Kdtree* tree)
{
    if (tree->count > 0)
        mw_kdSort(tree, 0, tree->count - 1);
}

int mw_kdBuild(mw_Kdtree* tree, const float* positions, size_t count, size_t stride, int dim)
{
    int error = mw_kdAllocate(tree, count, dim);
    if (error)
        return error;
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(positions, stride, i);
        tree->ids[i] = (uint32_t)i;
        tree->coords[i * 3 + 0] = p[0];
        tree->coords[i * 3 + 1] = p[1];
        tree->coords[i * 3 + 2] = dim == 3 ? p[2] : 0.0f;
    }
    tree->count = count;
    mw_kdFinish(tree);
    return meshweld_Ok;
}

void mw_kdFree(mw_Kdtree* tree)
{
    mw_deallocate(tree->ids);
    mw_deallocate(tree->coords);
    mw_deallocate(tree->axes);
    tree->ids = NULL;
    tree->coords = NULL;
    tree->axes = NULL;
    tree->count = 0;
}

/* Walks the nodes whose range may hold points within r of p: with visit NULL it returns the
 * smallest id within r, otherwise it calls visit for each point within r (and returns MW_NONE). */
static uint32_t mw_kdWalk(const mw_Kdtree* t, const double p[3], double r2,
                          void (*visit)(void*, uint32_t), void* context)
{
    uint32_t best = MW_NONE;
    if (t->count == 0)
        return best;
    size_t stack[MW_STACK][2];
    int top = 1;
    stack[0][0] = 0, stack[0][1] = t->count - 1;
    while (top > 0) {
        --top;
        size_t lo = stack[top][0], hi = stack[top][1];
        if (hi - lo <= MW_LEAF) {
            for (size_t i = lo; i <= hi; ++i) {
                if (mw_distance2(p, &t->coords[i * 3], t->dim) <= r2) {
                    if (visit)
                        visit(context, t->ids[i]);
                    else if (t->ids[i] < best)
                        best = t->ids[i];
                }
            }
            continue;
        }
        size_t m = (lo + hi) >> 1;
        const float* q = &t->coords[m * 3];
        int axis = t->axes[m];
        if (mw_distance2(p, q, t->dim) <= r2) {
            if (visit)
                visit(context, t->ids[m]);
            else if (t->ids[m] < best)
                best = t->ids[m];
        }
        /* Points before m are <= q[axis], after m >= q[axis]. Rounding is monotone, so a
         * subtree is skipped only when its nearest possible coordinate is already too far. */
        double d = p[axis] - (double)q[axis];
        if (d <= 0 || d * d <= r2) { /* left */
            stack[top][0] = lo, stack[top][1] = m - 1;
            top++;
        }
        if (d >= 0 || d * d <= r2) { /* right */
            stack[top][0] = m + 1, stack[top][1] = hi;
            top++;
        }
    }
    return best;
}

uint32_t mw_kdEarliest(const mw_Kdtree* tree, const double p[3], double r2)
{
    return mw_kdWalk(tree, p, r2, NULL, NULL);
}

void mw_kdVisit(const mw_Kdtree* tree, const double p[3], double r2,
                void (*visit)(void* context, uint32_t id), void* context)
{
    mw_kdWalk(tree, p, r2, visit, context);
}

typedef struct mw_PairCount {
    uint32_t self;
    size_t pairs, limit;
} mw_PairCount;

static void mw_countPair(void* context, uint32_t id)
{
    mw_PairCount* c = (mw_PairCount*)context;
    if (id > c->self && c->pairs < c->limit)
        c->pairs++;
}

int meshweld_countClosePairs(size_t* pairs, const float* points, size_t count, size_t stride, int dim,
                             float radius, size_t limit)
{
    if (!pairs)
        return meshweld_ErrorNull;
    *pairs = 0;
    if (dim != 2 && dim != 3)
        return meshweld_ErrorDim;
    if (!(radius >= 0.0f) || !isfinite(radius))
        return meshweld_ErrorRadius;
    if (count == 0)
        return meshweld_Ok;
    int error = mw_checkBuffer(points, count, stride, dim, MW_NONE);
    if (error)
        return error;
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        for (int a = 0; a < dim; ++a)
            if (!isfinite(p[a]))
                return meshweld_ErrorNonFinite;
    }
    mw_Kdtree tree = {0};
    if (mw_kdBuild(&tree, points, count, stride, dim))
        return meshweld_ErrorMemory;
    mw_PairCount c = {0, 0, limit ? limit : SIZE_MAX};
    double r2 = (double)radius * radius;
    for (size_t i = 0; i < count && c.pairs < c.limit; ++i) {
        const float* p = mw_point(points, stride, i);
        double q[3] = {p[0], p[1], dim == 3 ? p[2] : 0.0};
        c.self = (uint32_t)i;
        mw_kdVisit(&tree, q, r2, mw_countPair, &c);
    }
    mw_kdFree(&tree);
    *pairs = c.pairs;
    return meshweld_Ok;
}

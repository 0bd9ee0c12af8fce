/* GRID, the method AUTO runs: the precise rule (the naive result) over cells sized to the data.
 *
 * A batch goes through four steps:
 *   1. exact duplicates: a hash of the position bits (-0 folded onto +0) gives every new distinct
 *      position a node, numbered in order of first appearance; a position seen in an earlier batch
 *      takes its output at once. A one-shot weld drops the table when it hits less than one point
 *      in eight (a cloud of distinct points): duplicates that come later are nodes of their own,
 *      which the rule merges anyway (their distance is 0);
 *   2. nodes query the representatives of earlier batches (all earlier than the batch): the
 *      earliest within r is their answer;
 *   3. the nodes that found none are welded among themselves by the spatial engine (engine.c),
 *      or, for dense clusters, one by one against the index of representatives;
 *   4. outputs are numbered in node order, and a welder indexes its new representatives.
 * Non-finite coordinates are found in step 1, before anything changes. */
#include "internal.h"

#include <math.h>

#define MW_PROBE 4096 /* points after which a one-shot weld decides whether the exact table pays */

typedef struct mw_Batch {
    uint32_t* node_point; /* node -> its first point */
    uint32_t* node_out;   /* node -> its output */
    uint32_t* free_point; /* the nodes step 2 left, by their first point */
    uint32_t* free_node;  /* ... and by their node (NULL when every node is free) */
    uint32_t* owner;      /* free node -> the free node it merges into */
    unsigned char* settled; /* per point: bit set when remap[i] is already an output (earlier batch) */
    size_t nodes, free;
    double extent;        /* largest |coordinate| */
} mw_Batch;

/* The exact key of a point, -0 folded onto +0. */
static void mw_exactKey(const float* src, int dim, uint32_t key[3])
{
    float v[3] = {src[0] + 0.0f, src[1] + 0.0f, dim == 3 ? src[2] + 0.0f : 0.0f}; /* -0 + 0 = +0 */
    memcpy(key, v, sizeof(v));
}

/* Removes the keys step 1 inserted for this batch's nodes. */
static void mw_forgetNodes(meshweld_Welder* w, const float* points, size_t stride, const mw_Batch* b)
{
    if (!w->exact.entries)
        return;
    for (size_t j = 0; j < b->nodes; ++j) {
        uint32_t key[3];
        mw_exactKey(mw_point(points, stride, b->node_point[j]), w->dim, key);
        mw_Entry* e = mw_tableFind(&w->exact, key[0], key[1], key[2]);
        if (e->value != MW_NONE)
            mw_tableErase(&w->exact, e);
    }
}

/* Step 1. remap[i] receives point i's node, or its output when the settled bit is set. */
static int mw_findNodes(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride,
                        mw_Batch* b, meshweld_Info* info)
{
    const int dim = w->dim;
    int cache = 1;
    size_t looks = 0, hits = 0;
    uint32_t placeholder = MW_NONE - 1 - (uint32_t)count; /* values above it are this batch's nodes */
    float extent = 0.0f;
    b->nodes = 0;
    if (mw_tableReserve(&w->exact, w->exact.count + (w->oneshot ? count / 4 : count)))
        return meshweld_ErrorMemory;
    for (size_t i = 0; i < count; ++i) {
        const float* src = mw_point(points, stride, i);
        float x = src[0], y = src[1], z = dim == 3 ? src[2] : 0.0f;
        if ((x - x) + (y - y) + (z - z) != 0.0f) { /* NaN or infinite */
            if (info)
                info->error_point = i, info->error_axis = isfinite(x) ? (isfinite(y) ? 2 : 1) : 0;
            mw_forgetNodes(w, points, stride, b);
            return meshweld_ErrorNonFinite;
        }
        float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
        extent = ax > extent ? ax : extent;
        extent = ay > extent ? ay : extent;
        extent = az > extent ? az : extent;
        if (cache) {
            if (w->exact.count + 1 > (w->exact.mask + 1) / 2 && mw_tableReserve(&w->exact, w->exact.count * 2 + 1)) {
                mw_forgetNodes(w, points, stride, b);
                return meshweld_ErrorMemory;
            }
            uint32_t key[3];
            mw_exactKey(src, dim, key);
            mw_Entry* e = mw_tableFind(&w->exact, key[0], key[1], key[2]);
            looks++;
            if (e->value != MW_NONE) {
                hits++;
                if (e->value > placeholder) {
                    remap[i] = MW_NONE - 1 - e->value;
                } else {
                    remap[i] = e->value;
                    b->settled[i >> 3] |= (unsigned char)(1u << (i & 7));
                }
            } else {
                memcpy(e->key, key, sizeof(key));
                e->value = MW_NONE - 1 - (uint32_t)b->nodes;
                w->exact.count++;
                b->node_point[b->nodes] = (uint32_t)i;
                remap[i] = (uint32_t)b->nodes++;
            }
            if (w->oneshot && looks == MW_PROBE && hits * 8 < looks) {
                cache = 0; /* few duplicates: the table costs more than it saves */
                mw_tableFree(&w->exact);
            }
        } else {
            b->node_point[b->nodes] = (uint32_t)i;
            remap[i] = (uint32_t)b->nodes++;
        }
    }
    b->extent = extent;
    return meshweld_Ok;
}

/* The cell size for this batch: the index's, or the data's for a first batch; larger when a
 * coordinate is beyond the cells' range. MW_COARSE when that takes cells 64 times the data's
 * spacing and coarse is 0; 0 when the index's cells do. */
static int mw_cellSize(meshweld_Welder* w, const float* points, size_t stride, const mw_Batch* b, int coarse,
                       double* size)
{
    double current = w->index.cells.inverse > 0 ? 1.0 / w->index.cells.inverse : 0.0;
    if (current == 0) {
        current = mw_dataCellSize(points, stride, w->dim, b->node_point, b->nodes, w->radius);
        if (w->spacing == 0)
            w->spacing = current;
    }
    *size = current;
    if (b->extent < MW_CELL_LIMIT / 2 * current)
        return meshweld_Ok;
    *size = b->extent / (MW_CELL_LIMIT / 8);
    return !coarse && *size > 64.0 * w->spacing ? MW_COARSE : meshweld_Ok;
}

/* Step 3 for dense clusters: node by node against the index (which holds every representative). */
static void mw_weldSequential(meshweld_Welder* w, const float* points, size_t stride, mw_Batch* b)
{
    for (size_t k = 0; k < b->free; ++k) {
        double p[3];
        mw_load(p, mw_point(points, stride, b->free_point[k]), w->dim);
        uint32_t q = mw_indexEarliest(&w->index, &w->reps, w->dim, p, w->r2, NULL, 0);
        if (q == MW_NONE) {
            q = mw_newRep(w, p);
            mw_indexInsert(&w->index, &w->reps, w->dim, q);
        }
        b->node_out[b->free_node ? b->free_node[k] : k] = q;
    }
}

int mw_addData(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride, int coarse,
               meshweld_Info* info)
{
    mw_Arena arena = {{0}, 0};
    mw_Batch b;
    memset(&b, 0, sizeof(b));
    size_t rep_before = w->reps.count;
    int error = meshweld_ErrorMemory, indexed = !w->oneshot;
    b.node_point = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));
    if (w->exact.count > 0) { /* only then can a point meet an earlier batch's output */
        b.settled = (unsigned char*)mw_arenaAllocate(&arena, (count + 7) / 8, 1);
        if (b.settled)
            memset(b.settled, 0, (count + 7) / 8);
    }
    if (!b.node_point || (w->exact.count > 0 && !b.settled))
        goto done;
    if ((error = mw_findNodes(w, remap, points, count, stride, &b, info)) != meshweld_Ok)
        goto done;

    meshweld_Trace* trace = w->trace;
    if (trace) {
        trace->nodes = b.nodes;
        if (trace->distinct)
            memcpy(trace->distinct, b.node_point, b.nodes * sizeof(uint32_t));
        if (trace->phases <= 1)
            goto done;
    }
    double size;
    if ((error = mw_cellSize(w, points, stride, &b, coarse, &size)) != meshweld_Ok) {
        mw_forgetNodes(w, points, stride, &b);
        goto done;
    }
    /* everything that can fail is reserved here, before the welder changes. Without earlier
     * representatives every node is free: the free list is the node list, and the outputs are
     * numbered in place of the owners */
    int all_free = rep_before == 0;
    b.owner = (uint32_t*)mw_arenaAllocate(&arena, b.nodes, sizeof(uint32_t));
    b.node_out = all_free ? b.owner : (uint32_t*)mw_arenaAllocate(&arena, b.nodes, sizeof(uint32_t));
    b.free_point = all_free ? b.node_point : (uint32_t*)mw_arenaAllocate(&arena, b.nodes, sizeof(uint32_t));
    b.free_node = all_free ? NULL : (uint32_t*)mw_arenaAllocate(&arena, b.nodes, sizeof(uint32_t));
    error = meshweld_ErrorMemory;
    if (!b.node_out || !b.free_point || (!all_free && !b.free_node) || !b.owner || mw_reserveReps(w, b.nodes) ||
        (indexed && (size != 1.0 / w->index.cells.inverse || !w->index.table.entries
                         ? mw_indexRebuild(&w->index, &w->reps, w->dim, size, w->radius, b.nodes)
                         : mw_indexReserve(&w->index, b.nodes)))) {
        mw_forgetNodes(w, points, stride, &b);
        goto done;
    }
    error = meshweld_Ok;

    /* step 2 */
    if (all_free)
        b.free = b.nodes;
    for (size_t j = 0; !all_free && j < b.nodes; ++j) {
        uint32_t q = MW_NONE;
        if (rep_before > 0) {
            double p[3];
            mw_load(p, mw_point(points, stride, b.node_point[j]), w->dim);
            q = mw_indexEarliest(&w->index, &w->reps, w->dim, p, w->r2, NULL, 0);
        }
        b.node_out[j] = q;
        if (q == MW_NONE) {
            b.free_point[b.free] = b.node_point[j];
            b.free_node[b.free++] = (uint32_t)j;
        }
    }

    /* step 3 */
    mw_DataCells cells;
    mw_dataCellsSet(&cells, size, w->radius);
    mw_Nodes nodes = {points, stride, w->dim, b.free_point, b.free, w->radius, NULL};
    int engine = mw_engineWeld(b.owner, &nodes, &cells, trace);
    if (trace) {
        /* the trace speaks of input points: in a one-shot weld every node is free */
        trace->cell_size = size;
        trace->engine = engine == meshweld_Ok;
        for (size_t k = 0; trace->order && k < trace->nodes && engine == meshweld_Ok; ++k)
            trace->order[k] = b.free_point[trace->order[k]];
        size_t written = trace->pair_count < trace->pair_capacity ? trace->pair_count : trace->pair_capacity;
        for (size_t k = 0; trace->pairs && k < 2 * written && trace->phases >= 3; ++k)
            trace->pairs[k] = b.free_point[trace->pairs[k]];
        if (trace->phases < 5 && engine == meshweld_Ok)
            goto done;
    }
    if (engine == meshweld_Ok) {
        for (size_t k = 0; k < b.free; ++k) { /* node_out may be owner itself: owner[k] is read first */
            uint32_t j = b.free_node ? b.free_node[k] : (uint32_t)k, o = b.owner[k];
            if (o == k) {
                double p[3];
                mw_load(p, mw_point(points, stride, b.free_point[k]), w->dim);
                b.node_out[j] = mw_newRep(w, p);
                if (indexed)
                    mw_indexInsert(&w->index, &w->reps, w->dim, b.node_out[j]);
            } else {
                b.node_out[j] = b.node_out[b.free_node ? b.free_node[o] : o];
            }
        }
    } else {
        if (!indexed && mw_indexRebuild(&w->index, &w->reps, w->dim, size, w->radius, b.free)) {
            mw_forgetNodes(w, points, stride, &b);
            error = meshweld_ErrorMemory;
            goto done;
        }
        mw_weldSequential(w, points, stride, &b);
    }

    /* step 4 */
    if (!w->oneshot)
        for (size_t j = 0; j < b.nodes; ++j) {
            uint32_t key[3];
            mw_exactKey(mw_point(points, stride, b.node_point[j]), w->dim, key);
            mw_tableFind(&w->exact, key[0], key[1], key[2])->value = b.node_out[j];
        }
    for (size_t i = 0; i < count; ++i)
        if (!b.settled || !(b.settled[i >> 3] & (1u << (i & 7))))
            remap[i] = b.node_out[remap[i]];
    /* cells too wide for the representatives' density: halve them (never below 2r) */
    if (indexed && mw_indexCrowded(&w->index)) {
        double smaller = fmax(0.5 * size, 2.0 * w->radius * MW_SLACK);
        if (smaller < size)
            (void)mw_indexRebuild(&w->index, &w->reps, w->dim, smaller, w->radius, 0); /* on failure it stays */
        w->index.work = w->index.searched = 0;
    }
done:
    mw_arenaFree(&arena);
    return error;
}

/* GRID, the method AUTO runs: the precise rule (the naive result) over cells sized to the data.
 *
 * A batch goes through four steps:
 *   1. exact duplicates: a hash of the position bits (-0 folded onto +0) gives every new distinct
 *      position a node, numbered in order of first appearance; a position seen in an earlier batch
 *      takes its output at once. A one-shot weld drops the table when it hits less than one point
 *      in eight (a cloud of distinct points): duplicates that come later are nodes of their own,
 *      which the rule merges anyway (their distance is 0);
 *   2. nodes query the representatives of earlier batches (all earlier than the batch): the
 *      earliest within r is their answer. A large batch asks them in arrays of cells (the older
 *      ones packed and kept from batch to batch, the newer ones copied for it), any other the
 *      index, which takes the representatives made since its last search first;
 *   3. the nodes that found none are welded among themselves by the spatial engine (engine.c),
 *      or, for dense clusters, one by one: in an array of cells over the batch's box where it
 *      holds few enough (mw_weldGridded), else against the index of representatives;
 *   4. outputs are numbered in node order, and a welder indexes its new representatives.
 * Non-finite coordinates are found in step 1, before anything changes. */
#include "internal.h"

#include <math.h>

#define MW_SMALL_BATCH 64 /* free nodes below which a welder's batch skips the engine */

typedef struct mw_Batch {
    mw_Distinct d;        /* step 1: the nodes (d.node_point: node -> its first point) */
    uint32_t* node_out;   /* node -> its output */
    uint32_t* free_point; /* the nodes step 2 left, by their first point (NULL: free node k is point k) */
    uint32_t* free_node;  /* ... and by their node (NULL when every node is free) */
    uint32_t* owner;      /* free node -> the free node it merges into */
    size_t free;
} mw_Batch;

/* Free node k's first point. */
static inline size_t mw_freePoint(const mw_Batch* b, size_t k)
{
    return b->free_point ? b->free_point[k] : k;
}

/* The numbering of a one-shot weld's outputs, in place of the owners (an owner is earlier, so its
 * slot holds its output already), from outputs on; each output's first input and position written
 * where they are wanted. dim is a constant where it is called, and the welder's and the batch's
 * fields are read once (the stores through out could alias them; mw_freePoint read per output
 * cost 1-2% more instructions on the tiles). Returns the outputs after the last. */
MW_INLINE uint32_t mw_numberOutputs(const meshweld_Welder* w, const mw_Batch* b, uint32_t* out, uint32_t outputs,
                                    const float* points, size_t stride, int dim)
{
    const uint32_t* owner = b->owner;
    const uint32_t* free_point = b->free_point;
    unsigned int* first = w->first;
    float* kept = w->kept;
    size_t free = b->free;
    if (!first && !kept) {
        for (size_t k = 0; k < free; ++k) {
            uint32_t o = owner[k];
            out[k] = o == k ? outputs++ : out[o];
        }
        return outputs;
    }
    for (size_t k = 0; k < free; ++k) {
        uint32_t o = owner[k];
        if (o == k)
            mw_recordOutput(first, kept, outputs, points, stride, free_point ? free_point[k] : k, dim);
        out[k] = o == k ? outputs++ : out[o];
    }
    return outputs;
}

/* *size, made larger where cells of that size cannot take a coordinate below extent (to 4 times
 * the narrowest cells that take it, mw_dataCellsNarrowest, so that a welder's index is not rebuilt
 * for every batch that reaches a little further). MW_COARSE when coarse is 0 and the cells searched
 * would hold 64 of the data's cells each: every search would walk crowds. A welder's index searches
 * cells of *size; a one-shot weld searches the narrowest (its engine narrows its cells down to them,
 * its sequential search tiles its box with them). A welder judges the data's cells by its first
 * batch, whose spacing can be far wider than the whole's: MW_COARSE too once its index has shown
 * crowds in cells it could not halve (w->crowded). */
static int mw_indexSize(const meshweld_Welder* w, double extent, int coarse, double* size)
{
    double narrowest = mw_dataCellsNarrowest(w->radius, extent);
    double searched = !mw_dataCellsHold(extent, *size) ? extent / (MW_CELL_LIMIT / 8) : *size;
    searched = fmax(searched, narrowest);
    double crowd = (w->oneshot ? narrowest : searched) / w->spacing;
    if (!coarse && ((w->dim == 3 ? crowd * crowd * crowd : crowd * crowd) > 64.0 || w->crowded))
        return MW_COARSE;
    *size = searched;
    return meshweld_Ok;
}

/* The cell size for this batch: the index's, or the data's for a first batch, made larger by
 * mw_indexSize. */
static int mw_cellSize(meshweld_Welder* w, const float* points, size_t stride, const mw_Batch* b, int coarse,
                       double* size)
{
    double current = w->index.cells.size; /* 0 until the index has cells */
    if (current == 0) {
        current = mw_dataCellSize(points, stride, w->dim, b->d.node_point, b->d.nodes, w->radius);
        if (w->spacing == 0)
            w->spacing = current;
    }
    *size = current;
    return mw_indexSize(w, w->largest, coarse, size);
}

/* The cells a batch's new representatives can take in the index: one per node at most, and no
 * more than its box holds at the narrowest cells that a resize of mw_weldSequential reaches. Where
 * many nodes merge into few representatives, the index then stays as small as the space they
 * cover, and its look-ups stay in the cache. */
static size_t mw_batchRoom(const meshweld_Welder* w, const mw_Batch* b, size_t nodes)
{
    return mw_dataCellsIn(b->d.low, b->d.high, w->dim, mw_dataCellsNarrowest(w->radius, w->largest), nodes);
}

/* A search's cost in the window since (searched, lookups, work): a cell looked up weighs 4, a
 * chain step 3 (their instruction costs, fitted on gaussian clusters and on a dense lattice). */
static double mw_searchCost(const mw_Index* index, size_t searched, size_t lookups, size_t work)
{
    return (4.0 * (double)(index->lookups - lookups) + 3.0 * (double)(index->work - work)) /
           (double)(index->searched - searched);
}

#define MW_TUNE_WINDOW 4096 /* searches between two decisions on the index's cell size */
#define MW_TUNE_LIMIT 64.0  /* the widest cell tried, in cells of the size the batch starts with */

/* Step 3 for dense clusters: node by node against the index (which holds every representative).
 * The index's cells start at the data's size (at least 2r), which suits representatives spread
 * evenly. The search's cost is measured window by window (MW_TUNE_WINDOW searches, or fewer when
 * their chain steps already pass what a whole window makes at MW_CROWD steps a search):
 *   - where representatives gather in clusters with empty space between, a search at 2r looks up
 *     8 cells in 3D, few of them holding anything, and wider cells cost fewer look-ups for about
 *     the same chain steps: after its first window, a large batch doubles the cells while a
 *     search costs less than in the window before;
 *   - where the cells are too wide for the representatives (the data's size misread, or a dense
 *     part of the batch reached late), every search walks long chains: a crowded window halves
 *     the cells, down to 2r, while a search costs less.
 * Either way, the first step that costs more goes back to the size before it, and the batch
 * halves its cells no more once a halving has not paid. Only speed depends on the cell size.
 * Returns the chain steps of all the searches. */
static size_t mw_weldSequential(meshweld_Welder* w, const float* points, size_t stride, mw_Batch* b)
{
    mw_Index* index = &w->index;
    double current = index->cells.size, previous = current, before = -1.0;
    double widest = MW_TUNE_LIMIT * current;
    double narrowest = mw_dataCellsNarrowest(w->radius, w->largest);
    size_t searched = index->searched, lookups = index->lookups, work = index->work;
    int widen = b->free >= 4 * MW_TUNE_WINDOW, narrow = 1; /* the trials still open */
    double step = 1.0; /* the trial under way: 2 (wider), 0.5 (narrower), or 1 (none) */
    size_t total = 0;  /* the steps of the windows closed (a resize sets the index's counters to 0) */
    mw_indexCatchUp(index, &w->reps, w->dim);
    for (size_t k = 0; k < b->free; ++k) {
        double p[3];
        mw_load(p, mw_point(points, stride, mw_freePoint(b, k)), w->dim);
        uint32_t q = mw_indexEarliest(index, &w->reps, w->dim, p, w->r2, NULL, 0);
        if (q == MW_NONE) {
            q = mw_repsAdd(&w->reps, p);
            mw_indexCatchUp(index, &w->reps, w->dim);
        }
        b->node_out[b->free_node ? b->free_node[k] : k] = q;
        if (k % 16 != 15)
            continue; /* (the counters are read every 16 searches) */
        size_t window = index->searched - searched, steps = index->work - work;
        if (window < MW_TUNE_WINDOW && (double)steps <= MW_CROWD * MW_TUNE_WINDOW)
            continue;
        double cost = mw_searchCost(index, searched, lookups, work);
        total += steps;
        int crowded = (double)steps > MW_CROWD * (double)window;
        if (step != 1.0 && cost >= before) {
            /* the last step cost more: back to the size before it, and this trial is over (a
             * failed resize, of its scratch list, leaves the index as it was) */
            (void)mw_indexResize(index, &w->reps, w->dim, previous, w->radius, w->largest);
            current = previous;
            if (step < 1.0)
                narrow = 0;
            step = 1.0;
        } else {
            if (step == 1.0)
                step = crowded && narrow && current > narrowest ? 0.5 : widen ? 2.0 : 1.0;
            widen = 0; /* only the first window may start widening */
            double next = step == 0.5 ? fmax(current * 0.5, narrowest) : current * step;
            if (step == 1.0 || next == current || next > widest ||
                mw_indexResize(index, &w->reps, w->dim, next, w->radius, w->largest)) {
                if (step < 1.0)
                    narrow = 0;
                step = 1.0;
            } else {
                previous = current;
                current = next;
            }
        }
        before = cost;
        searched = index->searched, lookups = index->lookups, work = index->work;
    }
    return total + (index->work - work);
}

/* A representative in its cell's run of the gridded search: its coordinates and its number. */
typedef struct mw_Slot {
    float xyz[3];
    uint32_t rep;
} mw_Slot;

/* The cells of the gridded search: an array over the batch's box (base: the lowest cell's
 * coordinates; row and layer: the cells in a row and in a layer). */
typedef struct mw_CellArray {
    mw_DataCells cells;
    int64_t base[3];
    size_t row, layer;
} mw_CellArray;

/* p's cell in the array's coordinates (f, from base), with the neighbours its r-box touches in t
 * (mw_dataCell). */
MW_INLINE void mw_cellArrayCell(const mw_CellArray* g, const double p[3], int dim, int64_t f[3], int t[3])
{
    double s[3];
    s[0] = p[0] * g->cells.inverse, s[1] = p[1] * g->cells.inverse, s[2] = p[2] * g->cells.inverse;
    mw_dataCell(&g->cells, s, dim, f, t);
    f[0] -= g->base[0], f[1] -= g->base[1], f[2] -= g->base[2];
}

/* The index in the array of the cell f (in the array's coordinates, mw_cellArrayCell). */
static inline size_t mw_cellArrayAt(const mw_CellArray* g, const int64_t f[3])
{
    return (size_t)f[2] * g->layer + (size_t)f[1] * g->row + (size_t)f[0];
}

/* Loads input point i into p and returns its cell's index, with the neighbours its r-box touches
 * in t (mw_dataCell); the point lies in the array. */
MW_INLINE size_t mw_cellArrayPoint(const mw_CellArray* g, const float* points, size_t stride, size_t i, int dim,
                                   double p[3], int t[3])
{
    int64_t f[3];
    mw_load(p, mw_point(points, stride, i), dim);
    mw_cellArrayCell(g, p, dim, f, t);
    return mw_cellArrayAt(g, f);
}

/* Whether a point lies in the box [low, high] */
MW_INLINE int mw_inBox(const float* q, const float low[3], const float high[3], int dim)
{
    int in = q[0] >= low[0] && q[0] <= high[0] && q[1] >= low[1] && q[1] <= high[1];
    return dim == 3 ? in && q[2] >= low[2] && q[2] <= high[2] : in;
}

/* The array of cells of edge size over the box [low, high], with one more cell on each side for
 * the neighbours its r-boxes touch: base, row and layer set in g; returns the cells, or 0 where
 * they would be more than most (*total, where given, receives their number either way). */
static size_t mw_cellArrayOver(mw_CellArray* g, const float low[3], const float high[3], int dim, double most,
                               double* total)
{
    double wide[3] = {1.0, 1.0, 1.0}, cells = 1.0;
    g->base[2] = 0;
    for (int a = 0; a < dim; ++a) {
        g->base[a] = mw_floor64((double)low[a] * g->cells.inverse) - 1;
        wide[a] = (double)mw_floor64((double)high[a] * g->cells.inverse) - (double)g->base[a] + 2.0;
        cells *= wide[a];
    }
    if (total)
        *total = cells;
    if (!(cells <= most))
        return 0;
    g->row = (size_t)wide[0], g->layer = g->row * (size_t)wide[1];
    return (size_t)cells;
}

/* The earliest representative within r of p (MW_NONE if none) in the cells its r-box touches
 * around home (t: mw_dataCell), each cell's run slots[start[c] .. end[c]) in the order they were
 * made, so that a cell's first that joins is its earliest; *compared counts the slots read. */
MW_INLINE uint32_t mw_cellArrayEarliest(const mw_CellArray* g, const uint32_t* start, const uint32_t* end,
                                        const mw_Slot* slots, size_t home, const int t[3], const double p[3], int dim,
                                        double r2, size_t* compared)
{
    uint32_t best = MW_NONE;
    for (int z = t[2] < 0 ? -1 : 0; z <= (t[2] > 0); ++z)
        for (int y = t[1] < 0 ? -1 : 0; y <= (t[1] > 0); ++y)
            for (int x = t[0] < 0 ? -1 : 0; x <= (t[0] > 0); ++x) {
                size_t c = home + (size_t)((ptrdiff_t)z * (ptrdiff_t)g->layer + (ptrdiff_t)y * (ptrdiff_t)g->row + x);
                for (uint32_t j = start[c]; j < end[c]; ++j) {
                    ++*compared;
                    if (slots[j].rep >= best)
                        break;
                    if (mw_distance2(p, slots[j].xyz, dim) <= r2) {
                        best = slots[j].rep;
                        break;
                    }
                }
            }
    return best;
}

/* Step 3 for dense sets, where the box of the batch holds no more cells of the narrowest size
 * than there are free nodes: node by node against the representatives made so far, as
 * mw_weldSequential does (the same rule, so the same result), but with the cells in an array over
 * the box and each cell's representatives in a run of their own, coordinates inline, in the order
 * they were made (a cell's first that joins is its earliest). A cell has room for as many as it
 * has nodes. The free nodes meet no earlier batch's representative within r (step 2), so only the
 * batch's own are searched, as the engine does. (The index's hash look-ups, and its rings' loads
 * of representatives stored in output order, were most of the sequential search's time on
 * lattices and heavy merging.) Returns meshweld_Ok (node_out written, *steps the representatives
 * compared), MW_DENSE when the box holds more cells than that, or meshweld_ErrorMemory (the welder
 * unchanged either way). */
static int mw_weldGridded(meshweld_Welder* w, mw_Arena* arena, const float* points, size_t stride, mw_Batch* b,
                          size_t* steps)
{
    int dim = w->dim;
    mw_CellArray g;
    mw_dataCellsSet(&g.cells, mw_dataCellsNarrowest(w->radius, w->largest), w->radius, w->largest);
    size_t count = mw_cellArrayOver(&g, b->d.low, b->d.high, dim, (double)b->free, NULL);
    if (count == 0)
        return MW_DENSE;
    uint32_t* start = (uint32_t*)mw_arenaAllocate(arena, count + 1, sizeof(uint32_t));
    uint32_t* end = (uint32_t*)mw_arenaAllocate(arena, count, sizeof(uint32_t));
    mw_Slot* slots = (mw_Slot*)mw_arenaAllocate(arena, b->free, sizeof(mw_Slot));
    if (!start || !end || !slots)
        return meshweld_ErrorMemory;
    memset(start, 0, (count + 1) * sizeof(uint32_t));
    for (size_t k = 0; k < b->free; ++k) {
        double p[3];
        int t[3];
        start[mw_cellArrayPoint(&g, points, stride, mw_freePoint(b, k), dim, p, t) + 1]++;
    }
    for (size_t c = 0; c < count; ++c)
        start[c + 1] += start[c];
    memcpy(end, start, count * sizeof(uint32_t));
    size_t compared = 0;
    for (size_t k = 0; k < b->free; ++k) {
        double p[3];
        int t[3];
        size_t home = mw_cellArrayPoint(&g, points, stride, mw_freePoint(b, k), dim, p, t);
        uint32_t best = mw_cellArrayEarliest(&g, start, end, slots, home, t, p, dim, w->r2, &compared);
        if (best == MW_NONE) {
            best = mw_repsAdd(&w->reps, p);
            mw_Slot* slot = &slots[end[home]++];
            memcpy(slot->xyz, &w->reps.xyz[(size_t)best * 3], sizeof(slot->xyz));
            slot->rep = best;
        }
        b->node_out[b->free_node ? b->free_node[k] : k] = best;
    }
    *steps = compared;
    return meshweld_Ok;
}

/* The look-ups of a search whose r-box touches t, as the index counts them. */
static inline size_t mw_lookupsOf(const int t[3])
{
    return (size_t)((1 + (t[0] != 0)) * (1 + (t[1] != 0)) * (1 + (t[2] != 0)));
}

/* mw_queryGridded's search of p, which lies in the array: the earliest representative within r
 * (MW_NONE if none), the look-ups and representatives read counted as the index counts them. */
MW_INLINE uint32_t mw_queryArray(const mw_CellArray* g, const uint32_t* start, const uint32_t* end, const mw_Slot* slots,
                                 const double p[3], int dim, double r2, size_t* compared, size_t* lookups)
{
    int64_t f[3];
    int t[3];
    mw_cellArrayCell(g, p, dim, f, t);
    *lookups += mw_lookupsOf(t);
    return mw_cellArrayEarliest(g, start, end, slots, mw_cellArrayAt(g, f), t, p, dim, r2, compared);
}

/* The cells of the array of count cells on each axis. */
static void mw_cellArrayExtent(const mw_CellArray* g, size_t count, size_t extent[3])
{
    extent[0] = g->row, extent[1] = g->layer / g->row, extent[2] = count / g->layer;
}

/* Representatives from .. to - 1 by their cell in the array of count cells: cell[q - from] (MW_NONE
 * outside the array) and start (count + 1 words: cell c's run starts at start[c]). Returns those
 * inside. */
static size_t mw_binReps(const mw_CellArray* g, size_t count, const mw_Reps* reps, size_t from, size_t to, int dim,
                         uint32_t* start, uint32_t* cell)
{
    size_t extent[3];
    mw_cellArrayExtent(g, count, extent);
    memset(start, 0, (count + 1) * sizeof(uint32_t));
    const float* xyz = reps->xyz;
    for (size_t q = from; q < to; ++q) {
        size_t c = 0;
        int inside = 1;
        for (int a = 0; a < dim; ++a) {
            uint64_t f = (uint64_t)(mw_floor64((double)xyz[q * 3 + a] * g->cells.inverse) - g->base[a]);
            inside &= f < (uint64_t)extent[a];
            c += (size_t)f * (a == 0 ? 1 : a == 1 ? g->row : g->layer);
        }
        cell[q - from] = inside ? (uint32_t)c : MW_NONE;
        start[inside ? c + 1 : 0] += (uint32_t)inside;
    }
    for (size_t c = 0; c < count; ++c)
        start[c + 1] += start[c];
    return start[count];
}

/* The binned representatives from .. to - 1 written to their runs, in order: end[c] (a copy of
 * start) runs to the end of cell c's run. */
static void mw_placeReps(const mw_Reps* reps, size_t from, size_t to, const uint32_t* cell, uint32_t* end, mw_Slot* slots)
{
    for (size_t q = from; q < to; ++q) {
        if (cell[q - from] == MW_NONE)
            continue;
        mw_Slot* slot = &slots[end[cell[q - from]]++];
        memcpy(slot->xyz, &reps->xyz[q * 3], sizeof(slot->xyz));
        slot->rep = (uint32_t)q;
    }
}

/* A welder's representatives 0 .. reps - 1 packed by cell, kept from batch to batch: an array of
 * the index's cells of the time over their box (and one more cell on each side), each cell's run
 * in the order they were made, coordinates inline. Every representative made later is newer than
 * all of them, so a node that finds one within r here has found its earliest, and only the others
 * search the newer ones (mw_queryGridded). */
struct mw_PackedReps {
    mw_CellArray g;
    size_t extent[3];
    uint32_t* start; /* cell c's run: slots[start[c] .. start[c + 1]) */
    mw_Slot* slots;
    size_t reps;
};

void mw_packedRepsFree(mw_PackedReps* packed)
{
    if (!packed)
        return;
    mw_deallocate(packed->start);
    mw_deallocate(packed->slots);
    mw_deallocate(packed);
}

/* Packs the welder's representatives 0 .. reps - 1 (reps > 0) in cells of its index's size, in
 * place of any packing before. Leaves none where their box holds more than 2 reps + 4096 cells
 * (a few far out: no packing in cells of that size is tried again before they are enough for
 * it) or memory fails. */
static void mw_pack(meshweld_Welder* w, mw_Arena* arena, size_t reps)
{
    mw_packedRepsFree(w->packed);
    w->packed = NULL;
    int dim = w->dim, mark = arena->count;
    const float* xyz = w->reps.xyz;
    float low[3] = {xyz[0], xyz[1], xyz[2]}, high[3] = {xyz[0], xyz[1], xyz[2]};
    for (size_t q = 1; q < reps; ++q)
        for (int a = 0; a < dim; ++a) {
            float v = xyz[q * 3 + a];
            low[a] = v < low[a] ? v : low[a];
            high[a] = v > high[a] ? v : high[a];
        }
    mw_CellArray g;
    g.cells = w->index.cells;
    double cells;
    size_t count = mw_cellArrayOver(&g, low, high, dim, fmin(2.0 * (double)reps + 4096.0, (double)MW_NONE - 1.0), &cells);
    if (count == 0) { /* the representatives that would let the box have its cells */
        w->pack_from = 0.5 * (cells - 4096.0), w->pack_size = g.cells.size;
        return;
    }
    mw_PackedReps* k = (mw_PackedReps*)mw_allocate(1, sizeof(mw_PackedReps));
    if (!k)
        return;
    memset(k, 0, sizeof(*k));
    k->g = g;
    k->start = (uint32_t*)mw_allocate(count + 1, sizeof(uint32_t));
    k->slots = (mw_Slot*)mw_allocate(reps, sizeof(mw_Slot));
    uint32_t* cell = (uint32_t*)mw_arenaAllocate(arena, reps, sizeof(uint32_t));
    uint32_t* end = (uint32_t*)mw_arenaAllocate(arena, count, sizeof(uint32_t));
    if (k->start && k->slots && cell && end) {
        mw_cellArrayExtent(&k->g, count, k->extent);
        mw_binReps(&k->g, count, &w->reps, 0, reps, dim, k->start, cell);
        memcpy(end, k->start, count * sizeof(uint32_t));
        mw_placeReps(&w->reps, 0, reps, cell, end, k->slots);
        k->reps = reps;
        w->packed = k;
    } else {
        mw_packedRepsFree(k);
    }
    mw_arenaUnwind(arena, mark);
}

/* The earliest packed representative within r of p (MW_NONE if none), counted as the index
 * counts its searches. A point whose cell lies beyond the array's cells of margin is more than r
 * from all of them; the cells past the margin that a point in it touches are empty. */
MW_INLINE uint32_t mw_packedEarliest(const mw_PackedReps* k, const double p[3], int dim, double r2, size_t* compared,
                                     size_t* lookups)
{
    int64_t f[3];
    int t[3];
    mw_cellArrayCell(&k->g, p, dim, f, t);
    for (int a = 0; a < dim; ++a) {
        uint64_t u = (uint64_t)f[a];
        if (u >= (uint64_t)k->extent[a])
            return MW_NONE;
        t[a] = (u == 0 && t[a] < 0) || (u + 1 == (uint64_t)k->extent[a] && t[a] > 0) ? 0 : t[a];
    }
    *lookups += mw_lookupsOf(t);
    return mw_cellArrayEarliest(&k->g, k->start, k->start + 1, k->slots, mw_cellArrayAt(&k->g, f), t, p, dim, r2, compared);
}

/* The bulk of a batch's box: on each axis, from a sample of its nodes (some 256, at even gaps),
 * the quartiles q1 and q3 widened by twice their distance each side, within the box. A few points
 * far from the rest (strays, a far object) widen the box without moving the quartiles. Returns
 * whether the bulk is smaller than the box on some axis (low and high then hold it). */
static int mw_bulkBox(const float* points, size_t stride, const mw_Batch* b, int dim, float low[3], float high[3])
{
    size_t nodes = b->d.nodes, step = nodes / 256 > 0 ? nodes / 256 : 1;
    double v[257];
    int smaller = 0;
    for (int a = 0; a < dim; ++a) {
        int n = 0;
        for (size_t j = 0; j < nodes && n < 257; j += step)
            v[n++] = mw_point(points, stride, b->d.node_point ? b->d.node_point[j] : j)[a];
        for (int i = 1; i < n; ++i) /* (an insertion sort: 257 values at most) */
            for (int k = i; k > 0 && v[k] < v[k - 1]; --k) {
                double t = v[k];
                v[k] = v[k - 1], v[k - 1] = t;
            }
        double q1 = v[n / 4], q3 = v[n - 1 - n / 4], lo = q1 - 2.0 * (q3 - q1), hi = q3 + 2.0 * (q3 - q1);
        if (lo > (double)low[a])
            low[a] = (float)lo, smaller = 1; /* (rounded: a float within the box, as the box is) */
        if (hi < (double)high[a])
            high[a] = (float)hi, smaller = 1;
    }
    return smaller;
}

#ifndef MW_QUERY_NODES /* (a test build and the fuzz build set less, so that small batches take it) */
#define MW_QUERY_NODES 4096 /* nodes from which a welder's step 2 may search an array of cells */
#endif
#define MW_QUERY_REPS 32 /* ... when the earlier representatives are at most this many a node */
#define MW_QUERY_WIDER 3 /* times the array's cells may double where the box holds too many */

/* Step 2 for a large batch: the earlier representatives not packed (w->packed, mw_packFor: all of
 * them where there is no packing) copied into an array of the index's cells over the batch's box
 * (and one more cell on each side), each cell's run in the order they were made, coordinates
 * inline, as mw_weldGridded keeps its own; then every node searches the cells its r-box touches in
 * the packing, whose representatives are older than all the others, and where it finds none
 * there, in the array, as mw_indexEarliest searches the index (the same cells, the same test, the
 * same earliest). The index's counters are kept as its searches would have kept them. The array
 * is built in two passes over the representatives, in order, so a batch pays for it only where
 * they are at most MW_QUERY_REPS a node; in return no node looks up a hashed cell or follows a
 * ring through representatives stored in the order they were made (most of a welder's later
 * batches). Where the box holds too many cells, the array covers the box's bulk (mw_bulkBox) and
 * the nodes outside the bulk ask the index (measured: a million uniform points with 0.1% of them
 * scattered over 1e6, fed in 10 batches, 4.0 s natively, every node asking the index); where the
 * bulk does too and there is a packing, the array's cells double, MW_QUERY_WIDER times at most
 * (the newer representatives are few, and uniform batches span the whole cloud; its searches
 * are then not counted as the index's).
 * Returns meshweld_Ok (node_out written for every node), or MW_DENSE (too many cells or
 * representatives) or meshweld_ErrorMemory, with nothing written: the caller asks the index. */
static int mw_queryGridded(meshweld_Welder* w, mw_Arena* arena, const float* points, size_t stride, mw_Batch* b,
                           size_t earlier)
{
    int dim = w->dim;
    size_t nodes = b->d.nodes;
    const mw_PackedReps* packed = w->packed;
    size_t from = packed ? packed->reps : 0; /* the representatives the array holds: from .. earlier - 1 */
    if ((double)(earlier - from) > MW_QUERY_REPS * (double)nodes)
        return MW_DENSE;
    mw_CellArray g;
    g.cells = w->index.cells;
    /* the batch's box; or where its cells are too many, its bulk's (the nodes outside it ask the
     * index: the representatives outside the array are within r of none inside it) */
    float low[3], high[3];
    memcpy(low, b->d.low, sizeof(low));
    memcpy(high, b->d.high, sizeof(high));
    uint32_t *start = NULL, *end = NULL;
    mw_Slot* slots = NULL;
    int bulk = 0, array = from < earlier;
    if (array) {
        double most = fmin(2.0 * (double)(nodes + earlier - from) + 4096.0, (double)MW_NONE - 1.0);
        size_t count = mw_cellArrayOver(&g, low, high, dim, most, NULL);
        bulk = count == 0 && mw_bulkBox(points, stride, b, dim, low, high);
        if (bulk)
            count = mw_cellArrayOver(&g, low, high, dim, most, NULL);
        for (int wider = 0; count == 0 && packed && wider < MW_QUERY_WIDER; ++wider) {
            mw_dataCellsSet(&g.cells, 2.0 * g.cells.size, w->radius, w->largest);
            count = mw_cellArrayOver(&g, low, high, dim, most, NULL);
        }
        if (count == 0)
            return MW_DENSE;
        start = (uint32_t*)mw_arenaAllocate(arena, count + 1, sizeof(uint32_t));
        end = (uint32_t*)mw_arenaAllocate(arena, count, sizeof(uint32_t));
        uint32_t* cell = (uint32_t*)mw_arenaAllocate(arena, earlier - from, sizeof(uint32_t));
        if (!start || !end || !cell)
            return meshweld_ErrorMemory;
        size_t inside = mw_binReps(&g, count, &w->reps, from, earlier, dim, start, cell);
        memcpy(end, start, count * sizeof(uint32_t));
        slots = (mw_Slot*)mw_arenaAllocate(arena, inside ? inside : 1, sizeof(mw_Slot));
        if (!slots)
            return meshweld_ErrorMemory;
        mw_placeReps(&w->reps, from, earlier, cell, end, slots);
    }
    if (bulk) /* (the nodes outside the bulk ask it) */
        mw_indexCatchUp(&w->index, &w->reps, dim);
    /* the searches in cells wider than the index's are not counted as its own */
    size_t compared = 0, lookups = 0, arrayed = nodes, uncounted[2] = {0, 0};
    int wide = g.cells.size != w->index.cells.size;
    size_t* array_compared = wide ? &uncounted[0] : &compared;
    size_t* array_lookups = wide ? &uncounted[1] : &lookups;
    for (size_t j = 0; j < nodes; ++j) {
        const float* q = mw_point(points, stride, b->d.node_point ? b->d.node_point[j] : j);
        double p[3];
        mw_load(p, q, dim);
        if (bulk && !mw_inBox(q, low, high, dim)) {
            b->node_out[j] = mw_indexEarliest(&w->index, &w->reps, dim, p, w->r2, NULL, 0);
            arrayed--;
            continue;
        }
        uint32_t best = packed ? mw_packedEarliest(packed, p, dim, w->r2, &compared, &lookups) : MW_NONE;
        if (best == MW_NONE && array)
            best = mw_queryArray(&g, start, end, slots, p, dim, w->r2, array_compared, array_lookups);
        b->node_out[j] = best;
    }
    w->index.searched += arrayed, w->index.lookups += lookups, w->index.work += compared;
    return meshweld_Ok;
}

#ifndef MW_PACK_REPS /* (a test build sets 0: every large batch packs or uses the packing) */
#define MW_PACK_REPS 8 /* earlier representatives a node from which a large batch packs them all */
#endif

/* Before a large batch's step 2 (earlier representatives made before it): the packing is kept
 * while its cells are the index's and the representatives made since are at most half as many
 * as it holds and at most MW_QUERY_REPS a node (mw_queryGridded copies those for the batch);
 * else a batch with more than MW_PACK_REPS earlier representatives a node packs them all anew,
 * for itself and the batches after it (unless one in the same cells was found to hold too many
 * for fewer than they are now), and any other drops the packing and copies them all for itself
 * alone, or asks the index. Packing each time the representatives have grown by half, a welder fed many
 * batches copies each representative a few times in all, where a copy for every batch would cost
 * all of them each time (measured: a million uniform points in 100 batches took 4 to 6 times one
 * batch, its later batches asking the index node by node). */
static void mw_packFor(meshweld_Welder* w, mw_Arena* arena, size_t nodes, size_t earlier)
{
    mw_PackedReps* k = w->packed;
    if (k && k->g.cells.size == w->index.cells.size && 2 * (earlier - k->reps) <= k->reps &&
        (double)(earlier - k->reps) <= MW_QUERY_REPS * (double)nodes) {
        k->g.cells = w->index.cells; /* (the reach for this batch's coordinates: the same cells) */
        return;
    }
    if ((double)earlier > MW_PACK_REPS * (double)nodes && (w->pack_size != w->index.cells.size || (double)earlier >= w->pack_from)) {
        mw_pack(w, arena, earlier);
    } else {
        mw_packedRepsFree(k);
        w->packed = NULL;
    }
}

/* One try of the engine on a batch's free nodes (mw_engineTries). */
typedef struct mw_WeldTry {
    uint32_t* owner;
    const mw_Nodes* nodes;
    const float* box;
    meshweld_Trace* trace;
} mw_WeldTry;

static int mw_weldTry(void* context, const mw_DataCells* cells)
{
    const mw_WeldTry* t = (const mw_WeldTry*)context;
    return mw_engineWeldBoxed(t->owner, t->nodes, cells, t->box, t->trace);
}

/* A scratch block of a batch: on the stack (local, room bytes) when it fits, else from the arena.
 * A welder fed a point at a time then allocates nothing per batch. */
static void* mw_batchBlock(mw_Arena* arena, void* local, size_t room, size_t count, size_t size)
{
    return count * size <= room ? local : mw_arenaAllocate(arena, count, size);
}

#define MW_REPROBE 8 /* MW_PROBE points of small batches without the exact table, after which it is tried again */

/* After a welder's batch: its small batches' hits in the exact table counted, and the table
 * dropped once MW_PROBE points of them have found there less than one in eight (procedural tiles,
 * scans: distinct points that meet their neighbours through the index anyway, at the price of a
 * table lookup and a settle each); such batches then go without it, every point a node of its own,
 * which the rule merges with its twins all the same, until MW_REPROBE times MW_PROBE points have
 * gone by: then the table starts again, empty, and is judged again (twins that come back later). A
 * large batch decides for itself (its probe), and one that keeps a table takes it up again for the
 * small batches after it. */
static void mw_judgeExact(meshweld_Welder* w, size_t count, int small, const mw_Distinct* d)
{
    if (!small) {
        if (d->node_point) /* it kept the table */
            w->exact_off = 0, w->exact_looks = w->exact_hits = 0;
        return;
    }
    w->exact_looks += count;
    if (w->exact_off) {
        if (w->exact_looks >= MW_REPROBE * MW_PROBE)
            w->exact_off = 0, w->exact_looks = w->exact_hits = 0;
        return;
    }
    w->exact_hits += count - d->nodes;
    if (w->exact_looks < MW_PROBE)
        return;
    if (w->exact_hits * 8 < w->exact_looks) {
        mw_tableFree(&w->exact);
        w->exact_off = 1;
    }
    w->exact_looks = w->exact_hits = 0;
}

int mw_addData(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride, int coarse,
               meshweld_Info* info)
{
    mw_Arena arena = {{0}, 0};
    mw_Batch b;
    memset(&b, 0, sizeof(b));
    size_t rep_before = w->reps.count;
    int error = meshweld_ErrorMemory, indexed = !w->oneshot, in_remap = 0;
    uint32_t local[5][MW_SMALL_BATCH];
    unsigned char local_bits[MW_SMALL_BATCH / 8];
    b.d.node_point = (uint32_t*)mw_batchBlock(&arena, local[0], sizeof(local[0]), count, sizeof(uint32_t));
    if (w->exact.count > 0) { /* only then can a point meet an earlier batch's output */
        b.d.settled = (unsigned char*)mw_batchBlock(&arena, local_bits, sizeof(local_bits), (count + 7) / 8, 1);
        if (b.d.settled)
            memset(b.d.settled, 0, (count + 7) / 8);
    }
    if (!b.d.node_point || (w->exact.count > 0 && !b.d.settled))
        goto done;
    /* a welder's batch below MW_PROBE points never decides on the table: the welder does, over such
     * batches (mw_judgeExact) */
    int small = !w->oneshot && count < MW_PROBE;
    int mode = w->oneshot ? MW_EXACT_ONESHOT : small && w->exact_off ? MW_EXACT_NONE : MW_EXACT_WELDER;
    if ((error = mw_exactPass(&w->exact, mode, remap, points, count, stride, w->dim, &b.d, info)) != meshweld_Ok)
        goto done;
    w->largest = fmax(w->largest, b.d.extent); /* (meshweld_welderAdd restores it if the batch fails) */

    meshweld_Trace* trace = w->trace;
    if (trace) {
        trace->nodes = b.d.nodes;
        for (size_t j = 0; trace->distinct && j < b.d.nodes; ++j)
            trace->distinct[j] = b.d.node_point ? b.d.node_point[j] : (uint32_t)j;
        if (trace->phases <= 1)
            goto done;
    }
    double size;
    if ((error = mw_cellSize(w, points, stride, &b, coarse, &size)) != meshweld_Ok) {
        mw_exactForget(&w->exact, points, stride, w->dim, &b.d);
        goto done;
    }
    /* everything that can fail is reserved here, before the welder changes. Without earlier
     * representatives every node is free: the free list is the node list, and the outputs are
     * numbered in place of the owners */
    int all_free = rep_before == 0;
    b.owner = (uint32_t*)mw_batchBlock(&arena, local[1], sizeof(local[1]), b.d.nodes, sizeof(uint32_t));
    b.node_out = all_free ? b.owner : (uint32_t*)mw_batchBlock(&arena, local[2], sizeof(local[2]), b.d.nodes, sizeof(uint32_t));
    b.free_point = all_free ? b.d.node_point
                            : (uint32_t*)mw_batchBlock(&arena, local[3], sizeof(local[3]), b.d.nodes, sizeof(uint32_t));
    b.free_node = all_free ? NULL : (uint32_t*)mw_batchBlock(&arena, local[4], sizeof(local[4]), b.d.nodes, sizeof(uint32_t));
    error = meshweld_ErrorMemory;
    if (!b.node_out || (!all_free && (!b.free_point || !b.free_node)) || !b.owner || mw_repsReserve(&w->reps, b.d.nodes) ||
        (indexed && (size != w->index.cells.size || !w->index.table.entries
                         ? mw_indexRebuild(&w->index, w->reps.count, size, w->radius, w->largest,
                                           mw_batchRoom(w, &b, b.d.nodes))
                         : mw_indexReserve(&w->index, w->reps.count + mw_batchRoom(w, &b, b.d.nodes))))) {
        mw_exactForget(&w->exact, points, stride, w->dim, &b.d);
        goto done;
    }
    error = meshweld_Ok;
    if (indexed) /* (the reach for this batch's coordinates too: the same cells) */
        mw_dataCellsReach(&w->index.cells, w->radius, w->largest);

    /* step 2: a large batch searches an array of the earlier representatives' cells, which it
     * then drops; any other asks the index node by node */
    if (all_free)
        b.free = b.d.nodes;
    int mark = arena.count, queried = 0;
    if (!all_free && b.d.nodes >= MW_QUERY_NODES) {
        mw_packFor(w, &arena, b.d.nodes, rep_before);
        queried = mw_queryGridded(w, &arena, points, stride, &b, rep_before) == meshweld_Ok;
    }
    mw_arenaUnwind(&arena, mark);
    if (!queried && rep_before > 0)
        mw_indexCatchUp(&w->index, &w->reps, w->dim);
    for (size_t j = 0; !all_free && j < b.d.nodes; ++j) {
        uint32_t q = MW_NONE, point = b.d.node_point ? b.d.node_point[j] : (uint32_t)j;
        if (queried) {
            q = b.node_out[j];
        } else if (rep_before > 0) {
            double p[3];
            mw_load(p, mw_point(points, stride, point), w->dim);
            q = mw_indexEarliest(&w->index, &w->reps, w->dim, p, w->r2, NULL, 0);
        }
        b.node_out[j] = q;
        if (q == MW_NONE) {
            b.free_point[b.free] = point;
            b.free_node[b.free++] = (uint32_t)j;
        }
    }

    /* step 3 */
    /* when every node is free their box is the batch's (equal positions, up to the sign of 0) */
    float box[6] = {b.d.low[0], b.d.low[1], b.d.low[2], b.d.high[0], b.d.high[1], b.d.high[2]};
    mw_Nodes nodes = {points, stride, w->dim, b.free_point, b.free, w->radius};
    mw_WeldTry weld_try = {b.owner, &nodes, all_free ? box : NULL, trace};
    /* a welder's small batches go straight to the index: sorting a handful of nodes costs more
     * than searching for them (the same rule, so the same result). Crowded cells: smaller ones
     * (mw_engineTries), before the sequential search, which starts from the last size tried */
    /* a dense core that a sample shows goes to the engine where the sequential search would take
     * the index (the box holds more of the narrowest cells than there are nodes): an array of
     * cells serves such sets as fast */
    int crowds = mw_batchRoom(w, &b, b.free + 1) > b.free;
    int engine = indexed && b.free <= MW_SMALL_BATCH && !trace ? MW_DENSE
                                                                : mw_engineTries(mw_weldTry, &weld_try, &nodes, &size, w->radius, b.d.extent, crowds);
    if (trace) {
        /* the trace speaks of input points: in a one-shot weld every node is free */
        trace->cell_size = size;
        trace->engine = engine == meshweld_Ok;
        trace->crowded = engine == meshweld_Ok ? trace->crowded : 0;
        for (size_t k = 0; trace->order && k < trace->nodes && engine == meshweld_Ok; ++k)
            trace->order[k] = (uint32_t)mw_freePoint(&b, trace->order[k]);
        size_t written = trace->pair_count < trace->pair_capacity ? trace->pair_count : trace->pair_capacity;
        for (size_t k = 0; trace->pairs && k < 2 * written && trace->phases >= 3; ++k)
            trace->pairs[k] = (uint32_t)mw_freePoint(&b, trace->pairs[k]);
        if (trace->phases < 5 && engine == meshweld_Ok)
            goto done;
    }
    if (engine == meshweld_Ok && all_free && !indexed) {
        /* a one-shot weld: the outputs are numbered in place of the owners (an owner is earlier,
         * so its slot holds its output already) */
        uint32_t* owner = b.owner;
        if (w->countonly || w->kept || w->first) {
            /* nothing reads the representatives: the outputs are counted, and their first inputs
             * and positions written where they are wanted (nodes come in order of first
             * appearance, so an owner's point is its cluster's first). Every point a node of its
             * own (node k is point k): the outputs go straight into the remap, and step 4 has
             * nothing left to do */
            uint32_t* out = b.d.nodes == count ? (uint32_t*)remap : owner;
            uint32_t outputs = (uint32_t)w->reps.count;
            outputs = w->dim == 3 ? mw_numberOutputs(w, &b, out, outputs, points, stride, 3)
                                  : mw_numberOutputs(w, &b, out, outputs, points, stride, 2);
            w->reps.count = outputs;
            w->outputs_written = 1;
            in_remap = out != owner;
        } else {
            for (size_t k = 0; k < b.free; ++k) {
                uint32_t o = owner[k];
                if (o == k) {
                    double p[3];
                    mw_load(p, mw_point(points, stride, mw_freePoint(&b, k)), w->dim);
                    owner[k] = mw_repsAdd(&w->reps, p);
                } else {
                    owner[k] = owner[o];
                }
            }
        }
    } else if (engine == meshweld_Ok) {
        for (size_t k = 0; k < b.free; ++k) { /* node_out may be owner itself: owner[k] is read first */
            uint32_t j = b.free_node ? b.free_node[k] : (uint32_t)k, o = b.owner[k];
            if (o == k) {
                double p[3];
                mw_load(p, mw_point(points, stride, mw_freePoint(&b, k)), w->dim);
                b.node_out[j] = mw_repsAdd(&w->reps, p);
            } else {
                b.node_out[j] = b.node_out[b.free_node ? b.free_node[o] : o];
            }
        }
    } else {
        /* a one-shot weld never searches cells that crowd for want of narrower ones that take
         * its coordinates: MW_COARSE hands it to the kd-tree (the same result), even for GRID */
        size_t steps = 0;
        if (!indexed && (error = mw_indexSize(w, w->largest, 0, &size)) != meshweld_Ok) {
            mw_exactForget(&w->exact, points, stride, w->dim, &b.d);
            goto done;
        }
        /* a batch whose box the narrowest cells can tile searches them in an array (its memory
         * failing, the index can still serve), and a welder's index takes the representatives it
         * made at its next search; a welder's small batches go to the index at once, as they
         * allocate nothing */
        int gridded = (!indexed || b.free > MW_SMALL_BATCH) &&
                      mw_weldGridded(w, &arena, points, stride, &b, &steps) == meshweld_Ok;
        if (!gridded) {
            if (!indexed && mw_indexRebuild(&w->index, w->reps.count, size, w->radius, w->largest,
                                            mw_batchRoom(w, &b, b.free))) {
                mw_exactForget(&w->exact, points, stride, w->dim, &b.d);
                error = meshweld_ErrorMemory;
                goto done;
            }
            steps = mw_weldSequential(w, points, stride, &b);
        }
        if (trace)
            trace->steps = steps;
    }

    /* step 4 */
    if (!in_remap) /* (else the outputs are in the remap already) */
        mw_exactSettle(w->oneshot ? NULL : &w->exact, remap, points, count, stride, w->dim, &b.d, b.node_out);
    /* cells too wide for the representatives' density: halve them (never below 2r, nor below
     * what holds every coordinate). Past MW_CROWD steps a search after a batch that searched the
     * array of cells, whose steps read runs in memory order (smaller cells cost it more cells to
     * build and to read), but past half as many after one that searched the index, whose steps
     * follow rings through representatives in the order they were made, a miss a step. Where they
     * cannot halve and still crowd past MW_FAR_CROWD, the coordinates keep them wide (cells of 2r
     * hold a few representatives): the next batch leaves for the kd-tree (mw_indexSize) */
    if (indexed && mw_indexCrowded(&w->index, queried ? MW_CROWD : 0.5 * MW_CROWD)) {
        double smaller = fmax(0.5 * size, mw_dataCellsNarrowest(w->radius, w->largest));
        if (smaller < size)
            (void)mw_indexRebuild(&w->index, w->reps.count, smaller, w->radius, w->largest, 0); /* on failure it stays */
        else if ((double)w->index.work > MW_FAR_CROWD * (double)w->index.searched)
            w->crowded = 1;
        w->index.work = w->index.searched = 0;
    }
    if (!w->oneshot)
        mw_judgeExact(w, count, small, &b.d);
done:
    mw_arenaFree(&arena);
    return error;
}

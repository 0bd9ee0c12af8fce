/* The spatial engine: the precise weld (each point merges into the earliest representative within
 * r, the naive result) computed in cell order, while the result stays defined by input order.
 *
 *   1. sort the nodes by cell (GRID's data-sized cells; a counting sort, stable, so each cell keeps
 *      node order) and copy their coordinates into that order;
 *   2. find every pair within r in cell order: each cell against itself and the half of its
 *      neighbours that come after it (13 in 3D, 4 in 2D), as molecular-dynamics cell lists do, so
 *      each pair is met once; a point tests a neighbour only when its r-box touches it;
 *   3. list, for each node, its earlier neighbours (a counting sort of the pairs by the later one);
 *   4. walk the nodes in order over that graph alone: a node merges into its earliest neighbour
 *      that is a representative, else it becomes one.
 * Step 4 is the naive greedy itself, restricted to the only candidates that can pass its test, so
 * the result is the naive one bit for bit. Every memory access of steps 1 and 2 walks forward; the
 * random ones left are one counter and one store per pair, and one read per pair in step 4.
 *
 * Dense clusters (everything within r of everything) would make the pairs quadratic: when the
 * tests or pairs pass a budget the engine stops and says so (MW_DENSE), and the caller welds
 * sequentially, where such clusters cost one comparison per point. */
#include "internal.h"

#include <math.h>

/* The half shell: offsets (dx, dy, dz) that come after (0, 0, 0) in z-major order. */
static const int8_t mw_shell3[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0},  {-1, -1, 1},
                                        {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1},  {1, 0, 1},
                                        {-1, 1, 1}, {0, 1, 1},  {1, 1, 1}};
static const int8_t mw_shell2[4][3] = {{1, 0, 0}, {-1, 1, 0}, {0, 1, 0}, {1, 1, 0}};

typedef struct mw_Sorted {
    uint32_t* node;    /* sorted position -> node */
    float* x;          /* coordinates in sorted order, one array per axis */
    float* y;
    float* z;
    uint32_t* start;   /* cell -> its first sorted position; start[cells] = count */
    size_t cells;
    /* flat cells: cell (a, b, c) is (a - origin[0]) + extent[0] * ((b - origin[1]) + extent[1] * (c - origin[2]));
     * hashed cells: table maps a cell's key to its number */
    int flat;
    int32_t origin[3];
    size_t extent[3];
    mw_Table table;
} mw_Sorted;

typedef struct mw_Pairs {
    uint32_t* earlier;
    uint32_t* later;
    size_t count, capacity, budget;
    size_t tests, test_budget;
} mw_Pairs;

static void mw_nodeCell(const mw_Nodes* nodes, const mw_DataCells* cells, size_t j, int32_t f[3])
{
    const float* p = mw_point(nodes->points, nodes->stride, nodes->point ? nodes->point[j] : j);
    f[0] = mw_floor((double)p[0] * cells->inverse);
    f[1] = mw_floor((double)p[1] * cells->inverse);
    f[2] = nodes->dim == 3 ? mw_floor((double)p[2] * cells->inverse) : 0;
}

/* Step 1. cell[] receives each node's cell number, then is free for the caller. */
static int mw_sortNodes(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                        uint32_t* cell)
{
    size_t m = nodes->count;
    int32_t lo[3], hi[3];
    for (size_t j = 0; j < m; ++j) {
        int32_t f[3];
        mw_nodeCell(nodes, cells, j, f);
        for (int a = 0; a < 3; ++a) {
            lo[a] = j == 0 || f[a] < lo[a] ? f[a] : lo[a];
            hi[a] = j == 0 || f[a] > hi[a] ? f[a] : hi[a];
        }
    }
    /* a flat array when the box, with a margin of one cell for the neighbours, holds at most two
     * cells per node (dense sets); else a hash table numbers the occupied cells */
    double volume = 1.0;
    for (int a = 0; a < 3; ++a) {
        s->origin[a] = lo[a] - (a < nodes->dim);
        s->extent[a] = (size_t)((int64_t)hi[a] - lo[a] + 1 + 2 * (a < nodes->dim));
        volume *= (double)s->extent[a];
    }
    s->flat = volume <= 2.0 * (double)m + 4096.0;
    if (s->flat) {
        s->cells = (size_t)volume;
        for (size_t j = 0; j < m; ++j) {
            int32_t f[3];
            mw_nodeCell(nodes, cells, j, f);
            cell[j] = (uint32_t)((size_t)(f[0] - s->origin[0]) +
                                 s->extent[0] * ((size_t)(f[1] - s->origin[1]) +
                                                 s->extent[1] * (size_t)(f[2] - s->origin[2])));
        }
    } else {
        if (mw_tableReserveWith(&s->table, m / 4 + 16, mw_cellHash))
            return meshweld_ErrorMemory;
        s->cells = 0;
        for (size_t j = 0; j < m; ++j) {
            int32_t f[3];
            mw_nodeCell(nodes, cells, j, f);
            uint32_t a = (uint32_t)f[0], b = (uint32_t)f[1], c = (uint32_t)f[2];
            mw_Entry* e = mw_tableFindHashed(&s->table, mw_cellHash(a, b, c), a, b, c);
            if (e->value == MW_NONE) {
                if (s->table.count + 1 > (s->table.mask + 1) / 2) {
                    if (mw_tableReserveWith(&s->table, s->table.count * 2 + 1, mw_cellHash))
                        return meshweld_ErrorMemory;
                    e = mw_tableFindHashed(&s->table, mw_cellHash(a, b, c), a, b, c);
                }
                e->key[0] = a, e->key[1] = b, e->key[2] = c;
                e->value = (uint32_t)s->cells++;
                s->table.count++;
            }
            cell[j] = e->value;
        }
    }

    s->start = (uint32_t*)mw_arenaAllocate(arena, s->cells + 1, sizeof(uint32_t));
    s->node = (uint32_t*)mw_arenaAllocate(arena, m, sizeof(uint32_t));
    s->x = (float*)mw_arenaAllocate(arena, m, sizeof(float));
    s->y = (float*)mw_arenaAllocate(arena, m, sizeof(float));
    s->z = (float*)mw_arenaAllocate(arena, m, sizeof(float));
    if (!s->start || !s->node || !s->x || !s->y || !s->z)
        return meshweld_ErrorMemory;
    memset(s->start, 0, (s->cells + 1) * sizeof(uint32_t));
    for (size_t j = 0; j < m; ++j)
        s->start[cell[j] + 1]++;
    for (size_t c = 0; c < s->cells; ++c)
        s->start[c + 1] += s->start[c];
    /* stable scatter: start[c] runs to the end of cell c, then start[] is shifted back */
    for (size_t j = 0; j < m; ++j) {
        uint32_t at = s->start[cell[j]]++;
        const float* p = mw_point(nodes->points, nodes->stride, nodes->point ? nodes->point[j] : j);
        s->node[at] = (uint32_t)j;
        s->x[at] = p[0];
        s->y[at] = p[1];
        s->z[at] = nodes->dim == 3 ? p[2] : 0.0f;
    }
    for (size_t c = s->cells; c > 0; --c)
        s->start[c] = s->start[c - 1];
    s->start[0] = 0;
    return meshweld_Ok;
}

/* Room for more pairs in the pair buffers: 0, or MW_DENSE past the budget, or an error. */
static int mw_pairsRoom(mw_Pairs* pairs, mw_Arena* arena, size_t more)
{
    if (pairs->count + more <= pairs->capacity)
        return meshweld_Ok;
    if (pairs->count + more > pairs->budget)
        return MW_DENSE;
    size_t capacity = pairs->capacity * 2 > pairs->count + more ? pairs->capacity * 2 : pairs->count + more;
    capacity = capacity < pairs->budget ? capacity : pairs->budget;
    uint32_t* earlier = (uint32_t*)mw_arenaAllocate(arena, capacity, sizeof(uint32_t));
    uint32_t* later = earlier ? (uint32_t*)mw_arenaAllocate(arena, capacity, sizeof(uint32_t)) : NULL;
    if (!earlier || !later)
        return meshweld_ErrorMemory;
    if (pairs->count) {
        memcpy(earlier, pairs->earlier, pairs->count * sizeof(uint32_t));
        memcpy(later, pairs->later, pairs->count * sizeof(uint32_t));
    }
    mw_arenaRelease(arena, pairs->earlier);
    mw_arenaRelease(arena, pairs->later);
    pairs->earlier = earlier, pairs->later = later, pairs->capacity = capacity;
    return meshweld_Ok;
}

/* The pairs within r between sorted point i and the sorted points [from, to): a branch-free
 * candidate loop (the pair is written, then counted when it holds). */
static void mw_pairsWith(mw_Pairs* pairs, const mw_Sorted* s, size_t i, size_t from, size_t to, double r2,
                         const mw_Nodes* nodes)
{
    double px = s->x[i], py = s->y[i], pz = s->z[i];
    uint32_t a = s->node[i];
    size_t n = pairs->count;
    uint32_t* earlier = pairs->earlier;
    uint32_t* later = pairs->later;
    pairs->tests += to - from;
    if (nodes->match && nodes->match->count) {
        for (size_t t = from; t < to; ++t) {
            double dx = px - s->x[t], dy = py - s->y[t], dz = pz - s->z[t];
            uint32_t b = s->node[t];
            uint32_t e = a < b ? a : b, l = a < b ? b : a;
            if (dx * dx + dy * dy + dz * dz <= r2 &&
                mw_match(nodes->match, nodes->point ? nodes->point[e] : e, nodes->point ? nodes->point[l] : l)) {
                earlier[n] = e, later[n] = l;
                n++;
            }
        }
    } else {
        for (size_t t = from; t < to; ++t) {
            double dx = px - s->x[t], dy = py - s->y[t], dz = pz - s->z[t];
            uint32_t b = s->node[t];
            earlier[n] = a < b ? a : b;
            later[n] = a < b ? b : a;
            n += dx * dx + dy * dy + dz * dz <= r2;
        }
    }
    pairs->count = n;
}

/* The sorted range of the cell at offset d from cell c (whose key is f). */
static void mw_neighbour(const mw_Sorted* s, size_t c, const int32_t f[3], const int8_t d[3], size_t* from, size_t* to)
{
    if (s->flat) {
        size_t n = c + (size_t)((ptrdiff_t)d[0] + (ptrdiff_t)s->extent[0] * ((ptrdiff_t)d[1] + (ptrdiff_t)s->extent[1] * d[2]));
        *from = s->start[n], *to = s->start[n + 1];
        return;
    }
    uint32_t a = (uint32_t)(f[0] + d[0]), b = (uint32_t)(f[1] + d[1]), k = (uint32_t)(f[2] + d[2]);
    const mw_Entry* e = mw_tableFindHashed(&s->table, mw_cellHash(a, b, k), a, b, k);
    *from = *to = 0;
    if (e->value != MW_NONE)
        *from = s->start[e->value], *to = s->start[e->value + 1];
}

/* Step 2. */
static int mw_findPairs(mw_Pairs* pairs, mw_Arena* arena, const mw_Sorted* s, const mw_Nodes* nodes,
                        const mw_DataCells* cells)
{
    double r2 = nodes->radius * nodes->radius;
    int dim = nodes->dim, shells = dim == 3 ? 13 : 4;
    const int8_t(*shell)[3] = dim == 3 ? mw_shell3 : mw_shell2;
    for (size_t c = 0; c < s->cells; ++c) {
        size_t from = s->start[c], to = s->start[c + 1];
        if (from == to)
            continue;
        for (size_t i = from; i < to; ++i) {
            int error = mw_pairsRoom(pairs, arena, to - i - 1);
            if (error)
                return error;
            mw_pairsWith(pairs, s, i, i + 1, to, r2, nodes);
            double u[3] = {s->x[i] * cells->inverse, s->y[i] * cells->inverse, s->z[i] * cells->inverse};
            int32_t f[3];
            int t[3];
            mw_dataCell(cells, u, dim, f, t);
            if ((t[0] | t[1] | t[2]) == 0)
                continue; /* the r-box lies in the point's own cell: a sparse set's usual case */
            for (int k = 0; k < shells; ++k) {
                const int8_t* d = shell[k];
                if ((d[0] && d[0] != t[0]) || (d[1] && d[1] != t[1]) || (d[2] && d[2] != t[2]))
                    continue;
                size_t a, b;
                mw_neighbour(s, c, f, d, &a, &b);
                if (a == b)
                    continue;
                if ((error = mw_pairsRoom(pairs, arena, b - a)) != 0)
                    return error;
                mw_pairsWith(pairs, s, i, a, b, r2, nodes);
            }
            if (pairs->tests > pairs->test_budget)
                return MW_DENSE;
        }
    }
    return meshweld_Ok;
}

int mw_engineWeld(uint32_t* owner, const mw_Nodes* nodes, const mw_DataCells* cells, mw_EngineStats* stats)
{
    size_t m = nodes->count;
    if (m == 0)
        return meshweld_Ok;
    mw_Arena arena = {{0}, 0};
    mw_Sorted s;
    memset(&s, 0, sizeof(s));
    mw_Pairs pairs = {NULL, NULL, 0, 0, 4 * m + 65536, 0, 16 * m + 65536};
    int error = meshweld_ErrorMemory;

    /* owner[] serves as the cells' numbers until the walk */
    if ((error = mw_sortNodes(&s, &arena, nodes, cells, owner)) != meshweld_Ok)
        goto done;
    /* a cheap pre-check: the tests within cells alone would pass the budget */
    size_t within = 0;
    for (size_t c = 0; c < s.cells; ++c) {
        size_t k = s.start[c + 1] - s.start[c];
        within += k * (k - 1) / 2;
    }
    if (within > pairs.test_budget) {
        error = MW_DENSE;
        goto done;
    }
    if ((error = mw_pairsRoom(&pairs, &arena, m / 2 + 1024)) != meshweld_Ok ||
        (error = mw_findPairs(&pairs, &arena, &s, nodes, cells)) != meshweld_Ok)
        goto done;
    if (stats)
        stats->cells = s.flat ? s.table.count : s.cells, stats->tests = pairs.tests, stats->pairs = pairs.count;
    if (stats && s.flat) {
        size_t occupied = 0;
        for (size_t c = 0; c < s.cells; ++c)
            occupied += s.start[c + 1] > s.start[c];
        stats->cells = occupied;
    }
    mw_arenaRelease(&arena, s.x);
    mw_arenaRelease(&arena, s.y);
    mw_arenaRelease(&arena, s.z);
    mw_arenaRelease(&arena, s.start);
    mw_tableFree(&s.table);

    /* step 3: each node's earlier neighbours, by a counting sort of the pairs on the later node */
    uint32_t* first = (uint32_t*)mw_arenaAllocate(&arena, m + 1, sizeof(uint32_t));
    uint32_t* earlier = (uint32_t*)mw_arenaAllocate(&arena, pairs.count + 1, sizeof(uint32_t));
    if (!first || !earlier) {
        error = meshweld_ErrorMemory;
        goto done;
    }
    memset(first, 0, (m + 1) * sizeof(uint32_t));
    for (size_t k = 0; k < pairs.count; ++k)
        first[pairs.later[k] + 1]++;
    for (size_t j = 0; j < m; ++j)
        first[j + 1] += first[j];
    for (size_t k = 0; k < pairs.count; ++k)
        earlier[first[pairs.later[k]]++] = pairs.earlier[k];
    for (size_t j = m; j > 0; --j)
        first[j] = first[j - 1];
    first[0] = 0;

    /* step 4: the greedy, in node order, over the graph alone; node a is a representative when
     * owner[a] == a (every a < j is decided) */
    for (size_t j = 0; j < m; ++j) {
        uint32_t best = MW_NONE;
        for (uint32_t k = first[j]; k < first[j + 1]; ++k) {
            uint32_t a = earlier[k];
            best = owner[a] == a && a < best ? a : best;
        }
        owner[j] = best == MW_NONE ? (uint32_t)j : best;
    }
    error = meshweld_Ok;
done:
    mw_tableFree(&s.table);
    mw_arenaFree(&arena);
    return error;
}

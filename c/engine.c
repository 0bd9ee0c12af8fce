/* The spatial engine: the precise weld (each point merges into the earliest representative within
 * r, the naive result) computed in cell order, while the result stays defined by input order.
 *
 *   1. sort the nodes by cell (GRID's data-sized cells, keyed by their position in the box: a
 *      counting sort on the key when the box is small, an LSD radix sort when it is sparse; both
 *      stable, so each cell keeps node order) and copy their coordinates into that order;
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

/* The half shell: offsets (dx, dy, dz) that come after (0, 0, 0) in z-major order, so that their
 * linear key offset dx + ex (dy + ey dz) is positive. */
static const int8_t mw_shell[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0},  {-1, -1, 1},
                                       {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1},  {1, 0, 1},
                                       {-1, 1, 1}, {0, 1, 1},  {1, 1, 1}};

/* A point in sorted order: coordinates and node together, one cache line holds four. */
typedef struct mw_Point4 {
    float x, y, z;
    uint32_t node;
} mw_Point4;

typedef struct mw_Sorted {
    mw_Point4* p;     /* the nodes' points in cell order */
    uint32_t* start;  /* cell -> its first sorted position; start[cells] = count */
    uint64_t* key;    /* sparse cells: cell -> its linear key, ascending; NULL: cell c has key c */
    size_t cells;
    /* the linear key of cell (a, b, c): (a - origin[0]) + extent[0] ((b - origin[1]) + extent[1] (c - origin[2])),
     * with a margin of one cell on each side of the box, so that every neighbour has a key */
    int32_t origin[3];
    uint64_t extent[3];
    uint64_t delta[13]; /* the half shell's key offsets */
    /* for each way a point's r-box leaves its cell (touch + 1 per axis, base 3), the half-shell
     * neighbours it touches */
    uint8_t touched[27][13];
    uint8_t touched_count[27];
} mw_Sorted;

typedef struct mw_Pairs {
    uint32_t* earlier;
    uint32_t* later;
    size_t count, capacity, budget;
    size_t tests, test_budget;
} mw_Pairs;

static const float* mw_nodePoint(const mw_Nodes* nodes, size_t j)
{
    return mw_point(nodes->points, nodes->stride, nodes->point ? nodes->point[j] : j);
}

static void mw_nodeCell(const mw_Nodes* nodes, const mw_DataCells* cells, size_t j, int32_t f[3])
{
    const float* p = mw_nodePoint(nodes, j);
    f[0] = mw_floor((double)p[0] * cells->inverse);
    f[1] = mw_floor((double)p[1] * cells->inverse);
    f[2] = nodes->dim == 3 ? mw_floor((double)p[2] * cells->inverse) : 0;
}

static uint64_t mw_cellKey(const mw_Sorted* s, const int32_t f[3])
{
    return (uint64_t)(f[0] - s->origin[0]) +
           s->extent[0] * ((uint64_t)(f[1] - s->origin[1]) + s->extent[1] * (uint64_t)(f[2] - s->origin[2]));
}

/* The shell tables for this box. */
static void mw_shellSetup(mw_Sorted* s, int dim)
{
    int shells = dim == 3 ? 13 : 4;
    for (int k = 0; k < shells; ++k) {
        const int8_t* d = mw_shell[k];
        s->delta[k] = (uint64_t)((int64_t)d[0] + (int64_t)s->extent[0] * ((int64_t)d[1] + (int64_t)s->extent[1] * d[2]));
    }
    for (int t = 0; t < 27; ++t) {
        int touch[3] = {t % 3 - 1, t / 3 % 3 - 1, t / 9 - 1};
        s->touched_count[t] = 0;
        for (int k = 0; k < shells; ++k) {
            const int8_t* d = mw_shell[k];
            if ((!d[0] || d[0] == touch[0]) && (!d[1] || d[1] == touch[1]) && (!d[2] || d[2] == touch[2]))
                s->touched[t][s->touched_count[t]++] = (uint8_t)k;
        }
    }
}

/* Sparse boxes: the nodes' keys sorted by a stable LSD radix sort of 11-bit digits, then the runs
 * of equal keys are the cells. sorted[] receives the nodes in cell order. */
static int mw_radixCells(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                         double range, uint32_t* sorted)
{
    size_t m = nodes->count;
    int bits = 1;
    while (bits < 64 && (double)((uint64_t)1 << bits) < range)
        bits++;
    uint64_t* keys = (uint64_t*)mw_arenaAllocate(arena, m, sizeof(uint64_t));
    uint64_t* keys2 = (uint64_t*)mw_arenaAllocate(arena, m, sizeof(uint64_t));
    uint32_t* nodes2 = (uint32_t*)mw_arenaAllocate(arena, m, sizeof(uint32_t));
    uint32_t* count = (uint32_t*)mw_arenaAllocate(arena, 2048, sizeof(uint32_t));
    if (!keys || !keys2 || !nodes2 || !count)
        return meshweld_ErrorMemory;
    for (size_t j = 0; j < m; ++j) {
        int32_t f[3];
        mw_nodeCell(nodes, cells, j, f);
        keys[j] = mw_cellKey(s, f);
        sorted[j] = (uint32_t)j;
    }
    uint32_t* from_node = sorted;
    for (int shift = 0; shift < bits; shift += 11) {
        memset(count, 0, 2048 * sizeof(uint32_t));
        for (size_t j = 0; j < m; ++j)
            count[(keys[j] >> shift) & 2047]++;
        uint32_t sum = 0;
        for (int d = 0; d < 2048; ++d) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        uint32_t* to_node = from_node == sorted ? nodes2 : sorted;
        for (size_t j = 0; j < m; ++j) {
            uint32_t at = count[(keys[j] >> shift) & 2047]++;
            keys2[at] = keys[j];
            to_node[at] = from_node[j];
        }
        uint64_t* t = keys;
        keys = keys2, keys2 = t;
        from_node = to_node;
    }
    if (from_node != sorted)
        memcpy(sorted, from_node, m * sizeof(uint32_t));
    /* the runs of equal keys */
    size_t runs = 1;
    for (size_t j = 1; j < m; ++j)
        runs += keys[j] != keys[j - 1];
    s->cells = runs;
    s->key = (uint64_t*)mw_arenaAllocate(arena, runs, sizeof(uint64_t));
    s->start = (uint32_t*)mw_arenaAllocate(arena, runs + 1, sizeof(uint32_t));
    if (!s->key || !s->start)
        return meshweld_ErrorMemory;
    size_t c = 0;
    for (size_t j = 0; j < m; ++j)
        if (j == 0 || keys[j] != keys[j - 1]) {
            s->key[c] = keys[j];
            s->start[c++] = (uint32_t)j;
        }
    s->start[runs] = (uint32_t)m;
    mw_arenaRelease(arena, keys);
    mw_arenaRelease(arena, keys2);
    mw_arenaRelease(arena, nodes2);
    mw_arenaRelease(arena, count);
    return meshweld_Ok;
}

/* Dense boxes (at most two cells per node): a counting sort on the key itself, whose scatter
 * writes the points straight into their sorted place (the input is read in order). cell[] is
 * scratch for m keys. */
static int mw_countCells(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                         size_t range, uint32_t* cell)
{
    size_t m = nodes->count;
    s->cells = range;
    s->start = (uint32_t*)mw_arenaAllocate(arena, range + 1, sizeof(uint32_t));
    if (!s->start)
        return meshweld_ErrorMemory;
    memset(s->start, 0, (range + 1) * sizeof(uint32_t));
    for (size_t j = 0; j < m; ++j) {
        int32_t f[3];
        mw_nodeCell(nodes, cells, j, f);
        cell[j] = (uint32_t)mw_cellKey(s, f);
        s->start[cell[j] + 1]++;
    }
    for (size_t c = 0; c < range; ++c)
        s->start[c + 1] += s->start[c];
    for (size_t j = 0; j < m; ++j) { /* stable: start[c] runs to the end of cell c, then shifts back */
        const float* q = mw_nodePoint(nodes, j);
        mw_Point4* t = &s->p[s->start[cell[j]]++];
        t->x = q[0], t->y = q[1], t->z = nodes->dim == 3 ? q[2] : 0.0f, t->node = (uint32_t)j;
    }
    for (size_t c = range; c > 0; --c)
        s->start[c] = s->start[c - 1];
    s->start[0] = 0;
    return meshweld_Ok;
}

/* Step 1: the nodes in cell order (MW_DENSE when the box is too large for 64-bit keys: the
 * caller welds sequentially). cell[] is m words of scratch. */
static int mw_sortNodes(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                        uint32_t* cell)
{
    size_t m = nodes->count;
    int32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (size_t j = 0; j < m; ++j) {
        int32_t f[3];
        mw_nodeCell(nodes, cells, j, f);
        for (int a = 0; a < 3; ++a) {
            lo[a] = j == 0 || f[a] < lo[a] ? f[a] : lo[a];
            hi[a] = j == 0 || f[a] > hi[a] ? f[a] : hi[a];
        }
    }
    double range = 1.0;
    for (int a = 0; a < 3; ++a) {
        int pad = a < nodes->dim;
        s->origin[a] = lo[a] - pad;
        s->extent[a] = (uint64_t)((int64_t)hi[a] - lo[a] + 1 + 2 * pad);
        range *= (double)s->extent[a];
    }
    if (range >= 0x1p62)
        return MW_DENSE;
    mw_shellSetup(s, nodes->dim);
    s->p = (mw_Point4*)mw_arenaAllocate(arena, m, sizeof(mw_Point4));
    if (!s->p)
        return meshweld_ErrorMemory;
    if (range <= 2.0 * (double)m + 4096.0)
        return mw_countCells(s, arena, nodes, cells, (size_t)range, cell);
    /* sparse: the radix sort gives the order, and the points are gathered into it */
    uint32_t* sorted = (uint32_t*)mw_arenaAllocate(arena, m, sizeof(uint32_t));
    int error = sorted ? mw_radixCells(s, arena, nodes, cells, range, sorted) : meshweld_ErrorMemory;
    if (error)
        return error;
    for (size_t at = 0; at < m; ++at) {
        const float* q = mw_nodePoint(nodes, sorted[at]);
        mw_Point4* t = &s->p[at];
        t->x = q[0], t->y = q[1], t->z = nodes->dim == 3 ? q[2] : 0.0f, t->node = sorted[at];
    }
    mw_arenaRelease(arena, sorted);
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
    const mw_Point4* q = s->p;
    double px = q[i].x, py = q[i].y, pz = q[i].z;
    uint32_t a = q[i].node;
    size_t n = pairs->count;
    uint32_t* earlier = pairs->earlier;
    uint32_t* later = pairs->later;
    pairs->tests += to - from;
    if (nodes->match && nodes->match->count) {
        for (size_t t = from; t < to; ++t) {
            double dx = px - q[t].x, dy = py - q[t].y, dz = pz - q[t].z;
            uint32_t b = q[t].node;
            uint32_t e = a < b ? a : b, l = a < b ? b : a;
            if (mw_squared(dx) + mw_squared(dy) + mw_squared(dz) <= r2 &&
                mw_match(nodes->match, nodes->point ? nodes->point[e] : e, nodes->point ? nodes->point[l] : l)) {
                earlier[n] = e, later[n] = l;
                n++;
            }
        }
    } else {
        for (size_t t = from; t < to; ++t) {
            double dx = px - q[t].x, dy = py - q[t].y, dz = pz - q[t].z;
            uint32_t b = q[t].node;
            earlier[n] = a < b ? a : b;
            later[n] = a < b ? b : a;
            n += mw_squared(dx) + mw_squared(dy) + mw_squared(dz) <= r2;
        }
    }
    pairs->count = n;
}

/* The cell whose key is key[c] + delta (a half-shell neighbour of cell c, so after it), or cells.
 * The wanted keys grow with c, so a cursor per offset only moves forward: galloping from it costs
 * O(cells) per offset over the whole search, whatever the gaps. */
static size_t mw_neighbour(const mw_Sorted* s, size_t c, uint64_t delta, size_t* cursor)
{
    if (!s->key)
        return c + delta;
    uint64_t want = s->key[c] + delta;
    size_t lo = *cursor > c ? *cursor : c + 1, step = 1, hi = lo;
    while (hi < s->cells && s->key[hi] < want) { /* gallop, then bisect [lo, hi) */
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    hi = hi < s->cells ? hi + 1 : s->cells;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->key[mid] < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    *cursor = lo;
    return lo < s->cells && s->key[lo] == want ? lo : s->cells;
}

/* Step 2. */
static int mw_findPairs(mw_Pairs* pairs, mw_Arena* arena, const mw_Sorted* s, const mw_Nodes* nodes,
                        const mw_DataCells* cells)
{
    double r2 = nodes->radius * nodes->radius;
    int dim = nodes->dim;
    size_t cursor[13] = {0};
    for (size_t c = 0; c < s->cells; ++c) {
        size_t from = s->start[c], to = s->start[c + 1];
        for (size_t i = from; i < to; ++i) {
            int error = mw_pairsRoom(pairs, arena, to - i - 1);
            if (error)
                return error;
            mw_pairsWith(pairs, s, i, i + 1, to, r2, nodes);
            double u[3] = {s->p[i].x * cells->inverse, s->p[i].y * cells->inverse, s->p[i].z * cells->inverse};
            int32_t f[3];
            int t[3];
            mw_dataCell(cells, u, dim, f, t);
            int state = (t[0] + 1) + 3 * (t[1] + 1) + 9 * (t[2] + 1);
            for (int k = 0; k < s->touched_count[state]; ++k) { /* none when the r-box lies in the cell */
                int shell = s->touched[state][k];
                size_t n = mw_neighbour(s, c, s->delta[shell], &cursor[shell]);
                if (n >= s->cells || s->start[n] == s->start[n + 1])
                    continue;
                if ((error = mw_pairsRoom(pairs, arena, s->start[n + 1] - s->start[n])) != 0)
                    return error;
                mw_pairsWith(pairs, s, i, s->start[n], s->start[n + 1], r2, nodes);
            }
            if (pairs->tests > pairs->test_budget)
                return MW_DENSE;
        }
    }
    return meshweld_Ok;
}

/* The trace's record of the sort: the order, and the occupied cells with their keys. */
static void mw_traceSort(mw_EngineTrace* trace, const mw_Sorted* s, size_t m)
{
    if (trace->order)
        for (size_t i = 0; i < m; ++i)
            trace->order[i] = s->p[i].node;
    size_t occupied = 0;
    for (size_t c = 0; c < s->cells; ++c) {
        if (s->start[c] == s->start[c + 1])
            continue;
        if (trace->cell_keys) {
            uint64_t key = s->key ? s->key[c] : c;
            trace->cell_keys[occupied * 3] = (int)((int64_t)(key % s->extent[0]) + s->origin[0]);
            trace->cell_keys[occupied * 3 + 1] = (int)((int64_t)(key / s->extent[0] % s->extent[1]) + s->origin[1]);
            trace->cell_keys[occupied * 3 + 2] = (int)((int64_t)(key / s->extent[0] / s->extent[1]) + s->origin[2]);
        }
        if (trace->cell_start)
            trace->cell_start[occupied] = s->start[c];
        occupied++;
    }
    if (trace->cell_start)
        trace->cell_start[occupied] = (uint32_t)m;
    trace->cells = occupied;
}

int mw_engineWeld(uint32_t* owner, const mw_Nodes* nodes, const mw_DataCells* cells, mw_EngineTrace* trace)
{
    size_t m = nodes->count;
    if (m == 0)
        return meshweld_Ok;
    mw_Arena arena = {{0}, 0};
    mw_Sorted s;
    memset(&s, 0, sizeof(s));
    mw_Pairs pairs = {NULL, NULL, 0, 0, 4 * m + 65536, 0, 16 * m + 65536};
    int phases = trace ? trace->phases : 5, error;

    /* owner[] serves as scratch until the walk */
    if ((error = mw_sortNodes(&s, &arena, nodes, cells, owner)) != meshweld_Ok)
        goto done;
    if (trace)
        mw_traceSort(trace, &s, m);
    if (phases <= 2)
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
    if (trace) {
        trace->tests = pairs.tests, trace->pair_count = pairs.count;
        for (size_t k = 0; trace->pairs && k < pairs.count && k < trace->pair_capacity; ++k)
            trace->pairs[2 * k] = pairs.earlier[k], trace->pairs[2 * k + 1] = pairs.later[k];
    }
    if (phases <= 3)
        goto done;
    mw_arenaRelease(&arena, s.p);
    mw_arenaRelease(&arena, s.start);
    mw_arenaRelease(&arena, s.key);

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
    if (phases <= 4)
        goto done;

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
done:
    mw_arenaFree(&arena);
    return error;
}

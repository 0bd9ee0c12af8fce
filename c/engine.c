/* The spatial engine: the precise weld (each point merges into the earliest representative within
 * r, the naive result) computed in cell order, while the result stays defined by input order.
 *
 *   1. sort the nodes by cell (GRID's data-sized cells, keyed by their position in the box: a
 *      counting sort on the key when the box is small, an LSD radix sort when it is sparse or
 *      holds more nodes than a scatter into place can keep in the cache; both stable, so each
 *      cell keeps node order) and copy their coordinates into that order;
 *   2. find every pair within r in cell order: each cell against itself and the half of its
 *      neighbours that come after it (13 in 3D, 4 in 2D), as molecular-dynamics cell lists do, so
 *      each pair is met once; a point tests a neighbour only when its r-box touches it, and the
 *      touched cells whose keys follow each other (the two a box of cells >= 2r can touch in a
 *      row, or the point's own cell and the next) are one range of sorted points, one candidate
 *      loop;
 *   3. sort the pairs by their later node (radix passes; none when they come in that order), which
 *      lists each node's earlier neighbours (the attribute weld takes lists of every neighbour by
 *      node instead, mw_engineGraph, or the same lists from a kd-tree's searches where cells cannot
 *      hold the coordinates, mw_kdGraph);
 *   4. walk the nodes in order over that graph alone: a node merges into its earliest neighbour
 *      that is a representative, else it becomes one (the merged ones marked in bits).
 * Step 4 is the naive greedy itself, restricted to the only candidates that can pass its test, so
 * the result is the naive one bit for bit. Every memory access of steps 1 to 3 walks forward or
 * into a radix pass's runs; the random ones left are one bit read per pair in step 4, in m / 8
 * bytes.
 *
 * Dense clusters (everything within r of everything) would make the pairs quadratic: when the
 * tests or pairs pass a budget the engine stops and says so (MW_DENSE, or MW_CROWDED when its
 * count of the tests in its cells did before the search: cells wider than the points' spacing
 * may have been the cause), and the caller welds sequentially, where such clusters cost one
 * comparison per point. A dense core among sparse points (under 90% of them) is taken apart
 * instead: its crowded cells leave the pair search, and the walk welds their nodes one by one
 * against their cells' representatives (mw_crowdSplit, mw_crowdWalk). */
#include "internal.h"

#include <math.h>

/* Nodes above which a dense box is sorted by radix passes rather than scattered into place: the
 * scatter writes each point to a random place of 16 bytes per node, which past the last-level
 * cache (48 MB here, against 32 MB of cache on the machine measured) misses on every point, while
 * a radix pass writes in at most 2048 streams. */
#ifndef MW_SCATTER /* (a test build sets it to 0) */
#define MW_SCATTER ((size_t)3 << 20)
#endif

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
    unsigned char* touch; /* per sorted point: which way its r-box leaves its cell (mw_nodeKey) */
    size_t cells;
    size_t within; /* the tests within cells: k (k - 1) / 2 for a cell of k points */
    /* the linear key of cell (a, b, c): (a - origin[0]) + extent[0] ((b - origin[1]) + extent[1] (c - origin[2])),
     * with a margin of one cell on each side of the box, so that every neighbour has a key */
    int64_t origin[3];
    uint64_t extent[3];
    uint64_t delta[13]; /* the half shell's key offsets */
    /* for each way a point's r-box leaves its cell (touch + 1 per axis, base 3), the half-shell
     * neighbours it touches */
    uint8_t touched[27][13];
    uint8_t touched_count[27];
    /* the same neighbours as runs of consecutive keys, each a range of sorted points: run k spans
     * the shells run_first[t][k] to run_last[t][k]; run_self[t] when the first run begins at the
     * next key (shell (1, 0, 0)), so that it joins the rest of the point's own cell */
    uint8_t run_first[27][13], run_last[27][13];
    uint8_t run_count[27], run_self[27];
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

/* What keying a node needs, copied into locals (stores through uint32_t pointers could alias
 * the fields where they sit). */
typedef struct mw_Keying {
    const float* points;
    const uint32_t* point;
    size_t stride;
    int dim;
    double inverse, reach, far;
    uint64_t row, layer; /* a key is x + row y + layer z - base, modulo 2^64 */
    uint64_t base;
} mw_Keying;

static mw_Keying mw_keying(const mw_Sorted* s, const mw_Nodes* nodes, const mw_DataCells* cells)
{
    mw_Keying k;
    k.points = nodes->points, k.point = nodes->point, k.stride = nodes->stride, k.dim = nodes->dim;
    k.inverse = cells->inverse, k.reach = cells->reach, k.far = 1.0 - cells->reach;
    k.row = s->extent[0], k.layer = s->extent[0] * s->extent[1];
    k.base = (uint64_t)s->origin[0] + k.row * (uint64_t)s->origin[1] + k.layer * (uint64_t)s->origin[2];
    return k;
}

static inline const float* mw_keyingPoint(const mw_Keying* k, size_t j)
{
    return mw_point(k->points, k->stride, k->point ? k->point[j] : j);
}

/* Cell coordinates from which the box is wide: floor(s) and the margin of a cell either side no
 * longer fit int32, and the nodes are keyed by their squeezed coordinates, whose floors are
 * 64-bit (mw_nodeKeyAs's wide). */
#define MW_WIDE_CELLS 2147483392

/* Node j's cell key, and its touch state: which way its r-box leaves its cell, (u > 1 - reach) -
 * (u < reach) per axis, plus 1, in base 3 (x lowest), where u = s - floor(s) is exact, as in
 * mw_dataCell. wide (a constant where it is called): floors of 64 bits, for the touch state
 * alone (the key is then of no use). */
MW_INLINE uint64_t mw_nodeKeyAs(const mw_Keying* k, size_t j, unsigned int* state, int wide)
{
    const float* p = mw_keyingPoint(k, j);
    double inverse = k->inverse, reach = k->reach, far = k->far;
    double sx = (double)p[0] * inverse, sy = (double)p[1] * inverse;
    int64_t fx = wide ? mw_floor64(sx) : mw_floor(sx), fy = wide ? mw_floor64(sy) : mw_floor(sy), fz = 0;
    double ux = sx - (double)fx, uy = sy - (double)fy;
    unsigned int t = (unsigned int)((ux > far) - (ux < reach) + 1) + 3u * (unsigned int)((uy > far) - (uy < reach) + 1);
    if (k->dim == 3) {
        double sz = (double)p[2] * inverse;
        fz = wide ? mw_floor64(sz) : mw_floor(sz);
        double uz = sz - (double)fz;
        t += 9u * (unsigned int)((uz > far) - (uz < reach) + 1);
    } else {
        t += 9u;
    }
    *state = t;
    return (uint64_t)fx + k->row * (uint64_t)fy + k->layer * (uint64_t)fz - k->base;
}

static inline uint64_t mw_nodeKey(const mw_Keying* k, size_t j, unsigned int* state)
{
    return mw_nodeKeyAs(k, j, state, 0);
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
        /* the shells come in key order: touched ones whose keys follow each other are one run
         * (any two, whatever the box: the run is exactly the cells of its keys) */
        int runs = 0;
        for (int j = 0; j < s->touched_count[t]; ++j) {
            uint8_t k = s->touched[t][j];
            if (runs > 0 && s->delta[k] == s->delta[s->run_last[t][runs - 1]] + 1)
                s->run_last[t][runs - 1] = k;
            else
                s->run_first[t][runs] = s->run_last[t][runs] = k, runs++;
        }
        s->run_count[t] = (uint8_t)runs;
        s->run_self[t] = runs > 0 && s->delta[s->run_first[t][0]] == 1;
    }
}

/* The cells found while the sorted points are written, one key after another. */
typedef struct mw_CellRun {
    uint64_t previous;
    size_t c, first, within;
} mw_CellRun;

static inline void mw_cellRunAdd(mw_Sorted* s, mw_CellRun* run, size_t at, uint64_t key, size_t range)
{
    size_t fresh = key != run->previous;
    if (range) {
        while (run->c <= key) /* the cells up to this key start here */
            s->start[run->c++] = (uint32_t)at;
    } else { /* branch-free: the slot c is written every time, and taken when the key is new */
        s->key[run->c] = key;
        s->start[run->c] = (uint32_t)at;
        run->c += fresh;
    }
    run->first = fresh ? at : run->first;
    run->within += at - run->first; /* the point's tests with the earlier ones of its cell */
    run->previous = key;
}

static inline size_t mw_cellRunEnd(mw_Sorted* s, mw_CellRun* run, size_t m, size_t range)
{
    while (range && run->c < range)
        s->start[run->c++] = (uint32_t)m;
    s->within = run->within;
    return run->c;
}

/* The points gathered into the sorted order of the words (packed when order is NULL: the node
 * and the touch state sit in the low bits), and the cells found on the way: sparse, the runs of
 * equal keys (s->key[c] their keys, returns their count); dense (range cells), every key of the
 * range, empty ones too (returns range). */
static inline size_t mw_gather(mw_Sorted* s, const mw_Keying* k, const uint64_t* keys, const uint32_t* order,
                               const unsigned char* state, size_t m, int shift, int low, size_t range)
{
    uint64_t below = ((uint64_t)1 << low) - 1;
    mw_CellRun run = {~(uint64_t)0, 0, 0, 0}; /* keys are below 2^62 */
    mw_Point4* p = s->p;
    unsigned char* touch = s->touch;
    for (size_t at = 0; at < m; ++at) {
        uint64_t word = keys[at];
        uint32_t j = order ? order[at] : (uint32_t)(word & below);
        const float* q = mw_keyingPoint(k, j);
        p[at].x = q[0], p[at].y = q[1], p[at].z = k->dim == 3 ? q[2] : 0.0f, p[at].node = j;
        touch[at] = (unsigned char)(order ? state[j] : (word >> low) & 31);
        mw_cellRunAdd(s, &run, at, word >> shift, range);
    }
    return mw_cellRunEnd(s, &run, m, range);
}

/* The keys of a radix sort as they are computed: whether one came below the one before it. Points
 * that come in cell order (a row, scan lines, a sparse grid made row by row) give their cell keys
 * in order, and the pairs of a row come by their later node; a stable sort of keys in order leaves
 * them where they are, and mw_passesNeeded answers no passes. */
typedef struct mw_KeyOrder {
    uint64_t previous;
    int unsorted;
} mw_KeyOrder;

MW_INLINE void mw_keyOrderAdd(mw_KeyOrder* o, uint64_t key)
{
    o->unsorted |= key < o->previous;
    o->previous = key;
}

MW_INLINE int mw_passesNeeded(const mw_KeyOrder* o, int passes)
{
    return o->unsorted ? passes : 0;
}

/* Counts of n digits turned into the starts of their runs (exclusive sums), for a radix pass. */
static void mw_startsOf(uint32_t* count, size_t n)
{
    uint32_t sum = 0;
    for (size_t d = 0; d < n; ++d) {
        uint32_t c = count[d];
        count[d] = sum;
        sum += c;
    }
}

/* Bits that number n things (2^bits >= n). */
static int mw_bitsFor(uint64_t n)
{
    int bits = 0;
    while (bits < 64 && ((uint64_t)1 << bits) < n)
        bits++;
    return bits;
}

/* A radix sort's digits for keys of bits bits: as few passes of at most 11 bits as they need. */
static void mw_radixDigits(int bits, int* passes, int* width)
{
    *passes = (bits + 10) / 11;
    *width = *passes > 0 ? (bits + *passes - 1) / *passes : 1;
}

/* One stable radix pass of words by the digit (word >> by) & mask, at[] holding each digit's
 * next place. */
MW_INLINE void mw_radixPass(uint64_t* to, const uint64_t* from, size_t n, uint32_t* at, int by, uint64_t mask)
{
    for (size_t j = 0; j < n; ++j) {
        uint64_t k = from[j];
        to[at[(k >> by) & mask]++] = k;
    }
}

/* words[0, n) sorted, stably, by their bits above the low ones (keys word >> low below 2^bits) in
 * passes of at most 11 bits, with other[] (n words) and count[] (2^11) as scratch; returns the one
 * of words and other that holds the result. */
static uint64_t* mw_radixHigh(uint64_t* words, uint64_t* other, size_t n, int low, int bits, uint32_t* count)
{
    int passes, width;
    mw_radixDigits(bits, &passes, &width);
    uint64_t mask = ((uint64_t)1 << width) - 1;
    for (int pass = 0; pass < passes; ++pass) {
        int by = low + pass * width;
        memset(count, 0, ((size_t)1 << width) * sizeof(uint32_t));
        for (size_t k = 0; k < n; ++k)
            count[(words[k] >> by) & mask]++;
        mw_startsOf(count, (size_t)1 << width);
        mw_radixPass(other, words, n, count, by, mask);
        uint64_t* swap = words;
        words = other, other = swap;
    }
    return words;
}

/* Nodes from which a radix sort of packed words goes by buckets (mw_bucketCells): where the
 * input and the sorted points together pass the last-level cache, and the gather's reads of the
 * input at random miss (measured: 0.82-0.85 of the weld's time at 4M uniform points in
 * WebAssembly, but 1.05-1.18 on 1M tile points, whose passes stay in the cache). And the most nodes
 * a bucket may hold (more: the box is skewed, and the plain passes sort it). */
#ifndef MW_BUCKETED /* (a test build sets it to 0) */
#define MW_BUCKETED ((size_t)1 << 21)
#endif
static const size_t mw_bucketed = MW_BUCKETED;
#define MW_BUCKET ((size_t)1 << 16)
#define MW_SKEWED 1 /* mw_bucketCells' answer when a bucket is too large */
#define MW_DIGIT 12  /* the widest digit of a bucket's passes (2^12 counts stay in the cache) */

/* A node on its way to its sorted place: its packed word (key, touch state, node) and its point. */
typedef struct mw_Record {
    uint64_t word;
    float x, y, z;
    uint32_t unused;
} mw_Record;

/* The radix sort of packed words by buckets: the points are scattered once, with their words, into
 * 2^11 buckets by the key's top digit (the input read in order), then each bucket, small enough for
 * the cache, is sorted by the rest of the key (passes of at most MW_DIGIT bits: one for a dense box
 * of 4M nodes; none when the keys came in order) and written in its sorted place, over the records
 * already read. The same order as mw_radixCells' passes (both are stable), without the gather that
 * reads the input at random. */
static int mw_bucketCells(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                          int bits, int low, size_t range)
{
    size_t m = nodes->count;
    int top = bits < 11 ? bits : 11, rest = bits - top, shift = low + 5;
    size_t buckets = (size_t)1 << top;
    uint64_t below = ((uint64_t)1 << low) - 1;
    /* each bucket's end, then the counts of a pass's digits */
    uint32_t* bucket = (uint32_t*)mw_arenaAllocate(arena, buckets + 1 + ((size_t)1 << MW_DIGIT), sizeof(uint32_t));
    if (!bucket)
        return meshweld_ErrorMemory;
    uint32_t* count = bucket + buckets + 1;
    memset(bucket, 0, (buckets + 1) * sizeof(uint32_t));
    const mw_Keying keying = mw_keying(s, nodes, cells);
    mw_KeyOrder key_order = {0, 0};
    for (size_t j = 0; j < m; ++j) {
        unsigned int t;
        uint64_t key = mw_nodeKey(&keying, j, &t);
        mw_keyOrderAdd(&key_order, key);
        bucket[(key >> rest) + 1]++;
    }
    size_t largest = 0;
    for (size_t b = 0; b < buckets; ++b) {
        largest = bucket[b + 1] > largest ? bucket[b + 1] : largest;
        bucket[b + 1] += bucket[b];
    }
    if (largest > MW_BUCKET) {
        mw_arenaRelease(arena, bucket);
        return MW_SKEWED;
    }
    int passes = mw_passesNeeded(&key_order, (rest + MW_DIGIT - 1) / MW_DIGIT), width = passes ? (rest + passes - 1) / passes : 0;
    mw_Record* record = (mw_Record*)mw_arenaAllocate(arena, m, sizeof(mw_Record));
    mw_Record* local = (mw_Record*)mw_arenaAllocate(arena, (passes > 1 ? 2 : 1) * largest, sizeof(mw_Record));
    s->touch = (unsigned char*)mw_arenaAllocate(arena, m, 1);
    s->key = range ? NULL : (uint64_t*)mw_arenaAllocate(arena, m, sizeof(uint64_t));
    s->start = (uint32_t*)mw_arenaAllocate(arena, (range ? range : m) + 1, sizeof(uint32_t));
    if (!record || !local || !s->touch || (!range && !s->key) || !s->start)
        return meshweld_ErrorMemory;
    int dim = nodes->dim;
    for (size_t j = 0; j < m; ++j) { /* bucket[b] runs to the end of bucket b */
        unsigned int t;
        uint64_t key = mw_nodeKey(&keying, j, &t);
        const float* q = mw_keyingPoint(&keying, j);
        mw_Record* r = &record[bucket[key >> rest]++];
        r->word = key << shift | (uint64_t)t << low | j;
        r->x = q[0], r->y = q[1], r->z = dim == 3 ? q[2] : 0.0f;
    }
    uint32_t mask = ((uint32_t)1 << width) - 1;
    s->p = (mw_Point4*)(void*)record; /* written over the records read: p[at] ends before record[at + 1] */
    mw_CellRun run = {~(uint64_t)0, 0, 0, 0};
    for (size_t b = 0, from = 0; b < buckets; from = bucket[b++]) {
        size_t n = bucket[b] - from;
        const mw_Record* src = record + from;
        mw_Record *dst = local, *other = local + largest;
        for (int pass = 0; pass < passes; ++pass) {
            int by = shift + pass * width;
            memset(count, 0, ((size_t)mask + 1) * sizeof(uint32_t));
            for (size_t i = 0; i < n; ++i)
                count[(src[i].word >> by) & mask]++;
            mw_startsOf(count, (size_t)mask + 1);
            for (size_t i = 0; i < n; ++i)
                dst[count[(src[i].word >> by) & mask]++] = src[i];
            src = dst;
            dst = dst == local ? other : local;
        }
        for (size_t i = 0; i < n; ++i) {
            uint64_t word = src[i].word;
            float x = src[i].x, y = src[i].y, z = src[i].z;
            size_t at = from + i;
            s->p[at].x = x, s->p[at].y = y, s->p[at].z = z, s->p[at].node = (uint32_t)(word & below);
            s->touch[at] = (unsigned char)((word >> low) & 31);
            mw_cellRunAdd(s, &run, at, word >> shift, range);
        }
    }
    s->cells = mw_cellRunEnd(s, &run, m, range);
    s->start[s->cells] = (uint32_t)m;
    mw_arenaRelease(arena, local);
    mw_arenaRelease(arena, bucket);
    return meshweld_Ok;
}

/* The key pass of mw_radixCells: each node's key (its squeezed one when squeezed is not NULL, a
 * constant where it is called), its digits counted, its sort word written (packed when order is
 * NULL); returns whether the keys came in order. */
MW_INLINE mw_KeyOrder mw_radixKeys(const mw_Keying* keying, const uint32_t* squeezed, size_t m, uint64_t* keys,
                                   uint32_t* order, unsigned char* state, uint32_t* count, int passes, int width,
                                   int shift, int low)
{
    uint32_t mask = ((uint32_t)1 << width) - 1;
    uint32_t *count0 = count, *count1 = count + ((size_t)1 << width), *count2 = count + ((size_t)2 << width);
    mw_KeyOrder key_order = {0, 0};
    for (size_t j = 0; j < m; ++j) {
        unsigned int t;
        uint64_t key = mw_nodeKeyAs(keying, j, &t, squeezed != NULL);
        if (squeezed) /* (the key above is then of no use: only its touch state is) */
            key = squeezed[3 * j] + keying->row * squeezed[3 * j + 1] + keying->layer * squeezed[3 * j + 2];
        mw_keyOrderAdd(&key_order, key);
        count0[key & mask]++;
        count1[(key >> width) & mask]++;
        count2[(key >> 2 * width) & mask]++;
        for (int p = 3; p < passes; ++p)
            count[((size_t)p << width) + ((key >> (p * width)) & mask)]++;
        if (!order) {
            keys[j] = key << shift | (uint64_t)t << low | j;
        } else {
            keys[j] = key;
            order[j] = (uint32_t)j;
            state[j] = (unsigned char)t;
        }
    }
    return key_order;
}

/* Boxes too wide for 64-bit keys (a few points far from the rest, in 3D), or for 32-bit cell
 * coordinates: each axis's occupied cell coordinates squeezed together in order, a stretch of
 * empty ones kept as one empty cell, so that neighbour cells stay neighbours and no others become
 * so. squeezed[3 j + a] is node j's coordinate on axis a, from 1 (a margin of one cell each side);
 * s->extent becomes the squeezed box's, s->origin 0. Each axis: the coordinates (64-bit floors,
 * relative to lo) sorted with their nodes by radix passes, the node in the low bits of a word,
 * then numbered. MW_DENSE when a coordinate and a node do not fit a word together, or when even
 * the squeezed box is too wide.
 * Only for cells wider than their floor of 2r (reach below MW_SQUEEZE_REACH): cells at the floor
 * mean points closer than 2r, and such sets (dense clusters) mostly pass the pair budget, after
 * the squeeze's sorts and the search have been paid for nothing (measured: clusters with outliers,
 * three times the instructions of the sequential weld they then get). Such cells answer MW_WIDE:
 * mw_engineTries then tries the narrowest cells the squeeze takes once, where a sample of the
 * nodes found their pairs few (mw_engineDense: MW_SPARSE), as in a cloud with a few points far
 * from it (measured: 1M uniform points and one at 1e6, 4.0 s point by point, 0.38 s). */
#define MW_SQUEEZE_REACH 0.45
static int mw_squeeze(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                      const int64_t lo[3], uint32_t** squeezed)
{
    size_t m = nodes->count;
    int low = mw_bitsFor(m);
    uint64_t node_mask = ((uint64_t)1 << low) - 1;
    for (int a = 0; a < nodes->dim; ++a)
        if (mw_bitsFor(s->extent[a]) + low > 64)
            return MW_DENSE;
    uint32_t* out = (uint32_t*)mw_arenaAllocate(arena, m, 3 * sizeof(uint32_t));
    uint64_t* words = (uint64_t*)mw_arenaAllocate(arena, m, sizeof(uint64_t));
    uint64_t* words2 = (uint64_t*)mw_arenaAllocate(arena, m, sizeof(uint64_t));
    uint32_t* count = (uint32_t*)mw_arenaAllocate(arena, (size_t)1 << 11, sizeof(uint32_t));
    if (!out || !words || !words2 || !count)
        return meshweld_ErrorMemory;
    double range = 1.0, inverse = cells->inverse;
    for (int a = 0; a < 3; ++a) {
        if (a >= nodes->dim) {
            for (size_t j = 0; j < m; ++j)
                out[3 * j + a] = 0;
            s->origin[a] = 0, s->extent[a] = 1;
            continue;
        }
        for (size_t j = 0; j < m; ++j)
            words[j] = (uint64_t)(mw_floor64((double)mw_nodePoint(nodes, j)[a] * inverse) - lo[a]) << low | j;
        const uint64_t* sorted = mw_radixHigh(words, words2, m, low, mw_bitsFor(s->extent[a]), count);
        uint64_t previous = sorted[0] >> low;
        uint32_t c = 1;
        for (size_t i = 0; i < m; ++i) {
            uint64_t f = sorted[i] >> low, gap = f - previous;
            c += (uint32_t)(gap < 2 ? gap : 2);
            previous = f;
            out[3 * (sorted[i] & node_mask) + a] = c;
        }
        s->origin[a] = 0, s->extent[a] = (uint64_t)c + 2;
        range *= (double)s->extent[a];
    }
    mw_arenaRelease(arena, words);
    mw_arenaRelease(arena, words2);
    mw_arenaRelease(arena, count);
    *squeezed = out;
    return range >= 0x1p62 ? MW_DENSE : meshweld_Ok;
}

/* Sparse boxes, and dense ones of many nodes: the nodes' keys sorted by a stable LSD radix sort
 * (digits of at most 11 bits, as few passes as the key range needs; the histograms of every digit
 * are counted in the pass that computes the keys). A node's sort word holds its key above its
 * touch state (5 bits) above its index (low bits) when they fit 64 bits; else keys and nodes move
 * side by side and the states stay in node order. Then the points are gathered into cell order,
 * and the cells found on the way: the runs of equal keys when sparse, every key of the range when
 * dense. Each buffer is freed as soon as it is read for the last time (squeezed, the nodes'
 * squeezed coordinates when not NULL, once the keys are made). */
static int mw_radixCells(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                         double range, int dense, uint32_t* squeezed)
{
    size_t m = nodes->count;
    int bits = 1, low = mw_bitsFor(m); /* key bits; node bits in a packed word */
    while (bits < 64 && (double)((uint64_t)1 << bits) < range)
        bits++;
    int packed = bits + 5 + low <= 64;
    if (packed && m >= mw_bucketed && bits <= 11 + 3 * 8 && !squeezed) {
        int error = mw_bucketCells(s, arena, nodes, cells, bits, low, dense ? (size_t)range : 0);
        if (error != MW_SKEWED)
            return error;
    }
    int shift = packed ? low + 5 : 0; /* the key's place in a word */
    int passes, width;
    mw_radixDigits(bits, &passes, &width);
    int digits = passes < 3 ? 3 : passes; /* the key pass counts three digits at least (unused ones count 0) */
    uint32_t mask = ((uint32_t)1 << width) - 1;
    uint64_t* keys = (uint64_t*)mw_arenaAllocate(arena, m, sizeof(uint64_t));
    uint64_t* keys2 = (uint64_t*)mw_arenaAllocate(arena, m, sizeof(uint64_t));
    uint32_t* count = (uint32_t*)mw_arenaAllocate(arena, (size_t)digits << width, sizeof(uint32_t));
    uint32_t *order = NULL, *order2 = NULL; /* unpacked: the nodes, moved with the keys */
    unsigned char* state = NULL;            /* unpacked: the touch states, by node */
    if (!packed) {
        order = (uint32_t*)mw_arenaAllocate(arena, m, sizeof(uint32_t));
        order2 = (uint32_t*)mw_arenaAllocate(arena, m, sizeof(uint32_t));
        state = (unsigned char*)mw_arenaAllocate(arena, m, 1);
    }
    if (!keys || !keys2 || !count || (!packed && (!order || !order2 || !state)))
        return meshweld_ErrorMemory;
    memset(count, 0, ((size_t)digits << width) * sizeof(uint32_t));
    const mw_Keying keying = mw_keying(s, nodes, cells);
    mw_KeyOrder key_order = squeezed ? mw_radixKeys(&keying, squeezed, m, keys, order, state, count, passes, width, shift, low)
                                     : mw_radixKeys(&keying, NULL, m, keys, order, state, count, passes, width, shift, low);
    mw_arenaRelease(arena, squeezed);
    passes = mw_passesNeeded(&key_order, passes);
    for (int p = 0; p < passes; ++p)
        mw_startsOf(count + ((size_t)p << width), (size_t)mask + 1);
    for (int p = 0; p < passes; ++p) {
        uint32_t* at = count + ((size_t)p << width);
        int by = shift + p * width;
        if (packed) {
            mw_radixPass(keys2, keys, m, at, by, mask);
        } else {
            for (size_t j = 0; j < m; ++j) {
                uint32_t to = at[(keys[j] >> by) & mask]++;
                keys2[to] = keys[j];
                order2[to] = order[j];
            }
            uint32_t* t = order;
            order = order2, order2 = t;
        }
        uint64_t* t = keys;
        keys = keys2, keys2 = t;
    }
    mw_arenaRelease(arena, keys2);
    mw_arenaRelease(arena, order2);
    mw_arenaRelease(arena, count);
    /* the gather, and the cells: a cell starts where the key changes */
    s->p = (mw_Point4*)mw_arenaAllocate(arena, m, sizeof(mw_Point4));
    s->touch = (unsigned char*)mw_arenaAllocate(arena, m, 1);
    size_t cell_count = dense ? (size_t)range : m; /* at most */
    s->key = dense ? NULL : (uint64_t*)mw_arenaAllocate(arena, m, sizeof(uint64_t));
    s->start = (uint32_t*)mw_arenaAllocate(arena, cell_count + 1, sizeof(uint32_t));
    if (!s->p || !s->touch || (!dense && !s->key) || !s->start)
        return meshweld_ErrorMemory;
    if (dense)
        s->cells = packed ? mw_gather(s, &keying, keys, NULL, NULL, m, shift, low, cell_count)
                          : mw_gather(s, &keying, keys, order, state, m, shift, low, cell_count);
    else
        s->cells = packed ? mw_gather(s, &keying, keys, NULL, NULL, m, shift, low, 0)
                          : mw_gather(s, &keying, keys, order, state, m, shift, low, 0);
    s->start[s->cells] = (uint32_t)m;
    mw_arenaRelease(arena, keys);
    if (!packed) {
        mw_arenaRelease(arena, order);
        mw_arenaRelease(arena, state);
    }
    return meshweld_Ok;
}

/* Dense boxes (at most two cells per node) of up to MW_SCATTER nodes: a counting sort on the key
 * itself, whose scatter writes the points straight into their sorted place (the input is read in
 * order). cell[] is scratch for m keys. */
static int mw_countCells(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                         size_t range, uint32_t* cell)
{
    size_t m = nodes->count;
    s->cells = range;
    s->p = (mw_Point4*)mw_arenaAllocate(arena, m, sizeof(mw_Point4));
    s->touch = (unsigned char*)mw_arenaAllocate(arena, m, 1);
    s->start = (uint32_t*)mw_arenaAllocate(arena, range + 1, sizeof(uint32_t));
    unsigned char* state = (unsigned char*)mw_arenaAllocate(arena, m, 1); /* by node */
    if (!s->p || !s->touch || !s->start || !state)
        return meshweld_ErrorMemory;
    memset(s->start, 0, (range + 1) * sizeof(uint32_t));
    const mw_Keying keying = mw_keying(s, nodes, cells);
    for (size_t j = 0; j < m; ++j) {
        unsigned int t;
        cell[j] = (uint32_t)mw_nodeKey(&keying, j, &t);
        state[j] = (unsigned char)t;
        s->start[cell[j] + 1]++;
    }
    size_t within = 0;
    for (size_t c = 0; c < range; ++c) {
        size_t k = s->start[c + 1];
        within += k * (k - 1) / 2;
        s->start[c + 1] += s->start[c];
    }
    s->within = within;
    int dim = nodes->dim;
    for (size_t j = 0; j < m; ++j) { /* stable: start[c] runs to the end of cell c, then shifts back */
        const float* q = mw_keyingPoint(&keying, j);
        size_t at = s->start[cell[j]]++;
        mw_Point4* t = &s->p[at];
        t->x = q[0], t->y = q[1], t->z = dim == 3 ? q[2] : 0.0f, t->node = (uint32_t)j;
        s->touch[at] = state[j];
    }
    for (size_t c = range; c > 0; --c)
        s->start[c] = s->start[c - 1];
    s->start[0] = 0;
    mw_arenaRelease(arena, state);
    return meshweld_Ok;
}

/* Whether a box of range cells is dense for m nodes (at most about two cells a node): its cells
 * are then listed by key, empty ones too, rather than looked up. */
static int mw_denseBox(double range, size_t m)
{
    return range <= 2.0 * (double)m + 4096.0;
}

/* The nodes of a box too wide for 64-bit keys in cell order, by their squeezed keys. */
static MW_NOINLINE int mw_squeezedCells(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                                        const int64_t lo[3])
{
    uint32_t* squeezed;
    int error = mw_squeeze(s, arena, nodes, cells, lo, &squeezed);
    if (error != meshweld_Ok)
        return error;
    mw_shellSetup(s, nodes->dim);
    double range = (double)s->extent[0] * (double)s->extent[1] * (double)s->extent[2];
    return mw_radixCells(s, arena, nodes, cells, range, mw_denseBox(range, nodes->count), squeezed);
}

/* Step 1: the nodes in cell order (MW_DENSE when the box is too large for 64-bit keys even
 * squeezed: the caller welds sequentially; MW_WIDE when its cells are too narrow to squeeze).
 * cell[] is m words of scratch. */
static int mw_sortNodes(mw_Sorted* s, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                        const float* box, uint32_t* cell)
{
    size_t m = nodes->count;
    /* the box of the cells: floor(p * inverse) never decreases with p, so the extreme cells are
     * those of the extreme coordinates */
    float low[3], high[3];
    if (box) {
        memcpy(low, box, sizeof(low));
        memcpy(high, box + 3, sizeof(high));
    } else {
        for (int a = 0; a < 3; ++a)
            low[a] = high[a] = a < nodes->dim ? mw_nodePoint(nodes, 0)[a] : 0.0f;
        for (size_t j = 1; j < m; ++j) {
            const float* p = mw_nodePoint(nodes, j);
            for (int a = 0; a < 2; ++a) {
                low[a] = p[a] < low[a] ? p[a] : low[a];
                high[a] = p[a] > high[a] ? p[a] : high[a];
            }
            if (nodes->dim == 3) {
                low[2] = p[2] < low[2] ? p[2] : low[2];
                high[2] = p[2] > high[2] ? p[2] : high[2];
            }
        }
    }
    int64_t lo[3], hi[3];
    int wide = 0;
    for (int a = 0; a < 3; ++a) {
        lo[a] = mw_floor64((double)low[a] * cells->inverse);
        hi[a] = mw_floor64((double)high[a] * cells->inverse);
        wide |= lo[a] < -MW_WIDE_CELLS || hi[a] > MW_WIDE_CELLS;
    }
    double range = 1.0;
    for (int a = 0; a < 3; ++a) {
        int pad = a < nodes->dim;
        s->origin[a] = lo[a] - pad;
        s->extent[a] = (uint64_t)(hi[a] - lo[a] + 1 + 2 * pad);
        range *= (double)s->extent[a];
    }
    if (range >= 0x1p62 || wide) /* (not where the cells sit at their floor of 2r, see mw_squeeze) */
        return cells->reach < MW_SQUEEZE_REACH ? mw_squeezedCells(s, arena, nodes, cells, lo) : MW_WIDE;
    mw_shellSetup(s, nodes->dim);
    int dense = mw_denseBox(range, m);
    if (dense && m <= MW_SCATTER)
        return mw_countCells(s, arena, nodes, cells, (size_t)range, cell);
    return mw_radixCells(s, arena, nodes, cells, range, dense, NULL);
}

/* The engine's budgets for m nodes: 4 pairs a node and tests_per_node tests (mw_testsPerNode for
 * its search), each with room for small sets; no buffers yet. */
static mw_Pairs mw_pairsBudget(size_t m, size_t tests_per_node)
{
    mw_Pairs pairs = {NULL, NULL, 0, 0, 4 * m + 65536, 0, tests_per_node * m + 65536};
    return pairs;
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

/* The pair buffers' first room: for half the nodes, and more for small sets, within the budget. */
static int mw_pairsFirst(mw_Pairs* pairs, mw_Arena* arena, size_t m)
{
    size_t room = m / 2 + 1024;
    return mw_pairsRoom(pairs, arena, room < pairs->budget ? room : pairs->budget);
}

/* mw_pairsRoom for a search that keeps the count and the buffers in locals (n, earlier, later,
 * capacity): they are written back and read again. */
static int mw_pairsGrow(mw_Pairs* pairs, mw_Arena* arena, size_t n, size_t more, uint32_t** earlier,
                        uint32_t** later, size_t* capacity)
{
    pairs->count = n;
    int error = mw_pairsRoom(pairs, arena, more);
    *earlier = pairs->earlier, *later = pairs->later, *capacity = pairs->capacity;
    return error;
}

/* The pairs within r between sorted point i and the sorted points [from, to), written from pair
 * n on (room made); returns the new count. A branch-free candidate loop: the candidate's sorted
 * position is written, then counted when it holds; the few that hold become node pairs after.
 * dim is a constant where it is called: in 2D the distance is mw_distance2's, without z. */
MW_INLINE size_t mw_pairsNear(uint32_t* earlier, uint32_t* later, size_t n, const mw_Point4* q, const double p[3],
                              uint32_t a, size_t from, size_t to, double r2, int dim)
{
    double px = p[0], py = p[1], pz = p[2];
    size_t first = n;
    for (size_t t = from; t < to; ++t) {
        double dx = px - q[t].x, dy = py - q[t].y, d = mw_squared(dx) + mw_squared(dy);
        if (dim == 3) {
            double dz = pz - q[t].z;
            d += mw_squared(dz);
        }
        later[n] = (uint32_t)t;
        n += d <= r2;
    }
    for (size_t k = first; k < n; ++k) {
        uint32_t b = q[later[k]].node;
        earlier[k] = a < b ? a : b;
        later[k] = a < b ? b : a;
    }
    return n;
}

/* The first of key[lo .. hi) (ascending) that is at least want, or hi. */
MW_INLINE size_t mw_keyBound(const uint64_t* key, size_t lo, size_t hi, uint64_t want)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key[mid] < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first cell whose key is at least key[c] + delta (delta > 0: after cell c), or cells. The
 * wanted keys grow with c, so a cursor per offset only moves forward: galloping from it costs
 * O(cells) per offset over the whole search, whatever the gaps. */
MW_INLINE size_t mw_lowerBound(const mw_Sorted* s, size_t c, uint64_t delta, size_t* cursor)
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
    lo = mw_keyBound(s->key, lo, hi < s->cells ? hi + 1 : s->cells, want);
    *cursor = lo;
    return lo;
}

/* The cell whose key is key[c] + delta (a half-shell neighbour of cell c, so after it), or cells. */
MW_INLINE size_t mw_neighbour(const mw_Sorted* s, size_t c, uint64_t delta, size_t* cursor)
{
    size_t b = mw_lowerBound(s, c, delta, cursor);
    return !s->key || (b < s->cells && s->key[b] == s->key[c] + delta) ? b : s->cells;
}

/* The cells [*lo, returned) of keys key[c] + delta[first] to key[c] + delta[last], a run of
 * consecutive keys (some may hold no cell). */
MW_INLINE size_t mw_runCells(const mw_Sorted* s, size_t c, int first, int last, size_t* cursor, size_t* lo)
{
    size_t b = mw_lowerBound(s, c, s->delta[first], &cursor[first]);
    *lo = b;
    if (!s->key)
        return b + (s->delta[last] - s->delta[first]) + 1;
    uint64_t end = s->key[c] + s->delta[last];
    while (b < s->cells && s->key[b] <= end) /* at most the run's length: 2 */
        b++;
    return b;
}

/* The tests the search may have made before node i of m (in cell order): the budget's share up to
 * the next sixteenth of the nodes, by half again, but at least a quarter of the budget and never
 * more than all of it. A dense set passes it early, before the search has cost what the
 * sequential weld will; a dense patch among sparse points (a few first cells crowded) does not,
 * unless it alone makes a quarter of the budget's tests. */
static size_t mw_testLimit(size_t budget, size_t i, size_t m)
{
    size_t sixteenths = (size_t)((uint64_t)i * 16 / (m > 0 ? m : 1)) + 1; /* (i * 16 in 64 bits: size_t may have 32) */
    double share = 1.5 * (double)budget * (double)sixteenths / 16.0;
    share = share > 0.25 * (double)budget ? share : 0.25 * (double)budget;
    return share < (double)budget ? (size_t)share : budget;
}

/* The distance tests per node past which the sequential weld is the cheaper one (uniform clouds
 * of 200,000 points, natively): in 2D it searches 4 cells per point and wins from about 16 tests
 * on; in 3D it searches 8, and the engine still wins at 46 (6 neighbours within r per point: 33
 * against 56-73 ms). */
static size_t mw_testsPerNode(int dim)
{
    return dim == 3 ? 48 : 16;
}

/* The tests the pair search will make: those within cells, and for each point the sizes of the
 * half-shell neighbours its r-box touches (mw_findPairs' own lookups, without a distance test),
 * counted until they pass limit. */
static MW_NOINLINE size_t mw_countTests(const mw_Sorted* s, size_t limit)
{
    size_t cursor[13] = {0}, size[13], tests = s->within;
    for (size_t c = 0; c < s->cells && tests <= limit; ++c) {
        unsigned int known = 0; /* the shell offsets whose neighbour size[] holds for cell c */
        for (size_t i = s->start[c]; i < s->start[c + 1]; ++i) {
            const uint8_t* touched = s->touched[s->touch[i]];
            for (int k = 0; k < s->touched_count[s->touch[i]]; ++k) {
                int shell = touched[k];
                if (!(known & (1u << shell))) {
                    size_t b = mw_neighbour(s, c, s->delta[shell], &cursor[shell]);
                    size[shell] = b < s->cells ? s->start[b + 1] - s->start[b] : 0;
                    known |= 1u << shell;
                }
                tests += size[shell];
            }
        }
    }
    return tests;
}

/* Step 2. The pair count, the buffers and the tests live in locals; pairs is brought up to date
 * when the buffers grow and on the way out. dim is a constant where it is called. */
MW_INLINE int mw_findPairsIn(mw_Pairs* pairs, mw_Arena* arena, const mw_Sorted* s, const mw_Nodes* nodes, int dim)
{
    double r2 = nodes->radius * nodes->radius;
    const mw_Point4* q = s->p;
    size_t cursor[13] = {0};
    uint32_t* earlier = pairs->earlier;
    uint32_t* later = pairs->later;
    size_t n = pairs->count, capacity = pairs->capacity, tests = pairs->tests;
    size_t m = nodes->count, limit = mw_testLimit(pairs->test_budget, 0, m);
    int error = meshweld_Ok;
    for (size_t c = 0; c < s->cells; ++c) {
        size_t from = s->start[c], to = s->start[c + 1];
        for (size_t i = from; i < to; ++i) {
            unsigned int t = s->touch[i];
            int runs = s->run_count[t], k = 0;
            if (i + 1 == to && runs == 0)
                continue; /* the last of its cell, its r-box inside it: no candidate */
            double p[3] = {q[i].x, q[i].y, q[i].z};
            uint32_t a = q[i].node;
            /* the rest of the cell, and the next cells when the first run begins there; then each
             * run of touched half-shell neighbours whose keys follow each other, one range of
             * sorted points (none when the r-box lies in the cell) */
            size_t lo = i + 1, hi = to, b0;
            if (s->run_self[t])
                hi = s->start[mw_runCells(s, c, s->run_first[t][0], s->run_last[t][0], cursor, &b0)], k = 1;
            for (;;) {
                if (lo < hi) {
                    if (n + (hi - lo) > capacity &&
                        (error = mw_pairsGrow(pairs, arena, n, hi - lo, &earlier, &later, &capacity)) != meshweld_Ok)
                        goto out;
                    n = mw_pairsNear(earlier, later, n, q, p, a, lo, hi, r2, dim);
                    tests += hi - lo;
                }
                if (k == runs)
                    break;
                size_t b1 = mw_runCells(s, c, s->run_first[t][k], s->run_last[t][k], cursor, &b0);
                lo = s->start[b0], hi = s->start[b1], k++;
            }
            if (tests > limit) {
                /* past the budget, or past its share so far by half again: the rest would most
                 * likely pass it too, and the sequential weld is cheaper than the search */
                limit = mw_testLimit(pairs->test_budget, i, m);
                if (tests > limit) {
                    error = MW_DENSE;
                    goto out;
                }
            }
        }
    }
out:
    pairs->count = n, pairs->tests = tests;
    return error;
}

static int mw_findPairs(mw_Pairs* pairs, mw_Arena* arena, const mw_Sorted* s, const mw_Nodes* nodes)
{
    return nodes->dim == 3 ? mw_findPairsIn(pairs, arena, s, nodes, 3) : mw_findPairsIn(pairs, arena, s, nodes, 2);
}

/* The trace's record of the sort: the order, and the occupied cells with their keys (those of
 * their first points: a squeezed box's keys are not the cells'). */
static void mw_traceSort(mw_EngineTrace* trace, const mw_Sorted* s, size_t m, const mw_DataCells* cells)
{
    if (trace->order)
        for (size_t i = 0; i < m; ++i)
            trace->order[i] = s->p[i].node;
    size_t occupied = 0;
    for (size_t c = 0; c < s->cells; ++c) {
        if (s->start[c] == s->start[c + 1])
            continue;
        if (trace->cell_keys) {
            const mw_Point4* p = &s->p[s->start[c]];
            /* (the low 32 bits of 64-bit floors: the whole key below 2^31 cells from 0) */
            trace->cell_keys[occupied * 3] = (int32_t)(uint32_t)mw_floor64((double)p->x * cells->inverse);
            trace->cell_keys[occupied * 3 + 1] = (int32_t)(uint32_t)mw_floor64((double)p->y * cells->inverse);
            trace->cell_keys[occupied * 3 + 2] = (int32_t)(uint32_t)mw_floor64((double)p->z * cells->inverse);
        }
        if (trace->cell_start)
            trace->cell_start[occupied] = s->start[c];
        occupied++;
    }
    if (trace->cell_start)
        trace->cell_start[occupied] = (uint32_t)m;
    trace->cells = occupied;
}

/* Crowded cells among sparse ones (a dense core in a sparse cloud, as a scan whose density falls
 * with distance): their pairs within r would pass the engine's budget, while the sequential weld
 * would pay a look-up of every node's cells in an index far larger than the cache. The cells of
 * more than mw_crowdNodes nodes, at cells on their floor of 2r (where a cell holds few
 * representatives however many nodes it has), leave the pair search, and the walk welds their nodes one by one
 * against the representatives of their cells, as the sequential weld does: each cell keeps its
 * representatives in the order they were made, so the first within r is the earliest. Their
 * neighbour cells' nodes ("the ring") are still searched for pairs among themselves and the rest,
 * and in the walk also look through the representatives of the crowded cells their r-box touches;
 * every candidate of every node is met, so the walk is still the naive greedy. Not when crowded
 * cells hold nearly all the nodes (dense clusters, heavy merging), nor half of them with a small
 * rest: the sequential weld is faster there. */
#define MW_CROWD_REST 65536 /* nodes outside crowded cells from which the rest's index outgrows the cache */
#define MW_CROWD_REACH 0.39 /* cells at their floor (2r, or 2.5r for coordinates far out): reach (r in cells) from here */

typedef struct mw_Crowd {
    size_t most;    /* input: the most nodes of a cell that is not crowded */
    int walk;       /* input: the walk's lists are wanted (else the crowded cells are only taken out, and a
                     * set without them is not searched: a sample's second look) */
    int marks;      /* input, with walk: the nodes' marks alone (mw_Graph), not the lists */
    unsigned char* mark; /* with marks: by node, MW_CROWDED_NODE, MW_RING_NODE or 0 */
    size_t crowded; /* crowded cells: list cells 0 to crowded - 1; the ring's cells follow */
    size_t lists;   /* list cells (0: no crowd) */
    size_t nodes;   /* nodes in crowded cells */
    uint32_t* at;   /* by node: its list cell << 5 | its touch state, or MW_NONE */
    uint32_t* near; /* crowded cell L: the list cells around it, 27 L + (dx + 1) + 3 (dy + 1) + 9 (dz + 1), or MW_NONE */
    uint32_t* ring_first; /* ring cell k (list cell crowded + k): its entries ring_entry[ring_first[k] .. ring_first[k + 1]) */
    uint32_t* ring_entry; /* a crowded cell next to it << 5 | the offset toward that cell */
    uint32_t* slot_first; /* list cell L: its representatives so far, slots[slot_first[L] .. slot_end[L]) */
    uint32_t* slot_end;
    mw_Point4* slots;
} mw_Crowd;

/* The most nodes of a cell that the pair search takes at cells on their floor: about as many as
 * the representatives such a cell can hold (points more than r apart in a box of 2r). */
static size_t mw_crowdNodes(int dim)
{
    return dim == 3 ? 48 : 16;
}

/* The sorted cell whose key is cell c's plus delta, or s->cells when no node has it. */
static size_t mw_cellAt(const mw_Sorted* s, size_t c, int64_t delta)
{
    if (!s->key)
        return (size_t)((int64_t)c + delta);
    uint64_t want = s->key[c] + (uint64_t)delta;
    size_t b = mw_keyBound(s->key, 0, s->cells, want);
    return b < s->cells && s->key[b] == want ? b : s->cells;
}

/* The points of the cells of more than most nodes out of the sorted ones (their cells stay, empty). */
static MW_NOINLINE int mw_crowdTakeOut(mw_Sorted* s, size_t most)
{
    size_t to = 0, from = s->start[0], within = 0;
    for (size_t c = 0; c < s->cells; ++c) {
        size_t end = s->start[c + 1], k = end - from;
        s->start[c] = (uint32_t)to;
        if (k <= most) {
            memmove(&s->p[to], &s->p[from], k * sizeof(mw_Point4));
            memmove(&s->touch[to], &s->touch[from], k);
            to += k;
            within += k * (k - 1) / 2;
        }
        from = end;
    }
    s->start[s->cells] = (uint32_t)to;
    s->within = within;
    return meshweld_Ok;
}

/* Takes the crowded cells out of the sorted points (their cells stay, empty), and with crowd->walk
 * makes the walk's lists; nothing when there are none, or too many (then MW_DENSE without
 * crowd->walk), or (for the walk) when the cells are wider than their floor. */
static MW_NOINLINE int mw_crowdSplit(mw_Crowd* crowd, mw_Sorted* s, mw_Arena* arena, size_t m, int dim, const mw_DataCells* cells)
{
    size_t most = crowd->most, crowded = 0, inside = 0;
    if (crowd->walk && cells->reach < MW_CROWD_REACH)
        return meshweld_Ok;
    size_t rest = 0; /* the tests within the other cells */
    for (size_t c = 0; c < s->cells; ++c) {
        size_t k = s->start[c + 1] - s->start[c];
        if (k > most)
            crowded++, inside += k;
        else
            rest += k * (k - 1) / 2;
    }
    /* a sample's look takes up to 90% out; the walk, half, or up to 90% where the rest makes an
     * index of representatives larger than the cache (dense clusters with a few sparse points
     * between them weld faster one by one), and only from a rest that is not crowded itself (a
     * lattice denser than r, whose first cells hold a row more than the others) */
    int many = (double)inside >= 0.9 * (double)m || (crowd->walk && 2 * inside >= m && m - inside < MW_CROWD_REST) ||
               (crowd->walk && rest > 2 * m);
    if (crowded == 0 || many || 27 * crowded >= (size_t)1 << 27) /* (list cells: 27 bits) */
        return crowd->walk ? meshweld_Ok : MW_DENSE; /* (a sample's second look: no search) */
    crowd->nodes = inside;
    if (!crowd->walk)
        return mw_crowdTakeOut(s, most);
    /* the list cells: the crowded ones, then the occupied cells around them */
    int64_t delta[27];
    for (int o = 0; o < 27; ++o)
        delta[o] = (int64_t)(o % 3 - 1) + (int64_t)s->extent[0] * ((int64_t)(o / 3 % 3 - 1) + (int64_t)s->extent[1] * (o / 9 - 1));
    uint32_t* list_of = (uint32_t*)mw_arenaAllocate(arena, s->cells, sizeof(uint32_t)); /* sorted cell -> list cell */
    uint32_t* near = (uint32_t*)mw_arenaAllocate(arena, crowded, 2 * 27 * sizeof(uint32_t));
    if (crowd->marks)
        crowd->mark = (unsigned char*)mw_arenaAllocate(arena, m, 1);
    else
        crowd->at = (uint32_t*)mw_arenaAllocate(arena, m, sizeof(uint32_t));
    if (!list_of || !near || !(crowd->marks ? (void*)crowd->mark : (void*)crowd->at))
        return meshweld_ErrorMemory;
    uint32_t* cell_of = near + 27 * crowded; /* list cell -> sorted cell (at most 27 per crowded one) */
    memset(list_of, 0xff, s->cells * sizeof(uint32_t));
    size_t lists = 0;
    for (size_t c = 0; c < s->cells; ++c)
        if (s->start[c + 1] - s->start[c] > most)
            cell_of[lists] = (uint32_t)c, list_of[c] = (uint32_t)lists++;
    for (size_t l = 0; l < crowded; ++l)
        for (int o = 0; o < 27; ++o) {
            uint32_t* entry = &near[27 * l + o];
            *entry = MW_NONE;
            if (dim == 2 && o / 9 != 1)
                continue;
            size_t b = mw_cellAt(s, cell_of[l], delta[o]);
            if (b == s->cells || s->start[b] == s->start[b + 1])
                continue;
            if (list_of[b] == MW_NONE)
                cell_of[lists] = (uint32_t)b, list_of[b] = (uint32_t)lists++;
            *entry = list_of[b];
        }
    mw_arenaRelease(arena, list_of);
    if (crowd->marks) { /* the list cells' nodes marked, and nothing more */
        memset(crowd->mark, 0, m);
        for (size_t l = 0; l < lists; ++l)
            for (size_t i = s->start[cell_of[l]]; i < s->start[cell_of[l] + 1]; ++i)
                crowd->mark[s->p[i].node] = l < crowded ? MW_CROWDED_NODE : MW_RING_NODE;
        mw_arenaRelease(arena, near);
        crowd->crowded = crowded, crowd->lists = lists;
        return mw_crowdTakeOut(s, most);
    }
    /* the ring's entries, by ring cell (a counting sort), and the lists' room: each cell's nodes */
    size_t ring = lists - crowded, room = 0;
    uint32_t* block = (uint32_t*)mw_arenaAllocate(arena, (ring + 1) + 26 * crowded + 2 * lists + 1, sizeof(uint32_t));
    if (!block)
        return meshweld_ErrorMemory;
    crowd->ring_first = block;
    crowd->ring_entry = block + ring + 1;
    crowd->slot_first = crowd->ring_entry + 26 * crowded;
    crowd->slot_end = crowd->slot_first + lists + 1;
    memset(crowd->ring_first, 0, (ring + 1) * sizeof(uint32_t));
    for (size_t e = 0; e < 27 * crowded; ++e)
        if (near[e] != MW_NONE && near[e] >= crowded)
            crowd->ring_first[near[e] - crowded + 1]++;
    for (size_t k = 0; k < ring; ++k)
        crowd->ring_first[k + 1] += crowd->ring_first[k];
    for (size_t e = 0; e < 27 * crowded; ++e)
        if (near[e] != MW_NONE && near[e] >= crowded)
            crowd->ring_entry[crowd->ring_first[near[e] - crowded]++] = (uint32_t)(e / 27) << 5 | (uint32_t)(26 - e % 27);
    for (size_t k = ring; k > 0; --k)
        crowd->ring_first[k] = crowd->ring_first[k - 1];
    crowd->ring_first[0] = 0;
    memset(crowd->at, 0xff, m * sizeof(uint32_t));
    for (size_t l = 0; l < lists; ++l) {
        size_t c = cell_of[l];
        crowd->slot_first[l] = crowd->slot_end[l] = (uint32_t)room;
        for (size_t i = s->start[c]; i < s->start[c + 1]; ++i)
            crowd->at[s->p[i].node] = (uint32_t)l << 5 | s->touch[i];
        room += s->start[c + 1] - s->start[c];
    }
    crowd->slot_first[lists] = (uint32_t)room;
    if (!(crowd->slots = (mw_Point4*)mw_arenaAllocate(arena, room, sizeof(mw_Point4))))
        return meshweld_ErrorMemory;
    crowd->near = near;
    crowd->crowded = crowded, crowd->lists = lists;
    return mw_crowdTakeOut(s, most);
}

int mw_engineWeld(uint32_t* owner, const mw_Nodes* nodes, const mw_DataCells* cells, mw_EngineTrace* trace)
{
    return mw_engineWeldBoxed(owner, nodes, cells, NULL, trace);
}

/* Steps 1 and 2: the nodes sorted by cell, then the pairs within r, in pairs (whose buffers come from
 * the arena; the sort's are freed), within the budgets pairs holds (mw_pairsBudget, unless said
 * otherwise). A trace of fewer than 4 phases stops after its last. */
static int mw_enginePairs(mw_Pairs* pairs, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                          const float box[6], uint32_t* scratch, mw_EngineTrace* trace, mw_Crowd* crowd)
{
    size_t m = nodes->count;
    mw_Sorted s;
    memset(&s, 0, sizeof(s));
    int phases = trace ? trace->phases : 5, error;
    if ((error = mw_sortNodes(&s, arena, nodes, cells, box, scratch)) != meshweld_Ok)
        return error;
    if (trace)
        mw_traceSort(trace, &s, m, cells);
    if (phases <= 2)
        return meshweld_Ok;
    /* crowded cells (more than two tests per node within them): the search's tests are counted
     * before it makes them (those within cells first: past the budget alone, nothing more is
     * looked up), and past the budget the sequential weld takes over at once, rather than after a
     * search stopped on its way (a set a little over the budget paid most of both); within it, the
     * search runs to its end. The crowded cells first, where they can be taken out (in a weld,
     * only where the cells crowd: their count costs a pass over the cells) */
    if (crowd && (s.within > 2 * m || !crowd->walk) && (error = mw_crowdSplit(crowd, &s, arena, m, nodes->dim, cells)) != meshweld_Ok)
        return error;
    if (s.within > 2 * m) {
        if (mw_countTests(&s, pairs->test_budget) > pairs->test_budget)
            return MW_CROWDED;
        pairs->test_budget = SIZE_MAX / 2;
    }
    if ((error = mw_pairsFirst(pairs, arena, m)) != meshweld_Ok)
        return error;
    error = mw_findPairs(pairs, arena, &s, nodes);
    if (trace)
        trace->tests = pairs->tests; /* those made before a dense set stopped the search, too */
    if (error != meshweld_Ok)
        return error;
    if (trace) {
        trace->pair_count = pairs->count;
        for (size_t k = 0; trace->pairs && k < pairs->count && k < trace->pair_capacity; ++k)
            trace->pairs[2 * k] = pairs->earlier[k], trace->pairs[2 * k + 1] = pairs->later[k];
    }
    mw_arenaRelease(arena, s.p);
    mw_arenaRelease(arena, s.start);
    mw_arenaRelease(arena, s.key);
    mw_arenaRelease(arena, s.touch);
    return meshweld_Ok;
}

/* Step 3 of the graph: each node's neighbours, earlier then later ones, by a counting sort of the
 * pairs (whose buffers are freed). */
static int mw_graphOfPairs(mw_Graph* graph, mw_Arena* arena, size_t m, mw_Pairs* pairs)
{
    size_t entries = 2 * pairs->count;
    uint32_t* first = (uint32_t*)mw_arenaAllocate(arena, m + 1, sizeof(uint32_t));
    uint32_t* neighbour = (uint32_t*)mw_arenaAllocate(arena, entries + 1, sizeof(uint32_t));
    if (!first || !neighbour)
        return meshweld_ErrorMemory;
    memset(first, 0, (m + 1) * sizeof(uint32_t));
    for (size_t k = 0; k < pairs->count; ++k)
        first[pairs->later[k] + 1]++, first[pairs->earlier[k] + 1]++;
    for (size_t j = 0; j < m; ++j)
        first[j + 1] += first[j];
    for (size_t k = 0; k < pairs->count; ++k)
        neighbour[first[pairs->later[k]]++] = pairs->earlier[k];
    for (size_t k = 0; k < pairs->count; ++k)
        neighbour[first[pairs->earlier[k]]++] = pairs->later[k];
    for (size_t j = m; j > 0; --j)
        first[j] = first[j - 1];
    first[0] = 0;
    mw_arenaRelease(arena, pairs->earlier);
    mw_arenaRelease(arena, pairs->later);
    graph->first = first, graph->neighbour = neighbour;
    return meshweld_Ok;
}

int mw_engineGraph(mw_Graph* graph, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                   const float box[6], uint32_t* scratch, int crowds)
{
    graph->first = graph->neighbour = NULL;
    graph->mark = NULL;
    mw_Pairs pairs = mw_pairsBudget(nodes->count, mw_testsPerNode(nodes->dim));
    mw_Crowd crowd;
    memset(&crowd, 0, sizeof(crowd));
    crowd.most = mw_crowdNodes(nodes->dim), crowd.walk = 1, crowd.marks = 1;
    int mark = arena->count;
    int error = mw_enginePairs(&pairs, arena, nodes, cells, box, scratch, NULL, crowds ? &crowd : NULL);
    if (error != meshweld_Ok) { /* (its buffers freed: the caller tries again, or another search) */
        mw_arenaUnwind(arena, mark);
        return error;
    }
    graph->mark = crowd.lists ? crowd.mark : NULL;
    return mw_graphOfPairs(graph, arena, nodes->count, &pairs);
}

/* mw_kdGraph's search: the nodes within r of node from and later than it, as pairs. */
typedef struct mw_KdPairs {
    mw_Pairs* pairs;
    mw_Arena* arena;
    uint32_t from;
    int error;
} mw_KdPairs;

static void mw_kdPair(void* context, uint32_t node)
{
    mw_KdPairs* k = (mw_KdPairs*)context;
    if (node <= k->from || k->error != meshweld_Ok || (k->error = mw_pairsRoom(k->pairs, k->arena, 1)) != meshweld_Ok)
        return;
    size_t n = k->pairs->count++;
    k->pairs->earlier[n] = k->from, k->pairs->later[n] = node;
}

int mw_kdGraph(mw_Graph* graph, mw_Arena* arena, const mw_Kdtree* tree, double r2)
{
    size_t m = tree->count;
    graph->first = graph->neighbour = NULL;
    graph->mark = NULL;
    mw_Pairs pairs = mw_pairsBudget(m, 0); /* the engine's budget of pairs (the tests are the tree's) */
    int mark = arena->count;
    mw_KdPairs search = {&pairs, arena, 0, mw_pairsFirst(&pairs, arena, m)};
    for (size_t t = 0; t < m && search.error == meshweld_Ok; ++t) { /* in the tree's order: near ones together */
        const float* q = &tree->coords[t * 3];
        double p[3] = {q[0], q[1], q[2]};
        search.from = tree->ids[t];
        mw_kdVisit(tree, p, r2, mw_kdPair, &search);
    }
    if (search.error != meshweld_Ok) {
        mw_arenaUnwind(arena, mark);
        return search.error;
    }
    return mw_graphOfPairs(graph, arena, m, &pairs);
}

/* Step 3 of a weld: the pairs as words (later node above earlier node) sorted by the later node in
 * radix passes of at most 11 bits, into *sorted (from the arena; the pairs' buffers are freed).
 * The pairs come in cell order: a counting sort into lists by node, as mw_engineGraph builds
 * them, wrote each pair into random memory twice, and needed a list start for every node. */
static int mw_pairsByLater(uint64_t** sorted, mw_Pairs* pairs, mw_Arena* arena, size_t m)
{
    size_t n = pairs->count;
    uint64_t* words = (uint64_t*)mw_arenaAllocate(arena, n + 1, sizeof(uint64_t));
    if (!words)
        return meshweld_ErrorMemory;
    mw_KeyOrder later_order = {0, 0}; /* already by later node (a row of points in input order) */
    for (size_t k = 0; k < n; ++k) {
        words[k] = (uint64_t)pairs->later[k] << 32 | pairs->earlier[k];
        mw_keyOrderAdd(&later_order, pairs->later[k]);
    }
    mw_arenaRelease(arena, pairs->earlier);
    mw_arenaRelease(arena, pairs->later);
    pairs->earlier = pairs->later = NULL;
    int passes, width;
    mw_radixDigits(mw_bitsFor(m), &passes, &width);
    passes = mw_passesNeeded(&later_order, passes);
    if (passes == 0) {
        *sorted = words;
        return meshweld_Ok;
    }
    uint64_t* other = (uint64_t*)mw_arenaAllocate(arena, n, sizeof(uint64_t));
    uint32_t* count = (uint32_t*)mw_arenaAllocate(arena, (size_t)1 << width, sizeof(uint32_t));
    if (!other || !count)
        return meshweld_ErrorMemory;
    *sorted = mw_radixHigh(words, other, n, 32, mw_bitsFor(m), count);
    mw_arenaRelease(arena, *sorted == words ? other : words);
    mw_arenaRelease(arena, count);
    return meshweld_Ok;
}

/* A set whose pairs within r pass the engine's budget many times over (dense clusters in any
 * order, a dense part among sparse points) makes every try sort its nodes and search until the
 * budget stops it, only for the sequential weld to do the work after. Its pairs show on a sample:
 * each pair of nodes lies in it with probability about f^2 (f the fraction sampled), so a sample
 * of about sqrt(32 m) nodes holds some 256 pairs where the whole set would hold twice the budget.
 * The nodes are taken at random gaps of 1 to 2 / f - 1 (every node alike, whatever the input
 * order: gaps of one length would sample rows and lattices in step with their period). Only speed
 * depends on the answer: a sample the sort declines in these cells, or memory that fails, answers
 * no, and the engine tries as it would. */
#ifndef MW_SAMPLE_FROM /* nodes from which the engine's tries are first weighed on a sample (a test build sets 2) */
#define MW_SAMPLE_FROM 65536
#endif

/* A sample's budgets: budget pairs, and tests not limited. */
static mw_Pairs mw_samplePairs(size_t m, size_t budget)
{
    mw_Pairs pairs = mw_pairsBudget(m, 0);
    pairs.budget = budget;
    pairs.test_budget = SIZE_MAX / 2;
    return pairs;
}

int mw_engineDense(const mw_Nodes* nodes, const mw_DataCells* cells, int crowds)
{
    size_t m = nodes->count;
    if (m < MW_SAMPLE_FROM || m < 2)
        return 0;
    double f = m > 32 ? sqrt(32.0 / (double)m) : 1.0; /* (every node of a small set: gaps of 1) */
    size_t span = (size_t)(2.0 / f), room = (size_t)(2.0 * f * (double)m) + 64, k = 0;
    mw_Arena arena = {{0}, 0};
    uint32_t* point = (uint32_t*)mw_arenaAllocate(&arena, room, sizeof(uint32_t));
    uint32_t* scratch = point ? (uint32_t*)mw_arenaAllocate(&arena, room, sizeof(uint32_t)) : NULL;
    int dense = 0;
    if (scratch) {
        for (size_t j = mw_mix(MW_K0) % span; j < m && k < room; j += 1 + mw_mix((uint32_t)k * MW_K1) % (span - 1))
            point[k++] = nodes->point ? nodes->point[j] : (uint32_t)j;
        mw_Nodes sample = {nodes->points, nodes->stride, nodes->dim, point, k, nodes->radius};
        /* the sample's budget of pairs: twice the set's, times part^2; its tests are not limited
         * (in cells this narrow they stay within a few times the pairs and the nodes). MW_DENSE
         * before the pair buffers were made means the sort declined the cells; after, the pairs
         * passed the budget (or one node's candidates did, more than cells this narrow hold
         * without many pairs) */
        double part = (double)k / (double)m;
        size_t budget = (size_t)(2.0 * (double)mw_pairsBudget(m, 0).budget * part * part) + 1;
        mw_Pairs pairs = mw_samplePairs(m, budget);
        int mark = arena.count;
        int found = mw_enginePairs(&pairs, &arena, &sample, cells, NULL, scratch, NULL, NULL);
        if (found == meshweld_Ok)
            dense = MW_SPARSE;
        if (found == MW_DENSE && pairs.earlier != NULL) {
            dense = MW_DENSE;
            if (crowds) {
                /* a second look: the sample's crowded cells (two nodes or more: some 2 / f nodes
                 * or more in the set) taken out. Where they hold under 90% of it and the rest has
                 * few pairs (an eighth of that budget), the pairs were a dense core's, which the
                 * engine's walk takes one by one */
                mw_arenaUnwind(&arena, mark);
                mw_Crowd look;
                memset(&look, 0, sizeof(look));
                look.most = 1;
                pairs = mw_samplePairs(m, budget / 8 + 1);
                if (mw_enginePairs(&pairs, &arena, &sample, cells, NULL, scratch, NULL, &look) == meshweld_Ok)
                    dense = MW_CORE;
            }
        }
    }
    mw_arenaFree(&arena);
    return dense;
}

/* The first representative of list cell l within r of p and earlier than best (else best); *compared
 * counts the representatives read. */
MW_INLINE uint32_t mw_crowdEarliest(const mw_Crowd* crowd, uint32_t l, const double p[3], uint32_t best, double r2,
                                    int dim, size_t* compared)
{
    const mw_Point4* slot = crowd->slots;
    uint32_t i = crowd->slot_first[l], end = crowd->slot_end[l];
    for (; i < end && slot[i].node < best; ++i) {
        double dx = p[0] - slot[i].x, dy = p[1] - slot[i].y, d = mw_squared(dx) + mw_squared(dy);
        if (dim == 3) {
            double dz = p[2] - slot[i].z;
            d += mw_squared(dz);
        }
        if (d <= r2) {
            best = slot[i].node;
            break;
        }
    }
    *compared += i - crowd->slot_first[l] + (i < end);
    return best;
}

/* Step 4 with crowded cells: every node in order, its earliest neighbour among the pairs as
 * before, and for the nodes of the list cells the earliest representative within r in the list
 * cells its r-box touches (a crowded node: all of them; a node of the ring: the crowded ones, the
 * others being its pairs'); one that finds none joins its cell's list. Returns the
 * representatives compared. */
static MW_NOINLINE size_t mw_crowdWalk(uint32_t* owner, unsigned char* merged, const uint64_t* sorted, size_t count,
                                       mw_Crowd* crowd, const mw_Nodes* nodes)
{
    uint32_t touched[27]; /* by touch state: the offsets (dx + 1) + 3 (dy + 1) + 9 (dz + 1) its r-box reaches */
    for (int t = 0; t < 27; ++t) {
        touched[t] = 0;
        for (int o = 0; o < 27; ++o)
            if ((o % 3 == 1 || o % 3 == t % 3) && (o / 3 % 3 == 1 || o / 3 % 3 == t / 3 % 3) &&
                (o / 9 == 1 || o / 9 == t / 9))
                touched[t] |= 1u << o;
    }
    int dim = nodes->dim;
    double r2 = nodes->radius * nodes->radius;
    size_t m = nodes->count, compared = 0, k = 0;
    for (size_t j = 0; j < m; ++j) {
        uint32_t best = MW_NONE;
        for (; k < count && (uint32_t)(sorted[k] >> 32) == j; ++k) {
            uint32_t a = (uint32_t)sorted[k];
            best = !(merged[a >> 3] >> (a & 7) & 1) && a < best ? a : best;
        }
        uint32_t at = crowd->at[j];
        if (at != MW_NONE) {
            const float* q = mw_nodePoint(nodes, j);
            double p[3] = {q[0], q[1], dim == 3 ? q[2] : 0.0};
            uint32_t l = at >> 5, reach = touched[at & 31];
            if (l < crowd->crowded) {
                for (int o = 0; o < 27; ++o)
                    if (reach >> o & 1 && crowd->near[27 * l + o] != MW_NONE)
                        best = mw_crowdEarliest(crowd, crowd->near[27 * l + o], p, best, r2, dim, &compared);
            } else {
                for (uint32_t e = crowd->ring_first[l - crowd->crowded]; e < crowd->ring_first[l - crowd->crowded + 1]; ++e)
                    if (reach >> (crowd->ring_entry[e] & 31) & 1)
                        best = mw_crowdEarliest(crowd, crowd->ring_entry[e] >> 5, p, best, r2, dim, &compared);
            }
            if (best == MW_NONE) {
                mw_Point4* slot = &crowd->slots[crowd->slot_end[l]++];
                slot->x = q[0], slot->y = q[1], slot->z = dim == 3 ? q[2] : 0.0f, slot->node = (uint32_t)j;
            }
        }
        if (best != MW_NONE) {
            owner[j] = best;
            merged[j >> 3] |= (unsigned char)(1u << (j & 7));
        }
    }
    return compared;
}

int mw_engineWeldBoxed(uint32_t* owner, const mw_Nodes* nodes, const mw_DataCells* cells, const float box[6],
                       mw_EngineTrace* trace)
{
    size_t m = nodes->count;
    if (m == 0)
        return meshweld_Ok;
    mw_Arena arena = {{0}, 0};
    mw_Pairs pairs = mw_pairsBudget(m, mw_testsPerNode(nodes->dim));
    uint64_t* sorted = NULL;
    unsigned char* merged = NULL;
    mw_Crowd crowd;
    memset(&crowd, 0, sizeof(crowd));
    crowd.most = mw_crowdNodes(nodes->dim), crowd.walk = 1;
    int error = mw_enginePairs(&pairs, &arena, nodes, cells, box, owner, trace, &crowd); /* owner[] as scratch */
    if (trace)
        trace->crowded = crowd.nodes;
    if (error != meshweld_Ok || (trace && trace->phases <= 3))
        goto out;
    if ((error = mw_pairsByLater(&sorted, &pairs, &arena, m)) != meshweld_Ok || (trace && trace->phases <= 4))
        goto out;
    /* step 4: the greedy, in node order, over the pairs alone: every pair of a node comes after
     * those of each earlier one, so its earlier neighbours are decided when it is met. A node
     * merged into an earlier one is marked in bits: the neighbours lie anywhere in node order,
     * and their bits stay in the cache where their owners (32 times the bytes) do not; a node
     * with no pair stays its own. */
    if (!(merged = (unsigned char*)mw_arenaAllocate(&arena, m / 8 + 1, 1))) {
        error = meshweld_ErrorMemory;
        goto out;
    }
    memset(merged, 0, m / 8 + 1);
    for (size_t j = 0; j < m; ++j)
        owner[j] = (uint32_t)j;
    if (crowd.lists) {
        size_t compared = mw_crowdWalk(owner, merged, sorted, pairs.count, &crowd, nodes);
        if (trace)
            trace->steps = compared;
        goto out;
    }
    for (size_t k = 0; k < pairs.count;) {
        uint32_t j = (uint32_t)(sorted[k] >> 32), best = MW_NONE;
        for (; k < pairs.count && (uint32_t)(sorted[k] >> 32) == j; ++k) {
            uint32_t a = (uint32_t)sorted[k];
            best = !(merged[a >> 3] >> (a & 7) & 1) && a < best ? a : best;
        }
        if (best != MW_NONE) {
            owner[j] = best;
            merged[j >> 3] |= (unsigned char)(1u << (j & 7));
        }
    }
out:
    mw_arenaFree(&arena);
    return error;
}

/* The exact-duplicate pass: bitwise-identical positions (-0 folded onto +0) collapse before any
 * method sees them, by one probe per point into a hash table of the position bits. Every new
 * distinct position of a batch becomes a node, numbered in order of first appearance; a position
 * seen in an earlier batch takes that batch's output at once.
 *
 * Identical points get the same answer from the greedy whatever the method (later
 * representatives are never earlier, and the loose store's answer for a position is decided when
 * the position is first met), so welding the nodes alone and copying the answers is the same
 * weld. This is what makes guarantee 3 hold for the loose store (the article's loop lets a
 * duplicate find a representative stored after its twin was welded), and what makes triangle
 * soups cheap. */
#include "internal.h"

#include <math.h>

#ifndef MW_CHUNK /* (the fuzz build sets 16) */
#define MW_CHUNK 1024 /* points for which room is made at a time (more at once would grow the table
                       * of a small weld for points that are mostly duplicates); MW_PROBE is a
                       * whole number of chunks */
#endif
#define MW_AHEAD 8     /* lookups between the prefetch of a slot and its use */
#define MW_CACHED_SLOTS 16384 /* tables of more slots (256 KB) prefetch their slots */

void mw_exactForget(mw_Table* exact, const float* points, size_t stride, int dim, const mw_Distinct* d)
{
    if (!exact->entries || !d->node_point) /* (no node_point: the batch left the table already) */
        return;
    for (size_t j = 0; j < d->nodes; ++j) {
        uint32_t key[3];
        mw_exactKey(mw_point(points, stride, d->node_point[j]), dim, key);
        mw_Entry* e = mw_tableFind(exact, key[0], key[1], key[2]);
        if (e->value != MW_NONE)
            mw_tableErase(exact, e);
    }
}

/* The first non-finite point of [from, to), reported through info and the table restored, or
 * meshweld_Ok when there is none. */
static int mw_exactFinite(mw_Table* exact, const float* points, size_t from, size_t to, size_t stride, int dim,
                          const mw_Distinct* d, meshweld_Info* info)
{
    for (size_t i = from; i < to; ++i) {
        const float* src = mw_point(points, stride, i);
        float x = src[0], y = src[1], z = dim == 3 ? src[2] : 0.0f;
        if ((x - x) + (y - y) + (z - z) != 0.0f) { /* NaN or infinite */
            if (info)
                info->error_point = i, info->error_axis = isfinite(x) ? (isfinite(y) ? 2 : 1) : 0;
            mw_exactForget(exact, points, stride, dim, d);
            return meshweld_ErrorNonFinite;
        }
    }
    return meshweld_Ok;
}

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define MW_SSE2 1
/* mw_exactBox over blocks of 12 packed floats (4 points in 3D, 6 in 2D), three vectors in which
 * lane k of vector v always holds axis (4 v + k) % dim. minps and maxps take the second operand
 * on NaN, as the scalar loop's comparisons do, and the result is the same bit for bit. */
static float mw_exactBoxBlocks(const float* f, size_t blocks, int dim, float low[3], float high[3])
{
    float lo[12], hi[12], bad[12];
    for (int k = 0; k < 12; ++k)
        lo[k] = low[k % dim], hi[k] = high[k % dim];
    __m128 l0 = _mm_loadu_ps(lo), l1 = _mm_loadu_ps(lo + 4), l2 = _mm_loadu_ps(lo + 8);
    __m128 h0 = _mm_loadu_ps(hi), h1 = _mm_loadu_ps(hi + 4), h2 = _mm_loadu_ps(hi + 8);
    __m128 b0 = _mm_setzero_ps(), b1 = b0, b2 = b0;
    for (size_t b = 0; b < blocks; ++b, f += 12) {
        __m128 x0 = _mm_loadu_ps(f), x1 = _mm_loadu_ps(f + 4), x2 = _mm_loadu_ps(f + 8);
        b0 = _mm_add_ps(b0, _mm_sub_ps(x0, x0)), b1 = _mm_add_ps(b1, _mm_sub_ps(x1, x1));
        b2 = _mm_add_ps(b2, _mm_sub_ps(x2, x2));
        l0 = _mm_min_ps(l0, x0), l1 = _mm_min_ps(l1, x1), l2 = _mm_min_ps(l2, x2);
        h0 = _mm_max_ps(h0, x0), h1 = _mm_max_ps(h1, x1), h2 = _mm_max_ps(h2, x2);
    }
    _mm_storeu_ps(lo, l0), _mm_storeu_ps(lo + 4, l1), _mm_storeu_ps(lo + 8, l2);
    _mm_storeu_ps(hi, h0), _mm_storeu_ps(hi + 4, h1), _mm_storeu_ps(hi + 8, h2);
    _mm_storeu_ps(bad, _mm_add_ps(_mm_add_ps(b0, b1), b2));
    for (int k = 0; k < 12; ++k) {
        int a = k % dim;
        low[a] = low[a] < lo[k] ? low[a] : lo[k];
        high[a] = high[a] > hi[k] ? high[a] : hi[k];
    }
    return (bad[0] + bad[1]) + (bad[2] + bad[3]);
}
#else
#define MW_SSE2 0
#endif

/* The box of points [from, to) folded into low and high; the sum (x - x) + (y - y) + (z - z) of
 * all of them is returned, 0 when every coordinate is finite (NaN otherwise). */
static float mw_exactBox(const float* points, size_t from, size_t to, size_t stride, int dim, float low[3],
                         float high[3])
{
    float bad = 0.0f;
#if MW_SSE2
    if (stride == (size_t)dim * sizeof(float)) { /* whole blocks of 12 floats, then the rest below */
        size_t blocks = (to - from) * (size_t)dim / 12;
        bad = mw_exactBoxBlocks(points + from * (size_t)dim, blocks, dim, low, high);
        from += blocks * 12 / (size_t)dim;
    }
#endif
    float lx = low[0], ly = low[1], lz = low[2], hx = high[0], hy = high[1], hz = high[2];
    const char* src = (const char*)mw_point(points, stride, from);
    if (dim == 3) {
        for (size_t i = from; i < to; ++i, src += stride) {
            const float* q = (const float*)src;
            float x = q[0], y = q[1], z = q[2];
            bad += (x - x) + (y - y) + (z - z);
            lx = lx < x ? lx : x, hx = hx > x ? hx : x;
            ly = ly < y ? ly : y, hy = hy > y ? hy : y;
            lz = lz < z ? lz : z, hz = hz > z ? hz : z;
        }
    } else {
        for (size_t i = from; i < to; ++i, src += stride) {
            const float* q = (const float*)src;
            float x = q[0], y = q[1];
            bad += (x - x) + (y - y);
            lx = lx < x ? lx : x, hx = hx > x ? hx : x;
            ly = ly < y ? ly : y, hy = hy > y ? hy : y;
        }
    }
    low[0] = lx, low[1] = ly, low[2] = lz, high[0] = hx, high[1] = hy, high[2] = hz;
    return bad;
}

/* Point q folded into the box; returns (x - x) + (y - y) + (z - z): 0 when it is finite. */
static inline float mw_boxAdd(const float* q, int dim, float low[3], float high[3])
{
    float x = q[0], y = q[1], z = dim == 3 ? q[2] : 0.0f;
    low[0] = low[0] < x ? low[0] : x, high[0] = high[0] > x ? high[0] : x;
    low[1] = low[1] < y ? low[1] : y, high[1] = high[1] > y ? high[1] : y;
    low[2] = low[2] < z ? low[2] : z, high[2] = high[2] > z ? high[2] : z;
    return (x - x) + (y - y) + (z - z);
}

/* Points [from, to) looked up, and inserted when new (room made), for mw_exactPass; dim and
 * ahead are constants where it is called, and the table's fields and the box are kept in locals
 * (the stores through remap could alias them). Returns the box's finite check of the new positions
 * and of those first met in an earlier batch: a duplicate of this batch has its node's coordinates
 * (up to the sign of 0).
 *
 * With ahead, the keys and hashes of the next MW_AHEAD points wait in a ring, and the lookup of
 * point i starts loading the slot of point i + MW_AHEAD: in a table larger than the cache a lookup
 * is a miss, and the branch on its answer, which the predictor cannot learn, would otherwise keep
 * the next misses from starting. In a table the cache holds that is only more work. */
MW_INLINE float mw_exactChunk(mw_Table* exact, unsigned int* remap, const float* points, size_t from, size_t to,
                              size_t stride, int dim, int ahead, mw_Distinct* d, uint32_t placeholder,
                              float low[3], float high[3], size_t* hits)
{
    mw_Table table = *exact;
    float box[6] = {low[0], low[1], low[2], high[0], high[1], high[2]};
    size_t nodes = d->nodes, found = 0;
    float bad = 0.0f;
    uint32_t ring[MW_AHEAD][4]; /* key, hash */
    for (size_t i = from; ahead && i < to && i - from < MW_AHEAD; ++i) {
        uint32_t* next = ring[i % MW_AHEAD];
        mw_exactKey(mw_point(points, stride, i), dim, next);
        next[3] = mw_keyHash(&table, next[0], next[1], next[2]);
    }
    for (size_t i = from; i < to; ++i) {
        const float* src = mw_point(points, stride, i);
        uint32_t key[3], hash;
        if (ahead) {
            uint32_t* next = ring[i % MW_AHEAD];
            key[0] = next[0], key[1] = next[1], key[2] = next[2], hash = next[3];
            if (to - i > MW_AHEAD) {
                mw_exactKey(mw_point(points, stride, i + MW_AHEAD), dim, next);
                next[3] = mw_keyHash(&table, next[0], next[1], next[2]);
                MW_PREFETCH(&table.entries[next[3] & table.mask]);
            }
        } else {
            mw_exactKey(src, dim, key);
            hash = mw_keyHash(&table, key[0], key[1], key[2]);
        }
        mw_Entry* e = mw_tableFindHashed(&table, hash, key[0], key[1], key[2]);
        if (e->value != MW_NONE) {
            found++;
            if (e->value > placeholder) {
                remap[i] = MW_NONE - 1 - e->value;
            } else {
                remap[i] = e->value;
                d->settled[i >> 3] |= (unsigned char)(1u << (i & 7));
                bad += mw_boxAdd(src, dim, box, box + 3);
            }
        } else {
            bad += mw_boxAdd(src, dim, box, box + 3);
            memcpy(e->key, key, sizeof(key));
            e->value = MW_NONE - 1 - (uint32_t)nodes;
            table.count++;
            d->node_point[nodes] = (uint32_t)i;
            remap[i] = (uint32_t)nodes++;
        }
    }
    exact->count = table.count, d->nodes = nodes, *hits += found;
    for (int a = 0; a < 3; ++a)
        low[a] = box[a], high[a] = box[3 + a];
    return bad;
}

/* Whether a one-shot pass whose first MW_PROBE points held few duplicates should keep its table
 * all the same: the same positions may come back far apart (a soup whose triangles are in random
 * order, points merged from several scans), which a prefix of the input cannot see: in random
 * order, its share of repeats grows with its length. MW_TWINS points from the whole input, one at
 * random in each of MW_TWINS equal stretches (at one offset in each, every sampled point of a
 * soup whose stretch is a multiple of 3 would be the same corner of its triangle, and the corners
 * of one kind repeat less: a shuffled grid of quads, whose positions have 6 copies, showed 1
 * repeat where 11 were due): a position with d copies among n points repeats in the sample about
 * MW_TWINS^2 / 2 * (d - 1) / n times. Keeps it from d = 1.5 on (a third of the points duplicates,
 * a table that pays), and only past a few repeats. A failed allocation answers no. */
#define MW_TWINS 4096
static int mw_manyTwins(const float* points, size_t count, size_t stride, int dim)
{
    mw_Table sample = {0};
    if (count < 4 * MW_TWINS || mw_tableReserve(&sample, MW_TWINS))
        return 0;
    size_t repeats = 0, step = count / MW_TWINS;
    for (size_t k = 0; k < MW_TWINS; ++k) {
        uint32_t key[3];
        size_t at = k * step + mw_mix((uint32_t)k * MW_K0) % step;
        mw_Entry* e = mw_exactSlot(&sample, mw_point(points, stride, at), dim, key);
        if (e->value != MW_NONE)
            repeats++;
        else
            mw_exactInsert(&sample, e, key, (uint32_t)k);
    }
    mw_tableFree(&sample);
    double expected = 0.5 * (double)MW_TWINS * (double)MW_TWINS * 0.5 / (double)count; /* at d = 1.5 */
    return repeats >= 4 && (double)repeats >= expected;
}

int mw_exactPass(mw_Table* exact, int mode, unsigned int* remap, const float* points, size_t count, size_t stride,
                 int dim, mw_Distinct* d, meshweld_Info* info)
{
    int cache = mode != MW_EXACT_NONE;
    size_t looks = 0, hits = 0;
    uint32_t placeholder = MW_NONE - 1 - (uint32_t)count; /* values above it are this batch's nodes */
    float low[3] = {0.0f, 0.0f, 0.0f}, high[3] = {0.0f, 0.0f, 0.0f};
    d->nodes = 0;
    if (!cache)
        d->node_point = NULL; /* node i is point i */
    /* a pass that may leave its table first reserves for its probe alone */
    if (cache && mw_tableReserve(exact, exact->count + (mode != MW_EXACT_KEEP && count > MW_PROBE ? MW_PROBE : count)))
        return meshweld_ErrorMemory;
    for (int a = 0; count > 0 && a < dim; ++a) /* the box starts at the first point (when finite) */
        low[a] = high[a] = (points[a] - points[a]) == 0.0f ? points[a] : 0.0f;
    /* chunks of MW_CHUNK points: room for a whole chunk is made before it, the coordinates are
     * checked after it (points are only looked up and inserted until then: on a non-finite one the
     * table forgets the batch's nodes, as it does on failure) */
    for (size_t from = 0; from < count;) {
        size_t to = count - from > MW_CHUNK ? from + MW_CHUNK : count;
        if (!cache) {
            /* no table: every point is a node of its own (node i is point i) */
            if (mw_exactBox(points, from, to, stride, dim, low, high) != 0.0f)
                return mw_exactFinite(exact, points, from, to, stride, dim, d, info);
        } else {
            if (exact->count + (to - from) > (exact->mask + 1) / 2) {
                size_t total = exact->count + (to - from);
                total = mode == MW_EXACT_ONESHOT && total < count / 4 ? count / 4 : total;
                total = total < 2 * exact->count ? 2 * exact->count : total;
                if (mw_tableReserve(exact, total)) {
                    mw_exactForget(exact, points, stride, dim, d);
                    return meshweld_ErrorMemory;
                }
            }
            /* the chunk's loop compiled for each dim and look-ahead */
#define MW_CHUNK_AS(D, A) mw_exactChunk(exact, remap, points, from, to, stride, D, A, d, placeholder, low, high, &hits)
            int ahead = exact->mask >= MW_CACHED_SLOTS;
            float bad = dim == 3 ? (ahead ? MW_CHUNK_AS(3, 1) : MW_CHUNK_AS(3, 0))
                                 : (ahead ? MW_CHUNK_AS(2, 1) : MW_CHUNK_AS(2, 0));
#undef MW_CHUNK_AS
            looks += to - from;
            if (bad != 0.0f)
                return mw_exactFinite(exact, points, from, to, stride, dim, d, info);
        }
        if (cache && mode != MW_EXACT_KEEP && looks == MW_PROBE) {
            if (hits * 8 < looks && !mw_manyTwins(points, count, stride, dim)) {
                cache = 0; /* few duplicates: the table costs more than it saves */
                if (mode == MW_EXACT_ONESHOT)
                    mw_tableFree(exact);
                else
                    mw_exactForget(exact, points, stride, dim, d); /* the earlier batches' entries stay */
                /* from the first point on, every point is a node of its own: the duplicates met so
                 * far as well (the rule merges them anyway), so that node i is point i */
                d->node_point = NULL;
            } else if (mode == MW_EXACT_WELDER && mw_tableReserve(exact, exact->count + (count - looks))) {
                /* a welder's table kept: room for the rest at once, as the welder had before */
                mw_exactForget(exact, points, stride, dim, d);
                return meshweld_ErrorMemory;
            }
        }
        from = to;
    }
    if (!cache)
        d->nodes = count;
    float extent = 0.0f;
    for (int a = 0; a < 3; ++a) {
        extent = -low[a] > extent ? -low[a] : extent;
        extent = high[a] > extent ? high[a] : extent;
        d->low[a] = low[a], d->high[a] = high[a];
    }
    d->extent = extent;
    return meshweld_Ok;
}

void mw_exactSettle(mw_Table* exact, unsigned int* remap, const float* points, size_t count, size_t stride, int dim,
                    const mw_Distinct* d, const uint32_t* node_out)
{
    for (size_t j = 0; exact && exact->entries && d->node_point && j < d->nodes; ++j) {
        uint32_t key[3];
        mw_exactKey(mw_point(points, stride, d->node_point[j]), dim, key);
        mw_tableFind(exact, key[0], key[1], key[2])->value = node_out[j];
    }
    if (!d->node_point) { /* node i is point i */
        memcpy(remap, node_out, count * sizeof(uint32_t));
        return;
    }
    for (size_t i = 0; i < count; ++i)
        if (!d->settled || !(d->settled[i >> 3] & (1u << (i & 7))))
            remap[i] = node_out[remap[i]];
}

mw_Entry* mw_exactSlot(const mw_Table* exact, const float* src, int dim, uint32_t key[3])
{
    mw_exactKey(src, dim, key);
    return mw_tableFind(exact, key[0], key[1], key[2]);
}

void mw_exactInsert(mw_Table* exact, mw_Entry* slot, const uint32_t key[3], uint32_t value)
{
    memcpy(slot->key, key, 3 * sizeof(uint32_t));
    slot->value = value;
    exact->count++;
}

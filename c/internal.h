/* Internal declarations shared by the library's source files. Not installed. */
#ifndef MESHWELD_INTERNAL_H
#define MESHWELD_INTERNAL_H

#include "meshweld.h"

#include <stdint.h>
#include <string.h>

#define MW_NONE 0xffffffffu

/* Slack on every grid cell: cells are (1 + 2^-16) times the nominal size, so that rounding in
 * the cell computation can never make a search miss a point within r. Published bounds R carry
 * (1 + 2^-15). */
#define MW_SLACK (1.0 + 1.0 / 65536.0)
#define MW_BOUND_SLACK (1.0 + 1.0 / 32768.0)

/* GRID's cells (cells_data.c, the spatial engine and the index of representatives) take
 * coordinates below 2^44 cells from 0: cell coordinates are 64-bit floors there (mw_floor64; the
 * engine's usual path takes 32-bit ones below 2^31), the index keys a cell by the low 32 bits of
 * each (cells 2^32 apart share a key, and the distance decides), and the reach covers the
 * rounding of s = p / size (mw_dataCellsReach). */
#define MW_CELL_LIMIT 17592186044416.0
/* From 2^30 cells out, the reach covers the rounding of s by a term of its own (its 2^-20 cells
 * would cover a pair's up to 2^32 cells: a factor 4 to spare). */
#define MW_FAR_CELLS 1073741824.0

/* The article's grids (grid-r, grid-2r, hex, bcc) take points whose coordinates satisfy
 * |x| < MW_GRID_RANGE * r, whatever the cell size: 2^33 r (8.6e9 r, 5e5 at r = 1e-4), that is up to
 * about 2^33 cells per axis, held in 64-bit cell coordinates. Why rounding cannot make a search miss
 * a point within r there: every cell decision a method takes for p is the exact decision for a
 * point p' with |p' - p| <= eta, and the margin of each scheme (cells_article.c) is r (1 + 2^-16) because
 * cells are MW_SLACK times nominal; so the search is complete while eta(p) + eta(q) <= r 2^-16.
 * With u = 2^-53 and P = max |coordinate|:
 *   - s = p * scale is rounded once (computed as p * hi + p * lo, both products exact, see
 *     mw_scaled): |ds| <= P u in distance. floor, s + 1/2 and s - floor(s) are exact below 2^52
 *     cells, so grid-r, grid-2r and bcc have eta <= P u, plus O(u r) from bcc's squared
 *     deviations (|dev| <= 1, no growth with P);
 *   - hex also rounds v = s1 * 2/sqrt3 (constant and product: dv <= 3.5 P u / d in lattice units,
 *     d the lattice spacing) and u = s0 - v/2 (du <= 4.4 P u / d); its nearest centre is decided
 *     from the same (u, v), so eta <= |du e1 + dv e2| <= 6.9 P u.
 * The scale itself (1 / (r * slack), two roundings) is off by at most 2u relatively: the same for
 * every point, a change of cell size that takes 2u r from the margin.
 * So eta(p) + eta(q) <= 14 P u + O(u r) < r 2^-16 when P / r < 2^37 / 14 - a little, about 2^33.19:
 * 2^33 leaves a factor 1.14. Beyond it the grids give ErrorRange (use kdtree or auto). */
#define MW_GRID_RANGE 8589934592.0

/* Cell keys of the article's grids stay in int32 below this many cells (neighbours, hex lattice
 * coordinates and bcc's doubled coordinates included); beyond it a welder verifies the high words
 * of a cell key through its representative (method_article.c). */
#define MW_NEAR_CELLS 268435456.0

/* floor for |x| < 2^62, without a libm call */
static inline int64_t mw_floor64(double x)
{
    int64_t t = (int64_t)x;
    return t - (x < (double)t);
}

/* A double forced to memory: a product passed through it is rounded to double before any sum, so
 * no compiler flag (-ffp-contract=fast, -march with FMA) can fuse it into an fma. */
static inline double mw_rounded(double x)
{
    volatile double t = x;
    return t;
}

/* Inlined even where a compiler would not (WebAssembly's did not inline the rule's tests into the
 * attribute weld's loops, and paid a call and the query in memory for every test). */
#if defined(__GNUC__) || defined(__clang__)
#define MW_INLINE __attribute__((always_inline)) static inline
#elif defined(_MSC_VER)
#define MW_INLINE static __forceinline
#else
#define MW_INLINE static inline
#endif
/* Kept out of its caller (a rare path whose inlining changed the code of the hot loop beside it). */
#if defined(__GNUC__) || defined(__clang__)
#define MW_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define MW_NOINLINE __declspec(noinline)
#else
#define MW_NOINLINE
#endif

/* Starts loading the cache line at p, for a lookup a few iterations later: a prefetch where the
 * compiler has one; in WebAssembly, which has none, a load whose value is dropped (volatile, so it
 * stays), which the engine cannot drop either since a load may trap. */
#if defined(__wasm__)
#define MW_PREFETCH(p) ((void)*(const volatile unsigned char*)(const void*)(p))
#elif defined(__GNUC__) || defined(__clang__)
#define MW_PREFETCH(p) __builtin_prefetch(p)
#else
#define MW_PREFETCH(p) ((void)(p))
#endif

/* x * x rounded to double before any sum: an empty asm that claims to change the product keeps a
 * compiler from fusing it into an fma with what it is added to (the squares of float differences
 * are not always exact: a difference can carry up to 53 bits). Free where it applies: the value
 * stays in its register. WebAssembly has no fused multiply-add, MSVC does not contract by default;
 * elsewhere the product goes through memory. */
static inline double mw_squared(double x)
{
    double y = x * x;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
    __asm__("" : "+x"(y));
#elif defined(__GNUC__) && defined(__aarch64__)
    __asm__("" : "+w"(y));
#elif defined(__wasm__) || defined(_MSC_VER)
#else
    y = mw_rounded(y);
#endif
    return y;
}

/* scale split as hi + lo, hi with 29 significant bits and lo = scale - hi (exact, at most 24
 * bits): for a float p both p * hi and p * lo are exact in double, so p * hi + p * lo is p * scale
 * rounded once, whether or not the compiler fuses the sum into an fma (fma rounds once too). */
static inline void mw_splitScale(double scale, double split[2])
{
    uint64_t bits;
    memcpy(&bits, &scale, sizeof(bits));
    bits &= ~(uint64_t)0xffffff; /* keep 53 - 24 = 29 significant bits */
    memcpy(&split[0], &bits, sizeof(bits));
    split[1] = scale - split[0];
}

static inline double mw_scaled(double p, const double split[2])
{
    return p * split[0] + p * split[1];
}

/* options.c: the options of a request, checked: dim 2 or 3 (0 read as 3), a finite radius >= 0,
 * a known method that exists in dim, a known store. */
typedef struct mw_Parsed {
    int dim, method, store;
    double radius;
} mw_Parsed;

int mw_parseOptions(const meshweld_Options* options, mw_Parsed* parsed);

/* allocator.c */
void* mw_allocate(size_t count, size_t size); /* NULL on failure or if count * size overflows */
void mw_deallocate(void* pointer);

/* A scratch arena, as meshoptimizer's meshopt_Allocator: every block a call allocates is freed
 * together by mw_arenaFree (on every path out), so no function frees buffers one by one. */
#define MW_ARENA_BLOCKS 24
typedef struct mw_Arena {
    void* blocks[MW_ARENA_BLOCKS];
    int count;
} mw_Arena;

void* mw_arenaAllocate(mw_Arena* arena, size_t count, size_t size); /* NULL on failure */
void mw_arenaRelease(mw_Arena* arena, void* block); /* frees one block early */
void mw_arenaUnwind(mw_Arena* arena, int mark); /* frees the blocks allocated since arena->count was mark */
void mw_arenaFree(mw_Arena* arena);

/* A test build (MW_PROBE_CHECK=n) stops the process where a look-up probes more than n slots:
 * keys crafted to collide must not find one run of slots. */
#ifdef MW_PROBE_CHECK
#include <stdio.h>
#include <stdlib.h>
#define MW_PROBES_START size_t mw_probes = 0
#define MW_PROBES_COUNT(slots)                                                                     \
    if (++mw_probes > (MW_PROBE_CHECK)) {                                                          \
        fprintf(stderr, "meshweld: a look-up probed %zu slots of %zu\n", mw_probes, (size_t)(slots)); \
        abort();                                                                                   \
    }
#else
#define MW_PROBES_START
#define MW_PROBES_COUNT(slots)
#endif

/* Open-addressing hash table with linear probing; power-of-two capacity, load <= 1/2 after
 * mw_tableReserve. Keys are three 32-bit words, the value MW_NONE marks an empty slot. */
typedef struct mw_Entry {
    uint32_t key[3];
    uint32_t value;
} mw_Entry;

typedef struct mw_Table {
    mw_Entry* entries;
    size_t mask; /* capacity - 1, or 0 when empty */
    size_t count;
    /* the table's own odd multipliers, one a key word, in each hash of its keys (mw_keyHash,
     * mw_cellHash): drawn when the table first gets its slots (mw_saltDraw), so that keys made to
     * collide in a hash of known constants (a flood of points in one run of slots, each insert
     * probing them all) do not collide in it. Results never depend on them. */
    uint64_t factor[3];
} mw_Table;

int mw_tableReserve(mw_Table* table, size_t total);

/* count odd multipliers for a hash, random: from meshweld_seedHashes' seed, the address where (a
 * block just allocated), and those of this frame and of the seed (each moved where address space
 * layout randomisation puts them), mixed. */
void mw_saltDraw(uint64_t* factor, size_t count, const void* where);
void mw_tableFree(mw_Table* table);

/* multiply-shift: each word times an odd 64-bit factor, the high half of their xor (each of its
 * bits depends on every bit of each word). Random factors make it a universal family: two keys
 * share a slot about as often as two random ones would. On lattices of integers, of decimals and
 * of 2D points (z = 0) its probes are as short as with a finaliser's further mixing. */
static inline uint32_t mw_hashBy(uint64_t f0, uint64_t f1, uint64_t f2, uint32_t a, uint32_t b, uint32_t c)
{
    return (uint32_t)(((uint64_t)a * f0 ^ (uint64_t)b * f1 ^ (uint64_t)c * f2) >> 32);
}

/* The hash of three words by fixed factors, for what no input should steer (the kd-tree's pivots);
 * the tables hash their keys by their own (mw_keyHash). */
static inline uint32_t mw_hash(uint32_t a, uint32_t b, uint32_t c)
{
    return mw_hashBy(0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull, a, b, c);
}

/* Odd 32-bit constants with well-spread bits, for sums of words and the strides of samples. */
#define MW_K0 0x9e3779b1u
#define MW_K1 0x85ebca77u
#define MW_K2 0xc2b2ae3du

static inline uint32_t mw_mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* A table's hash of a key, by the table's factors, its bits then mixed: the products alone, by
 * random factors, put 8,192 points crafted against fixed ones in a run of more than 256 slots of
 * 16,384 for one draw of the factors in 300 (a run of 1,728 at worst in 20,000 draws); mixed,
 * 61 at worst in 90,000 draws. */
static inline uint32_t mw_keyHash(const mw_Table* table, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = mw_hashBy(table->factor[0], table->factor[1], table->factor[2], a, b, c);
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    return h ^ (h >> 13);
}

/* A cell table's multipliers: the low words of its factors (odd, so that a step along an axis
 * changes the sum). Fixed ones would let keys far apart be chosen to make the same sum; a salt
 * added to the sum would keep those collisions. */
static inline void mw_cellFactors(const mw_Table* table, uint32_t k[3])
{
    k[0] = (uint32_t)table->factor[0];
    k[1] = (uint32_t)table->factor[1];
    k[2] = (uint32_t)table->factor[2];
}

/* A cheaper hash for grid cell keys: linear in the key, so that the hashes of neighbouring cells
 * are one addition apart, then mixed (the lowbias32 finaliser). */
static inline uint32_t mw_cellHash(const mw_Table* table, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t k[3];
    mw_cellFactors(table, k);
    return mw_mix(a * k[0] + b * k[1] + c * k[2]);
}

/* floor for |x| < 2^31, without a libm call */
static inline int32_t mw_floor(double x)
{
    int32_t t = (int32_t)x;
    return t - (x < (double)t);
}

/* The slot holding key, or the empty slot where it would go, given the key's hash (the one the
 * table is filled with: mw_keyHash, or mw_cellHash for cell tables). The table
 * must not be full. */
static inline mw_Entry* mw_tableFindHashed(const mw_Table* table, uint32_t hash, uint32_t a, uint32_t b, uint32_t c)
{
    size_t i = hash & table->mask;
    /* the first two words compared as one 64-bit word (both sides laid out as in memory, so that
     * the byte order does not matter) */
    const uint32_t first[2] = {a, b};
    uint64_t ab, key01;
    memcpy(&ab, first, sizeof(ab));
    MW_PROBES_START;
    for (;;) {
        MW_PROBES_COUNT(table->mask + 1);
        mw_Entry* e = &table->entries[i];
        memcpy(&key01, e->key, sizeof(key01));
        /* one branch per probe: empty or equal */
        if ((e->value == MW_NONE) | ((key01 == ab) & (e->key[2] == c)))
            return e;
        i = (i + 1) & table->mask;
    }
}

static inline mw_Entry* mw_tableFind(const mw_Table* table, uint32_t a, uint32_t b, uint32_t c)
{
    return mw_tableFindHashed(table, mw_keyHash(table, a, b, c), a, b, c);
}

/* Removes an entry, shifting later entries of its probe run back (no tombstones). */
void mw_tableErase(mw_Table* table, mw_Entry* entry);

/* Cell tables use mw_cellHash: their reserve and erase take the hash function. */
typedef uint32_t (*mw_HashFunction)(const mw_Table* table, uint32_t a, uint32_t b, uint32_t c);
int mw_tableReserveWith(mw_Table* table, size_t total, mw_HashFunction hash);
void mw_tableEraseWith(mw_Table* table, mw_Entry* entry, mw_HashFunction hash);

/* kdtree.c: a static kd-tree over float points, kdbush-style: one array of ids and one of
 * coordinates, both in tree order, median splits along the widest side of each node's box. */
typedef struct mw_Kdtree {
    uint32_t* ids;
    float* coords; /* 3 floats per point (z = 0 in 2D) */
    unsigned char* axes; /* the split axis of the node whose median is point m, at m */
    size_t count;
    int dim;
} mw_Kdtree;

/* Allocates room for capacity points; the caller appends ids[count] and coords[count * 3 ..] and
 * counts them, then mw_kdFinish arranges the tree. mw_kdBuild does all three for point i = id i. */
int mw_kdAllocate(mw_Kdtree* tree, size_t capacity, int dim);
void mw_kdFinish(mw_Kdtree* tree);
int mw_kdBuild(mw_Kdtree* tree, const float* positions, size_t count, size_t stride, int dim);
void mw_kdFree(mw_Kdtree* tree);

/* Smallest id within r of p (squared distance in double <= r2), or MW_NONE. */
uint32_t mw_kdEarliest(const mw_Kdtree* tree, const double p[3], double r2);

/* Calls visit(context, id) for every point within r of p. */
void mw_kdVisit(const mw_Kdtree* tree, const double p[3], double r2,
                void (*visit)(void* context, uint32_t id), void* context);

/* The i-th point of a strided buffer. */
static inline const float* mw_point(const float* base, size_t stride, size_t i)
{
    return (const float*)((const char*)base + i * stride);
}

/* Output k's first input, point i, where it is wanted: first[k] = i (first not NULL) and point
 * i's coordinates as bits at kept[k * dim] (kept not NULL; sizes the compiler sees, so a copy of
 * two or three words rather than a call). */
static inline void mw_recordOutput(unsigned int* first, float* kept, size_t k, const float* points, size_t stride,
                                   size_t i, int dim)
{
    if (first)
        first[k] = (unsigned int)i;
    if (kept && dim == 3)
        memcpy(kept + k * 3, mw_point(points, stride, i), 3 * sizeof(float));
    else if (kept)
        memcpy(kept + k * 2, mw_point(points, stride, i), 2 * sizeof(float));
}

/* A stride (bytes) that cannot hold floats values of a point, or is not float-aligned. */
static inline int mw_badStride(size_t stride, size_t floats)
{
    return stride < floats * sizeof(float) || stride % sizeof(float) != 0;
}

/* The checks every buffer of count points gets before it is read: a pointer, a stride that holds
 * dim floats, and a count whose indices (below limit) and byte sizes do not overflow. */
static inline int mw_checkBuffer(const float* points, size_t count, size_t stride, int dim, size_t limit)
{
    if (!points)
        return meshweld_ErrorNull;
    if (mw_badStride(stride, (size_t)dim))
        return meshweld_ErrorStride;
    if (count >= limit || count > SIZE_MAX / stride)
        return meshweld_ErrorCount;
    return meshweld_Ok;
}

/* Squared distance in double of a point given as doubles and one given as floats. */
static inline double mw_distance2(const double p[3], const float* q, int dim)
{
    double dx = p[0] - (double)q[0], dy = p[1] - (double)q[1];
    double d = mw_squared(dx) + mw_squared(dy);
    if (dim == 3) {
        double dz = p[2] - (double)q[2];
        d += mw_squared(dz);
    }
    return d;
}

/* cells_article.c: candidate cells of a point for a grid method; the store cell comes first. */
typedef struct mw_Cells {
    int64_t key[27][3];
    int count;
} mw_Cells;

/* Inverse cell size for a grid method (cells per unit length). */
double mw_gridScale(int method, double radius);
void mw_gridCells(mw_Cells* cells, int method, int dim, const double s[3]);
/* The range of a grid method in cells: |s| must stay below it. */
double mw_gridLimit(int method, double radius);

/* A predicate two vertices must pass to weld besides the distance: every attribute within its
 * tolerance (the attribute weld). With count 0 every pair passes. A non-finite value matches only
 * its own bits, so NaN normals neither poison a weld nor merge with anything but themselves. */
typedef struct mw_Match {
    const meshweld_Attribute* attributes;
    size_t count;
} mw_Match;

/* Attribute t of vertices a and b when one of them holds a non-finite value: equal bits (-0 equal
 * to +0) in every component (reps.c, with the rule). */
int mw_matchBits(const meshweld_Attribute* t, size_t a, size_t b);

/* The attribute rule's arithmetic: d plus the squared differences of components [from, size) of
 * values x and y, in double, summed left to right (the squares of float differences stay far below
 * the double range, so the sum is finite exactly when every value is). */
MW_INLINE double mw_squares(double d, const float* x, const float* y, int from, int size)
{
    for (int j = from; j < size; ++j)
        d += mw_squared((double)x[j] - (double)y[j]);
    return d;
}

/* Attribute t's rule on the values x and y of vertices a and b (size floats each, wherever they
 * are read from): within the tolerance, or, where a value is not finite, equal bits. */
MW_INLINE int mw_within(const meshweld_Attribute* t, const float* x, const float* y, size_t a, size_t b)
{
    int size = t->size;
    double d = mw_squares(0.0, x, y, 0, 1), t2 = (double)t->tolerance * t->tolerance;
    /* a sum of squares only grows: a first square beyond the tolerance (two finite values that
     * differ) fails both the tolerance and the bits */
    if (d > t2)
        return 0;
    /* (the usual sizes spelled out, so that their sums are unrolled) */
    d = size == 3 ? mw_squares(d, x, y, 1, 3) : size == 2 ? mw_squares(d, x, y, 1, 2) : mw_squares(d, x, y, 1, size);
    /* d is finite exactly when every value is: then the tolerance decides, else the bits */
    return d <= t2 || (d - d != 0.0 && mw_matchBits(t, a, b));
}

MW_INLINE int mw_match(const mw_Match* m, size_t a, size_t b)
{
    for (size_t k = 0; k < m->count; ++k) {
        const meshweld_Attribute* t = &m->attributes[k];
        if (!mw_within(t, mw_point(t->data, t->stride, a), mw_point(t->data, t->stride, b), a, b))
            return 0;
    }
    return 1;
}

/* exact.c: the exact-duplicate pass. The exact key of a point: its bits, -0 folded onto +0. */
static inline void mw_exactKey(const float* src, int dim, uint32_t key[3])
{
    float v[3] = {src[0] + 0.0f, src[1] + 0.0f, dim == 3 ? src[2] + 0.0f : 0.0f}; /* -0 + 0 = +0 */
    memcpy(key, v, sizeof(v));
}

/* A batch's distinct positions: its nodes. */
typedef struct mw_Distinct {
    uint32_t* node_point;   /* room for count: node -> its first point; NULL when node i is point i (every
                             * point a node of its own, and remap left as it was) */
    unsigned char* settled; /* count bits, cleared (NULL when the table is empty): set where remap[i] is already
                             * an earlier batch's output */
    size_t nodes;
    double extent;          /* the largest |coordinate| */
    float low[3], high[3];  /* the box of the batch's coordinates (z = 0 in 2D) */
} mw_Distinct;

#ifndef MW_PROBE /* (the fuzz build sets 64, so that its small inputs take both ways) */
#define MW_PROBE 4096 /* points after which a pass that may leave its table decides whether it pays */
#endif

/* What the exact pass may do with its table when its probe hits less than one point in eight (a
 * cloud of distinct points): every point is then a node of its own (d->node_point becomes NULL),
 * the duplicates met before as well, which a search for the earliest representative within r
 * merges anyway (a point's twin finds what its first copy found: nothing earlier was within r of
 * it, and whatever was made since is later). */
enum {
    MW_EXACT_KEEP = 0,    /* the table is the weld (radius 0): it stays */
    MW_EXACT_ONESHOT = 1, /* the table may not outlive the pass: it is freed */
    MW_EXACT_WELDER = 2,  /* a welder's table, for its later batches: this batch's nodes leave it, the
                           * earlier batches' positions stay (a later batch finds this one's points
                           * through the index of representatives) */
    MW_EXACT_NONE = 3     /* no table at all: every point is a node of its own from the start (a
                           * welder whose small batches hit its table too seldom to pay for it) */
};
/* Finds the nodes of a batch: remap[i] receives point i's node, or its output where the settled
 * bit is set. The table keeps this batch's nodes as placeholders until mw_exactSettle (or
 * mw_exactForget). mode: what a probe that finds few twins does (above). Fails on a non-finite
 * coordinate (info names it) or memory, the table as before. */
int mw_exactPass(mw_Table* exact, int mode, unsigned int* remap, const float* points, size_t count, size_t stride,
                 int dim, mw_Distinct* d, meshweld_Info* info);
/* A point's slot in the table (its key written to key), and a new position's entry. */
mw_Entry* mw_exactSlot(const mw_Table* exact, const float* src, int dim, uint32_t key[3]);
void mw_exactInsert(mw_Table* exact, mw_Entry* slot, const uint32_t key[3], uint32_t value);
/* Removes the batch's placeholders. */
void mw_exactForget(mw_Table* exact, const float* points, size_t stride, int dim, const mw_Distinct* d);
/* Every node answered (node_out): the table (when not NULL) keeps their outputs, remap is rewritten. */
void mw_exactSettle(mw_Table* exact, unsigned int* remap, const float* points, size_t count, size_t stride, int dim,
                    const mw_Distinct* d, const uint32_t* node_out);

/* cells_data.c: GRID's cell scheme, squares or cubes sized to the data (at least 2r). A point p
 * searches the cells that its r-box [p - r, p + r] touches, 1 or 2 per axis. */
typedef struct mw_DataCells {
    double size;    /* the cells' edge, as set (1 / inverse may differ from it in its last bit) */
    double inverse; /* cells per unit length */
    double reach;   /* r in cells, with the slack that covers every rounding of the products */
} mw_DataCells;

/* Cells of edge size take every coordinate below extent (MW_CELL_LIMIT). */
static inline int mw_dataCellsHold(double extent, double size)
{
    return extent < MW_CELL_LIMIT * size;
}

/* The narrowest cell edge for radius r: 2r (with the slack), so that an r-box touches at most two
 * cells per axis. */
static inline double mw_dataCellFloor(double radius)
{
    return 2.0 * radius * MW_SLACK;
}

/* Cells whose reach stays below 0.41 for radius r, as far out as MW_CELL_LIMIT cells: r / 0.4 (the
 * narrowest the engine's squeeze of a box too wide for its keys takes).
 * The narrowest cells for radius r where coordinates reach extent: 2r, or r / 0.4 where cells of
 * 2r lie MW_FAR_CELLS or more from 0 (the reach, widened there by at most 2^-7, stays below 0.41:
 * each r-box still meets at most two cells a side, and the engine's squeeze runs); and at least
 * what holds extent, with a factor 2 to spare. */
static inline double mw_dataCellsSqueezable(double radius)
{
    return radius * MW_SLACK / 0.4;
}
static inline double mw_dataCellsNarrowest(double radius, double extent)
{
    double floor_size = mw_dataCellFloor(radius);
    if (extent >= MW_FAR_CELLS * floor_size)
        floor_size = mw_dataCellsSqueezable(radius);
    double hold = extent / (MW_CELL_LIMIT / 2);
    return floor_size > hold ? floor_size : hold;
}

/* The cells of edge size for radius r and coordinates below extent (at least
 * mw_dataCellsNarrowest); the reach again for a larger extent, the cells unchanged. */
void mw_dataCellsSet(mw_DataCells* cells, double size, double radius, double extent);
void mw_dataCellsReach(mw_DataCells* cells, double radius, double extent);
/* How many cells of edge size the box [low, high] can touch (a cell more on each side for the
 * rounding of the floors), or limit where that is fewer. */
size_t mw_dataCellsIn(const float low[3], const float high[3], int dim, double size, size_t limit);

/* The spatial engine on cells of *size, then on smaller ones while it answers MW_CROWDED (its count
 * of tests says the cells crowd, though wider than 2r: the sample misread the spacing, as for
 * points along a line, a dense part among sparse ones, clusters far apart in interleaved order):
 * first the spacing that the nodes' nearest neighbours in a sample give, where that is less than
 * an eighth of the size (mw_sampleSpacing), then an eighth of the size each time; not below
 * mw_dataCellsNarrowest, MW_CELL_RETRIES times at most; and once, where a box is too wide for the
 * keys of cells at their floor (MW_WIDE), cells of mw_dataCellsSqueezable. Then the caller's fallback (the
 * sequential weld, or the attribute weld's kd-tree). run(context, cells) is one try; returns the
 * last try's answer, *size the last size tried. No try at all (MW_DENSE, *size unchanged) where a
 * sample's pairs say each would pass the engine's budget (mw_engineDense); with crowds (run takes
 * crowded cells out of its search), one try in the narrowest cells where they say a dense core
 * holds those pairs. */
#define MW_CELL_RETRIES 6
struct mw_Nodes; /* (the engine's input, below) */
typedef int (*mw_EngineTry)(void* context, const mw_DataCells* cells);
int mw_engineTries(mw_EngineTry run, void* context, const struct mw_Nodes* nodes, double* size, double radius,
                   double extent, int crowds);

/* A cell edge for points (node j is point index[j], or j when index is NULL): the typical spacing,
 * from a sample, times an irrational factor; at least 2r. Only speed depends on it. */
double mw_dataCellSize(const float* points, size_t stride, int dim, const uint32_t* index, size_t count,
                       double radius);

/* The cell of s (a point in cell units) and the neighbours its r-box touches, per axis: -1 (the
 * lower one), +1 (the upper one) or 0 (none). s - floor(s) is exact, so the comparisons with
 * reach carry no rounding of their own. */
static inline void mw_dataCell(const mw_DataCells* g, const double s[3], int dim, int64_t cell[3], int touch[3])
{
    double e = g->reach, f = 1.0 - e;
    for (int a = 0; a < 3; ++a) {
        if (a == dim) {
            cell[a] = 0, touch[a] = 0;
            break;
        }
        cell[a] = mw_floor64(s[a]);
        double u = s[a] - (double)cell[a];
        touch[a] = (u > f) - (u < e);
    }
}

/* The representatives' cell index (a welder's, or a fallback's): cell -> its newest
 * representative; next[] links each cell's representatives in a ring, oldest after newest, so a
 * walk from the oldest meets them in order and the first match is the cell's earliest. */
typedef struct mw_Index {
    mw_DataCells cells;
    mw_Table table;
    size_t work, searched; /* chain steps and searches, to shrink cells that hold crowds */
    size_t lookups;        /* cells looked up by the searches */
    size_t filled;         /* representatives 0 .. filled - 1 are in it (mw_indexCatchUp adds the rest) */
} mw_Index;

typedef struct mw_Reps {
    float* xyz;      /* 3 floats per representative (z = 0 in 2D) */
    uint32_t* next;  /* the cell stores' rings (reps.c) */
    uint32_t* point; /* per representative: its input point (for the match predicate); NULL: q is point q */
    size_t count, capacity;
} mw_Reps;

/* reps.c: room for count more representatives; one more (room made); everything freed. */
int mw_repsReserve(mw_Reps* reps, size_t count);
uint32_t mw_repsAdd(mw_Reps* reps, const double p[3]);
void mw_repsFree(mw_Reps* reps);

/* The rule every method applies: representative q can take p when it lies within r of it and,
 * for the attribute weld, passes match against vertex. dim 0 says the searcher knows q to sit at
 * p itself (the attribute weld's positions with no other within r), where only the match decides. */
MW_INLINE int mw_repsJoins(const mw_Reps* reps, uint32_t q, const double p[3], int dim, double r2,
                               const mw_Match* match, size_t vertex)
{
    return (dim == 0 || mw_distance2(p, &reps->xyz[q * 3], dim) <= r2) &&
           (!match || mw_match(match, vertex, reps->point ? reps->point[q] : q));
}

/* A query of the representatives: the point, the radius, the optional match, and what the
 * search has found so far (best: the earliest that joins, MW_NONE before any) and cost (steps). */
typedef struct mw_Query {
    double p[3];
    int dim; /* 0: every representative searched sits at p (mw_repsJoins) */
    double r2;
    const mw_Match* match;
    size_t vertex;
    uint32_t best;
    size_t steps;
} mw_Query;

static inline mw_Query mw_query(const double p[3], int dim, double r2, const mw_Match* match, size_t vertex)
{
    mw_Query q = {{p[0], p[1], p[2]}, dim, r2, match, vertex, MW_NONE, 0};
    return q;
}

/* Rings of representatives, the one container the cell stores use: a slot holds the ring's
 * newest, next[newest] is its oldest, and next[] runs from older to newer, so a walk from the
 * oldest meets the representatives in order.
 *   mw_ringEarliest: q->best lowered to the ring's earliest member that joins (the walk stops at
 *                    the first one, or at q->best);
 *   mw_ringLink:     rep (newer than every member) joins the ring of slot (MW_NONE: a new ring);
 *   mw_ringUnlink:   the newest member leaves (slot becomes MW_NONE when it was alone). */
static inline void mw_ringEarliest(const mw_Reps* reps, uint32_t newest, mw_Query* q)
{
    uint32_t r = reps->next[newest];
    for (;;) {
        q->steps++;
        if (r >= q->best)
            return;
        if (mw_repsJoins(reps, r, q->p, q->dim, q->r2, q->match, q->vertex)) {
            q->best = r;
            return;
        }
        if (r == newest)
            return;
        r = reps->next[r];
    }
}

/* The same over the representatives [from, to) in order (NAIVE's scan, a kd-tree forest's tail). */
MW_INLINE void mw_runEarliest(const mw_Reps* reps, size_t from, size_t to, mw_Query* q)
{
    to = to < q->best ? to : q->best;
    for (size_t r = from; r < to; ++r) {
        q->steps++;
        if (mw_repsJoins(reps, (uint32_t)r, q->p, q->dim, q->r2, q->match, q->vertex)) {
            q->best = (uint32_t)r;
            return;
        }
    }
}

static inline void mw_ringLink(mw_Reps* reps, uint32_t* slot, uint32_t rep)
{
    if (*slot == MW_NONE) {
        reps->next[rep] = rep;
    } else {
        reps->next[rep] = reps->next[*slot]; /* the oldest */
        reps->next[*slot] = rep;
    }
    *slot = rep;
}

void mw_ringUnlink(mw_Reps* reps, uint32_t* slot);

/* rep joins the ring of a table's entry e for key (found for it: an empty slot becomes the key's). */
static inline void mw_entryLink(mw_Table* table, mw_Entry* e, uint32_t a, uint32_t b, uint32_t c, mw_Reps* reps,
                                uint32_t rep)
{
    if (e->value == MW_NONE) {
        e->key[0] = a, e->key[1] = b, e->key[2] = c;
        table->count++;
    }
    mw_ringLink(reps, &e->value, rep);
}

/* Rebuilds the index with cells of edge size for coordinates below extent (mw_dataCellsSet), and
 * room for the representatives and room more cells of them; they go in at its next search
 * (mw_indexCatchUp). */
int mw_indexRebuild(mw_Index* index, size_t reps, double size, double radius, double extent, size_t room);
/* Cells of edge size for every representative, in the table the index has (its room holds a
 * cell per representative and per cell the nodes still to come can take, as mw_indexRebuild and
 * mw_indexReserve made it); fails only for its scratch list, the index then as it was. */
int mw_indexResize(mw_Index* index, mw_Reps* reps, int dim, double size, double radius, double extent);
/* Makes room for total cells in the table: the representatives', each in a cell of its own (as
 * mw_indexResize may put them), and those the nodes to come can take. */
int mw_indexReserve(mw_Index* index, size_t total);
/* Inserts the representatives made since the index last held them all: a welder's steps that
 * search no index leave theirs to the next search of it (mw_addData); the table has room for
 * them (mw_indexRebuild, mw_indexReserve). */
void mw_indexCatchUp(mw_Index* index, mw_Reps* reps, int dim);
/* The earliest representative within r of p (as doubles) that passes match against vertex, or
 * MW_NONE. */
uint32_t mw_indexEarliest(mw_Index* index, const mw_Reps* reps, int dim, const double p[3], double r2,
                          const mw_Match* match, size_t vertex);
/* Chain steps per search above which the index's cells shrink (a welder's after a batch that
 * searched the index itself: half of it, mw_addData) */
#define MW_CROWD 24.0
/* Chain steps per search above which a welder's index, in cells it cannot halve, leaves for the
 * kd-tree. Cells of 2r hold a few representatives, so only cells kept wide by far coordinates
 * crowd so: 262,144 points with strays at 1e12 to 3.5e12, fed 256 to 1,024 at a time, met 1,250
 * to 4,200 steps a search (GRID 2.4-4.6 s against the kd-tree's 0.5 s), at 1e12 fed 1,024 at a
 * time 223 (GRID 0.67 s, the kd-tree 0.56 s), 65,536 points 79 (GRID the faster). */
#define MW_FAR_CROWD 512.0
/* Cells too wide for the representatives' density: 1 when the searches since the counters were
 * last reset took more than steps chain steps each. */
int mw_indexCrowded(const mw_Index* index, double steps);
void mw_indexFree(mw_Index* index);

/* A welder's earlier representatives packed by cell (method_grid.c), and its release (NULL is fine). */
typedef struct mw_PackedReps mw_PackedReps;
void mw_packedRepsFree(mw_PackedReps* packed);

/* engine.c: the precise weld of nodes among themselves, in cell order. */
typedef struct mw_Nodes {
    const float* points;
    size_t stride;
    int dim;
    const uint32_t* point; /* node j is input point point[j] (j itself when NULL) */
    size_t count;
    double radius;
} mw_Nodes;

#define MW_DENSE 1 /* mw_engineWeld: too many pairs within r; the caller welds sequentially */
#define MW_CROWDED 2 /* mw_engineWeld: its cells hold more tests than its budget, counted before the
                      * search: smaller cells may not (else as MW_DENSE) */
#define MW_WIDE 4 /* mw_engineWeld: the box holds more cells than 64-bit keys number, in cells too
                   * narrow for the squeeze (their floor of 2r): cells of mw_dataCellsSqueezable may
                   * take it (else as MW_DENSE) */

/* What the engine did, for meshweld_trace: the public struct, filled by node (the caller turns
 * nodes into input points); phases says how far to go (2 sort, 3 pairs, 4 graph, 5 walk). */
typedef meshweld_Trace mw_EngineTrace;

int mw_engineWeld(uint32_t* owner, const mw_Nodes* nodes, const mw_DataCells* cells, mw_EngineTrace* trace);
#define MW_CORE 3 /* mw_engineDense: dense, but in crowded cells of under 90% of the nodes, the rest sparse */
#define MW_SPARSE 5 /* mw_engineDense: the sample's pairs within the budget */

/* Whether a sample of the nodes, searched in cells (a little wider than the narrowest: narrow, so
 * that its tests stay few), says their pairs within r would pass the engine's budget twice over:
 * MW_DENSE (the caller then welds sequentially at once), or with crowds MW_CORE where those pairs
 * lie in a dense core whose cells the engine takes out of its search; MW_SPARSE where they would
 * not; 0 for fewer than 65,536 nodes, or a sample the sort declines. */
int mw_engineDense(const mw_Nodes* nodes, const mw_DataCells* cells, int crowds);
/* Steps 1 to 3 alone: the graph of the nodes within r of each other. Node j's neighbours are
 * neighbour[first[j] .. first[j + 1]): every one, the earlier ones first. Both arrays come from
 * the arena; scratch is room for count words; box may be NULL. With crowds, the cells of a dense
 * core may be taken out of the search as the weld's are: then mark (from the arena too, else
 * NULL) says which nodes, MW_CROWDED_NODE (no pair at all: the caller finds their neighbours
 * itself), and which nodes of the cells around them, MW_RING_NODE (their pairs lack the crowded
 * nodes'); the others' pairs are all there. */
typedef struct mw_Graph {
    uint32_t* first;
    uint32_t* neighbour;
    unsigned char* mark;
} mw_Graph;
#define MW_RING_NODE 1
#define MW_CROWDED_NODE 2
int mw_engineGraph(mw_Graph* graph, mw_Arena* arena, const mw_Nodes* nodes, const mw_DataCells* cells,
                   const float box[6], uint32_t* scratch, int crowds);
/* The same, given the nodes' box (low[3] then high[3], z = 0 in 2D), which it then need not find. */
int mw_engineWeldBoxed(uint32_t* owner, const mw_Nodes* nodes, const mw_DataCells* cells, const float box[6],
                       mw_EngineTrace* trace);
/* mw_engineGraph's graph found by a kd-tree over the nodes (ids 0 to count - 1; squared distance
 * in double <= r2), for coordinates too far out for cells; MW_DENSE past the engine's budget of
 * pairs. */
int mw_kdGraph(mw_Graph* graph, mw_Arena* arena, const mw_Kdtree* tree, double r2);

/* ---- the welder: welder.c runs a batch and calls one method_*.c per method, which call exact.c,
 * reps.c and their cell schemes; nothing calls back up ---- */

#define MW_WINDOW 32 /* points between two checks of the tables' room */
#define MW_COARSE 1  /* mw_addData: the coordinates need cells far wider than the data's spacing */

struct meshweld_Welder {
    int dim;
    int method;
    int store;
    int automatic; /* method was AUTO (runs GRID; one-shot, it leaves for KDTREE before the engine tries) */
    int oneshot;   /* meshweld_weld: one batch, nothing kept for later ones */
    int countonly; /* meshweld_weld, meshweld_trace: the outputs' positions are never read (GRID's
                    * engine path then only counts them) */
    float* kept;     /* meshweld_weldKept, meshweld_weldFirst: where GRID's one-shot engine path writes the
                      * outputs' positions (the first input of each, dim floats) as it counts them */
    unsigned int* first; /* meshweld_weldFirst: where that path writes each output's first input */
    int outputs_written; /* it wrote both that were asked for (the representatives hold no positions) */
    double radius, r2, scale;
    double split[2]; /* scale as hi + lo (mw_splitScale) */
    int far;         /* the article's grids: some cell key has left int32 (MW_NEAR_CELLS) */
    int crowded;     /* GRID: the index crowded past MW_FAR_CROWD in cells that could not halve */
    /* GRID: a welder's batches below MW_PROBE points, which never decide on the exact table: the
     * points they looked up in it and found there since it was last judged, and whether it was
     * dropped for them (exact_off: such batches then go without; exact_looks then counts their
     * points until the table is tried again) */
    size_t exact_looks, exact_hits;
    int exact_off;

    mw_Reps reps;
    size_t fed;     /* points added so far */
    mw_Table exact; /* position bits -> output index */
    mw_Table cells; /* the article's grids: cell -> representative (loose) or newest representative (precise) */

    /* KDTREE: representatives of earlier batches, a forest of static trees (Bentley-Saxe): tree k
     * is empty or holds 2^k consecutive representatives, larger trees the older ones */
#define MW_FOREST 33
    mw_Kdtree forest[MW_FOREST];

    /* GRID: the representatives' index, the first batch's cell size (the data's spacing), and
     * the largest |coordinate| of the batches so far (the index's cells must hold it) */
    mw_Index index;
    mw_PackedReps* packed; /* GRID: the earlier representatives packed by cell, for large batches' step 2 */
    double pack_from;      /* ... and the representatives from which the box of a packing that held too
                            * many cells would take one, in cells of pack_size */
    double pack_size;
    double spacing, largest;
    meshweld_Trace* trace; /* meshweld_trace: what the engine does, recorded */

    /* One-shot square grids whose cells fit a flat array (dense points): cell (a, b, c) is
     * dense[(a - origin[0]) + extent[0] * ((b - origin[1]) + extent[1] * (c - origin[2]))],
     * a representative (loose) or the newest of a chain (precise). */
    double low[3], high[3]; /* the batch's scaled coordinates, checked for the grid */
    uint32_t* dense;
    int32_t origin[3];
    size_t extent[3];
};

/* A cell key and its hash. */
typedef struct mw_Key {
    uint32_t key[3]; /* the low words of the cell coordinates */
    uint32_t hash;
    int64_t cell[3]; /* the article's grids: the whole cell coordinates */
} mw_Key;

static inline mw_Entry* mw_find(const mw_Table* table, const mw_Key* k)
{
    return mw_tableFindHashed(table, k->hash, k->key[0], k->key[1], k->key[2]);
}

/* A point as doubles (z = 0 in 2D). */
static inline void mw_load(double p[3], const float* src, int dim)
{
    p[0] = src[0];
    p[1] = src[1];
    p[2] = dim == 3 ? src[2] : 0.0;
}

int mw_isArticleGrid(int method); /* GRID_R, GRID_2R, HEX, BCC: the article's grids */
void mw_setMethod(meshweld_Welder* w, int method);

/* A batch of NAIVE (method_naive.c, also every method at radius 0) or of KDTREE (method_kdtree.c);
 * on error the welder is as before. */
int mw_addNaive(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride);
int mw_addKdtree(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride);
/* A batch of a grid method (method_article.c); on error the welder is as before. */
int mw_addGrid(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride);
/* A batch of GRID (method_grid.c): on error, or MW_COARSE (the narrowest cells that take the
 * coordinates would hold 64 of the data's cells each: when coarse is 0, or for a one-shot weld
 * before its sequential search), the welder is as before. */
int mw_addData(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride,
               int coarse, meshweld_Info* info);

#endif

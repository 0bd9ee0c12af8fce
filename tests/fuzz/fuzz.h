/* Shared by the libFuzzer targets in tests/fuzz: a reader that turns the fuzz bytes into options
 * and coordinates biased to the values that break welders (NaN, infinities, -0, denormals, huge
 * and tiny values, repeats, points exactly r apart, cell boundaries), a counting allocator that
 * fails on demand, and the brute-force checker of the guarantees of README.md.
 *
 * Every check ends in abort() with a message, which libFuzzer reports as a crash and saves the
 * input. Built with clang -fsanitize=fuzzer,address,undefined (cmake -DMESHWELD_FUZZ=ON), or with
 * any compiler and tests/fuzz/replay.c as main, which runs the inputs given (the seed corpus in
 * ctest, and under Valgrind in CI).
 *
 * "Within r" is the library's own predicate, the one meshweld_countClosePairs uses: the squared
 * distance computed in double from the float coordinates, dx*dx + dy*dy (+ dz*dz), is <= r*r
 * (r*r is exact in double). Displacements are compared with R in double. */
#ifndef MESHWELD_FUZZ_H
#define MESHWELD_FUZZ_H

#include "meshweld.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The checker's own loops, left out of the coverage the fuzzer steers by: their comparisons are
 * the oracle's, not the library's, and traced (memcmp's too, which the fuzzer intercepts) they made
 * an input with hundreds of representatives (a crowd the attribute weld splits) cost ten times an
 * ordinary one. */
#if defined(__clang__)
#define FZ_ORACLE __attribute__((no_sanitize("coverage"), noinline)) /* (inlined, it would be traced) */
#else
#define FZ_ORACLE
#endif

/* Largest input a target welds: the checker is quadratic. */
#define FZ_MAX_POINTS 2000

#define FZ_ASSERT(cond, ...)                                                                  \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "\nmeshweld fuzz check failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fprintf(stderr, "\n");                                                            \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

/* ---- reading the fuzz bytes: past the end every read gives 0 ---- */
typedef struct Fz {
    const uint8_t* data;
    size_t size, at;
} Fz;

static inline uint8_t fz_u8(Fz* f)
{
    return f->at < f->size ? f->data[f->at++] : 0;
}

static inline uint16_t fz_u16(Fz* f)
{
    uint16_t lo = fz_u8(f);
    return (uint16_t)(lo | (uint16_t)fz_u8(f) << 8);
}

static inline uint32_t fz_u32(Fz* f)
{
    uint32_t lo = fz_u16(f);
    return lo | (uint32_t)fz_u16(f) << 16;
}

static inline float fz_bits(uint32_t u)
{
    float v;
    memcpy(&v, &u, sizeof(v));
    return v;
}

static inline uint32_t fz_floatBits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof(u));
    return u;
}

static inline int fz_more(const Fz* f)
{
    return f->at < f->size;
}

/* ---- the allocator: counts every block, fails on the calls chosen ---- */
typedef struct FzHeap {
    long live;         /* blocks allocated and not freed */
    size_t live_bytes; /* their bytes */
    size_t peak_bytes;
    size_t largest;  /* largest single request since fz_heapArm */
    long calls;      /* allocation calls since fz_heapArm */
    long fail_at;    /* the first call that fails, < 0: none */
    int fail_all;    /* every call from fail_at on fails (else only that one) */
    long failed;     /* calls failed since fz_heapArm */
    int huge_ok;     /* requests beyond FZ_HUGE are legitimate now (they fail, as out of memory) */
} FzHeap;

/* No small input needs a block this large: a bad size computation shows as one. */
#define FZ_HUGE ((size_t)1 << 28)

static FzHeap fz_heap;

typedef union FzHeader {
    size_t size;
    long double align; /* keeps the block after the header aligned for anything */
    void* pointer;
} FzHeader;

static inline void* fz_allocate(void* user, size_t size)
{
    FzHeap* h = (FzHeap*)user;
    long call = h->calls++;
    if (size > h->largest)
        h->largest = size;
    if (h->fail_at >= 0 && (call == h->fail_at || (h->fail_all && call > h->fail_at))) {
        h->failed++;
        return NULL;
    }
    if (size > FZ_HUGE) {
        FZ_ASSERT(h->huge_ok, "allocation of %zu bytes for a small input", size);
        h->failed++; /* as a real system would */
        return NULL;
    }
    FzHeader* block = (FzHeader*)malloc(sizeof(FzHeader) + size);
    if (!block)
        return NULL;
    block->size = size;
    h->live++;
    h->live_bytes += size;
    if (h->live_bytes > h->peak_bytes)
        h->peak_bytes = h->live_bytes;
    return block + 1;
}

static inline void fz_deallocate(void* user, void* pointer)
{
    FzHeap* h = (FzHeap*)user;
    FZ_ASSERT(pointer != NULL, "deallocate(NULL)");
    FzHeader* block = (FzHeader*)pointer - 1;
    FZ_ASSERT(h->live > 0 && h->live_bytes >= block->size, "free of a block never allocated");
    h->live--;
    h->live_bytes -= block->size;
    free(block);
}

static inline void fz_init(void)
{
    static int done;
    if (!done) {
        FZ_ASSERT(meshweld_setAllocator(fz_allocate, fz_deallocate, &fz_heap) == meshweld_Ok, "setAllocator");
        done = 1;
    }
}

/* Arms the failure plan for the next call: byte b < 192 means no failure. */
static inline void fz_heapArm(uint8_t b)
{
    fz_heap.calls = 0;
    fz_heap.failed = 0;
    fz_heap.largest = 0;
    fz_heap.fail_at = b >= 192 ? (long)(b & 15) : -1;
    fz_heap.fail_all = (b >> 4) & 1;
}

static inline void fz_heapDisarm(void)
{
    fz_heap.fail_at = -1;
    fz_heap.failed = 0;
    fz_heap.huge_ok = 0;
}

/* Known issues that a run can be told to step over (MESHWELD_FUZZ_SKIP=name,name), to look for
 * other bugs behind them. By default every check is on. */
static inline int fz_skip(const char* name)
{
    const char* list = getenv("MESHWELD_FUZZ_SKIP");
    return list && strstr(list, name) != NULL;
}

/* Outcome counts, printed at exit when MESHWELD_FUZZ_STATS is set: how often the inputs reach
 * each branch (a fuzzer that only ever meets errors tests little). */
typedef struct FzStat {
    const char* name;
    unsigned long count;
} FzStat;

static FzStat fz_stats[64];

static inline void fz_printStats(void)
{
    for (int i = 0; i < 64 && fz_stats[i].name; ++i)
        fprintf(stderr, "outcome %-28s %lu\n", fz_stats[i].name, fz_stats[i].count);
}

static inline void fz_note(const char* name)
{
    static int enabled = -1;
    if (enabled < 0) {
        enabled = getenv("MESHWELD_FUZZ_STATS") != NULL;
        if (enabled)
            atexit(fz_printStats);
    }
    if (!enabled)
        return;
    for (int i = 0; i < 64; ++i)
        if (!fz_stats[i].name || strcmp(fz_stats[i].name, name) == 0) {
            fz_stats[i].name = name;
            fz_stats[i].count++;
            return;
        }
}

/* ---- options ---- */
static const float fz_radii[] = {
    0.0f, 1e-45f, 1e-40f, FLT_MIN, 1e-30f, 1e-12f, 1e-7f, 1e-5f, 1e-3f, 0.01f, 0.1f, 0.25f, 0.3f, 0.5f,
    1.0f, 1.5f, 2.0f, 10.0f, 1000.0f, 1e7f, 1e20f, 1e30f, 1e38f, FLT_MAX,
};

/* A radius: mostly from the list, sometimes raw bits (negative, NaN and infinite included). */
static inline float fz_radius(Fz* f)
{
    uint8_t b = fz_u8(f);
    size_t n = sizeof(fz_radii) / sizeof(fz_radii[0]);
    if (b < 224)
        return fz_radii[b % n];
    if (b < 240)
        return fabsf(fz_bits(fz_u32(f)));
    if (b < 248)
        return fz_bits(fz_u32(f));
    const float bad[] = {-1.0f, -0.0f, NAN, INFINITY, -INFINITY, -FLT_MIN, -1e-45f, -NAN};
    return bad[b & 7];
}

static inline int fz_dim(uint8_t b)
{
    switch (b & 15) {
    case 0: return 0; /* means 3 */
    case 1: case 2: case 3: case 4: case 5: case 6: return 2;
    case 15: return (b >> 4) & 1 ? 1 : ((b >> 5) & 1 ? 4 : -1); /* invalid */
    default: return 3;
    }
}

/* The methods are the numbers 0.. that have a name: the checks below take every property of a
 * method from the public API (its name, its bound, its cells), so that a method added to the
 * library is fuzzed and checked without a change here. */
static inline int fz_methodCount(void)
{
    static int count;
    if (count == 0)
        while (meshweld_methodName(count) != NULL)
            count++;
    return count;
}

static inline int fz_method(uint8_t b)
{
    int count = fz_methodCount();
    if ((b & 15) < 15)
        return (b & 15) % count;
    return (b >> 4) & 1 ? -1 - (b >> 5) : count + (b >> 5); /* invalid */
}

/* A method whose cells meshweld_cells describes: the classic grids, for which the loose store's
 * result is rebuilt exactly and the grid's range is known point by point. */
static inline int fz_hasCells(int method)
{
    return method >= meshweld_MethodGridR && method <= meshweld_MethodBcc;
}

/* A method asked for by name that may refuse coordinates too large for its cells (every method but
 * AUTO, which moves to the kd-tree, NAIVE and KDTREE). */
static inline int fz_mayRefuseRange(int method)
{
    return meshweld_methodName(method) != NULL && method != meshweld_MethodAuto && method != meshweld_MethodNaive &&
           method != meshweld_MethodKdtree;
}

static inline int fz_store(uint8_t b)
{
    if ((b & 15) == 15)
        return (b >> 4) & 1 ? -1 : 2 + (b >> 5); /* invalid */
    return b & 1;
}

/* The option errors a request deserves (a bit per -code); 0 when the options are valid. */
static inline unsigned fz_optionErrors(int dim, float radius, int method, int store, int check_store, int check_method_dim)
{
    unsigned e = 0;
    int d = dim == 0 ? 3 : dim;
    if (d != 2 && d != 3)
        e |= 1u << -meshweld_ErrorDim;
    if (!(radius >= 0.0f) || !isfinite(radius))
        e |= 1u << -meshweld_ErrorRadius;
    if (meshweld_methodName(method) == NULL)
        e |= 1u << -meshweld_ErrorMethod;
    else if (check_method_dim && (d == 2 || d == 3) &&
             ((method == meshweld_MethodHex && d != 2) || (method == meshweld_MethodBcc && d != 3)))
        e |= 1u << -meshweld_ErrorMethodDim;
    if (check_store && store != meshweld_StoreLoose && store != meshweld_StorePrecise)
        e |= 1u << -meshweld_ErrorStore;
    return e;
}

static inline int fz_in(unsigned set, int error)
{
    return error < 0 && error > -32 && (set & (1u << -error));
}


/* ---- points ---- */
typedef struct FzGen {
    int dim;
    float unit;    /* r, or a fixed step when r is 0 */
    int nonfinite; /* NaN and infinities may appear */
    int huge;      /* huge magnitudes may appear */
    float* pts;
    size_t stride; /* floats */
    size_t n;
} FzGen;

static const float fz_specials[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 0.1f, 1.0f / 3.0f, 2.0f, FLT_MIN, -FLT_MIN, 1e-45f, -1e-45f, 3e-45f, 1e-40f,
    1e-38f, 1e-30f, 1e-7f, 1e3f, 16777216.0f, 16777218.0f, 1e7f, 1e9f,
    /* huge: index 22 on */
    1e10f, 1e20f, 1e30f, -1e30f, 3e38f, -3e38f, FLT_MAX, -FLT_MAX, 5.36870912e8f, 1e15f,
    /* non-finite: index 32 on */
    NAN, INFINITY, -INFINITY, -NAN,
};
#define FZ_FIRST_HUGE 22
#define FZ_FIRST_NONFINITE 32

static inline float fz_tame(const FzGen* g, float v)
{
    if (!isfinite(v) && !g->nonfinite)
        v = 0.0f;
    if (isfinite(v) && !g->huge && fabsf(v) > 1e6f * (g->unit > 1.0f ? g->unit : 1.0f))
        v = fmodf(v, 1000.0f * g->unit);
    return v;
}

static inline float fz_coordinate(Fz* f, FzGen* g)
{
    uint8_t s = fz_u8(f);
    double u = g->unit;
    if (s < 96) /* a multiple of r/2: points exactly r apart, on cell boundaries */
        return fz_tame(g, (float)((int8_t)fz_u8(f) * u * 0.5));
    if (s < 160)
        return fz_tame(g, (float)((int16_t)fz_u16(f) * u / 256.0));
    if (s < 176) {
        size_t n = sizeof(fz_specials) / sizeof(fz_specials[0]);
        size_t k = fz_u8(f) % n;
        if (k >= FZ_FIRST_NONFINITE && !g->nonfinite)
            k %= FZ_FIRST_HUGE;
        if (k >= FZ_FIRST_HUGE && k < FZ_FIRST_NONFINITE && !g->huge)
            k %= FZ_FIRST_HUGE;
        return fz_specials[k];
    }
    if (s < 208)
        return fz_tame(g, fz_bits(fz_u32(f)));
    if (s < 240 && g->n > 0) { /* a value already used, on any axis */
        size_t i = fz_u16(f) % (g->n * (size_t)g->dim);
        return g->pts[(i / g->dim) * g->stride + i % g->dim];
    }
    return fz_tame(g, (float)(fz_u16(f) * u / 64.0));
}

/* Reads up to max points of dim floats into g->pts (stride floats apart; the floats between are
 * NaN, which a library that reads them would report); returns how many. */
static inline size_t fz_points(Fz* f, FzGen* g, size_t max)
{
    const int dim = g->dim;
    g->n = 0;
    while (g->n < max && fz_more(f)) {
        float* p = g->pts + g->n * g->stride;
        for (size_t k = (size_t)dim; k < g->stride; ++k)
            p[k] = NAN;
        uint8_t mode = fz_u8(f);
        const float* q = g->n > 0 ? g->pts + (fz_u16(f) % g->n) * g->stride : NULL;
        switch (q ? mode & 7 : 0) {
        case 3: /* an earlier point again, zeros flipped to -0 or +0 */
            for (int a = 0; a < dim; ++a)
                p[a] = q[a] == 0.0f ? ((mode >> (3 + a)) & 1 ? -0.0f : 0.0f) : q[a];
            break;
        case 4: { /* an earlier point plus r along an axis, maybe a float step nearer or farther */
            int axis = (mode >> 3) % dim;
            for (int a = 0; a < dim; ++a)
                p[a] = q[a];
            p[axis] = q[axis] + ((mode >> 5) & 1 ? -g->unit : g->unit);
            if ((mode >> 6) == 1)
                p[axis] = nextafterf(p[axis], q[axis]);
            else if ((mode >> 6) == 2)
                p[axis] = nextafterf(p[axis], p[axis] > q[axis] ? INFINITY : -INFINITY);
            p[axis] = fz_tame(g, p[axis]);
            break;
        }
        case 5: { /* at distance about r in a direction from the bytes, nudged inside r */
            double d[3] = {(int8_t)fz_u8(f), (int8_t)fz_u8(f), dim == 3 ? (int8_t)fz_u8(f) : 0};
            double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (len == 0)
                d[0] = len = 1;
            for (int a = 0; a < dim; ++a)
                p[a] = fz_tame(g, (float)(q[a] + d[a] / len * g->unit));
            double r2 = (double)g->unit * g->unit;
            for (int guard = 0; guard < 64 && (mode >> 3) & 1; ++guard) {
                double e2 = 0;
                for (int a = 0; a < dim; ++a)
                    e2 += ((double)p[a] - q[a]) * ((double)p[a] - q[a]);
                if (e2 <= r2)
                    break;
                for (int a = 0; a < dim; ++a)
                    p[a] = nextafterf(p[a], q[a]);
            }
            break;
        }
        case 6: /* near an earlier point: a cluster */
            for (int a = 0; a < dim; ++a)
                p[a] = fz_tame(g, (float)(q[a] + (int8_t)fz_u8(f) * (double)g->unit / 64.0));
            break;
        case 7: { /* a lattice point at a cell size of some method */
            static const double steps[] = {0.5, 1.0, 2.0, 1.7320508075688772, 3.4641016151377544,
                                           5.656854249492381, 2.8284271247461903, 0.7071067811865476};
            double step = steps[(mode >> 3) & 7] * g->unit;
            for (int a = 0; a < dim; ++a)
                p[a] = fz_tame(g, (float)((int8_t)fz_u8(f) * step));
            break;
        }
        default:
            for (int a = 0; a < dim; ++a)
                p[a] = fz_coordinate(f, g);
        }
        g->n++;
    }
    return g->n;
}

static inline const float* fz_at(const float* base, size_t stride_bytes, size_t i)
{
    return (const float*)((const char*)base + i * stride_bytes);
}

/* ---- geometry, exactly as the library computes it ---- */
static inline double fz_d2(const float* a, const float* b, int dim)
{
    double dx = (double)a[0] - (double)b[0], dy = (double)a[1] - (double)b[1];
    double d = dx * dx + dy * dy;
    if (dim == 3) {
        double dz = (double)a[2] - (double)b[2];
        d += dz * dz;
    }
    return d;
}

static inline int fz_within(const float* a, const float* b, int dim, float r)
{
    return fz_d2(a, b, dim) <= (double)r * r;
}

/* A cell coordinate (a whole double below 2^62) as the trace lists it: its low 32 bits. */
static inline int fz_low(double cell)
{
    return (int)(int32_t)(uint32_t)(uint64_t)(int64_t)cell;
}

static inline int fz_finite(const float* p, int dim)
{
    for (int a = 0; a < dim; ++a)
        if (!isfinite(p[a]))
            return 0;
    return 1;
}

/* The article's grids take coordinates |x| < 2^33 r (MW_GRID_RANGE in c/internal.h), whatever
 * their cells: fz_outOfGrid says a point is clearly beyond that (a weld of it must fail),
 * fz_nearOutOfGrid that it is not clearly within (a refusal of it is fair). The band between
 * them leaves the library's own rounding of the bound alone. (meshweld_cells may refuse points
 * within the range too, whose keys do not fit int: it cannot tell.) */
static inline double fz_gridRatio(const float* p, int dim, float r)
{
    double m = 0;
    for (int a = 0; a < dim; ++a)
        m = fmax(m, fabs((double)p[a]));
    return m / (8589934592.0 * (double)r);
}

static inline int fz_outOfGrid(const float* p, int dim, float r, int method)
{
    return r > 0.0f && fz_hasCells(method) && fz_gridRatio(p, dim, r) >= 1.0001;
}

static inline int fz_nearOutOfGrid(const float* p, int dim, float r, int method)
{
    (void)method;
    return r > 0.0f && fz_gridRatio(p, dim, r) >= 0.9999;
}

/* The same, for one coordinate alone (the axis an error names). */
static inline int fz_axisOutOfGrid(const float* p, int axis, int dim, float r, int method)
{
    float q[3] = {0, 0, 0};
    q[axis] = p[axis];
    return fz_nearOutOfGrid(q, dim, r, method);
}

/* ---- a small hash map from three 32-bit words to a value, for the references ---- */
typedef struct FzMap {
    uint32_t* slots; /* 4 words each: key[3], value + 1 (0 = empty) */
    size_t mask;
} FzMap;

static inline void fz_mapInit(FzMap* m, size_t count)
{
    size_t cap = 64;
    while (cap < 2 * count + 16)
        cap *= 2;
    m->slots = (uint32_t*)calloc(cap * 4, sizeof(uint32_t));
    FZ_ASSERT(m->slots != NULL, "out of memory in the checker");
    m->mask = cap - 1;
}

static inline void fz_mapFree(FzMap* m)
{
    free(m->slots);
}

static inline uint32_t* fz_mapSlot(FzMap* m, const uint32_t k[3])
{
    uint64_t h = (k[0] * 0x9e3779b97f4a7c15ull) ^ (k[1] * 0xc2b2ae3d27d4eb4full) ^ (k[2] * 0x165667b19e3779f9ull);
    h ^= h >> 31;
    for (size_t i = (size_t)h & m->mask;; i = (i + 1) & m->mask) {
        uint32_t* s = m->slots + i * 4;
        if (s[3] == 0 || (s[0] == k[0] && s[1] == k[1] && s[2] == k[2]))
            return s;
    }
}

/* value or UINT32_MAX */
static inline uint32_t fz_mapGet(FzMap* m, const uint32_t k[3])
{
    uint32_t* s = fz_mapSlot(m, k);
    return s[3] ? s[3] - 1 : UINT32_MAX;
}

static inline void fz_mapPut(FzMap* m, const uint32_t k[3], uint32_t value)
{
    uint32_t* s = fz_mapSlot(m, k);
    s[0] = k[0], s[1] = k[1], s[2] = k[2], s[3] = value + 1;
}

/* The key of a position: coordinate bits with -0 folded onto +0. */
static inline void fz_positionKey(const float* p, int dim, uint32_t k[3])
{
    k[0] = fz_floatBits(p[0] + 0.0f);
    k[1] = fz_floatBits(p[1] + 0.0f);
    k[2] = dim == 3 ? fz_floatBits(p[2] + 0.0f) : 0;
}

/* ---- reference welds ---- */

/* The precise rule by brute force: each point merges into the earliest representative within r,
 * or becomes one. What NAIVE, KDTREE and every precise store must return. */
static inline size_t fz_naive(unsigned* remap, const float* pts, size_t n, size_t stride, int dim, float r)
{
    size_t* reps = (size_t*)malloc((n ? n : 1) * sizeof(size_t));
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        const float* p = fz_at(pts, stride, i);
        size_t q = 0;
        while (q < count && !fz_within(p, fz_at(pts, stride, reps[q]), dim, r))
            ++q;
        if (q == count)
            reps[count++] = i;
        remap[i] = (unsigned)q;
    }
    free(reps);
    return count;
}

/* The loose store by its definition: exact duplicates take their twin's output; a new position
 * takes the representative of the first occupied cell among those meshweld_cells lists (its store
 * cell first), or becomes the representative of its store cell. */
static inline size_t fz_loose(unsigned* remap, const float* pts, size_t n, size_t stride, int dim, float r, int method)
{
    FzMap exact, cells;
    fz_mapInit(&exact, n);
    fz_mapInit(&cells, n);
    meshweld_Options o = {dim, r, method, meshweld_StoreLoose};
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        const float* p = fz_at(pts, stride, i);
        uint32_t key[3];
        fz_positionKey(p, dim, key);
        uint32_t twin = fz_mapGet(&exact, key);
        if (twin != UINT32_MAX) {
            remap[i] = twin;
            continue;
        }
        int keys[81];
        int c = meshweld_cells(keys, NULL, p, &o);
        if (c == meshweld_ErrorRange && fz_gridRatio(p, dim, r) < 1.0001) {
            count = SIZE_MAX; /* cell keys beyond int: meshweld_cells cannot describe them */
            break;
        }
        FZ_ASSERT(c > 0, "meshweld_cells gave %d for point %zu of a successful %s weld", c, i, meshweld_methodName(method));
        uint32_t rep = UINT32_MAX;
        for (int k = 0; k < c && rep == UINT32_MAX; ++k)
            rep = fz_mapGet(&cells, (const uint32_t*)&keys[k * 3]);
        if (rep == UINT32_MAX) {
            rep = (uint32_t)count++;
            fz_mapPut(&cells, (const uint32_t*)&keys[0], rep);
        }
        fz_mapPut(&exact, key, rep);
        remap[i] = rep;
    }
    fz_mapFree(&exact);
    fz_mapFree(&cells);
    return count;
}

/* ---- the checker ---- */

/* Guarantees 1-4 of a successful weld, and equality with the reference of its method and store.
 * method_asked is the request (AUTO resolved by the library, reported in info). */
static inline void fz_checkWeld(const char* who, const float* pts, size_t n, size_t stride, int dim, float r, int method_asked,
                         int store, const unsigned* remap, size_t unique, int method_ran)
{
    if (dim == 0)
        dim = 3;
    /* the method that ran: AUTO runs a grid, and the kd-tree only when coordinates are beyond the
     * range of a 2r grid (so does a one-shot GRID weld whose engine could not run); a grid whose
     * cells meshweld_cells describes never meets a point beyond its range */
    if (method_asked == meshweld_MethodGrid && method_ran == meshweld_MethodKdtree) {
        int out_of_grid = 0;
        for (size_t i = 0; i < n; ++i)
            out_of_grid |= fz_nearOutOfGrid(fz_at(pts, stride, i), dim, r, meshweld_MethodGrid2R);
        FZ_ASSERT(out_of_grid, "%s: grid ran the kd-tree with in-grid coordinates", who);
    } else if (method_asked == meshweld_MethodAuto) {
        int out_of_grid = 0, out_of_ran = 0;
        for (size_t i = 0; i < n; ++i) {
            out_of_grid |= fz_nearOutOfGrid(fz_at(pts, stride, i), dim, r, meshweld_MethodGrid2R);
            out_of_ran |= fz_hasCells(method_ran) && fz_outOfGrid(fz_at(pts, stride, i), dim, r, method_ran);
        }
        FZ_ASSERT(method_ran != meshweld_MethodAuto && meshweld_methodName(method_ran) != NULL && !out_of_ran &&
                      (method_ran != meshweld_MethodKdtree || out_of_grid),
                  "%s: auto ran %s with %s coordinates", who, meshweld_methodName(method_ran),
                  out_of_grid ? "out-of-grid" : "in-grid");
    } else
        FZ_ASSERT(method_ran == method_asked, "%s: asked %s, ran %s", who, meshweld_methodName(method_asked),
                  meshweld_methodName(method_ran));

    /* 4: dense, numbered by first appearance */
    unsigned next = 0;
    for (size_t i = 0; i < n; ++i) {
        FZ_ASSERT(remap[i] <= next, "%s: remap[%zu] = %u skips ahead of %u", who, i, remap[i], next);
        if (remap[i] == next)
            next++;
    }
    FZ_ASSERT(next == unique, "%s: %zu outputs reported, %u used", who, unique, next);

    /* the kept positions: the first input of each cluster, bit for bit */
    size_t m = unique ? unique : 1;
    float* out = (float*)malloc(m * 3 * sizeof(float));
    size_t* first = (size_t*)malloc(m * sizeof(size_t));
    for (size_t i = n; i-- > 0;)
        first[remap[i]] = i;
    unsigned* firsts = (unsigned*)malloc(m * sizeof(unsigned));
    int e = meshweld_firstOfEach(firsts, unique, remap, n);
    FZ_ASSERT(e == meshweld_Ok, "%s: firstOfEach gave %d", who, e);
    for (size_t k = 0; k < unique; ++k)
        FZ_ASSERT(firsts[k] == first[k], "%s: firstOfEach says %u for output %zu, not %zu", who, firsts[k], k, first[k]);
    free(firsts);
    e = meshweld_gather(out, unique, remap, pts, n, stride, dim, 0);
    FZ_ASSERT(e == meshweld_Ok, "%s: gather gave %d", who, e);
    for (size_t k = 0; k < unique; ++k)
        FZ_ASSERT(memcmp(out + k * dim, fz_at(pts, stride, first[k]), dim * sizeof(float)) == 0,
                  "%s: output %zu is not input %zu", who, k, first[k]);

    /* 1: no two outputs within r */
    for (size_t a = 0; a < unique; ++a)
        for (size_t b = a + 1; b < unique; ++b)
            FZ_ASSERT(!fz_within(out + a * dim, out + b * dim, dim, r),
                      "%s %s/%d: outputs %zu and %zu within r = %.9g (d^2 = %.17g, r^2 = %.17g)", who,
                      meshweld_methodName(method_ran), store, a, b, r, fz_d2(out + a * dim, out + b * dim, dim),
                      (double)r * r);
    size_t pairs = 1;
    e = meshweld_countClosePairs(&pairs, out, unique, dim * sizeof(float), dim, r, 0);
    FZ_ASSERT(e == meshweld_Ok && pairs == 0, "%s: countClosePairs of the outputs gave %d, %zu pairs", who, e, pairs);

    /* 2: every input within R of its output */
    double R = meshweld_bound(method_ran, store, dim, r);
    FZ_ASSERT(R >= (double)r, "%s: bound %.17g below r %.9g", who, R, r);
    for (size_t i = 0; i < n; ++i) {
        double d = sqrt(fz_d2(fz_at(pts, stride, i), out + remap[i] * dim, dim));
        FZ_ASSERT(d <= R, "%s %s/%d: input %zu is %.17g from its output, R = %.17g", who,
                  meshweld_methodName(method_ran), store, i, d, R);
    }

    /* 3: identical positions share an output; and the result equals its reference */
    unsigned* ref = (unsigned*)malloc((n ? n : 1) * sizeof(unsigned));
    FzMap seen;
    fz_mapInit(&seen, n);
    for (size_t i = 0; i < n; ++i) {
        uint32_t key[3];
        fz_positionKey(fz_at(pts, stride, i), dim, key);
        uint32_t twin = fz_mapGet(&seen, key);
        if (twin == UINT32_MAX)
            fz_mapPut(&seen, key, (uint32_t)i);
        else
            FZ_ASSERT(remap[i] == remap[twin], "%s: identical inputs %u and %zu split (%u, %u)", who, twin, i,
                      remap[twin], remap[i]);
    }
    fz_mapFree(&seen);
    /* R = r: the precise rule, the naive result (the precise store, NAIVE, KDTREE, radius 0);
     * else the loose store, rebuilt from meshweld_cells for the grids it describes */
    int precise = R <= (double)r;
    if (precise || fz_hasCells(method_ran)) {
        size_t ref_unique = precise ? fz_naive(ref, pts, n, stride, dim, r) : fz_loose(ref, pts, n, stride, dim, r, method_ran);
        if (ref_unique == SIZE_MAX)
            fz_note("loose store: cells beyond int, no reference");
        for (size_t i = 0; i < n && ref_unique != SIZE_MAX; ++i)
            FZ_ASSERT(remap[i] == ref[i], "%s %s/%d r %.9g: remap[%zu] = %u, the %s reference gives %u", who,
                      meshweld_methodName(method_ran), store, r, i, remap[i], precise ? "precise" : "loose", ref[i]);
        FZ_ASSERT(ref_unique == SIZE_MAX || ref_unique == unique, "%s: %zu outputs, reference %zu", who, unique, ref_unique);
    }

    /* centroids: in the convex hull of the cluster, so within R of its kept position (plus the
     * rounding of the mean to float) */
    e = meshweld_gather(out, unique, remap, pts, n, stride, dim, 1);
    FZ_ASSERT(e == meshweld_Ok, "%s: centroid gather gave %d", who, e);
    for (size_t k = 0; k < unique; ++k) {
        const float* kept = fz_at(pts, stride, first[k]);
        double slack = 0;
        for (int a = 0; a < dim; ++a) {
            double span = fabs((double)kept[a]) + R; /* a float ulp at that magnitude */
            slack += ldexp(1.0, ilogb(span > FLT_MIN ? span : FLT_MIN) - 23);
        }
        double d = sqrt(fz_d2(out + k * dim, kept, dim));
        FZ_ASSERT(d <= R * (1 + 1e-12) + slack, "%s: centroid %zu is %.17g from its kept point, R %.17g", who, k, d, R);
    }
    free(ref);
    free(first);
    free(out);
}

#endif

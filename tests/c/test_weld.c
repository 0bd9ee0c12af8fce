/* Native tests of the welding core: every method, both stores, 2D and 3D, checked against a
 * brute-force checker on random and adversarial inputs; errors; allocator; incremental welding.
 * Usage: test_weld [group]   (no group: all groups) */
#include "../../c/meshweld.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- deterministic random numbers ---- */
static uint64_t rng_state;
static void seed(uint64_t s) { rng_state = s * 0x9e3779b97f4a7c15ull + 1; }
static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double uniform(void) { return (double)(next_u64() >> 11) / 9007199254740992.0; }
static double gaussian(void)
{
    double u = uniform() + 1e-300, v = uniform();
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* The n points of p (dim floats each) in a random order: a Fisher-Yates shuffle on next_u64. */
static void shuffle_points(float* p, size_t n, int dim)
{
    for (size_t i = n > 0 ? n - 1 : 0; i > 0; --i) {
        size_t j = next_u64() % (i + 1);
        for (int a = 0; a < dim; ++a) {
            float t = p[i * dim + a];
            p[i * dim + a] = p[j * dim + a];
            p[j * dim + a] = t;
        }
    }
}

/* ---- the brute-force checker ---- */
static double dist(const float* a, const float* b, int dim)
{
    double d = 0;
    for (int i = 0; i < dim; ++i) {
        double e = (double)a[i] - (double)b[i];
        d += e * e;
    }
    return sqrt(d);
}

static int bits_equal(const float* a, const float* b, int dim)
{
    for (int i = 0; i < dim; ++i)
        if (!(a[i] == b[i])) /* == treats -0 and +0 alike; inputs hold no NaN */
            return 0;
    return 1;
}

typedef struct Weld {
    unsigned int* remap;
    size_t unique;
    int method;
} Weld;

static const int methods[] = {meshweld_MethodNaive, meshweld_MethodGridR, meshweld_MethodGrid2R, meshweld_MethodGrid,
                              meshweld_MethodHex, meshweld_MethodBcc, meshweld_MethodKdtree, meshweld_MethodAuto};

static int method_fits(int method, int dim)
{
    return !(method == meshweld_MethodHex && dim != 2) && !(method == meshweld_MethodBcc && dim != 3);
}

static Weld run(const float* pts, size_t n, size_t stride, int dim, float r, int method, int store)
{
    Weld w = {(unsigned int*)malloc((n ? n : 1) * sizeof(unsigned int)), 0, 0};
    meshweld_Options o = {dim, r, method, store};
    meshweld_Info info;
    int e = meshweld_weld(w.remap, pts, n, stride, &o, &info);
    CHECK(e == 0, "weld failed: %s (method %s, dim %d, n %zu)", meshweld_errorString(e), meshweld_methodName(method), dim, n);
    w.unique = e == 0 ? info.unique_count : 0;
    w.method = info.method;
    return w;
}

/* Checks guarantees 1-4 of one weld; returns the largest displacement over r. */
static double check_weld(const char* name, const float* pts, size_t n, size_t stride, int dim, float r, int method,
                         int store, const Weld* w)
{
    const char* mname = meshweld_methodName(method);
    double R = meshweld_bound(w->method, store, dim, r);
    CHECK(R >= r, "%s: bound of %s is %g", name, mname, R);

    /* 4: dense, numbered by first appearance */
    unsigned int next = 0;
    int dense = 1;
    for (size_t i = 0; i < n; ++i) {
        if (w->remap[i] > next) dense = 0;
        if (w->remap[i] == next) next++;
    }
    CHECK(dense && next == w->unique, "%s %s/%d: remap not dense (next %u, unique %zu)", name, mname, store, next, w->unique);
    if (!dense || next != w->unique)
        return 0;

    float* out = (float*)malloc((w->unique ? w->unique : 1) * dim * sizeof(float));
    int e = meshweld_gather(out, w->unique, w->remap, pts, n, stride, dim, 0);
    CHECK(e == 0, "%s: gather failed", name);
    {
        /* meshweld_weldKept: the same remap, and the gathered positions without a gather */
        float* kept = (float*)malloc((n ? n : 1) * dim * sizeof(float));
        unsigned int* again = (unsigned int*)malloc((n ? n : 1) * sizeof(unsigned int));
        meshweld_Options o = {dim, r, method, store};
        meshweld_Info info;
        CHECK(meshweld_weldKept(again, kept, pts, n, stride, &o, &info) == 0 && info.unique_count == w->unique &&
                  memcmp(again, w->remap, n * sizeof(unsigned)) == 0 && memcmp(kept, out, w->unique * dim * sizeof(float)) == 0,
              "%s %s/%d: weldKept differs from weld + gather", name, mname, store);
        /* meshweld_weldFirst: the same remap, first what firstOfEach gives, kept (when asked) the
         * gathered positions */
        unsigned* firsts = (unsigned*)malloc((n ? n : 1) * sizeof(unsigned));
        unsigned* expected = (unsigned*)malloc((w->unique ? w->unique : 1) * sizeof(unsigned));
        CHECK(meshweld_firstOfEach(expected, w->unique, w->remap, n) == 0, "%s: firstOfEach failed", name);
        for (int with_kept = 0; with_kept <= 1; ++with_kept) {
            memset(again, 0xff, (n ? n : 1) * sizeof(unsigned));
            memset(kept, 0xff, (n ? n : 1) * dim * sizeof(float));
            CHECK(meshweld_weldFirst(again, firsts, with_kept ? kept : NULL, pts, n, stride, &o, &info) == 0 &&
                      info.unique_count == w->unique && memcmp(again, w->remap, n * sizeof(unsigned)) == 0 &&
                      memcmp(firsts, expected, w->unique * sizeof(unsigned)) == 0 &&
                      (!with_kept || memcmp(kept, out, w->unique * dim * sizeof(float)) == 0),
                  "%s %s/%d: weldFirst (kept %d) differs from weld + firstOfEach + gather", name, mname, store, with_kept);
        }
        free(expected);
        free(firsts);
        free(kept);
        free(again);
    }
#define P(i) ((const float*)((const char*)pts + (i) * stride))

    /* kept positions are inputs: the first of each cluster */
    size_t* first = (size_t*)malloc((w->unique ? w->unique : 1) * sizeof(size_t));
    for (size_t i = n; i-- > 0;) first[w->remap[i]] = i;
    int kept = 1;
    for (size_t k = 0; k < w->unique; ++k)
        if (memcmp(out + k * dim, P(first[k]), dim * sizeof(float)) != 0) kept = 0;
    CHECK(kept, "%s %s: kept position is not the first input", name, mname);

    /* 1: no two outputs within r */
    size_t close = 0;
    for (size_t a = 0; a < w->unique; ++a)
        for (size_t b = a + 1; b < w->unique; ++b)
            if (dist(out + a * dim, out + b * dim, dim) <= r) close++;
    CHECK(close == 0, "%s %s/%d dim %d: %zu output pairs within r", name, mname, store, dim, close);
    size_t pairs = 99;
    CHECK(meshweld_countClosePairs(&pairs, out, w->unique, dim * sizeof(float), dim, r, 0) == 0 && pairs == close,
          "%s: countClosePairs says %zu, brute force %zu", name, pairs, close);

    /* 2: displacement within R */
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
        double d = dist(P(i), out + w->remap[i] * dim, dim);
        if (d > worst) worst = d;
    }
    CHECK(worst <= R, "%s %s/%d dim %d: displacement %.9g r > R = %.9g r", name, mname, store, dim, worst / r, R / r);

    /* 3: identical positions share an output (sort-free O(n^2) on small n, hashing on big) */
    int same = 1;
    if (n <= 3000) {
        for (size_t i = 0; i < n && same; ++i)
            for (size_t j = i + 1; j < n; ++j)
                if (bits_equal(P(i), P(j), dim) && w->remap[i] != w->remap[j]) { same = 0; break; }
    }
    CHECK(same, "%s %s/%d: identical positions split", name, mname, store);
#undef P
    free(first);
    free(out);
    return worst / r;
}

/* Runs every method and store on a data set, checks each, and checks that the precise store,
 * NAIVE and KDTREE agree exactly, that a second run is identical, and that batches give the
 * one-shot remap. */
static void check_all(const char* name, const float* pts, size_t n, int dim, float r)
{
    size_t stride = dim * sizeof(float);
    Weld naive = run(pts, n, stride, dim, r, meshweld_MethodNaive, meshweld_StorePrecise);
    check_weld(name, pts, n, stride, dim, r, meshweld_MethodNaive, meshweld_StorePrecise, &naive);
    for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); ++m) {
        if (!method_fits(methods[m], dim)) continue;
        for (int store = 0; store <= 1; ++store) {
            Weld w = run(pts, n, stride, dim, r, methods[m], store);
            check_weld(name, pts, n, stride, dim, r, methods[m], store, &w);
            int precise = store == meshweld_StorePrecise || w.method == meshweld_MethodNaive || w.method == meshweld_MethodKdtree;
            if (precise) {
                int eq = w.unique == naive.unique && memcmp(w.remap, naive.remap, n * sizeof(unsigned)) == 0;
                CHECK(eq, "%s: %s/precise differs from naive (%zu vs %zu outputs)", name, meshweld_methodName(methods[m]), w.unique, naive.unique);
            }
            Weld again = run(pts, n, stride, dim, r, methods[m], store);
            CHECK(again.unique == w.unique && memcmp(again.remap, w.remap, n * sizeof(unsigned)) == 0,
                  "%s: %s not deterministic", name, meshweld_methodName(methods[m]));
            free(again.remap);

            /* incremental: uneven batches reproduce the one-shot remap */
            meshweld_Options o = {dim, r, methods[m], store};
            int e = 0;
            meshweld_Welder* welder = meshweld_welderCreate(&o, &e);
            CHECK(welder && e == 0, "%s: welderCreate", name);
            unsigned int* inc = (unsigned int*)malloc((n ? n : 1) * sizeof(unsigned int));
            size_t at = 0, batch = 1;
            while (welder && at < n) {
                size_t take = batch < n - at ? batch : n - at;
                e = meshweld_welderAdd(welder, inc + at, pts + at * dim, take, stride, NULL);
                CHECK(e == 0, "%s: welderAdd: %s", name, meshweld_errorString(e));
                at += take;
                batch = batch * 3 + 1;
            }
            CHECK(memcmp(inc, w.remap, n * sizeof(unsigned)) == 0 && meshweld_welderCount(welder) == w.unique,
                  "%s: %s/%d incremental differs from one-shot", name, meshweld_methodName(methods[m]), store);
            float* wp = (float*)malloc((w.unique ? w.unique : 1) * dim * sizeof(float));
            float* gp = (float*)malloc((w.unique ? w.unique : 1) * dim * sizeof(float));
            meshweld_welderPositions(welder, wp);
            meshweld_gather(gp, w.unique, w.remap, pts, n, stride, dim, 0);
            CHECK(memcmp(wp, gp, w.unique * dim * sizeof(float)) == 0, "%s: welder positions differ from gather", name);
            free(wp);
            free(gp);
            free(inc);
            meshweld_welderDestroy(welder);
            free(w.remap);
        }
    }
    free(naive.remap);
}

/* ---- data sets ---- */
static float* make_uniform(size_t n, int dim, double extent)
{
    float* p = (float*)malloc(n * dim * sizeof(float));
    for (size_t i = 0; i < n * dim; ++i) p[i] = (float)(uniform() * extent);
    return p;
}

static void group_properties(void)
{
    char name[128];
    for (int dim = 2; dim <= 3; ++dim) {
        for (int t = 0; t < 12; ++t) {
            seed(1000 * dim + t);
            size_t n = 200 + (size_t)(uniform() * 1200);
            double extent = t % 3 == 0 ? 1.0 : (t % 3 == 1 ? 10.0 : 1000.0);
            float r = (float)(extent * pow(10.0, -0.5 - 1.5 * uniform()) / (dim == 3 ? 1.0 : 3.0));
            float* p = make_uniform(n, dim, extent);
            if (t % 2) /* shift far from the origin: large coordinates, small cells */
                for (size_t i = 0; i < n * dim; ++i) p[i] += (float)(extent * 1e3);
            snprintf(name, sizeof(name), "uniform dim %d #%d", dim, t);
            check_all(name, p, n, dim, r);
            free(p);
        }
    }
}

static void expect_naive(const char* name, const float* p, size_t n, int dim, float r, int method);

static void group_adversarial(void)
{
    char name[128];
    for (int dim = 2; dim <= 3; ++dim) {
        float r = 0.25f;
        /* a row of points exactly r apart, along x and along a diagonal */
        {
            size_t n = 400;
            float* p = (float*)calloc(n * dim, sizeof(float));
            for (size_t i = 0; i < n; ++i) p[i * dim] = (float)i * r;
            snprintf(name, sizeof(name), "row r apart dim %d", dim);
            check_all(name, p, n, dim, r);
            for (size_t i = 0; i < n; ++i)
                for (int a = 0; a < dim; ++a) p[i * dim + a] = (float)(i * r / sqrt((double)dim));
            snprintf(name, sizeof(name), "diagonal row r apart dim %d", dim);
            check_all(name, p, n, dim, r);
            /* the engine's pairs sorted by their later point: in input order along the row they
             * come sorted already, backwards along it each comes one point before the last, and
             * with neighbours swapped in turn they come nearly sorted */
            size_t m = 5000;
            float* q = (float*)calloc(m * dim, sizeof(float));
            for (int order = 0; order < 3; ++order) {
                for (size_t i = 0; i < m; ++i) {
                    size_t at = order == 0 ? i : order == 1 ? m - 1 - i : (i ^ 1) < m ? i ^ 1 : i;
                    q[i * dim] = (float)at * 0.75f * r, q[i * dim + 1] = (float)(at % 3) * 0.25f * r;
                }
                snprintf(name, sizeof(name), "row 0.75 r apart dim %d, %s", dim,
                         order == 0 ? "in order" : order == 1 ? "backwards" : "neighbours swapped");
                expect_naive(name, q, m, dim, r, meshweld_MethodAuto);
            }
            /* chains of three whose pairs come one point out of order: the cell of x in [0, 2r) holds
             * points 3t + 1 (x = 1.5 r) and 3t + 2 (0.7 r), and point 3t (2.2 r) lies in the next
             * cell, so the search finds (3t + 1, 3t + 2) before (3t, 3t + 1); the sort must put
             * them back (the greedy keeps 3t and 3t + 2) */
            size_t chains = 1000;
            for (size_t t = 0; t < chains; ++t)
                for (size_t k = 0; k < 3; ++k) {
                    float* at = q + (3 * t + k) * dim;
                    at[0] = (k == 0 ? 2.2f : k == 1 ? 1.5f : 0.7f) * r, at[1] = (float)t * 10.0f * r;
                    if (dim == 3) at[2] = 0.0f;
                }
            snprintf(name, sizeof(name), "chains with pairs out of order dim %d", dim);
            expect_naive(name, q, 3 * chains, dim, r, meshweld_MethodAuto);
            free(q);
            free(p);
        }
        /* a lattice at spacing r/2 */
        {
            int side = dim == 2 ? 40 : 11;
            size_t n = dim == 2 ? (size_t)side * side : (size_t)side * side * side;
            float* p = (float*)malloc(n * dim * sizeof(float));
            for (size_t i = 0; i < n; ++i) {
                p[i * dim] = (float)(i % side) * r / 2;
                p[i * dim + 1] = (float)((i / side) % side) * r / 2;
                if (dim == 3) p[i * dim + 2] = (float)(i / side / side) * r / 2;
            }
            snprintf(name, sizeof(name), "lattice r/2 dim %d", dim);
            check_all(name, p, n, dim, r);
            /* shuffled order */
            seed(7);
            shuffle_points(p, n, dim);
            snprintf(name, sizeof(name), "shuffled lattice r/2 dim %d", dim);
            check_all(name, p, n, dim, r);
            free(p);
        }
        /* many exact duplicates, with -0 and +0, interleaved with near points */
        {
            seed(11 + dim);
            size_t n = 1500;
            float* p = (float*)malloc(n * dim * sizeof(float));
            float base[64][3];
            for (int k = 0; k < 64; ++k)
                for (int a = 0; a < 3; ++a) base[k][a] = (float)((uniform() - 0.5) * 4 * r);
            base[0][0] = 0.0f, base[0][1] = 0.0f, base[0][2] = 0.0f;
            for (size_t i = 0; i < n; ++i) {
                int k = (int)(next_u64() % 64);
                for (int a = 0; a < dim; ++a) {
                    float v = base[k][a];
                    if (v == 0.0f && (next_u64() & 1)) v = -0.0f;
                    p[i * dim + a] = v;
                }
            }
            snprintf(name, sizeof(name), "duplicates dim %d", dim);
            check_all(name, p, n, dim, r);
            free(p);
        }
        /* points on cell boundaries of every grid: multiples of r/2, r/sqrt(3)... */
        {
            seed(23 + dim);
            size_t n = 1200;
            float* p = (float*)malloc(n * dim * sizeof(float));
            const double steps[] = {0.5, 1.0, 2.0, 1.7320508075688772, 5.656854249492381, 3.4641016151377544};
            for (size_t i = 0; i < n; ++i) {
                double step = steps[next_u64() % 6] * r;
                for (int a = 0; a < dim; ++a)
                    p[i * dim + a] = (float)((double)(int)(next_u64() % 24) * step * (1.0 + ((next_u64() % 3) - 1.0) * 1e-7));
            }
            snprintf(name, sizeof(name), "cell boundaries dim %d", dim);
            check_all(name, p, n, dim, r);
            free(p);
        }
        /* a huge coordinate range: clusters near 0 and near +-1e5 */
        {
            seed(31 + dim);
            size_t n = 1000;
            float* p = (float*)malloc(n * dim * sizeof(float));
            for (size_t i = 0; i < n; ++i) {
                double centre = (double)((int)(next_u64() % 3) - 1) * 1e5;
                for (int a = 0; a < dim; ++a) p[i * dim + a] = (float)(centre + gaussian() * r);
            }
            snprintf(name, sizeof(name), "huge range dim %d", dim);
            check_all(name, p, n, dim, 0.01f);
            free(p);
        }
        /* tight gaussian clusters with far outliers */
        {
            seed(41 + dim);
            size_t n = 1500;
            float* p = (float*)malloc(n * dim * sizeof(float));
            for (size_t i = 0; i < n; ++i) {
                int outlier = next_u64() % 20 == 0;
                int c = (int)(next_u64() % 8);
                for (int a = 0; a < dim; ++a)
                    p[i * dim + a] = outlier ? (float)((uniform() - 0.5) * 1e4) : (float)(c * 3.0 + gaussian() * r);
            }
            snprintf(name, sizeof(name), "clusters dim %d", dim);
            check_all(name, p, n, dim, r);
            free(p);
        }
        /* every point identical; r larger than the whole extent */
        {
            size_t n = 500;
            float* p = (float*)malloc(n * dim * sizeof(float));
            for (size_t i = 0; i < n * dim; ++i) p[i] = 1.5f;
            snprintf(name, sizeof(name), "identical dim %d", dim);
            check_all(name, p, n, dim, r);
            seed(51);
            for (size_t i = 0; i < n * dim; ++i) p[i] = (float)uniform();
            for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); ++m) {
                if (!method_fits(methods[m], dim)) continue;
                for (int store = 0; store <= 1; ++store) {
                    Weld w = run(p, n, dim * sizeof(float), dim, 10.0f, methods[m], store);
                    CHECK(w.unique == 1, "r beyond extent: %s/%d left %zu points", meshweld_methodName(methods[m]), store, w.unique);
                    free(w.remap);
                }
            }
            free(p);
        }
    }
}

/* Completeness: two points at distance <= r must always merge, wherever they fall on the grid.
 * This is the test that proves each cell scale (hex side 2r, BCC cube edge 4 sqrt(2) r). */
/* Trials of the groups that weld many pairs of points: a tenth under Valgrind (CMake sets
 * MESHWELD_TEST_LIGHT there), where each pair takes the same paths as the thousands before it and
 * the plain and sanitizer builds run them all. */
static int trials(int n)
{
    const char* light = getenv("MESHWELD_TEST_LIGHT");
    return light && *light ? n / 10 : n;
}

static void group_completeness(void)
{
    for (int dim = 2; dim <= 3; ++dim) {
        for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); ++m) {
            if (!method_fits(methods[m], dim)) continue;
            for (int store = 0; store <= 1; ++store) {
                seed(97 + m * 2 + store + dim * 100);
                size_t missed = 0, tried = 0;
                int pairs = trials(60000);
                for (int t = 0; t < pairs; ++t) {
                    float r = (float)(0.01 + uniform());
                    float pair[6];
                    double u[3] = {gaussian(), gaussian(), dim == 3 ? gaussian() : 0.0};
                    double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
                    for (int a = 0; a < dim; ++a) pair[a] = (float)((uniform() - 0.5) * 40.0);
                    /* at distance r from the first, nudged inwards until the double distance is <= r */
                    for (int a = 0; a < dim; ++a) pair[dim + a] = (float)(pair[a] + u[a] / len * r);
                    int guard = 0;
                    while (dist(pair, pair + dim, dim) > r && guard++ < 64)
                        for (int a = 0; a < dim; ++a)
                            pair[dim + a] = nextafterf(pair[dim + a], pair[a]);
                    if (dist(pair, pair + dim, dim) > r) continue;
                    tried++;
                    unsigned int remap[2];
                    meshweld_Options o = {dim, r, methods[m], store};
                    meshweld_Info info;
                    if (meshweld_weld(remap, pair, 2, dim * sizeof(float), &o, &info) != 0 || info.unique_count != 1)
                        missed++;
                }
                CHECK(missed == 0 && tried > (size_t)pairs / 6 * 5, "%s/%d dim %d: %zu of %zu pairs within r not merged",
                      meshweld_methodName(methods[m]), store, dim, missed, tried);
            }
        }
    }
}

/* The loose bounds are not only upper bounds: adversarial pairs come close to them. */
static void group_bounds(void)
{
    for (int dim = 2; dim <= 3; ++dim) {
        for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); ++m) {
            if (!method_fits(methods[m], dim) || methods[m] == meshweld_MethodAuto) continue;
            double R = meshweld_bound(methods[m], meshweld_StoreLoose, dim, 1.0f);
            double worst = 0;
            seed(300 + m + dim);
            for (int t = 0; t < trials(200000); ++t) {
                float pair[6];
                double len = R * (0.5 + 0.5 * uniform());
                double u[3] = {gaussian(), gaussian(), dim == 3 ? gaussian() : 0.0};
                double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
                for (int a = 0; a < dim; ++a) pair[a] = (float)((uniform() - 0.5) * 40.0);
                for (int a = 0; a < dim; ++a) pair[dim + a] = (float)(pair[a] + u[a] / ul * len);
                unsigned int remap[2];
                meshweld_Options o = {dim, 1.0f, methods[m], meshweld_StoreLoose};
                meshweld_Info info;
                if (meshweld_weld(remap, pair, 2, dim * sizeof(float), &o, &info) == 0 && info.unique_count == 1) {
                    double d = dist(pair, pair + dim, dim);
                    if (d > worst) worst = d;
                }
            }
            CHECK(worst <= R, "%s dim %d: merged at %g > R %g", meshweld_methodName(methods[m]), dim, worst, R);
            if (methods[m] != meshweld_MethodNaive && methods[m] != meshweld_MethodKdtree)
                CHECK(worst > 0.8 * R, "%s dim %d: largest merge %g is far below R %g: bound not tight",
                      meshweld_methodName(methods[m]), dim, worst, R);
        }
    }
}

static void free_hook_alone(void* user, void* p)
{
    (void)user;
    free(p);
}

static void group_errors(void)
{
    float pts[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    unsigned int remap[3] = {7, 7, 7};
    meshweld_Info info;
    meshweld_Options o = {3, 0.1f, 0, 0};
#define EXPECT(call, code) \
    CHECK((call) == (code), "%s should give %s", #call, meshweld_errorString(code))
    o.dim = 4;
    EXPECT(meshweld_weld(remap, pts, 3, 12, &o, &info), meshweld_ErrorDim);
    o.dim = 1;
    EXPECT(meshweld_weld(remap, pts, 3, 12, &o, &info), meshweld_ErrorDim);
    o.dim = 3;
    const float bad_r[] = {-FLT_MIN, -1.0f, NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 5; ++i) {
        o.radius = bad_r[i];
        EXPECT(meshweld_weld(remap, pts, 3, 12, &o, &info), meshweld_ErrorRadius);
    }
    o.radius = 0.1f;
    o.method = 9;
    EXPECT(meshweld_weld(remap, pts, 3, 12, &o, &info), meshweld_ErrorMethod);
    o.method = meshweld_MethodHex;
    EXPECT(meshweld_weld(remap, pts, 3, 12, &o, &info), meshweld_ErrorMethodDim);
    o.method = meshweld_MethodBcc, o.dim = 2;
    EXPECT(meshweld_weld(remap, pts, 3, 8, &o, &info), meshweld_ErrorMethodDim);
    o.method = 0, o.dim = 3, o.store = 2;
    EXPECT(meshweld_weld(remap, pts, 3, 12, &o, &info), meshweld_ErrorStore);
    o.store = 0;
    EXPECT(meshweld_weld(remap, pts, 3, 8, &o, &info), meshweld_ErrorStride);
    EXPECT(meshweld_weld(remap, pts, 3, 13, &o, &info), meshweld_ErrorStride);
    EXPECT(meshweld_weld(remap, pts, (size_t)1 << 33, 12, &o, &info), meshweld_ErrorCount);
    EXPECT(meshweld_weld(remap, pts, SIZE_MAX / 8, 16, &o, &info), meshweld_ErrorCount);
    EXPECT(meshweld_weld(NULL, pts, 3, 12, &o, &info), meshweld_ErrorNull);
    EXPECT(meshweld_weld(remap, pts, 3, 12, NULL, &info), meshweld_ErrorNull);
    CHECK(remap[0] == 7 && remap[1] == 7 && remap[2] == 7, "errors wrote to remap");
    EXPECT(meshweld_weld(NULL, NULL, 0, 12, &o, &info), meshweld_Ok);
    CHECK(info.unique_count == 0, "empty input has outputs");

    /* non-finite coordinates, in each axis, for every method */
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); ++m) {
        if (!method_fits(methods[m], 3)) continue;
        for (int b = 0; b < 3; ++b)
            for (int axis = 0; axis < 3; ++axis) {
                float q[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
                q[3 + axis] = bad[b];
                o.method = methods[m];
                info.error_point = 99;
                EXPECT(meshweld_weld(remap, q, 3, 12, &o, &info), meshweld_ErrorNonFinite);
                CHECK(info.error_point == 1 && info.error_axis == axis, "non-finite reported at %zu/%d", info.error_point, info.error_axis);
            }
    }
    /* coordinates near FLT_MAX with r tiny: grid methods refuse, kdtree and auto weld */
    float huge[6] = {FLT_MAX, -FLT_MAX, 0.0f, FLT_MAX, -FLT_MAX, 0.0f};
    const int grids[] = {meshweld_MethodGridR, meshweld_MethodGrid2R, meshweld_MethodBcc};
    for (int g = 0; g < 3; ++g) {
        o.method = grids[g], o.radius = 1e-3f;
        EXPECT(meshweld_weld(remap, huge, 2, 12, &o, &info), meshweld_ErrorRange);
        CHECK(info.error_point == 0 && info.error_axis == 0, "range error at %zu", info.error_point);
    }
    o.method = meshweld_MethodAuto;
    EXPECT(meshweld_weld(remap, huge, 2, 12, &o, &info), meshweld_Ok);
    CHECK(info.method == meshweld_MethodKdtree && info.unique_count == 1, "auto on huge coordinates: %s, %zu",
          meshweld_methodName(info.method), info.unique_count);
    o.method = meshweld_MethodKdtree;
    EXPECT(meshweld_weld(remap, huge, 2, 12, &o, &info), meshweld_Ok);
    /* r near FLT_MIN */
    float tiny[6] = {0.0f, 0.0f, 0.0f, 3e-38f, 0.0f, 0.0f};
    o.radius = FLT_MIN, o.method = meshweld_MethodGrid2R;
    EXPECT(meshweld_weld(remap, tiny, 2, 12, &o, &info), meshweld_Ok);
    CHECK(info.unique_count == 2, "FLT_MIN radius merged points 3e-38 apart");
    o.method = meshweld_MethodAuto;
    EXPECT(meshweld_weld(remap, pts, 3, 12, &o, &info), meshweld_Ok);
    CHECK(info.method == meshweld_MethodGrid && info.unique_count == 3, "auto with FLT_MIN radius: cells sized to the data");
    /* denormals */
    float denorm[6] = {1e-45f, 0.0f, -1e-45f, 0.0f, -0.0f, 0.0f};
    o.radius = 1e-40f, o.method = meshweld_MethodGridR;
    EXPECT(meshweld_weld(remap, denorm, 2, 12, &o, &info), meshweld_Ok);
    CHECK(info.unique_count == 1, "denormals 2e-45 apart with r 1e-40 did not merge");

    /* welder: an error leaves it untouched, and it stays usable */
    o.radius = 0.5f, o.method = meshweld_MethodGrid2R;
    int e = 1;
    meshweld_Welder* w = meshweld_welderCreate(&o, &e);
    CHECK(w && e == 0, "welderCreate");
    unsigned int r3[3];
    float far[9] = {0, 0, 0, 10, 10, 10, 20, 20, 20};
    EXPECT(meshweld_welderAdd(w, r3, far, 3, 12, &info), meshweld_Ok);
    float q[9] = {5, 5, 5, NAN, 0, 0, 30, 30, 30};
    EXPECT(meshweld_welderAdd(w, r3, q, 3, 12, &info), meshweld_ErrorNonFinite);
    CHECK(meshweld_welderCount(w) == 3, "failed batch changed the welder");
    q[3] = 0;
    EXPECT(meshweld_welderAdd(w, r3, q, 3, 12, &info), meshweld_Ok);
    CHECK(r3[0] == 3 && r3[1] == 0 && r3[2] == 4 && meshweld_welderCount(w) == 5, "welder after error: %u %u %u", r3[0], r3[1], r3[2]);
    meshweld_welderDestroy(w);
    meshweld_welderDestroy(NULL);
    o.dim = 5;
    CHECK(meshweld_welderCreate(&o, &e) == NULL && e == meshweld_ErrorDim, "welderCreate with dim 5");

    /* names and strings */
    for (int m = 0; m <= 7; ++m)
        CHECK(meshweld_methodFromName(meshweld_methodName(m)) == m, "name round trip %d", m);
    CHECK(meshweld_methodFromName("hexagon") == meshweld_ErrorMethod && meshweld_methodName(8) == NULL, "unknown names");
    for (int c = 0; c >= -15; --c)
        CHECK(strcmp(meshweld_errorString(c), "unknown error") != 0, "no string for error %d", c);
    CHECK(meshweld_bound(meshweld_MethodHex, 0, 3, 1.0f) < 0 && meshweld_bound(1, 0, 3, -1.0f) < 0, "bound of invalid");
    unsigned int bad_remap[3] = {0, 5, 1};
    float dest[9];
    EXPECT(meshweld_gather(dest, 2, bad_remap, pts, 3, 12, 3, 0), meshweld_ErrorIndex);
    EXPECT(meshweld_setAllocator(NULL, free_hook_alone, NULL), meshweld_ErrorAllocator);
#undef EXPECT
}


static void group_mesh(void)
{
    /* a quad as a soup of two triangles, plus a sliver whose corners weld together */
    float soup[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, /**/ 0, 0, 0, 1, 1, 0, 0, 1, 0, /**/ 5, 5, 5, 5, 5, 5.00001f, 6, 6, 6};
    unsigned int remap[9], out[12];
    meshweld_Options o = {3, 1e-3f, meshweld_MethodAuto, meshweld_StoreLoose};
    meshweld_Info info;
    CHECK(meshweld_weld(remap, soup, 9, 12, &o, &info) == 0 && info.unique_count == 6, "soup weld: %zu", info.unique_count);
    size_t written = 0, degenerate = 0, duplicates = 0;
    CHECK(meshweld_remapTriangles(out, &written, &degenerate, &duplicates, NULL, 9, remap, 9, 0, &info) == 0, "remap soup");
    unsigned int expect[] = {0, 1, 2, 0, 2, 3};
    CHECK(written == 6 && degenerate == 1 && memcmp(out, expect, sizeof(expect)) == 0, "soup indices: %zu written, %zu degenerate", written, degenerate);
    CHECK(meshweld_remapTriangles(out, &written, &degenerate, NULL, NULL, 9, remap, 9, meshweld_KeepDegenerate, NULL) == 0 &&
              written == 9 && degenerate == 0 && out[6] == 4 && out[7] == 4 && out[8] == 5,
          "keep degenerate: %zu", written);

    /* duplicates: the same triangle, a rotation of it, and the reversed winding (kept) */
    unsigned int idx[] = {0, 1, 2, 1, 2, 0, 2, 1, 0, 0, 1, 2};
    unsigned int identity[3] = {0, 1, 2};
    CHECK(meshweld_remapTriangles(out, &written, NULL, &duplicates, idx, 12, identity, 3, meshweld_RemoveDuplicates, NULL) == 0 &&
              written == 6 && duplicates == 2 && out[3] == 2 && out[4] == 1 && out[5] == 0,
          "duplicates: %zu written, %zu removed", written, duplicates);
    /* in place */
    unsigned int inplace[] = {0, 1, 2, 0, 0, 1, 2, 1, 0};
    CHECK(meshweld_remapTriangles(inplace, &written, &degenerate, NULL, inplace, 9, identity, 3, 0, NULL) == 0 &&
              written == 6 && inplace[3] == 2 && inplace[4] == 1 && inplace[5] == 0,
          "in place");

    /* bad index buffers: nothing written */
    unsigned int bad[] = {0, 1, 7};
    out[0] = 99;
    CHECK(meshweld_remapTriangles(out, &written, NULL, NULL, bad, 3, identity, 3, 0, &info) == meshweld_ErrorIndex &&
              info.error_point == 2 && out[0] == 99 && written == 0,
          "out-of-range index");
    CHECK(meshweld_remapTriangles(out, &written, NULL, NULL, idx, 4, identity, 3, 0, &info) == meshweld_ErrorIndexCount,
          "index count not a multiple of 3");
    /* an unindexed soup longer than the vertices: its index 3 (at position 3) is the first out of range */
    info.error_point = 99;
    out[0] = 99;
    int soup_error = meshweld_remapTriangles(out, &written, NULL, NULL, NULL, 6, identity, 3, 0, &info);
    CHECK(soup_error == meshweld_ErrorIndex && info.error_point == 3 && out[0] == 99 && written == 0,
          "soup longer than the vertices: %d (%s), error_point %zu; expected ErrorIndex at 3", soup_error,
          meshweld_errorString(soup_error), info.error_point);
    CHECK(meshweld_remapTriangles(NULL, &written, NULL, NULL, NULL, 0, NULL, 0, 0, NULL) == 0 && written == 0, "empty");
}


/* the rule's match of one attribute: within the tolerance, or (a non-finite value) equal bits */
static int rule_match(const meshweld_Attribute* t, size_t a, size_t b)
{
    const float* x = (const float*)((const char*)t->data + a * t->stride);
    const float* y = (const float*)((const char*)t->data + b * t->stride);
    double d = dist(x, y, t->size);
    if (d - d == 0.0)
        return d <= t->tolerance;
    for (int j = 0; j < t->size; ++j)
        if (!(x[j] == y[j]) && memcmp(&x[j], &y[j], sizeof(float)) != 0)
            return 0;
    return 1;
}

/* The rule by brute force on v (8 floats a vertex: position, then the attributes attrs point
 * into): each vertex takes the earliest representative within r whose attributes all match, else
 * becomes one. Writes each vertex's output to expect and the representatives to reps; returns
 * their count. */
static size_t rule_remap(const float* v, size_t n, int dim, float r, const meshweld_Attribute* attrs, size_t count,
                         unsigned* expect, size_t* reps)
{
    size_t rep_count = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t found = rep_count;
        for (size_t q = 0; q < rep_count && found == rep_count; ++q) {
            size_t j = reps[q];
            int match = dist(v + i * 8, v + j * 8, dim) <= r;
            for (size_t k = 0; k < count && match; ++k) match = rule_match(&attrs[k], i, j);
            if (match) found = q;
        }
        if (found == rep_count) reps[rep_count++] = i;
        expect[i] = (unsigned)found;
    }
    return rep_count;
}

/* Attribute-aware welding against a brute-force greedy of the same rule. */
/* One attribute-aware weld of 600 vertices (x y z | nx ny nz | u v) against a brute-force greedy of
 * the same rule; offset moves the set along x (far enough, it leaves the grid's range). */
static void attribute_case(int dim, int t, float r, int method, double offset)
{
    seed(700 + t + dim * 50);
    size_t n = 600;
    float* v = (float*)malloc(n * 8 * sizeof(float));
    float tol_n = 0.1f, tol_uv = t % 2 ? 0.0f : 0.02f;
    for (size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a)
            v[i * 8 + a] = (float)((a == 0 ? offset : 0) + (next_u64() % 6) * 0.03 + (t % 3 == 0 ? uniform() * 0.02 : 0));
        if (i % 7 == 3) v[i * 8] = -0.0f * v[i * 8]; /* a -0 beside the +0 of other vertices */
        int face = (int)(next_u64() % 3);
        for (int a = 0; a < 3; ++a) v[i * 8 + 3 + a] = (float)((a == face) + (next_u64() % 2) * 0.06);
        v[i * 8 + 6] = (float)(next_u64() % 2);
        v[i * 8 + 7] = (float)((next_u64() % 3) * 0.015);
    }
    meshweld_Attribute attrs[2] = {{v + 3, 32, 3, tol_n}, {v + 6, 32, 2, tol_uv}};
    meshweld_Options o = {dim, r, method, 0};
    meshweld_Info info;
    unsigned int* remap = (unsigned int*)malloc(n * sizeof(unsigned int));
    CHECK(meshweld_weldAttributes(remap, v, n, 32, &o, attrs, 2, &info) == 0, "weldAttributes");
    /* brute force: earliest representative matching in position and attributes */
    size_t* reps = (size_t*)malloc(n * sizeof(size_t));
    unsigned* expect = (unsigned*)malloc(n * sizeof(unsigned));
    size_t rep_count = rule_remap(v, n, dim, r, attrs, 2, expect, reps), differ = 0;
    for (size_t i = 0; i < n; ++i)
        differ += remap[i] != expect[i];
    free(expect);
    CHECK(differ == 0 && info.unique_count == rep_count,
          "dim %d #%d r %g method %d offset %g: %zu vertices differ from brute force (%zu vs %zu outputs)", dim, t, r,
          method, offset, differ, info.unique_count, rep_count);
    {
        /* meshweld_weldAttributesFirst: the same remap, the representatives as first inputs, and
         * (when asked) their positions */
        unsigned* again = (unsigned*)malloc(n * sizeof(unsigned));
        unsigned* first = (unsigned*)malloc(n * sizeof(unsigned));
        float* kept = (float*)malloc(n * 3 * sizeof(float));
        for (int with_kept = 0; with_kept <= 1; ++with_kept) {
            meshweld_Info again_info;
            int same = meshweld_weldAttributesFirst(again, first, with_kept ? kept : NULL, v, n, 32, &o, attrs, 2,
                                                    &again_info) == 0 &&
                       again_info.unique_count == rep_count && memcmp(again, remap, n * sizeof(unsigned)) == 0;
            for (size_t k = 0; same && k < rep_count; ++k)
                same = first[k] == reps[k] &&
                       (!with_kept || memcmp(kept + k * (size_t)dim, v + reps[k] * 8, (size_t)dim * sizeof(float)) == 0);
            CHECK(same, "dim %d #%d: weldAttributesFirst (kept %d) differs from weldAttributes and its representatives",
                  dim, t, with_kept);
        }
        free(kept);
        free(first);
        free(again);
    }
    /* the kd-tree when asked; else GRID's engine, its joint cells for clusters too dense for it,
     * or the kd-tree for coordinates too far out for its cells (sized to the distinct positions);
     * naive's exact search for r = 0 */
    CHECK(r > 0 ? (method == meshweld_MethodKdtree ? info.method == meshweld_MethodKdtree
                                                   : info.method == meshweld_MethodKdtree || info.method == meshweld_MethodGrid)
                : info.method == meshweld_MethodNaive,
          "dim %d #%d: method %s", dim, t, meshweld_methodName(info.method));
    if (t == 0 && offset == 0) {
        /* without attributes it is the precise weld */
        unsigned int* plain = (unsigned int*)malloc(n * sizeof(unsigned int));
        meshweld_Options pr = {dim, r, meshweld_MethodNaive, meshweld_StorePrecise};
        CHECK(meshweld_weldAttributes(remap, v, n, 32, &o, NULL, 0, &info) == 0 &&
                  meshweld_weld(plain, v, n, 32, &pr, NULL) == 0 && memcmp(plain, remap, n * sizeof(unsigned)) == 0,
              "no attributes: differs from naive");
        free(plain);
        /* a NaN attribute matches only its own bits: vertex 5 stays apart from every other */
        v[5 * 8 + 4] = NAN;
        CHECK(meshweld_weldAttributes(remap, v, n, 32, &o, attrs, 2, &info) == meshweld_Ok, "NaN attribute: welds");
        for (size_t i = 0; i < n; ++i)
            CHECK(i == 5 || remap[i] != remap[5], "NaN attribute: vertex %zu shares vertex 5's output", i);
        attrs[0].tolerance = -1;
        CHECK(meshweld_weldAttributes(remap, v, n, 32, &o, attrs, 2, &info) == meshweld_ErrorRadius, "negative tolerance");
    }
    free(reps);
    free(remap);
    free(v);
}

/* A crowd: n vertices at a few positions (identical, or within r of each other), or each at its own
 * (a dense cluster: the engine's pairs pass its budget, the joint cells search), whose attributes
 * keep hundreds of representatives apart at each, as at the pole of a fan where every corner has
 * its own uv. Variant t picks the radius, the tolerances (0 among them), the attributes compared
 * and the values: repeated ones, -0, NaN, infinities and values whose float spacing is beyond
 * the tolerance. Returns the attribute count; v holds 8 floats a vertex (position, normal, uv). */
static size_t crowd_points(float* v, size_t n, int dim, int t, float* r, meshweld_Attribute attrs[2])
{
    seed(900 + (uint64_t)t + (uint64_t)dim * 40);
    *r = t % 4 == 3 ? 0.0f : 0.05f;
    int places = 1 + t % 3, levels = t % 5 == 4 ? 3 : t % 4 == 2 ? 1000 : 40;
    for (size_t i = 0; i < n; ++i) {
        size_t place = next_u64() % (size_t)places;
        for (int a = 0; a < 3; ++a) /* (variants 2 and 7: every vertex at a position of its own, all within r) */
            v[i * 8 + a] = (float)(0.5 + (t % 5 == 2 ? uniform() * *r * 0.5 : t % 2 ? 0.0 : 0.01 * (double)place * (a == 0)));
        for (int a = 0; a < 3; ++a) v[i * 8 + 3 + a] = (float)((next_u64() % 4) * 0.3);
        /* values on levels, some moved by up to a tolerance: pairs within it across cells */
        double jitter = t % 8 < 4 ? 0.0 : t % 4 == 2 ? 0.0006 : 0.012;
        v[i * 8 + 6] = (float)((double)(next_u64() % (uint64_t)levels) / levels + (uniform() - 0.5) * jitter);
        v[i * 8 + 7] = (float)((double)(next_u64() % (uint64_t)levels) / levels + (uniform() - 0.5) * jitter);
        v[i * 8 + 3] += (float)((uniform() - 0.5) * jitter * 10);
        uint64_t odd = next_u64() % 64;
        if (odd == 0) v[i * 8 + 6] = NAN;
        if (odd == 1) v[i * 8 + 7] = -INFINITY;
        if (odd == 2) v[i * 8 + 6] = -0.0f;
        if (odd == 3) v[i * 8 + 6] = (float)(1e30 * (double)(1 + next_u64() % 3));
        if (odd == 4) v[i * 8 + 4] = 3e38f;
    }
    const float uv_tol[4] = {0.01f, 0.0f, 0.0005f, 1e-30f};
    meshweld_Attribute uv = {v + 6, 32, 2, uv_tol[t % 4]}, normal = {v + 3, 32, 3, t % 3 == 1 ? 0.0f : 0.1f};
    meshweld_Attribute u = {v + 6, 32, 1, uv_tol[t % 4]};
    switch (t % 4) {
    case 0: attrs[0] = uv; return 1;
    case 1: attrs[0] = normal, attrs[1] = uv; return 2;
    case 2: attrs[0] = u; return 1;
    default: attrs[0] = uv, attrs[1] = normal; return 2;
    }
}

/* The attribute weld of v (8 floats a vertex) against the brute force of its rule; returns the
 * outputs. */
static size_t crowd_check(const float* v, size_t n, int dim, float r, const meshweld_Attribute* attrs, size_t count,
                          int method, const char* name)
{
    meshweld_Options o = {dim, r, method, 0};
    meshweld_Info info;
    unsigned int* remap = (unsigned int*)malloc(n * sizeof(unsigned int));
    int e = meshweld_weldAttributes(remap, v, n, 32, &o, attrs, count, &info);
    CHECK(e == 0, "%s: %s", name, meshweld_errorString(e));
    size_t* reps = (size_t*)malloc(n * sizeof(size_t));
    unsigned* expect = (unsigned*)malloc(n * sizeof(unsigned));
    size_t rep_count = rule_remap(v, n, dim, r, attrs, count, expect, reps), differ = 0;
    for (size_t i = 0; i < n; ++i)
        differ += remap[i] != expect[i];
    free(expect);
    CHECK(differ == 0 && info.unique_count == rep_count, "%s %s: %zu vertices differ from brute force (%zu vs %zu outputs)",
          name, meshweld_methodName(method), differ, info.unique_count, rep_count);
    free(reps);
    free(remap);
    return rep_count;
}

static void crowd_case(int dim, int t, int method)
{
    size_t n = 3000;
    float* v = (float*)malloc(n * 8 * sizeof(float));
    meshweld_Attribute attrs[2];
    float r;
    size_t count = crowd_points(v, n, dim, t, &r, attrs);
    char name[64];
    snprintf(name, sizeof(name), "crowd %dD #%d", dim, t);
    size_t outputs = crowd_check(v, n, dim, r, attrs, count, method, name);
    /* most variants keep hundreds apart at a position: enough to split its ring */
    CHECK(t % 5 == 4 || outputs > 300, "%s: %zu outputs", name, outputs);
    free(v);
}

/* A crowd of nearly one colour: a dense cluster (the joint cells), or a few positions each with
 * hundreds of vertices (their rings split), where one vertex in 150 has a colour of its own. The
 * sample of the crowds finds no axis that splits them, and takes none: every vertex then reads one
 * cell of values, where the odd ones must still be told apart. */
static void one_colour_case(int dense)
{
    size_t n = 3000;
    float* v = (float*)calloc(n * 8, sizeof(float));
    const float r = 0.05f;
    seed(1960 + (uint64_t)dense);
    for (size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a)
            v[i * 8 + a] = (float)(0.5 + (dense ? uniform() * r * 0.5 : 0.2 * (double)(next_u64() % 3) * (a == 0)));
        for (int a = 0; a < 3; ++a) v[i * 8 + 3 + a] = i % 150 == 7 ? (float)uniform() : 0.25f;
    }
    meshweld_Attribute colour = {v + 3, 32, 3, 0.01f};
    size_t outputs = crowd_check(v, n, 3, r, &colour, 1, meshweld_MethodAuto, dense ? "one colour, dense" : "one colour, at 3 positions");
    CHECK(outputs > n / 150 && outputs <= n / 150 + 3 * (dense ? 1 : 3), "one colour%s: %zu outputs", dense ? ", dense" : "", outputs);
    free(v);
}

/* A dense cluster of coloured points, width times r wide on each axis: at 0.5 r and 3 r its
 * positions lie in at most two joint cells an axis (folded: a vertex meets the representatives of
 * both, where it met those its r-box touches), at 6 r not. */
static void folded_cluster_case(int dim, double width)
{
    size_t n = 3000;
    float* v = (float*)calloc(n * 8, sizeof(float));
    const float r = 0.0625f;
    seed(2100 + (uint64_t)dim * 10 + (uint64_t)width);
    for (size_t i = 0; i < n; ++i) {
        for (int a = 0; a < dim; ++a)
            v[i * 8 + a] = (float)(0.5 + (uniform() - 0.5) * width * r);
        for (int a = 0; a < 3; ++a) v[i * 8 + 3 + a] = (float)(next_u64() % 5) * 0.2f + (float)uniform() * 0.1f;
    }
    meshweld_Attribute colour = {v + 3, 32, 3, 0.05f};
    char name[64];
    snprintf(name, sizeof(name), "coloured cluster %dD, %g r wide", dim, width);
    size_t outputs = crowd_check(v, n, dim, r, &colour, 1, meshweld_MethodAuto, name);
    CHECK(outputs > 2 * 125 && outputs < n, "%s: %zu outputs", name, outputs); /* (125 levels of colour, each split) */
    free(v);
}

/* Pairs of vertices whose values lie a tolerance apart, to the last float below it (each pair at
 * one position, or in a dense cluster): wherever the cells' edges fall, each pair merges. */
static void tolerance_edge_case(int dense)
{
    size_t n = 4000;
    float* v = (float*)calloc(n * 8, sizeof(float));
    const float tolerance = 1e-4f, r = 0.05f;
    seed(990 + (uint64_t)dense);
    for (size_t i = 0; i < n; i += 2) {
        float base = (float)uniform();
        float partner = (float)((double)base + (double)tolerance);
        while ((double)partner - (double)base > (double)tolerance) partner = nextafterf(partner, 0.0f);
        int flip = next_u64() % 2; /* the higher value first, or the lower */
        v[i * 8 + 6] = flip ? partner : base, v[(i + 1) * 8 + 6] = flip ? base : partner;
        for (size_t k = i; k < i + 2; ++k)
            for (int a = 0; a < 3; ++a) v[k * 8 + a] = (float)(0.5 + (dense ? uniform() * r * 0.5 : 0.0));
    }
    meshweld_Attribute u = {v + 6, 32, 1, tolerance};
    size_t outputs = crowd_check(v, n, 3, r, &u, 1, meshweld_MethodAuto, dense ? "pairs a tolerance apart, dense" : "pairs a tolerance apart");
    CHECK(outputs <= n / 2 && outputs > n / 4, "pairs a tolerance apart: %zu outputs for %zu pairs", outputs, n / 2);
    free(v);
}

/* A dense cluster (every position within r of every other, each with vertices the normals keep
 * apart) and one stray vertex past the cells' range: the kd-tree finds the positions within r, and
 * where they pass the engine's budget of pairs, the joint cells take the search (with 1,500
 * positions in the cluster a search through the positions within r would visit them all for each
 * vertex). Asked for, the kd-tree does the same. */
static void far_crowd_case(int dim)
{
    size_t n = 3000, places = 1500;
    const float r = 1e-3f;
    float* v = (float*)calloc(n * 8, sizeof(float));
    seed(1400 + (uint64_t)dim);
    for (size_t i = 0; i < n; ++i) {
        seed(1400 + (uint64_t)dim * 7919 + i % places); /* vertex i sits at place i % places */
        for (int c = 0; c < dim; ++c) v[i * 8 + c] = (float)(0.5 + (uniform() - 0.5) * r * 0.5);
        seed(2400 + (uint64_t)i);
        for (int c = 0; c < 3; ++c) v[i * 8 + 3 + c] = (float)(next_u64() % 5) * 0.2f;
    }
    v[(n / 2) * 8] = 1e12f; /* the stray */
    meshweld_Attribute normal = {v + 3, 32, 3, 0.1f};
    for (int method = 0; method < 2; ++method) {
        char name[64];
        snprintf(name, sizeof(name), "dense cluster and a stray at 1e12, %dD", dim);
        size_t outputs = crowd_check(v, n, dim, r, &normal, 1, method ? meshweld_MethodKdtree : meshweld_MethodAuto, name);
        meshweld_Options o = {dim, r, method ? meshweld_MethodKdtree : meshweld_MethodAuto, 0};
        meshweld_Info info;
        unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
        CHECK(meshweld_weldAttributes(remap, v, n, 32, &o, &normal, 1, &info) == 0 && info.method == meshweld_MethodKdtree &&
                  outputs > 100 && outputs < n / 4,
              "%s: %s, %zu outputs", name, meshweld_methodName(info.method), outputs);
        free(remap);
    }
    free(v);
}

/* A dense core in a sparse cloud (vertices at u^4 from the centre, some at an earlier vertex's
 * position): the engine takes the core's crowded cells out of its search of positions, and their
 * vertices, with those of the cells around them, search the joint cells, the others the graph.
 * Variant t picks the attributes: normals on a few levels (their reach on two cells of values an
 * axis), continuous normals and uvs, normals at tolerance 0 with NaN among them. Against the brute
 * force of the rule, and (a larger core) against the kd-tree, whose graph passes the engine's
 * budget there, so that every vertex searches the joint cells. */
static size_t core_vertices(float* v, size_t n, int dim, int t, meshweld_Attribute attrs[2])
{
    seed(1700 + (uint64_t)t * 10 + (uint64_t)dim + n);
    for (size_t i = 0; i < n; ++i) {
        float* q = v + i * 8;
        if (i > 0 && next_u64() % 16 == 0) {
            memcpy(q, v + (next_u64() % i) * 8, 3 * sizeof(float));
        } else {
            double u[3] = {0, 0, 0}, d2, far = pow(uniform(), 4);
            do {
                d2 = 0;
                for (int a = 0; a < dim; ++a) u[a] = 2 * uniform() - 1, d2 += u[a] * u[a];
            } while (d2 > 1 || d2 == 0);
            for (int a = 0; a < 3; ++a) q[a] = a < dim ? (float)(far * u[a] / sqrt(d2)) : 0.0f;
        }
        for (int a = 0; a < 3; ++a)
            q[3 + a] = t % 3 == 1 ? (float)(2 * uniform() - 1) : (float)(next_u64() % 3) * 0.5f;
        q[6] = (float)uniform(), q[7] = (float)(next_u64() % 4) * 0.25f;
        if (t % 3 == 2 && next_u64() % 32 == 0) q[4] = NAN;
    }
    meshweld_Attribute normal = {v + 3, 32, 3, t % 3 == 2 ? 0.0f : t % 3 == 1 ? 0.3f : 0.05f}, uv = {v + 6, 32, 2, 0.4f};
    attrs[0] = normal, attrs[1] = uv;
    return t % 3 == 1 ? 2 : 1;
}

static void core_attributes_case(int dim, int t, size_t n)
{
    float* v = (float*)calloc(n * 8, sizeof(float));
    const float r = 1e-3f;
    meshweld_Attribute attrs[2];
    size_t count = core_vertices(v, n, dim, t, attrs);
    char name[64];
    snprintf(name, sizeof(name), "attributes on a dense core, %dD #%d, %zu vertices", dim, t, n);
    if (n <= 20000) {
        crowd_check(v, n, dim, r, attrs, count, meshweld_MethodAuto, name);
    } else {
        unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
        unsigned* tree = (unsigned*)malloc(n * sizeof(unsigned));
        meshweld_Options o = {dim, r, meshweld_MethodAuto, 0}, k = {dim, r, meshweld_MethodKdtree, 0};
        meshweld_Info info, tree_info;
        int e = meshweld_weldAttributes(remap, v, n, 32, &o, attrs, count, &info);
        int f = meshweld_weldAttributes(tree, v, n, 32, &k, attrs, count, &tree_info);
        CHECK(!e && !f && info.unique_count == tree_info.unique_count && memcmp(remap, tree, n * sizeof(unsigned)) == 0,
              "%s: differs from the kd-tree (errors %d %d, %zu vs %zu outputs)", name, e, f, info.unique_count,
              tree_info.unique_count);
        CHECK(info.unique_count > n / 10 && info.unique_count < n, "%s: %zu outputs", name, info.unique_count);
        free(tree);
        free(remap);
    }
    free(v);
}

/* The centre of a flat disc with polar uvs (u the distance, v the angle) and normals compared too:
 * the centre's corners differ in v alone, which is not among the first three components of the
 * compared attributes (normal x, uv u, normal y). The split and the joint cells take their axes
 * from a sample of the crowd, v among them; any axes give the rule's result. In the dense variant
 * the centre is smeared within r / 2 (the joint cells). */
static void polar_case(int dense)
{
    size_t n = 3000;
    const float r = 1e-3f;
    float* v = (float*)calloc(n * 8, sizeof(float));
    seed(1500 + (uint64_t)dense);
    for (size_t i = 0; i < n; ++i) {
        for (int c = 0; dense && c < 2; ++c) v[i * 8 + c] = (float)((uniform() - 0.5) * r * 0.5);
        v[i * 8 + 5] = 1.0f;                                   /* the normal (0, 0, 1) */
        v[i * 8 + 7] = (float)((double)(i % 1000) / 1000.0); /* v: the angle, 1000 of them */
        if (i % 97 == 0) v[i * 8 + 6] = 0.5f;                  /* a few with another u */
    }
    meshweld_Attribute attrs[2] = {{v + 3, 32, 3, 0.01f}, {v + 6, 32, 2, 1e-4f}};
    const char* name = dense ? "disc centre smeared, polar uvs" : "disc centre, polar uvs";
    size_t outputs = crowd_check(v, n, 3, r, attrs, 2, meshweld_MethodAuto, name);
    CHECK(outputs > 1000 && outputs < 1100, "%s: %zu outputs", name, outputs);
    free(v);
}

/* Wide values at positions alone: attributes of 16 floats in all (the widest packed for the test
 * of a position's representatives at once) and of 17 (tested one by one in place), with
 * non-finite values, -0 and tolerance 0 among them. */
static void wide_case(int t)
{
    static const int layouts[4][5] = {{4, 4, 4, 4, 0}, {4, 4, 4, 4, 1}, {3, 2, 1, 0, 0}, {16, 0, 0, 0, 0}};
    static const float values[8] = {0.0f, -0.0f, 0.25f, 0.26f, 1.0f, NAN, INFINITY, 0.5f};
    const int* sizes = layouts[t % 4];
    size_t n = 2400, count = 0;
    seed(1300 + (uint64_t)t);
    float* v = (float*)calloc(n * 8, sizeof(float));
    float* a = (float*)malloc(n * 20 * sizeof(float));
    for (size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c) v[i * 8 + c] = (float)(next_u64() % 40) * 0.5f; /* 40^3 places, 1e-3 apart at least */
        for (int c = 0; c < 20; ++c) /* mostly finite and near one another, a few odd ones */
            a[i * 20 + c] = next_u64() % 16 ? (float)(next_u64() % 3) * 0.01f : values[next_u64() % 8];
    }
    meshweld_Attribute attrs[5];
    int offset = 0;
    for (; count < 5 && sizes[count] > 0; offset += sizes[count], ++count) {
        meshweld_Attribute at = {a + offset, 80, sizes[count], count % 3 == 2 ? 0.0f : 0.015f};
        attrs[count] = at;
    }
    for (size_t i = 0; i < n; i += 5) /* repeated vertices, and repeated positions */
        if (i + 1 < n && next_u64() % 2) memcpy(v + (i + 1) * 8, v + i * 8, 3 * sizeof(float));
    char name[64];
    snprintf(name, sizeof(name), "wide values #%d (%d floats)", t, offset);
    for (int method = 0; method < 2; ++method)
        crowd_check(v, n / 8, 3, 1e-3f, attrs, count, method ? meshweld_MethodKdtree : meshweld_MethodAuto, name);
    /* few places: each holds dozens of vertices, below the split */
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) v[i * 8 + c] = (float)(next_u64() % 4);
    crowd_check(v, n, 3, 1e-3f, attrs, count, meshweld_MethodAuto, name);
    crowd_check(v, n, 3, 0.0f, attrs, count, meshweld_MethodAuto, name);
    free(v);
    free(a);
}

/* A soup whose vertices repeat earlier ones bit for bit, as the corners of an indexed mesh written
 * out per triangle do (about six copies a vertex): the weld runs on the first copies and every
 * twin takes its copy's output. 1,500 distinct vertices on a few positions and values (many within
 * r and the tolerances of each other, so the rule's choices are not trivial), each corner drawn
 * near the last one's; some vertices differ from a twin only by -0 in a coordinate, some hold a
 * NaN value. Variant t: the radius (0: exact positions), the method, the attributes compared. Also
 * checked: the first inputs and kept positions, and a NaN coordinate named at its first vertex. */
static void twins_case(int dim, int t)
{
    seed(9100 + (uint64_t)t + (uint64_t)dim * 10);
    size_t m = 1500, n = 7 * 1024;
    float* base = (float*)malloc(m * 8 * sizeof(float));
    float* v = (float*)malloc(n * 8 * sizeof(float));
    for (size_t b = 0; b < m; ++b) {
        for (int a = 0; a < 3; ++a) base[b * 8 + a] = (float)((next_u64() % 12) * 0.02 + (b % 3 == 0 ? uniform() * 0.01 : 0));
        for (int a = 0; a < 3; ++a) base[b * 8 + 3 + a] = (float)((next_u64() % 3) * 0.04);
        base[b * 8 + 6] = (float)(next_u64() % 2);
        base[b * 8 + 7] = (float)((next_u64() % 3) * 0.015);
        if (b % 97 == 5) base[b * 8 + 4] = NAN;
    }
    for (size_t i = 0, b = 0; i < n; ++i) {
        b = (b + m + (next_u64() % 5) - 2) % m; /* near the last corner's vertex */
        memcpy(v + i * 8, base + b * 8, 8 * sizeof(float));
        if (i % 301 == 7 && v[i * 8 + 1] == 0.0f) v[i * 8 + 1] = -0.0f;
    }
    meshweld_Attribute normal = {v + 3, 32, 3, 0.05f}, uv = {v + 6, 32, 2, t % 2 ? 0.0f : 0.02f};
    meshweld_Attribute attrs[2] = {normal, uv};
    size_t count = t % 3 == 2 ? 1 : 2;
    if (t % 3 == 1) attrs[0] = uv, attrs[1] = normal;
    float r = t % 4 == 3 ? 0.0f : 0.03f;
    int method = t % 5 == 4 ? meshweld_MethodKdtree : meshweld_MethodAuto;
    char name[96];
    snprintf(name, sizeof(name), "twins, %dD #%d", dim, t);
    size_t outputs = crowd_check(v, n, dim, r, attrs, count, method, name);
    CHECK(outputs > 50 && outputs < m, "%s: %zu outputs", name, outputs);

    /* the first inputs and kept positions: each output's earliest vertex, its coordinates' bits */
    meshweld_Options o = {dim, r, method, 0};
    meshweld_Info info;
    unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
    unsigned* first = (unsigned*)malloc(n * sizeof(unsigned));
    float* kept = (float*)malloc(n * 3 * sizeof(float));
    CHECK(meshweld_weldAttributesFirst(remap, first, kept, v, n, 32, &o, attrs, count, &info) == meshweld_Ok &&
              info.unique_count == outputs, "%s: weldAttributesFirst", name);
    unsigned next = 0;
    int same = 1;
    for (size_t i = 0; i < n && same; ++i)
        if (remap[i] == next)
            same = first[next] == i && memcmp(kept + (size_t)next * (size_t)dim, v + i * 8, (size_t)dim * sizeof(float)) == 0,
            next++;
    CHECK(same && next == outputs, "%s: first inputs or kept positions differ from the remap's", name);
    unsigned* first_alone = (unsigned*)malloc(n * sizeof(unsigned));
    CHECK(meshweld_weldAttributesFirst(remap, first_alone, NULL, v, n, 32, &o, attrs, count, NULL) == meshweld_Ok &&
              memcmp(first_alone, first, outputs * sizeof(unsigned)) == 0,
          "%s: weldAttributesFirst without info gives other first inputs", name);
    free(first_alone);

    /* a NaN coordinate on a twin's copy (and so on the twin): named at the first vertex that holds it */
    size_t bad = 4999, axis = (size_t)t % (size_t)dim;
    for (size_t i = bad; i < n; ++i)
        if (memcmp(v + i * 8, v + bad * 8, 8 * sizeof(float)) == 0 && i != bad) v[i * 8 + axis] = NAN;
    v[bad * 8 + axis] = NAN;
    meshweld_Info error = {0, 0, 0, 0};
    int e = meshweld_weldAttributes(remap, v, n, 32, &o, attrs, count, &error);
    CHECK(e == meshweld_ErrorNonFinite && error.error_point == bad && error.error_axis == (int)axis,
          "%s: a NaN at vertex %zu axis %zu reported as %s at %zu axis %d", name, bad, axis, meshweld_errorString(e),
          error.error_point, error.error_axis);
    free(kept);
    free(first);
    free(remap);
    free(v);
    free(base);
}

static void group_twins(void)
{
    for (int dim = 2; dim <= 3; ++dim)
        for (int t = 0; t < 10; ++t)
            twins_case(dim, t);
}

static void group_attributes(void)
{
    for (int t = 0; t < 8; ++t)
        wide_case(t);
    tolerance_edge_case(0);
    tolerance_edge_case(1);
    one_colour_case(0);
    one_colour_case(1);
    for (int dim = 2; dim <= 3; ++dim)
        for (int t = 0; t < 3; ++t)
            folded_cluster_case(dim, t == 0 ? 0.5 : t == 1 ? 3.0 : 6.0);
    far_crowd_case(2);
    far_crowd_case(3);
    polar_case(0);
    polar_case(1);
    for (int dim = 2; dim <= 3; ++dim)
        for (int t = 0; t < 4; ++t)
            core_attributes_case(dim, t == 3 ? 4 : t, t < 3 ? 3000 : 100000);
    for (int dim = 2; dim <= 3; ++dim)
        for (int t = 0; t < 20; ++t)
            crowd_case(dim, t, t % 7 == 6 ? meshweld_MethodKdtree : meshweld_MethodAuto);
    for (int dim = 2; dim <= 3; ++dim)
        for (int t = 0; t < 20; ++t) {
            attribute_case(dim, t, 0.05f, meshweld_MethodAuto, 0);
            attribute_case(dim, t, 0.0f, meshweld_MethodAuto, 0); /* exact positions */
            if (t < 6) {
                attribute_case(dim, t, 0.05f, meshweld_MethodKdtree, 0);
                attribute_case(dim, t, 0.05f, meshweld_MethodAuto, 1e9); /* beyond the grid: kd-tree */
            }
        }
}

/* ---- GRID: cells sized to the data; whatever size they get, the result is NAIVE's ---- */
/* Points fed to a new welder of method in the batches [cut[b], cut[b + 1]) for b < batches: the
 * method it runs after, or -1 where a batch fails, or the remap differs from expected, or the
 * welder's count from the outputs expected numbers. */
static int welder_cut(const float* p, const size_t* cut, int batches, int dim, float r, int method, const unsigned* expected)
{
    size_t n = cut[batches], unique = 0;
    for (size_t i = 0; i < n; ++i)
        unique = expected[i] + 1 > unique ? expected[i] + 1 : unique;
    meshweld_Options o = {dim, r, method, 0};
    meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
    unsigned* remap = (unsigned*)malloc((n ? n : 1) * sizeof(unsigned));
    int e = w && remap ? 0 : meshweld_ErrorMemory;
    for (int b = 0; b < batches && !e; ++b)
        e = meshweld_welderAdd(w, remap + cut[b], p + cut[b] * dim, cut[b + 1] - cut[b], dim * sizeof(float), NULL);
    int ran = !e && memcmp(remap, expected, n * sizeof(unsigned)) == 0 && meshweld_welderCount(w) == unique
                  ? meshweld_welderMethod(w)
                  : -1;
    free(remap);
    meshweld_welderDestroy(w);
    return ran;
}

/* welder_cut on n points in batches of batch (the last one shorter). */
static int welder_agrees(const float* p, size_t n, int dim, float r, int method, size_t batch, const unsigned* expected)
{
    int batches = (int)((n + batch - 1) / batch);
    size_t* cut = (size_t*)malloc(((size_t)batches + 1) * sizeof(size_t));
    for (int b = 0; b <= batches; ++b)
        cut[b] = (size_t)b * batch < n ? (size_t)b * batch : n;
    int ran = welder_cut(p, cut, batches, dim, r, method, expected);
    free(cut);
    return ran;
}

static void expect_naive(const char* name, const float* p, size_t n, int dim, float r, int method)
{
    Weld naive = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodNaive, meshweld_StorePrecise);
    Weld w = run(p, n, dim * sizeof(float), dim, r, method, meshweld_StoreLoose);
    CHECK(w.unique == naive.unique && memcmp(w.remap, naive.remap, n * sizeof(unsigned)) == 0,
          "%s: %s differs from naive (%zu vs %zu outputs)", name, meshweld_methodName(method), w.unique, naive.unique);
    /* the same points fed to a welder in uneven batches of 1, 4, 13, 40, ... (hash table, not the
     * one-shot flat array) */
    size_t cut[64] = {0};
    int batches = 0;
    for (size_t step = 1; cut[batches] < n; step = step * 3 + 1, ++batches)
        cut[batches + 1] = step < n - cut[batches] ? cut[batches] + step : n;
    CHECK(welder_cut(p, cut, batches, dim, r, method, naive.remap) >= 0, "%s: welder batches differ from naive", name);
    free(naive.remap);
    free(w.remap);
}

/* The article's grids near their range, |x| < 2^33 r: pairs exactly r apart (3-4-5 offsets on
 * the small axes, r = 5) whose large coordinates lie just below the limit must merge, in every
 * method and store, one-shot and through a welder; just beyond it the grids refuse with
 * ErrorRange; and a scene in metres out to +-5e5 with r = 1e-4 welds. */
static void far_cells_regrown(void);
static void group_range(void)
{
    far_cells_regrown();
    const double limit = 8589934592.0; /* 2^33: |coordinate| / r */
    const float r = 5.0f;
    const int methods[] = {meshweld_MethodGridR, meshweld_MethodGrid2R, meshweld_MethodHex, meshweld_MethodBcc};
    size_t pairs = 4000, n = 2 * pairs;
    float* p = (float*)malloc(n * 3 * sizeof(float));
    unsigned int* remap = (unsigned int*)malloc(n * sizeof(unsigned int));
    for (int dim = 2; dim <= 3; ++dim)
        for (size_t m = 0; m < 4; ++m) {
            int method = methods[m];
            if ((method == meshweld_MethodHex && dim != 2) || (method == meshweld_MethodBcc && dim != 3))
                continue;
            for (int store = 0; store <= 1; ++store) {
                seed(700 + (uint64_t)(dim * 10 + method * 2 + store));
                for (size_t k = 0; k < pairs; ++k) {
                    float* a = &p[2 * k * dim];
                    float* b = a + dim;
                    int big = (int)(next_u64() % (uint64_t)dim); /* the axis near the limit */
                    for (int x = 0; x < dim; ++x) {
                        double sign = next_u64() & 1 ? -1.0 : 1.0;
                        if (x == big)
                            a[x] = (float)(sign * limit * r * (1.0 - 0.02 * uniform())); /* within 2% of it */
                        else
                            a[x] = (float)(sign * (double)(next_u64() % 100000) * 0.25); /* exact, small */
                        b[x] = a[x];
                    }
                    /* b = a + (3, 4) or (0, 5) on the small axes: exactly r apart */
                    int s0 = (big + 1) % dim, s1 = (big + 2) % dim;
                    if (dim == 3 && next_u64() % 2) {
                        b[s0] = a[s0] + 3.0f, b[s1] = a[s1] + 4.0f;
                    } else
                        b[s0] = a[s0] + 5.0f;
                }
                meshweld_Options o = {dim, r, method, store};
                meshweld_Info info;
                int e = meshweld_weld(remap, p, n, dim * sizeof(float), &o, &info);
                size_t apart = 0;
                for (size_t k = 0; e == 0 && k < pairs; ++k)
                    apart += remap[2 * k] != remap[2 * k + 1];
                CHECK(e == 0 && apart == 0, "%s %s %dD near 2^33 r: %s, %zu of %zu pairs exactly r apart not merged",
                      meshweld_methodName(method), store ? "precise" : "loose", dim, meshweld_errorString(e), apart, pairs);
                /* a welder fed the pairs' halves in two batches: the second half merges across */
                meshweld_Welder* w = meshweld_welderCreate(&o, &e);
                float* half = (float*)malloc(pairs * 3 * sizeof(float));
                for (int pass = 0; pass < 2 && w; ++pass) {
                    for (size_t k = 0; k < pairs; ++k)
                        memcpy(&half[k * dim], &p[(2 * k + pass) * dim], dim * sizeof(float));
                    e = meshweld_welderAdd(w, remap + pass * pairs, half, pairs, dim * sizeof(float), &info);
                    CHECK(e == 0, "welder batch %d near the limit: %s", pass, meshweld_errorString(e));
                }
                apart = 0;
                for (size_t k = 0; w && k < pairs; ++k)
                    apart += remap[k] != remap[pairs + k];
                CHECK(w && apart == 0 && meshweld_welderCount(w) <= pairs,
                      "%s welder near the limit: %zu pairs apart", meshweld_methodName(method), apart);
                meshweld_welderDestroy(w);
                free(half);

                /* beyond the limit: ErrorRange naming the point and axis */
                float far[6] = {0, 0, 0, 0, 0, 0};
                far[dim + dim - 1] = (float)(-limit * r * 1.01);
                e = meshweld_weld(remap, far, 2, dim * sizeof(float), &o, &info);
                CHECK(e == meshweld_ErrorRange && info.error_point == 1 && info.error_axis == dim - 1,
                      "%s beyond 2^33 r: %s", meshweld_methodName(method), meshweld_errorString(e));
            }
        }

    /* metres out to +-5e5 with a 0.1 mm tolerance: 5e9 r, 2^29 cells and more, welds with every
     * grid, against the naive result for the precise store */
    for (int dim = 2; dim <= 3; ++dim) {
        seed(800 + (uint64_t)dim);
        size_t count = 3000;
        for (size_t i = 0; i < count; ++i)
            for (int a = 0; a < dim; ++a)
                p[i * dim + a] = i % 2 && i > 0 ? p[(i - 1) * dim + a] + (a == 0 ? 5e-5f : 0.0f)
                                               : (float)((uniform() * 2 - 1) * (i < 10 ? 5e5 : 50.0));
        for (size_t m = 0; m < 4; ++m) {
            if ((methods[m] == meshweld_MethodHex && dim != 2) || (methods[m] == meshweld_MethodBcc && dim != 3))
                continue;
            Weld naive = run(p, count, dim * sizeof(float), dim, 1e-4f, meshweld_MethodNaive, meshweld_StorePrecise);
            Weld precise = run(p, count, dim * sizeof(float), dim, 1e-4f, methods[m], meshweld_StorePrecise);
            CHECK(precise.unique == naive.unique && naive.unique < count &&
                      memcmp(precise.remap, naive.remap, count * sizeof(unsigned)) == 0,
                  "%s precise at +-5e5, r = 1e-4: %zu outputs, naive %zu", meshweld_methodName(methods[m]), precise.unique,
                  naive.unique);
            free(naive.remap);
            free(precise.remap);
            meshweld_Options o = {dim, 1e-4f, methods[m], meshweld_StoreLoose};
            meshweld_Info info;
            int e = meshweld_weld(remap, p, count, dim * sizeof(float), &o, &info);
            CHECK(e == 0, "%s loose at +-5e5, r = 1e-4: %s", meshweld_methodName(methods[m]), meshweld_errorString(e));
            /* meshweld_cells: ints hold these keys' cells only below 2^31; beyond, ErrorRange */
            int keys[27 * 3];
            float q[3] = {5e5f, -5e5f, 5e5f};
            e = meshweld_cells(keys, NULL, q, &o);
            CHECK(methods[m] == meshweld_MethodBcc ? e == 4 : e == meshweld_ErrorRange,
                  "cells of %s at 5e5 with r = 1e-4: %d", meshweld_methodName(methods[m]), e);
        }
    }
    free(p);
    free(remap);
}

/* Article grids far out (past 2^28 cells from 0): cells 2^32 apart share the low words their
 * table entries are keyed by, and the entries stay apart through the representatives. When the
 * table grows, each entry keeps its place in its probe run: none is merged into an equal key */
static void far_cells_regrown(void)
{
    const float r = 1.0f;
    const double c = 1.0 + 1.0 / 65536.0; /* GRID_R's cell: r (1 + 2^-16) */
    float pts[44][2];
    float xa = (float)(4294967296.0 * c); /* A: about 2^32 cells out */
    double ka = floor((double)xa / c);
    float xb = (float)((ka - 4294967296.0 + 0.5) * c); /* B: 2^32 cells to the left, the same low word */
    pts[0][0] = xa, pts[0][1] = 0.5f;
    pts[1][0] = xb, pts[1][1] = 0.5f;
    for (int k = 0; k < 40; ++k) /* cells of their own, far from A and B: the table grows */
        pts[2 + k][0] = 1000.0f + 10.0f * (float)k, pts[2 + k][1] = 1000.0f;
    pts[42][0] = xa, pts[42][1] = 1.0f; /* C: 0.5 from A alone */
    pts[43][0] = xb, pts[43][1] = 1.0f; /* D: 0.5 from B alone */
    unsigned remap[44];
    for (int method = meshweld_MethodGridR; method <= meshweld_MethodGrid2R; ++method)
        for (int store = 0; store <= 1; ++store) {
            meshweld_Options o = {2, r, method, store};
            meshweld_Info info;
            int e = meshweld_weld(remap, &pts[0][0], 44, 8, &o, &info);
            CHECK(e == 0 && info.unique_count == 42 && remap[42] == remap[0] && remap[43] == remap[1],
                  "%s %s, cells 2^32 apart after the table grew: error %d, %zu outputs, C -> %u (A %u), D -> %u (B %u)",
                  meshweld_methodName(method), store ? "precise" : "loose", e, info.unique_count, remap[42], remap[0],
                  remap[43], remap[1]);
            meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
            int fed = meshweld_welderAdd(w, remap, &pts[0][0], 2, 8, NULL) | meshweld_welderAdd(w, remap + 2, &pts[2][0], 40, 8, NULL) |
                      meshweld_welderAdd(w, remap + 42, &pts[42][0], 2, 8, NULL);
            CHECK(fed == 0 && remap[42] == remap[0] && remap[43] == remap[1], "%s %s welder, cells 2^32 apart: C -> %u (A %u), D -> %u (B %u)",
                  meshweld_methodName(method), store ? "precise" : "loose", remap[42], remap[0], remap[43], remap[1]);
            meshweld_welderDestroy(w);
        }
}

/* GRID and AUTO welders fed p in the batches cut gives, against the kd-tree's one-shot result (the
 * naive rule): both agree and stay GRID. Returns the one-shot result's outputs. */
static size_t welders_cut_agree(const char* name, const float* p, const size_t* cut, int batches, int dim, float r)
{
    Weld expected = run(p, cut[batches], dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
    for (int automatic = 0; automatic <= 1; ++automatic)
        CHECK(welder_cut(p, cut, batches, dim, r, automatic ? meshweld_MethodAuto : meshweld_MethodGrid, expected.remap) ==
                  meshweld_MethodGrid,
              "%s, dim %d: a %s welder differs from the kd-tree or leaves GRID", name, dim, automatic ? "AUTO" : "GRID");
    free(expected.remap);
    return expected.unique;
}

static void group_grid(void)
{
    /* a welder's large batches search an array of the earlier representatives' cells: uniform
     * points (about a third merged) in batches of 5,000; a batch half of whose points repeat its
     * own (its nodes are not its points); a batch with a stray point 1,000 times the cloud's size
     * away (too many cells for an array over the batch's box: the array covers its bulk, and the
     * stray asks the index); all against the kd-tree's one-shot result (the naive rule). Then the
     * same with 1% of the points strays over +-1e4, in every batch: strays and representatives
     * outside the bulk, and strays within r of each other */
    for (int dim = 2; dim <= 3; ++dim) {
        seed(320 + dim);
        size_t cut[6] = {0, 5000, 10000, 19000, 24000, 29000}, n = cut[5];
        float* p = (float*)malloc(n * 3 * sizeof(float));
        for (size_t i = 0; i < n; ++i)
            for (int a = 0; a < dim; ++a) {
                int twin = i >= cut[2] && i < cut[3] && i % 2 == 1;
                p[i * dim + a] = twin ? p[(i - 1) * dim + a] : (float)uniform();
            }
        for (int a = 0; a < dim; ++a)
            p[(cut[4] + 17) * dim + a] = 1000.0f;
        float r = (float)(0.4 * pow(1.0 / (double)n, 1.0 / dim));
        size_t unique = welders_cut_agree("a welder's large batches", p, cut, 5, dim, r);
        CHECK(unique > n / 2 && unique < n - n / 5, "a welder's large batches, dim %d: %zu outputs", dim, unique);
        for (size_t i = 0; i < n; i += 100) /* strays, each with a twin within r further on */
            for (int a = 0; a < dim; ++a) {
                p[i * dim + a] = (float)((uniform() - 0.5) * 2e4);
                p[(i + 50) * dim + a] = p[i * dim + a] + (a == 0 ? 0.5f * r : 0.0f);
            }
        welders_cut_agree("a welder's large batches with strays", p, cut, 5, dim, r);
        free(p);
    }
    for (int dim = 2; dim <= 3; ++dim) {
        /* a welder fed many large batches packs its earlier representatives by cell and keeps them
         * from batch to batch, each batch copying only those made since: 20 batches of 5,000
         * uniform points; then with the second half of them in boxes either side of the first
         * (nodes outside the packed cells, and in their margins), the 15th batch twins of the 5th, bit
         * for bit or within r; then with a stray point 1,000 times the cloud's size away in the
         * 12th batch (the packing would hold too many cells: later batches copy what they can, and
         * the rest ask the index) */
        seed(330 + dim);
        size_t cut[21], n = 100000;
        for (int k = 0; k <= 20; ++k)
            cut[k] = (size_t)k * 5000;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        for (size_t i = 0; i < n * dim; ++i)
            p[i] = (float)uniform();
        float r = (float)((dim == 2 ? 0.52 : 0.59) * pow(1.0 / (double)n, 1.0 / dim)); /* some 30% merged */
        size_t unique = welders_cut_agree("a welder's many large batches", p, cut, 20, dim, r);
        CHECK(unique > n / 2 && unique < n - n / 5, "a welder's many large batches, dim %d: %zu outputs", dim, unique);
        for (size_t i = n / 2; i < n; ++i)
            p[i * dim + dim - 1] += i % 2 ? 1.0f : -1.0f;
        for (size_t i = cut[14]; i < cut[15]; ++i)
            for (int a = 0; a < dim; ++a)
                p[i * dim + a] = p[(i - cut[10]) * dim + a] + (i % 2 && a == 0 ? 0.5f * r : 0.0f);
        welders_cut_agree("a welder's many large batches in two boxes", p, cut, 20, dim, r);
        for (int a = 0; a < dim; ++a)
            p[(cut[11] + 7) * dim + a] = 1000.0f;
        welders_cut_agree("a welder's many large batches and a stray", p, cut, 20, dim, r);
        free(p);
    }
    for (int dim = 2; dim <= 3; ++dim) {
        /* a dense cluster after a sparse line: the first cells are sized for the line, then shrink */
        seed(300 + dim);
        size_t n = 6000;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        for (size_t i = 0; i < n; ++i)
            for (int a = 0; a < dim; ++a)
                p[i * dim + a] = i < 600 ? (float)(a == 0 ? i * 10.0 : 0.0) : (float)(uniform() * 0.5);
        expect_naive("sparse line then dense cluster", p, n, dim, 0.01f, meshweld_MethodGrid);
        expect_naive("sparse line then dense cluster", p, n, dim, 0.01f, meshweld_MethodAuto);
        /* a dense cloud (one-shot: the flat cell array) with exact duplicates (the cache) */
        for (size_t i = 0; i < n; ++i)
            for (int a = 0; a < dim; ++a)
                p[i * dim + a] = i % 3 == 2 ? p[(i - 1) * dim + a] : (float)uniform();
        expect_naive("dense cloud with twins", p, n, dim, 0.02f, meshweld_MethodGrid);
        /* coordinates that outgrow the cells: small ones first, then 1e30 (explicit GRID grows its
         * cells; AUTO hands the batch to the kd-tree) */
        for (size_t i = 0; i < n; ++i)
            for (int a = 0; a < dim; ++a)
                p[i * dim + a] = (float)(i < n - 10 ? uniform() * 100.0 : (i % 2 ? 1e30 : -1e30) + uniform() * 1e24);
        expect_naive("outgrown cells", p, n, dim, 0.5f, meshweld_MethodGrid);
        expect_naive("outgrown cells", p, n, dim, 0.5f, meshweld_MethodAuto);
        Weld w = run(p, n, dim * sizeof(float), dim, 0.5f, meshweld_MethodAuto, 0);
        CHECK(w.method == meshweld_MethodKdtree, "auto with 1e30 beside a fine cloud ran %s", meshweld_methodName(w.method));
        free(w.remap);
        free(p);
    }
    for (int dim = 2; dim <= 3; ++dim) {
        /* points that come in cell order (a sparse grid made row by row, x fastest: the radix sort
         * finds its keys in order and skips its passes), then the same points backwards and
         * shuffled (the passes run): naive's result every time */
        size_t side = dim == 2 ? 100 : 20, rows = dim == 2 ? 50 : 10 * 25, n = side * rows;
        float r = 0.01f;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        float* q = (float*)malloc(n * 3 * sizeof(float));
        for (size_t i = 0; i < n; ++i) {
            size_t x = i % side, row = i / side;
            size_t across = dim == 2 ? rows : 10;
            p[i * dim] = (float)x * 0.9f * r, p[i * dim + 1] = (float)(row % across) * 20.0f * r;
            if (dim == 3)
                p[i * dim + 2] = (float)(row / across) * 20.0f * r;
        }
        expect_naive("sparse grid in cell order", p, n, dim, r, meshweld_MethodAuto);
        for (size_t i = 0; i < n; ++i)
            memcpy(q + i * dim, p + (n - 1 - i) * dim, dim * sizeof(float));
        expect_naive("sparse grid backwards", q, n, dim, r, meshweld_MethodAuto);
        seed(340 + dim);
        shuffle_points(q, n, dim);
        expect_naive("sparse grid shuffled", q, n, dim, r, meshweld_MethodAuto);
        free(q);
        free(p);
    }
    for (int dim = 2; dim <= 3; ++dim) {
        /* gaussian clusters too dense for the engine, spread over an empty cube, and a lattice at
         * r/2: the sequential search tries wider cells window by window (batches of 16,384 nodes
         * and more), keeps them on the clusters and goes back on the lattice; whatever it keeps,
         * the result is NAIVE's */
        seed(320 + dim);
        size_t n = 24000;
        float r = 0.001f;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        double centre[3] = {0, 0, 0};
        for (size_t i = 0; i < n; ++i) {
            if (i % 100 == 0)
                for (int a = 0; a < 3; ++a) centre[a] = uniform();
            for (int a = 0; a < dim; ++a) p[i * dim + a] = (float)(centre[a] + gaussian() * r * 0.5);
        }
        unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
        meshweld_Options o = {dim, r, meshweld_MethodGrid, 0};
        meshweld_Trace trace;
        memset(&trace, 0, sizeof(trace));
        trace.phases = 5;
        CHECK(meshweld_trace(remap, p, n, dim * sizeof(float), &o, &trace, NULL) == 0 && trace.engine == 0,
              "dense clusters dim %d: the engine ran (%d), not the sequential search", dim, trace.engine);
        expect_naive("dense gaussian clusters", p, n, dim, r, meshweld_MethodAuto);
        /* one welder batch large enough to tune its cells, then batches against them */
        Weld naive = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodNaive, meshweld_StorePrecise);
        size_t cut[6] = {0, 20000, 21000, 22000, 23000, n};
        CHECK(welder_cut(p, cut, 5, dim, r, meshweld_MethodGrid, naive.remap) >= 0,
              "dense clusters dim %d: welder differs from naive", dim);
        free(naive.remap);
        size_t side = dim == 2 ? 160 : 30; /* 25,600 and 27,000 points */
        size_t m = dim == 2 ? side * side : side * side * side;
        float* q = (float*)malloc(m * 3 * sizeof(float));
        for (size_t i = 0; i < m; ++i) {
            q[i * dim] = (float)(i % side) * r / 2;
            q[i * dim + 1] = (float)((i / side) % side) * r / 2;
            if (dim == 3) q[i * dim + 2] = (float)(i / side / side) * r / 2;
        }
        expect_naive("lattice r/2, large", q, m, dim, r, meshweld_MethodAuto);
        free(q);
        free(remap);
        free(p);
    }
    /* heavy merging, r several times the spacing: past the engine's pair budget, node by node
     * (a one-shot weld and a welder's large batches in the cells of an array over the box, a
     * welder's small batches against its index), on
     * either side of 0 (cells below and above it), with -0 and +0 twins and an interleaved stride */
    for (int dim = 2; dim <= 3; ++dim) {
        size_t n = 8000;
        seed(900 + dim);
        float* p = (float*)malloc(n * 4 * sizeof(float));
        for (size_t i = 0; i < n; ++i)
            for (int a = 0; a < dim; ++a)
                p[i * dim + a] = i % 7 == 3 ? -p[(i - 1) * dim + a] * 0.0f : (float)(2.0 * uniform() - 1.0);
        double spacing = pow((dim == 3 ? 8.0 : 4.0) / (double)n, 1.0 / dim);
        for (int k = 0; k < 2; ++k) {
            float r = (float)((dim == 3 ? (k ? 8.0 : 3.0) : (k ? 12.0 : 4.0)) * spacing);
            char name[96];
            snprintf(name, sizeof(name), "heavy merging %dD, r %.3g", dim, r);
            meshweld_Options o = {dim, r, meshweld_MethodGrid, 1};
            meshweld_Trace t;
            memset(&t, 0, sizeof(t));
            t.phases = 5;
            unsigned int* remap = (unsigned int*)malloc(n * sizeof(unsigned int));
            CHECK(meshweld_trace(remap, p, n, dim * sizeof(float), &o, &t, NULL) == 0 && !t.engine && t.steps > 0,
                  "%s: the sequential search runs (engine %d, steps %zu)", name, t.engine, t.steps);
            free(remap);
            expect_naive(name, p, n, dim, r, meshweld_MethodGrid);
            expect_naive(name, p, n, dim, r, meshweld_MethodAuto);
            /* the same points with a fourth float between them */
            float* wide = (float*)malloc(n * 4 * sizeof(float));
            for (size_t i = 0; i < n; ++i) {
                for (int a = 0; a < dim; ++a) wide[i * (dim + 1) + a] = p[i * dim + a];
                wide[i * (dim + 1) + dim] = NAN;
            }
            Weld a = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodGrid, meshweld_StorePrecise);
            Weld b = run(wide, n, (dim + 1) * sizeof(float), dim, r, meshweld_MethodGrid, meshweld_StorePrecise);
            CHECK(a.unique == b.unique && memcmp(a.remap, b.remap, n * sizeof(unsigned)) == 0, "%s: stride changes the result", name);
            free(a.remap), free(b.remap), free(wide);
        }
        free(p);
    }
    /* random dense sets, each past the engine's budget: boxes at random offsets (some far from 0,
     * where the floats repeat), radii of 2.5 to 10 spacings, blobs denser than the rest, against
     * NAIVE one-shot and in welder batches */
    int sequential = 0;
    for (int t = 0; t < 12; ++t) {
        seed(950 + t);
        int dim = 2 + t % 2;
        size_t n = 20000;
        double side = 0.5 + 4.0 * uniform();
        double offsets[4] = {0.0, -0.5 * side, 1e3 * side, -3e5 * side};
        double offset = offsets[t / 2 % 4];
        float* p = (float*)malloc(n * dim * sizeof(float));
        for (size_t i = 0; i < n; ++i) {
            int blob = uniform() < 0.3;
            for (int a = 0; a < dim; ++a)
                p[i * dim + a] = (float)(offset + (blob ? 0.1 * side * uniform() : side * uniform()));
        }
        double spacing = side * pow(1.0 / (double)n, 1.0 / dim);
        float r = (float)((2.5 + 7.5 * uniform()) * spacing);
        char name[96];
        snprintf(name, sizeof(name), "random dense set %d (%dD, offset %g, r %.3g)", t, dim, offset, r);
        meshweld_Options o = {dim, r, meshweld_MethodGrid, 1};
        meshweld_Trace tr;
        memset(&tr, 0, sizeof(tr));
        tr.phases = 5;
        unsigned int* remap = (unsigned int*)malloc(n * sizeof(unsigned int));
        CHECK(meshweld_trace(remap, p, n, dim * sizeof(float), &o, &tr, NULL) == 0, "%s: trace", name);
        sequential += !tr.engine; /* (far from 0 the floats repeat: fewer distinct points, the engine) */
        free(remap);
        expect_naive(name, p, n, dim, r, meshweld_MethodGrid);
        free(p);
    }
    CHECK(sequential >= 8, "random dense sets: %d of 12 went point by point", sequential);
}

/* A one-shot GRID weld of p through the trace, checked against the precise kd-tree (every precise
 * method gives NAIVE's), as auto too. */
static meshweld_Trace traced(const char* name, const float* p, size_t n, int dim, float r)
{
    unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
    meshweld_Options o = {dim, r, meshweld_MethodGrid, 0};
    meshweld_Trace trace;
    memset(&trace, 0, sizeof(trace));
    trace.phases = 5;
    int e = meshweld_trace(remap, p, n, dim * sizeof(float), &o, &trace, NULL);
    Weld tree = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
    CHECK(!e && memcmp(remap, tree.remap, n * sizeof(unsigned)) == 0, "%s dim %d: grid differs from the kd-tree", name, dim);
    Weld automatic = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodAuto, meshweld_StorePrecise);
    CHECK(memcmp(automatic.remap, tree.remap, n * sizeof(unsigned)) == 0, "%s dim %d: auto differs from the kd-tree", name, dim);
    free(automatic.remap);
    free(tree.remap);
    free(remap);
    return trace;
}

/* n points: a fraction stray scattered over +-far, a fraction ball in a ball of radius 0.01 at
 * the box's centre, the rest uniform in the unit box, interleaved at random. */
static void stray_points(float* p, size_t n, int dim, double stray, double ball, double far)
{
    for (size_t i = 0; i < n; ++i) {
        double u = uniform(), v[3], d2;
        do {
            d2 = 0;
            for (int a = 0; a < dim; ++a) v[a] = 2 * uniform() - 1, d2 += v[a] * v[a];
        } while (d2 > 1);
        for (int a = 0; a < dim; ++a)
            p[i * dim + a] = (float)(u < stray ? (uniform() - 0.5) * 2 * far : u < stray + ball ? 0.5 + 0.01 * v[a] : uniform());
    }
}

static void misjudged_points(float* p, size_t n, int dim, double stray, double ball)
{
    stray_points(p, n, dim, stray, ball, 1e6);
}

/* Data whose cells are easy to misjudge from a sample: a few stray points far away (the bounding
 * box), points in random order (the gaps between consecutive points), a dense ball inside a
 * sparse box, points along a line. Cells too wide would crowd every search: the cell size keeps
 * to the bulk's spacing, the engine tries smaller cells when its count of tests says they are
 * crowded, and the sequential search (where the engine cannot go: keys of more than 64 bits)
 * narrows the cells that crowd it, so its work stays a few representatives per point. */
static void group_misjudged(void)
{
    for (int dim = 2; dim <= 3; ++dim) {
        size_t n = 20000;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        double spacing = pow(1.0 / (double)n, 1.0 / dim);
        double ball = pow(dim == 3 ? 4.19e-6 : 3.14e-4, 1.0 / dim) * pow(2.0 / (double)n, 1.0 / dim); /* its spacing */
        seed(400 + dim);
        misjudged_points(p, n, dim, 0.01, 0);
        meshweld_Trace t = traced("stray points", p, n, dim, (float)(0.5 * spacing));
        CHECK(t.cell_size < 4 * spacing, "stray points dim %d: cells of %g for a spacing of %g", dim, t.cell_size, spacing);
        /* in 3D the keys of cells that small pass 64 bits: the engine squeezes them */
        CHECK(t.engine || (dim == 2 && t.steps < 16 * n), "stray points dim %d: %zu steps for %zu points", dim, t.steps, n);
        /* strays at +-1e7 (3e7 in 3D): cells of the bulk's spacing have indices past 2^28 but
         * below 2^31, which the engine (the attribute weld's too) and the index take */
        double far = dim == 2 ? 1e7 : 3e7;
        seed(440 + dim);
        stray_points(p, n, dim, 0.01, 0, far);
        t = traced("stray points at 1e7", p, n, dim, (float)(0.5 * spacing));
        CHECK(t.engine && t.cell_size < 4 * spacing && far / t.cell_size > 0x1p28,
              "stray points at 1e7 dim %d: engine %d, cells of %g", dim, t.engine, t.cell_size);
        {
            float r = (float)(0.5 * spacing);
            Weld tree = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
            unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
            meshweld_Options o = {dim, r, meshweld_MethodAuto, 0};
            meshweld_Info info;
            int e = meshweld_weldAttributes(remap, p, n, dim * sizeof(float), &o, NULL, 0, &info);
            CHECK(!e && memcmp(remap, tree.remap, n * sizeof(unsigned)) == 0 && info.method == meshweld_MethodGrid,
                  "stray points at 1e7 dim %d: weldAttributes differs from the kd-tree, or searched with %s", dim,
                  meshweld_methodName(info.method));
            free(remap);
            free(tree.remap);
        }
        /* strays at +-1e12: past 2^44 cells of the bulk's spacing. GRID's cells are made wide
         * enough to take them; where those crowd, rather than search them point by point, the
         * one-shot weld goes to the kd-tree */
        seed(460 + dim);
        stray_points(p, n, dim, 0.01, 0, 1e12);
        t = traced("stray points at 1e12", p, n, dim, (float)(0.5 * spacing));
        CHECK(t.steps == 0, "stray points at 1e12 dim %d: engine %d, %zu steps of the sequential search", dim, t.engine,
              t.steps);
        { /* strays fed to GRID and AUTO welders, with the kd-tree's remap. In 16 batches (in 3D at
           * +-1e14: at +-1e12 the cells of a sixteenth of the points hold them) the cells their
           * index would search crowd, so both leave GRID for the kd-tree. Fed 1,000 at a time,
           * strays at +-1e12: in 2D they leave (in 3D the cells that a first batch of 1,000 points
           * sizes take the strays without crowding: they stay). Fed 100 at a time, strays at
           * +-3e12 (2e12 in 2D): the first batch's cells seem to take them, the index then crowds
           * in cells it cannot halve, and they leave */
            float r = (float)(0.5 * spacing);
            const struct {
                double far;
                size_t batch;
                int leaves;
            } feeds[3] = {{dim == 3 ? 1e14 : 1e12, n / 16, 1}, {1e12, 1000, dim == 2}, {dim == 3 ? 3e12 : 2e12, 100, 1}};
            for (int f = 0; f < 3; ++f) {
                seed(460 + dim);
                stray_points(p, n, dim, 0.01, 0, feeds[f].far);
                Weld tree = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
                for (int automatic = 0; automatic <= 1; ++automatic) {
                    int ran = welder_agrees(p, n, dim, r, automatic ? meshweld_MethodAuto : meshweld_MethodGrid,
                                            feeds[f].batch, tree.remap);
                    CHECK(ran == (feeds[f].leaves ? meshweld_MethodKdtree : meshweld_MethodGrid),
                          "stray points at %g in batches of %zu, dim %d: a %s welder differs from the kd-tree or runs %s",
                          feeds[f].far, feeds[f].batch, dim, automatic ? "AUTO" : "GRID",
                          ran < 0 ? "(differs)" : meshweld_methodName(ran));
                }
                free(tree.remap);
            }
        }
        /* strays at +-1e9: cell coordinates past 2^31, keyed through the squeeze's 64-bit floors */
        seed(450 + dim);
        stray_points(p, n, dim, 0.01, 0, 1e9);
        for (size_t i = n - 100, from = 0; i < n; ++i) { /* copies of strays, which the engine must pair */
            while (fabs(p[from * dim]) < 2) from++;
            memcpy(p + i * dim, p + from++ * dim, dim * sizeof(float));
        }
        t = traced("stray points at 1e9", p, n, dim, (float)(0.5 * spacing));
        CHECK(t.pair_count >= 100, "stray points at 1e9 dim %d: %zu pairs", dim, t.pair_count);
        CHECK(t.engine && 1e9 / t.cell_size > 0x1p31, "stray points at 1e9 dim %d: engine %d, cells of %g", dim, t.engine,
              t.cell_size);
        { /* the same strays at +-1e9 fed to welders, GRID in 16 batches and AUTO in batches of
           * 1,000: the index of representatives takes cells of the bulk's spacing, past 2^31
           * from 0 (its floors are 64-bit: a sanitized build checks every conversion), and AUTO
           * stays on GRID */
            float r = (float)(0.5 * spacing);
            Weld tree = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
            for (int automatic = 0; automatic <= 1; ++automatic)
                CHECK(welder_agrees(p, n, dim, r, automatic ? meshweld_MethodAuto : meshweld_MethodGrid,
                                    automatic ? 1000 : n / 16, tree.remap) == meshweld_MethodGrid,
                      "stray points at 1e9 dim %d: a %s welder differs from the kd-tree or leaves GRID", dim,
                      automatic ? "AUTO" : "GRID");
            free(tree.remap);
        }
        if (dim == 3) { /* a cloud and one point far from it, in cells at their floor of 2r: keys of
                         * more than 64 bits, which cells that narrow do not squeeze. A sample finds
                         * the pairs few, and the engine takes the narrowest cells the squeeze takes
                         * (r / 0.4), where it went point by point (in 2D the cells that far out are
                         * those already) */
            size_t m = 70000;
            float* q = (float*)malloc(m * 3 * sizeof(float));
            seed(480 + dim);
            for (size_t i = 0; i < m * 3; ++i)
                q[i] = (float)uniform();
            q[(m / 2) * 3] = q[(m / 2) * 3 + 1] = q[(m / 2) * 3 + 2] = 1e6f;
            float r = (float)(0.7 * pow(1.0 / (double)m, 1.0 / 3));
            meshweld_Trace far = traced("a cloud and one point far from it", q, m, 3, r);
            CHECK(far.engine && far.cell_size >= 2.5 * r, "a cloud and one point far from it: engine %d, cells of %g for r = %g",
                  far.engine, far.cell_size, r);
            free(q);
        }
        { /* clusters too dense for the engine, and strays at +-1e9: the sequential search runs
           * on cells of 2r, past 2^31 from 0, a few steps a point */
            seed(470 + dim);
            float centre[20][3];
            for (int k = 0; k < 20; ++k)
                for (int a = 0; a < 3; ++a) centre[k][a] = (float)uniform();
            for (size_t i = 0; i < n; ++i) {
                double u = uniform();
                int k = (int)(uniform() * 20);
                for (int a = 0; a < dim; ++a)
                    p[i * dim + a] = (float)(u < 0.01 ? (uniform() - 0.5) * 2e9 : centre[k][a] + (uniform() - 0.5) * 0.005);
            }
            t = traced("dense clusters, stray points at 1e9", p, n, dim, 0.01f);
            CHECK(!t.engine && t.steps > 0 && t.steps < 4 * n && 1e9 / t.cell_size > 0x1p31,
                  "dense clusters, stray points at 1e9 dim %d: engine %d, %zu steps, cells of %g", dim, t.engine, t.steps,
                  t.cell_size);
        }
        seed(410 + dim);
        misjudged_points(p, n, dim, 0, 0.5);
        t = traced("a dense ball in a sparse box", p, n, dim, (float)(0.5 * ball));
        CHECK(t.engine, "a dense ball in a sparse box dim %d: the sequential search ran (cells of %g)", dim, t.cell_size);
        seed(420 + dim);
        for (size_t i = 0; i < n; ++i) { /* at random along a line through the box */
            double x = uniform() * 1000;
            p[i * dim] = (float)x, p[i * dim + 1] = (float)(2 * x);
            if (dim == 3) p[i * dim + 2] = 0.5f;
        }
        t = traced("points along a line", p, n, dim, (float)(2236.0 / (double)n / 3));
        CHECK(t.engine, "points along a line dim %d: the sequential search ran (cells of %g)", dim, t.cell_size);
        { /* the attribute weld (no attribute: positions alone) retries the same cells */
            float r = (float)(2236.0 / (double)n / 3);
            Weld tree = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
            unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
            meshweld_Options o = {dim, r, meshweld_MethodAuto, 0};
            meshweld_Info info;
            int e = meshweld_weldAttributes(remap, p, n, dim * sizeof(float), &o, NULL, 0, &info);
            CHECK(!e && memcmp(remap, tree.remap, n * sizeof(unsigned)) == 0, "points along a line dim %d: weldAttributes differs from the kd-tree", dim);
            CHECK(info.method == meshweld_MethodGrid, "points along a line dim %d: weldAttributes searched with %s", dim, meshweld_methodName(info.method));
            free(remap);
            free(tree.remap);
        }
        if (dim == 3) { /* 16 clusters far apart, cells of a few points: keys of more than 64 bits, which
                         * the engine squeezes, keeping every neighbour */
            float centre[16][3];
            for (int k = 0; k < 16; ++k)
                for (int a = 0; a < 3; ++a) centre[k][a] = (float)((uniform() - 0.5) * 2e6);
            for (size_t i = 0; i < n; ++i) /* cluster by cluster (a sample sees their spacing) */
                for (int a = 0; a < 3; ++a) p[i * 3 + a] = centre[i * 16 / n][a] + (float)((uniform() - 0.5) * 2);
            t = traced("clusters far apart", p, n, dim, 0.05f);
            CHECK(t.engine && t.cell_size < 2e6 / 0x1p21 && t.cells > 16 * 8 && t.pair_count > n / 64,
                  "clusters far apart: engine %d, %zu cells, %zu pairs (cells of %g)", t.engine, t.cells, t.pair_count, t.cell_size);
            /* the same clusters in interleaved order: consecutive points, the box and its
             * quartiles all span the space between clusters, and the cells that the nearest
             * neighbours in a sample give are tried once the first cells crowd */
            for (size_t i = 0; i < n; ++i) {
                int k = (int)(uniform() * 16);
                for (int a = 0; a < 3; ++a) p[i * 3 + a] = centre[k][a] + (float)((uniform() - 0.5) * 2);
            }
            t = traced("clusters far apart, interleaved", p, n, dim, 0.05f);
            double inside = cbrt(8.0 * 16 / (double)n); /* the spacing within a cluster */
            CHECK(t.engine && t.cell_size < 4 * inside, "clusters far apart, interleaved: engine %d, cells of %g (spacing %g)",
                  t.engine, t.cell_size, inside);
        }
        if (dim == 3) { /* the ball and the stray points: the ball's cells, squeezed */
            seed(430);
            misjudged_points(p, n, dim, 0.01, 0.5);
            t = traced("a dense ball, stray points", p, n, dim, (float)(0.5 * ball));
            CHECK(t.engine && 1e6 / t.cell_size > 0x1p28, "a dense ball, stray points: engine %d, cells of %g", t.engine, t.cell_size);
        }
        free(p);
    }
    /* sets large enough for the engine's tries to be weighed on a sample of their nodes first:
     * dense clusters in random order (each point within r of most of its cluster's hundred) have
     * their pairs seen there and go point by point before any try sorts them (no cell in the
     * trace); a uniform cloud of as many points (about 2 pairs a point) still runs the engine.
     * Either way the result is the kd-tree's */
    for (int dim = 2; dim <= 3; ++dim) {
        size_t n = 100000;
        float r = 0.001f;
        float* p = (float*)malloc(n * dim * sizeof(float));
        seed(1400 + dim);
        double centre[3] = {0, 0, 0};
        for (size_t i = 0; i < n; ++i) {
            if (i % 100 == 0)
                for (int a = 0; a < dim; ++a) centre[a] = uniform();
            for (int a = 0; a < dim; ++a) p[i * dim + a] = (float)(centre[a] + gaussian() * r * 0.5);
        }
        shuffle_points(p, n, dim);
        meshweld_Trace t = traced("dense clusters in random order", p, n, dim, r);
        CHECK(!t.engine && t.cells == 0 && t.steps > 0, "dense clusters in random order dim %d: engine %d, %zu cells sorted",
              dim, t.engine, t.cells);
        for (size_t i = 0; i < n * dim; ++i) p[i] = (float)uniform();
        t = traced("uniform cloud, 2 pairs a point", p, n, dim, (float)pow(1.0 / (double)n, 1.0 / dim));
        CHECK(t.engine && t.pair_count > n && t.pair_count < 4 * n, "uniform cloud dim %d: engine %d, %zu pairs", dim,
              t.engine, t.pair_count);
        CHECK(t.crowded == 0, "uniform cloud dim %d: %zu nodes in crowded cells", dim, t.crowded);
        /* a dense core in a sparse cloud (points at u^4 from the centre, in random directions: a
         * fifth of them within r of it): the sample's pairs lie in a core, and the engine takes
         * its crowded cells out of the pair search and welds their nodes one by one in its walk,
         * the rest by their pairs, where the sequential search would look up every point's cells
         * in an index of some 100,000 representatives. The kd-tree's result, also from a GRID
         * welder fed in four batches (below the sample's size: their engine finds the crowded
         * cells in the narrowest cells its retries come to) */
        for (size_t i = 0; i < n; ++i) {
            double v[3], d2, u = uniform(), far = u * u * u * u;
            do {
                d2 = 0;
                for (int a = 0; a < dim; ++a) v[a] = 2 * uniform() - 1, d2 += v[a] * v[a];
            } while (d2 > 1 || d2 == 0);
            for (int a = 0; a < dim; ++a) p[i * dim + a] = (float)(far * v[a] / sqrt(d2));
        }
        t = traced("a dense core in a sparse cloud", p, n, dim, r);
        CHECK(t.engine && t.crowded > n / 10 && t.crowded < n / 2 && t.steps > 0,
              "a dense core in a sparse cloud dim %d: engine %d, %zu nodes in crowded cells, %zu steps", dim, t.engine,
              t.crowded, t.steps);
        {
            Weld tree = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
            CHECK(welder_agrees(p, n, dim, r, meshweld_MethodGrid, n / 4, tree.remap) >= 0,
                  "a dense core in a sparse cloud dim %d: a GRID welder differs from the kd-tree", dim);
            free(tree.remap);
        }
        free(p);
    }
    { /* the core holds 60% of the points, and the rest, sparse over a box a hundred times as wide,
       * more representatives than an index keeps in the cache: its cells still leave the search */
        size_t n = 170000;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        seed(1450);
        for (size_t i = 0; i < n; ++i)
            for (int a = 0; a < 3; ++a) p[i * 3 + a] = (float)(i % 5 < 3 ? 0.5 + 0.01 * (uniform() - 0.5) : 100 * uniform());
        meshweld_Trace t = traced("a core of 60% in a sparse box", p, n, 3, 0.01f);
        CHECK(t.engine && t.crowded > n / 2 && t.crowded < 9 * n / 10, "a core of 60%%: engine %d, %zu nodes in crowded cells",
              t.engine, t.crowded);
        free(p);
    }
}

/* ---- meshweld_cells: what the demo draws is what the method searches ---- */
static void group_cells(void)
{
    const int grid_methods[] = {meshweld_MethodGridR, meshweld_MethodGrid2R, meshweld_MethodHex, meshweld_MethodBcc};
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < 4; ++m) {
            int method = grid_methods[m];
            if (!method_fits(method, dim)) continue;
            meshweld_Options o = {dim, 0.25f, method, 0};
            seed(40 + m * 3 + dim);
            size_t wrong = 0;
            for (int t = 0; t < 20000; ++t) {
                float p[3] = {(float)(uniform() * 20 - 10), (float)(uniform() * 20 - 10), (float)(uniform() * 20 - 10)};
                int keys[81];
                double c = 0;
                int n = meshweld_cells(keys, &c, p, &o);
                if (n != meshweld_lookups(method, dim)) { wrong++; continue; }
                /* the store cell (first key) is the cell whose region holds p, as documented */
                double best = 1e300;
                int nearest = 0;
                for (int k = 0; k < n; ++k) {
                    double x, y, z = 0;
                    if (method == meshweld_MethodHex) {
                        x = (keys[k * 3] + 0.5 * keys[k * 3 + 1]) * c, y = keys[k * 3 + 1] * sqrt(3.0) / 2 * c;
                    } else if (method == meshweld_MethodBcc) {
                        x = keys[k * 3] * c / 2, y = keys[k * 3 + 1] * c / 2, z = keys[k * 3 + 2] * c / 2;
                    } else {
                        double half = method == meshweld_MethodGridR ? 0.5 : 0.0; /* grid-r keys are corners */
                        x = (keys[k * 3] + half) * c, y = (keys[k * 3 + 1] + half) * c, z = dim == 3 ? (keys[k * 3 + 2] + half) * c : 0;
                    }
                    double dx = p[0] - x, dy = p[1] - y, dz = dim == 3 ? p[2] - z : 0;
                    double d = method == meshweld_MethodGridR || method == meshweld_MethodGrid2R
                                   ? fmax(fabs(dx), fmax(fabs(dy), fabs(dz))) /* a cube: the L-inf nearest centre */
                                   : dx * dx + dy * dy + dz * dz;            /* Voronoi cells: the nearest centre */
                    if (d < best) best = d, nearest = k;
                }
                if (nearest != 0) wrong++;
            }
            CHECK(wrong == 0, "%s dim %d: %zu points whose first cell is not theirs", meshweld_methodName(method), dim, wrong);
        }
    int keys[81];
    float p[3] = {0, 0, 0};
    meshweld_Options o = {3, 0.25f, meshweld_MethodKdtree, 0};
    CHECK(meshweld_cells(keys, NULL, p, &o) == 0, "kdtree has no cells");
    /* no fixed cells either for the methods whose cells follow the data (as the header says) */
    const int unfixed[] = {meshweld_MethodAuto, meshweld_MethodNaive, meshweld_MethodGrid};
    for (int m = 0; m < 3; ++m) {
        o.method = unfixed[m];
        CHECK(meshweld_cells(keys, NULL, p, &o) == 0 && meshweld_lookups(unfixed[m], 3) == 0, "%s has no fixed cells",
              meshweld_methodName(unfixed[m]));
    }
    o.method = meshweld_MethodHex;
    CHECK(meshweld_cells(keys, NULL, p, &o) == meshweld_ErrorMethodDim, "hex in 3D");
    o.method = meshweld_MethodGridR, p[1] = NAN;
    CHECK(meshweld_cells(keys, NULL, p, &o) == meshweld_ErrorNonFinite, "NaN point");
}

/* ---- radius 0: bitwise-identical positions only (-0 equal to +0), for every method ---- */
static void group_exact(void)
{
    /* a welder's small batches (500 points): 10,000 distinct points, after which it drops its
     * table of exact positions; then 40,000 twins of earlier points and of each other, bit for bit
     * or with -0 for +0, without the table (the index and the engine merge them) until it is tried
     * again and kept; then one large batch of both. Against the kd-tree's one-shot result */
    for (int dim = 2; dim <= 3; ++dim) {
        seed(140 + dim);
        size_t distinct = 10000, twins = 40000, large = 6000, n = distinct + twins + large;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        for (size_t i = 0; i < n; ++i) {
            size_t from = i < distinct ? i : i < distinct + twins ? next_u64() % i : next_u64() % 2 ? next_u64() % i : i;
            for (int a = 0; a < dim; ++a) {
                float x = from < i ? p[from * dim + a] : (next_u64() % 8 == 0 ? 0.0f : (float)uniform());
                p[i * dim + a] = x == 0.0f && next_u64() % 2 ? -x : x;
            }
        }
        float r = (float)(0.3 * pow(1.0 / (double)distinct, 1.0 / dim));
        Weld expected = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
        size_t cut[128]; /* 100 batches of 500, then a large one */
        int batches = 0;
        for (size_t at = 0; at < distinct + twins; at += 500)
            cut[batches++] = at;
        cut[batches++] = distinct + twins, cut[batches] = n;
        CHECK(welder_cut(p, cut, batches, dim, r, meshweld_MethodGrid, expected.remap) == meshweld_MethodGrid,
              "a welder's small batches without the exact table, dim %d: it differs from the kd-tree", dim);
        free(expected.remap);
        free(p);
    }
    for (int dim = 2; dim <= 3; ++dim) {
        /* a soup in random order: 20,000 positions, 6 copies each, shuffled. Fewer than one in
         * eight of its first 4,096 points repeat an earlier one, yet five in six of all points do:
         * the one-shot pass keeps its table of exact positions (the engine then meets 20,000
         * nodes, not 120,000), with the kd-tree's result */
        seed(95 + dim);
        size_t m = 20000, n = 6 * m;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        for (size_t i = 0; i < m; ++i)
            for (int a = 0; a < dim; ++a) p[i * dim + a] = (float)uniform();
        for (size_t i = m; i < n; ++i)
            memcpy(p + i * dim, p + (i % m) * dim, dim * sizeof(float));
        shuffle_points(p, n, dim);
        meshweld_Trace t = traced("shuffled soup", p, n, dim, (float)(0.5 * pow(1.0 / (double)m, 1.0 / dim)));
        CHECK(t.nodes == m, "shuffled soup dim %d: %zu nodes for %zu positions", dim, t.nodes, m);
        free(p);
    }
    {
        /* a soup in random order whose corners repeat by kind: triangle t is (P_t, P_t+1, P_t+2)
         * around a ring of 102,400 positions, so each position comes once as a first corner and
         * twice as another. Its length is 75 * 4,096 points: a sample of every 75th point (or
         * 150th) would meet first corners alone, which never repeat; the sample meets corners of
         * every kind, and the pass keeps its table */
        seed(97);
        size_t m = 102400, n = 3 * m;
        float* ring = make_uniform(m, 3, 1.0);
        float* p = (float*)malloc(n * 3 * sizeof(float));
        for (size_t t = 0; t < m; ++t)
            for (int c = 0; c < 3; ++c) memcpy(p + t * 9 + c * 3, ring + (t + (size_t)c) % m * 3, 3 * sizeof(float));
        shuffle_points(p, m, 9); /* whole triangles */
        meshweld_Trace t = traced("shuffled soup, corners by kind", p, n, 3, (float)(0.5 * pow(1.0 / (double)m, 1.0 / 3)));
        CHECK(t.nodes == m, "shuffled soup, corners by kind: %zu nodes for %zu positions", t.nodes, m);
        free(p);
        free(ring);
    }
    for (int dim = 2; dim <= 3; ++dim) {
        seed(90 + dim);
        size_t n = 5000;
        float* p = (float*)malloc(n * 3 * sizeof(float));
        for (size_t i = 0; i < n; ++i) {
            size_t from = i > 0 && next_u64() % 3 == 0 ? next_u64() % i : i;
            for (int a = 0; a < dim; ++a) {
                float x = from < i ? p[from * dim + a] : (float)((next_u64() % 8) * 0.25);
                if (next_u64() % 5 == 0) x = -x;                   /* 0 becomes -0 */
                if (next_u64() % 11 == 0) x = nextafterf(x, 1.0f); /* one float step away */
                p[i * dim + a] = x;
            }
        }
        /* the expected remap: first occurrence of an equal position */
        unsigned int* expect = (unsigned int*)malloc(n * sizeof(unsigned int));
        size_t unique = 0;
        for (size_t i = 0; i < n; ++i) {
            size_t j = 0;
            while (j < i && !bits_equal(p + i * dim, p + j * dim, dim)) ++j;
            expect[i] = j < i ? expect[j] : (unsigned int)unique++;
        }
        for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); ++m) {
            if (!method_fits(methods[m], dim)) continue;
            for (int store = 0; store <= 1; ++store) {
                Weld w = run(p, n, dim * sizeof(float), dim, 0.0f, methods[m], store);
                CHECK(w.unique == unique && memcmp(w.remap, expect, n * sizeof(unsigned)) == 0,
                      "radius 0 %s/%d dim %d: %zu outputs, expected %zu", meshweld_methodName(methods[m]), store, dim,
                      w.unique, unique);
                /* an incremental welder in three batches gives the same */
                meshweld_Options o = {dim, 0.0f, methods[m], store};
                meshweld_Welder* welder = meshweld_welderCreate(&o, NULL);
                size_t cut[4] = {0, n / 5, n / 2, n};
                int e = 0;
                for (int b = 0; b < 3; ++b)
                    e |= meshweld_welderAdd(welder, w.remap + cut[b], p + cut[b] * dim, cut[b + 1] - cut[b],
                                            dim * sizeof(float), NULL);
                CHECK(e == 0 && memcmp(w.remap, expect, n * sizeof(unsigned)) == 0 && meshweld_welderCount(welder) == unique,
                      "radius 0 welder %s/%d", meshweld_methodName(methods[m]), store);
                meshweld_welderDestroy(welder);
                free(w.remap);
            }
        }
        CHECK(meshweld_bound(meshweld_MethodGrid2R, 0, dim, 0.0f) == 0.0, "bound at radius 0");
        size_t pairs = 0, expect_pairs = 0;
        for (size_t i = 0; i < n; ++i)
            for (size_t j = i + 1; j < n; ++j) expect_pairs += bits_equal(p + i * dim, p + j * dim, dim);
        CHECK(meshweld_countClosePairs(&pairs, p, n, dim * sizeof(float), dim, 0.0f, 0) == 0 && pairs == expect_pairs,
              "countClosePairs at radius 0: %zu, expected %zu", pairs, expect_pairs);
        free(expect);
        free(p);
    }
    /* a welder's batches of more than 4,096 points with few twins leave the table of exact
     * positions (the probe's nodes leave it, the earlier batches' entries stay): their points are
     * found again, bit for bit or -0 for +0, through the index of representatives. Batches: A
     * distinct points; B a few twins of A and of itself; C 100 twins of anything before; D a few
     * twins of C (in the table) and of A; E half twins of itself (it keeps the table, with room
     * for the rest made after the probe). Against the kd-tree's one-shot result (the naive rule) */
    for (int dim = 2; dim <= 3; ++dim) {
        seed(130 + dim);
        size_t cut[6] = {0, 6000, 12000, 12100, 18000, 24000}, n = cut[5];
        float* p = (float*)malloc(n * 3 * sizeof(float));
        for (size_t i = 0; i < n; ++i) {
            int batch = 0;
            while (i >= cut[batch + 1]) ++batch;
            uint64_t u = next_u64() % 40;
            size_t from = i; /* a twin of point from, or a new point */
            if (batch == 1 && u < 2) from = next_u64() % cut[1];
            if (batch == 1 && u >= 2 && u < 4 && i > cut[1]) from = cut[1] + next_u64() % (i - cut[1]);
            if (batch == 2) from = next_u64() % i;
            if (batch == 3 && u < 2) from = cut[2] + next_u64() % (cut[3] - cut[2]);
            if (batch == 3 && u >= 2 && u < 3) from = next_u64() % cut[1];
            if (batch == 4 && u < 20 && i > cut[4]) from = cut[4] + next_u64() % (i - cut[4]);
            for (int a = 0; a < dim; ++a) {
                float x = from < i ? p[from * dim + a] : (next_u64() % 16 == 0 ? 0.0f : (float)uniform());
                p[i * dim + a] = x == 0.0f && next_u64() % 2 ? -x : x; /* 0 and -0 both */
            }
        }
        float r = (float)(0.5 * pow(1.0 / (double)n, 1.0 / dim));
        Weld expected = run(p, n, dim * sizeof(float), dim, r, meshweld_MethodKdtree, meshweld_StorePrecise);
        for (int automatic = 0; automatic <= 1; ++automatic) {
            meshweld_Options o = {dim, r, automatic ? meshweld_MethodAuto : meshweld_MethodGrid, 0};
            meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
            unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
            int e = w && remap ? 0 : meshweld_ErrorMemory;
            for (int b = 0; b < 5 && !e; ++b) {
                /* each batch first fed with a NaN past the probe: it fails, the welder as it was */
                size_t length = cut[b + 1] - cut[b];
                float saved = p[(cut[b] + length - 1) * dim];
                p[(cut[b] + length - 1) * dim] = NAN;
                int bad = meshweld_welderAdd(w, remap + cut[b], p + cut[b] * dim, length, dim * sizeof(float), NULL);
                p[(cut[b] + length - 1) * dim] = saved;
                CHECK(bad == meshweld_ErrorNonFinite, "a NaN in batch %d: error %d", b, bad);
                e = meshweld_welderAdd(w, remap + cut[b], p + cut[b] * dim, length, dim * sizeof(float), NULL);
            }
            CHECK(e == 0 && memcmp(remap, expected.remap, n * sizeof(unsigned)) == 0 && meshweld_welderCount(w) == expected.unique,
                  "a welder's batches that leave the table, dim %d, %s: error %d", dim, automatic ? "auto" : "grid", e);
            free(remap);
            meshweld_welderDestroy(w);
        }
        free(expected.remap);
        free(p);
    }
}

/* ---- the replaceable allocator: every byte freed, failures are errors ---- */
typedef struct Budget {
    long outstanding, calls, fail_at; /* fail_at < 0: never fail */
    int only;                         /* fail allocation fail_at alone, not every one after it */
    size_t bytes, peak;               /* bytes outstanding, and their most since peak was reset */
} Budget;

/* (each block carries its size in 16 bytes before it, which keep its alignment) */
static void* budget_alloc(void* user, size_t size)
{
    Budget* b = (Budget*)user;
    long call = b->fail_at >= 0 ? b->calls++ : -1;
    if (b->fail_at >= 0 && (b->only ? call == b->fail_at : call >= b->fail_at))
        return NULL;
    size_t* p = size <= SIZE_MAX - 16 ? (size_t*)malloc(size + 16) : NULL;
    if (!p) return NULL;
    b->outstanding++;
    p[0] = size, b->bytes += size;
    b->peak = b->bytes > b->peak ? b->bytes : b->peak;
    return (char*)p + 16;
}

static void budget_free(void* user, void* p)
{
    Budget* b = (Budget*)user;
    size_t* block = (size_t*)((char*)p - 16);
    b->outstanding--;
    b->bytes -= block[0];
    free(block);
}

/* A one-shot weld of p into want, its allocations counted, then with each of them failing in
 * turn, alone and with every one after it: an error or want's remap in got, and nothing leaked. */
static void weld_failing(Budget* b, const char* name, const float* p, size_t n, const meshweld_Options* o, unsigned* got,
                         unsigned* want)
{
    b->calls = 0, b->fail_at = LONG_MAX, b->only = 0;
    CHECK(meshweld_weld(want, p, n, (size_t)o->dim * sizeof(float), o, NULL) == 0 && b->outstanding == 0,
          "%s: the weld leaks %ld blocks", name, b->outstanding);
    long calls = b->calls;
    for (long k = 0; k < 2 * calls; ++k) {
        b->calls = 0, b->fail_at = k / 2, b->only = k % 2;
        int e = meshweld_weld(got, p, n, (size_t)o->dim * sizeof(float), o, NULL);
        CHECK(e == meshweld_Ok || e == meshweld_ErrorMemory, "%s: allocation failure gave %d", name, e);
        if (e == 0) CHECK(memcmp(got, want, n * sizeof(unsigned)) == 0, "%s: result changed under allocation failures", name);
        CHECK(b->outstanding == 0, "%s: %ld blocks leaked when allocation %ld failed%s", name, b->outstanding, k / 2,
              k % 2 ? " alone" : "");
    }
    b->fail_at = -1, b->only = 0;
}

/* The attribute weld of v (8 floats a vertex) where each allocation fails in turn, alone and with
 * every one after it: an error, no leak, or the same result. */
static void attributes_failing(Budget* b, const char* name, const float* v, size_t n, const meshweld_Options* o,
                               const meshweld_Attribute* attrs, size_t count, unsigned* got, unsigned* want)
{
    b->calls = 0, b->fail_at = LONG_MAX, b->only = 0;
    CHECK(meshweld_weldAttributes(want, v, n, 32, o, attrs, count, NULL) == 0 && b->outstanding == 0,
          "%s: weld leaks %ld", name, b->outstanding);
    long calls = b->calls;
    CHECK(calls > 12, "%s: only %ld allocations, the cells' tables among them", name, calls);
    for (long k = 0; k < 2 * calls; ++k) {
        b->calls = 0, b->fail_at = k / 2, b->only = k % 2;
        int e = meshweld_weldAttributes(got, v, n, 32, o, attrs, count, NULL);
        CHECK(e == meshweld_Ok || e == meshweld_ErrorMemory, "%s: allocation failure gave %d", name, e);
        if (e == 0) CHECK(memcmp(got, want, n * sizeof(unsigned)) == 0, "%s: result changed under allocation failures", name);
        CHECK(b->outstanding == 0, "%s: %ld blocks leaked when allocation %ld failed%s", name, b->outstanding, k / 2,
              k % 2 ? " alone" : "");
    }
    b->fail_at = -1, b->only = 0;
}

static void group_allocator(void)
{
    Budget b = {0, 0, -1, 0};
    CHECK(meshweld_setAllocator(budget_alloc, budget_free, &b) == 0, "setAllocator");
    seed(5);
    size_t n = 3000;
    float* p = make_uniform(n, 3, 10.0);
    for (size_t i = 0; i < n / 3; ++i) memcpy(p + (n - 1 - i) * 3, p + i * 3, 12); /* duplicates */
    unsigned int* remap = (unsigned int*)malloc(n * sizeof(unsigned int));
    unsigned int* expect = (unsigned int*)malloc(n * sizeof(unsigned int));
    for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); ++m) {
        if (!method_fits(methods[m], 3)) continue;
        for (int store = 0; store <= 1; ++store) {
            meshweld_Options o = {3, 0.3f, methods[m], store};
            meshweld_Info info;
            b.calls = 0, b.fail_at = LONG_MAX; /* counts the weld's allocations, fails none */
            CHECK(meshweld_weld(expect, p, n, 12, &o, &info) == 0 && b.outstanding == 0, "weld leaks %ld", b.outstanding);
            size_t expect_unique = info.unique_count;
            /* fail each allocation the weld makes in turn, alone and with every one after it: an
             * error, no leak */
            long calls = b.calls;
            CHECK(calls > 0, "%s/%d: the weld allocated nothing", meshweld_methodName(methods[m]), store);
            for (long k = 0; k < 2 * calls; ++k) {
                b.calls = 0, b.fail_at = k / 2, b.only = k % 2;
                int e = meshweld_weld(remap, p, n, 12, &o, &info);
                CHECK(e == meshweld_Ok || e == meshweld_ErrorMemory, "allocation failure gave %d", e);
                if (e == 0) CHECK(memcmp(remap, expect, n * sizeof(unsigned)) == 0, "result changed under allocation failures");
                CHECK(b.outstanding == 0, "%s/%d: %ld blocks leaked when allocation %ld failed%s", meshweld_methodName(methods[m]), store, b.outstanding, k / 2, k % 2 ? " alone" : "");
            }
            /* a welder whose second batch fails is left as it was, and then succeeds */
            b.fail_at = -1, b.only = 0;
            meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
            CHECK(w && meshweld_welderAdd(w, remap, p, n / 2, 12, NULL) == 0, "first batch");
            size_t before = meshweld_welderCount(w);
            for (long k = 0; k < 6; ++k) {
                b.calls = 0, b.fail_at = k;
                int e = meshweld_welderAdd(w, remap + n / 2, p + n / 2 * 3, n - n / 2, 12, NULL);
                if (e == 0) break;
                CHECK(e == meshweld_ErrorMemory && meshweld_welderCount(w) == before, "failed batch changed the welder");
            }
            b.fail_at = -1;
            /* whatever happened above, re-adding from a fresh welder must match the one-shot */
            meshweld_welderDestroy(w);
            w = meshweld_welderCreate(&o, NULL);
            meshweld_welderAdd(w, remap, p, n / 2, 12, NULL);
            b.calls = 0, b.fail_at = 0;
            CHECK(meshweld_welderAdd(w, remap + n / 2, p + n / 2 * 3, n - n / 2, 12, NULL) == meshweld_ErrorMemory ||
                      n - n / 2 == 0,
                  "allocation failure not reported");
            CHECK(meshweld_welderCount(w) == before, "welder changed by a failed batch");
            b.fail_at = -1;
            CHECK(meshweld_welderAdd(w, remap + n / 2, p + n / 2 * 3, n - n / 2, 12, NULL) == 0 &&
                      memcmp(remap, expect, n * sizeof(unsigned)) == 0 && meshweld_welderCount(w) == expect_unique,
                  "%s/%d: welder after a failed batch differs from the one-shot weld", meshweld_methodName(methods[m]), store);
            meshweld_welderDestroy(w);
            CHECK(b.outstanding == 0, "welder leaks %ld blocks", b.outstanding);
        }
    }
    { /* a GRID welder's batch that fails leaves no trace of its data: a coordinate at 1e15 in it
       * would otherwise send the next, ordinary batch to the kd-tree */
        float a[150], far[6] = {0.5f, 0.5f, 0.5f, 1e15f, 0, 0};
        for (int i = 0; i < 150; ++i) a[i] = (float)((i * 7919) % 1000) / 1000.0f;
        meshweld_Options o = {3, 0.01f, meshweld_MethodGrid, 0};
        for (long k = 0;; ++k) {
            meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
            CHECK(w && meshweld_welderAdd(w, remap, a, 25, 12, NULL) == 0, "welder's first batch");
            b.calls = 0, b.fail_at = k, b.only = 1;
            int e = meshweld_welderAdd(w, remap, far, 2, 12, NULL);
            b.fail_at = -1;
            if (e == 0) {
                meshweld_welderDestroy(w);
                break;
            }
            CHECK(meshweld_welderAdd(w, remap, a + 75, 25, 12, NULL) == 0 && meshweld_welderMethod(w) == meshweld_MethodGrid,
                  "a batch at 1e15 whose allocation %ld failed sent the welder to %s", k, meshweld_methodName(meshweld_welderMethod(w)));
            meshweld_welderDestroy(w);
        }
        CHECK(b.outstanding == 0, "welder leaks %ld blocks", b.outstanding);
    }
    /* 20,000 points along a line: the one-shot exact pass samples the whole input before it drops
     * its table, and the engine retries smaller cells before it welds (the attribute weld too):
     * every allocation of those paths fails in turn too */
    size_t m = 20000;
    float* q = (float*)malloc(m * 3 * sizeof(float));
    unsigned int* line = (unsigned int*)malloc(m * sizeof(unsigned int));
    unsigned int* line_expect = (unsigned int*)malloc(m * sizeof(unsigned int));
    for (size_t i = 0; i < m; ++i) {
        double x = uniform() * 1000;
        q[i * 3] = (float)x, q[i * 3 + 1] = (float)(2 * x), q[i * 3 + 2] = 0.5f;
    }
    meshweld_Options o = {3, (float)(2236.0 / (double)m / 3), meshweld_MethodAuto, 0};
    for (int attributes = 0; attributes <= 1; ++attributes) {
#define LINE_WELD(out) (attributes ? meshweld_weldAttributes(out, q, m, 12, &o, NULL, 0, NULL) : meshweld_weld(out, q, m, 12, &o, NULL))
        b.calls = 0, b.fail_at = LONG_MAX, b.only = 0, b.peak = 0;
        CHECK(LINE_WELD(line_expect) == 0 && b.outstanding == 0, "line: weld leaks %ld", b.outstanding);
        /* the engine's buffers from each crowded try are freed before the next: the attribute
         * weld's peak stays near one try's (49 bytes a point; 74 when they stayed) */
        CHECK(!attributes || b.peak <= 56 * m, "line: the attribute weld's peak is %.1f bytes a point", (double)b.peak / (double)m);
        long calls = b.calls;
        for (long k = 0; k < 2 * calls; ++k) {
            b.calls = 0, b.fail_at = k / 2, b.only = k % 2;
            int e = LINE_WELD(line);
            CHECK(e == meshweld_Ok || e == meshweld_ErrorMemory, "line %d: allocation failure gave %d", attributes, e);
            if (e == 0) CHECK(memcmp(line, line_expect, m * sizeof(unsigned)) == 0, "line %d: result changed under allocation failures", attributes);
            CHECK(b.outstanding == 0, "line %d: %ld blocks leaked when allocation %ld failed%s", attributes, b.outstanding, k / 2, k % 2 ? " alone" : "");
        }
#undef LINE_WELD
    }
    /* a dense core among sparse points: the engine takes its crowded cells out of the pair search
     * and welds their nodes in its walk (crowded in the trace), in the narrowest cells its retries
     * come to: every allocation fails in turn */
    {
        size_t cn = 5000;
        float* cp = (float*)malloc(cn * 3 * sizeof(float));
        for (size_t i = 0; i < cn; ++i) {
            double v[3], d2;
            do {
                d2 = 0;
                for (int a = 0; a < 3; ++a) v[a] = 2 * uniform() - 1, d2 += v[a] * v[a];
            } while (d2 > 1);
            for (int a = 0; a < 3; ++a) cp[i * 3 + a] = (float)(i % 10 < 3 ? 0.5 + 0.005 * v[a] : uniform());
        }
        meshweld_Options co = {3, 0.01f, meshweld_MethodAuto, 0};
        b.calls = 0, b.fail_at = LONG_MAX, b.only = 0;
        meshweld_Trace t = traced("a dense core among sparse points", cp, cn, 3, co.radius);
        CHECK(t.engine && t.crowded >= 1000 && t.crowded < cn / 2, "a dense core: engine %d, %zu nodes in crowded cells",
              t.engine, t.crowded);
        weld_failing(&b, "a dense core", cp, cn, &co, line, line_expect);
        free(cp);
    }
    /* a crowd of representatives at a few positions, split into cells of their attributes (on axes
     * chosen from a sample where a normal and a uv give five), and in a dense cluster, in joint
     * cells (tables that grow as they come); the same found by the kd-tree, asked for or past a
     * stray vertex at 1e12: every allocation fails in turn */
    for (int run = 0; run < 9; ++run) {
        int variant = run % 3, kd = run / 3; /* kd: 0 the engine, 1 the kd-tree asked, 2 a stray */
        size_t cn = 3000;
        float* cv = (float*)malloc(cn * 8 * sizeof(float));
        meshweld_Attribute attrs[2];
        float cr;
        size_t count = crowd_points(cv, cn, 3, variant, &cr, attrs);
        if (kd == 2)
            cv[(cn / 2) * 8] = 1e12f;
        meshweld_Options co = {3, cr, kd == 1 ? meshweld_MethodKdtree : meshweld_MethodAuto, 0};
        attributes_failing(&b, "crowd", cv, cn, &co, attrs, count, line, line_expect);
        free(cv);
    }
    /* attributes on a dense core: its crowded cells' positions and those around them in the joint
     * cells, the others in the graph */
    for (int dim = 2; dim <= 3; ++dim) {
        size_t cn = 3000;
        float* cv = (float*)calloc(cn * 8, sizeof(float));
        meshweld_Attribute attrs[2];
        size_t count = core_vertices(cv, cn, dim, 0, attrs);
        meshweld_Options co = {dim, 1e-3f, meshweld_MethodAuto, 0};
        attributes_failing(&b, "attributes on a dense core", cv, cn, &co, attrs, count, line, line_expect);
        free(cv);
    }
    b.fail_at = -1, b.only = 0;
    /* heavy merging (r 3 times the spacing: the engine's pairs pass its budget, and nodes go one by
     * one, in the cells of an array over the box): its scratch, and the welder's index of
     * representatives, stay within the cells the points' box holds, not a cell per node (peaks of
     * 66 and 97-110 bytes a point when the index had that room), in a one-shot weld and in a
     * welder's batches; the remap is the kd-tree's */
    for (int dim = 2; dim <= 3; ++dim) {
        size_t h = 100000;
        seed(77 + dim);
        float* dense = make_uniform(h, dim, 1.0);
        unsigned int* got = (unsigned int*)malloc(h * sizeof(unsigned int));
        unsigned int* want = (unsigned int*)malloc(h * sizeof(unsigned int));
        meshweld_Options grid = {dim, (float)(3.0 * pow(1.0 / (double)h, 1.0 / dim)), meshweld_MethodGrid, 1};
        meshweld_Options tree = grid;
        tree.method = meshweld_MethodKdtree;
        meshweld_Trace t;
        memset(&t, 0, sizeof(t));
        t.phases = 5;
        CHECK(meshweld_weld(want, dense, h, dim * sizeof(float), &tree, NULL) == 0 &&
                  meshweld_trace(got, dense, h, dim * sizeof(float), &grid, &t, NULL) == 0 && !t.engine,
              "heavy merging %dD: the weld runs the sequential search", dim);
        b.peak = 0;
        CHECK(meshweld_weld(got, dense, h, dim * sizeof(float), &grid, NULL) == 0 &&
                  memcmp(got, want, h * sizeof(unsigned int)) == 0 && b.outstanding == 0,
              "heavy merging %dD: the one-shot GRID weld differs from the kd-tree's", dim);
        CHECK(b.peak <= 50 * h, "heavy merging %dD: the one-shot weld's peak is %.1f bytes a point", dim,
              (double)b.peak / (double)h);
        meshweld_Welder* w = meshweld_welderCreate(&grid, NULL);
        b.peak = b.bytes;
        size_t base = b.bytes;
        CHECK(w && meshweld_welderAdd(w, got, dense, h / 2, dim * sizeof(float), NULL) == 0 &&
                  meshweld_welderAdd(w, got + h / 2, dense + h / 2 * dim, h - h / 2, dim * sizeof(float), NULL) == 0 &&
                  memcmp(got, want, h * sizeof(unsigned int)) == 0,
              "heavy merging %dD: the welder differs from the kd-tree", dim);
        CHECK(b.peak - base <= 88 * h, "heavy merging %dD: the welder's peak is %.1f bytes a point", dim,
              (double)(b.peak - base) / (double)h);
        meshweld_welderDestroy(w);
        CHECK(b.outstanding == 0, "heavy merging %dD: %ld blocks leaked", dim, b.outstanding);
        free(dense), free(got), free(want);
    }
    /* a one-shot weld's search in the cells of an array (heavy merging, 3,000 points at 3 times
     * their spacing): each of its allocations failing in turn, alone and with every one after it,
     * gives an error or the same result, and leaks nothing */
    {
        size_t h = 3000;
        seed(81);
        float* dense = make_uniform(h, 3, 1.0);
        unsigned int* got = (unsigned int*)malloc(h * sizeof(unsigned int));
        unsigned int* want = (unsigned int*)malloc(h * sizeof(unsigned int));
        meshweld_Options grid = {3, (float)(3.0 * cbrt(1.0 / (double)h)), meshweld_MethodGrid, 1};
        weld_failing(&b, "heavy merging", dense, h, &grid, got, want);
        /* a welder's large batch (the same search, then its representatives indexed): failing,
         * it leaves the welder as it was; then the welder gives the one-shot result */
        b.fail_at = -1, b.only = 0;
        for (long k = 0;; ++k) {
            meshweld_Welder* w = meshweld_welderCreate(&grid, NULL);
            b.calls = 0, b.fail_at = k;
            int e = w ? meshweld_welderAdd(w, got, dense, h / 3, 12, NULL) : meshweld_ErrorMemory;
            b.fail_at = -1;
            CHECK(e == meshweld_Ok || (e == meshweld_ErrorMemory && meshweld_welderCount(w) == 0),
                  "heavy merging: allocation %ld failing gave %d, and the welder changed", k, e);
            CHECK((e == meshweld_Ok || meshweld_welderAdd(w, got, dense, h / 3, 12, NULL) == 0) &&
                      meshweld_welderAdd(w, got + h / 3, dense + h / 3 * 3, h - h / 3, 12, NULL) == 0 &&
                      memcmp(got, want, h * sizeof(unsigned)) == 0,
                  "heavy merging: the welder differs from the one-shot weld after allocation %ld failed", k);
            meshweld_welderDestroy(w);
            CHECK(b.outstanding == 0, "heavy merging: the welder leaks %ld blocks", b.outstanding);
            if (e == meshweld_Ok || k > 64)
                break;
        }
        free(dense), free(got), free(want);
    }
    free(line_expect);
    free(line);
    free(q);
    meshweld_setAllocator(NULL, NULL, NULL);
    free(p);
    free(remap);
    free(expect);
}

typedef struct Group {
    const char* name;
    void (*run)(void);
} Group;

static const Group groups[] = {
    {"properties", group_properties}, {"adversarial", group_adversarial}, {"completeness", group_completeness},
    {"bounds", group_bounds},         {"errors", group_errors},           {"allocator", group_allocator},
    {"mesh", group_mesh},             {"attributes", group_attributes}, {"twins", group_twins}, {"exact", group_exact}, {"cells", group_cells}, {"grid", group_grid}, {"misjudged", group_misjudged}, {"range", group_range},
};

int main(int argc, char** argv)
{
    int ran = 0;
    for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); ++g) {
        if (argc > 1 && strcmp(argv[1], groups[g].name) != 0) continue;
        int before = failures, checks_before = checks;
        groups[g].run();
        printf("%-12s %d checks, %d failed\n", groups[g].name, checks - checks_before, failures - before);
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unknown group %s\n", argv[1]);
        return 2;
    }
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}

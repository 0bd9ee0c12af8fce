/* Peak scratch memory per input point of every method and store, measured with a counting
 * allocator (meshweld_setAllocator): the most bytes the library holds at once during a call,
 * divided by the points welded. The caller's own buffers (points, remap) are not counted.
 *
 *   meshweld_memory            the table of README.md: 1e6 uniform points in the unit square and
 *                              cube (r as in the benchmark: about 30% merge) and a triangle soup of
 *                              1e6 corners (a sphere, each vertex in about 6 corners)
 *   meshweld_memory --check    the same on 65,537 points (just past a power of two: the hash
 *                              tables' worst fill) and fails if any call needs more than the
 *                              documented bound, MESHWELD_BYTES_PER_POINT bytes per point */
#include "../../c/meshweld.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bound README.md documents: no call holds more scratch than this many bytes per input point
 * (plus a few kilobytes), whatever the method, store and data (64-bit; WebAssembly's 4-byte
 * pointers make the kd-tree a little smaller). */
#define MESHWELD_BYTES_PER_POINT 160.0

typedef union Header {
    size_t size;
    long double align;
    void* pointer;
} Header;

static size_t live, peak, blocks;

static void* count_allocate(void* user, size_t size)
{
    (void)user;
    Header* h = (Header*)malloc(sizeof(Header) + size);
    if (!h)
        return NULL;
    h->size = size;
    live += size;
    blocks++;
    if (live > peak)
        peak = live;
    return h + 1;
}

static void count_free(void* user, void* p)
{
    (void)user;
    Header* h = (Header*)p - 1;
    live -= h->size;
    blocks--;
    free(h);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static float* make_uniform(size_t n, int dim)
{
    float* p = (float*)malloc(n * (size_t)dim * sizeof(float));
    for (size_t i = 0; i < n * (size_t)dim; ++i)
        p[i] = (float)uniform();
    return p;
}

/* A UV sphere as an unindexed triangle soup with about n corners, and a flat normal per face. */
static float* make_soup(size_t n, size_t* corners, float** normals)
{
    size_t rings = (size_t)sqrt((double)n / 6 / 4) + 1, segments = n / 6 / rings + 1;
    size_t total = rings * segments * 6;
    float* p = (float*)malloc(total * 3 * sizeof(float));
    float* nrm = (float*)malloc(total * 3 * sizeof(float));
    size_t k = 0;
    for (size_t i = 0; i < rings; ++i)
        for (size_t j = 0; j < segments; ++j) {
            double at[4][3];
            for (int c = 0; c < 4; ++c) {
                double t = 3.141592653589793 * (double)(i + (c == 1 || c == 2)) / (double)rings;
                double f = 6.283185307179586 * (double)((j + (c >= 2)) % segments) / (double)segments;
                at[c][0] = sin(t) * cos(f), at[c][1] = cos(t), at[c][2] = sin(t) * sin(f);
            }
            const int corner[6] = {0, 1, 2, 0, 2, 3};
            for (int c = 0; c < 6; ++c, ++k)
                for (int a = 0; a < 3; ++a) {
                    p[k * 3 + a] = (float)at[corner[c]][a];
                    nrm[k * 3 + a] = (float)((at[0][a] + at[2][a]) / 2); /* one normal per quad */
                }
        }
    *corners = total;
    *normals = nrm;
    return p;
}

static double check_limit = 0; /* > 0: fail above it */
static int failures;

/* Runs one call between two counter resets and returns its peak bytes per point. */
#define MEASURE(result, n, call)                                                                          \
    do {                                                                                                  \
        peak = live = 0;                                                                                  \
        int error_ = (call);                                                                              \
        if (error_ != 0 || blocks != 0) {                                                                 \
            fprintf(stderr, "%s failed: %s, %zu blocks left\n", #call, meshweld_errorString(error_), blocks); \
            exit(1);                                                                                      \
        }                                                                                                 \
        result = (double)peak / (double)(n);                                                              \
        if (check_limit > 0 && (double)peak > check_limit * (double)(n) + 65536) {                        \
            fprintf(stderr, "%s: %.1f bytes per point, more than the documented %.0f\n", #call, result,    \
                    check_limit);                                                                         \
            failures++;                                                                                   \
        }                                                                                                 \
    } while (0)

static double weld_peak(const float* pts, size_t n, int dim, float r, int method, int store, size_t* unique)
{
    unsigned* remap = (unsigned*)malloc(n * sizeof(unsigned));
    meshweld_Options o = {dim, r, method, store};
    meshweld_Info info;
    double result;
    MEASURE(result, n, meshweld_weld(remap, pts, n, (size_t)dim * sizeof(float), &o, &info));
    if (unique)
        *unique = info.unique_count;
    free(remap);
    return result;
}

int main(int argc, char** argv)
{
    int check = argc > 1 && strcmp(argv[1], "--check") == 0;
    size_t n = check ? 65537 : 1000000;
    size_t naive_n = check ? 4097 : 20000; /* naive is quadratic */
    if (check)
        check_limit = MESHWELD_BYTES_PER_POINT;
    meshweld_setAllocator(count_allocate, count_free, NULL);

    float* u2 = make_uniform(n, 2);
    float* u3 = make_uniform(n, 3);
    float r2 = (float)sqrt(0.4 / ((double)n * 3.14159)), r3 = (float)cbrt(0.4 / ((double)n * 4.18879));
    size_t corners;
    float* normals;
    float* soup = make_soup(n, &corners, &normals);
    float rs = 1e-5f;

    printf("Peak scratch bytes per input point (%zu uniform points, r %.3g in 2D and %.3g in 3D; a sphere soup of %zu "
           "corners, r %g; naive on the first %zu points)\n\n",
           n, r2, r3, corners, rs, naive_n);
    printf("| method | store | 2D uniform | 3D uniform | 3D soup |\n|---|---|---|---|---|\n");
    for (int method = 0; meshweld_methodName(method) != NULL; ++method) /* every method there is */
        for (int store = 0; store <= 1; ++store) {
            int always_precise = meshweld_bound(method, meshweld_StoreLoose, 3, 1.0f) == 1.0;
            if (always_precise && store == 1)
                continue;
            size_t count = method == meshweld_MethodNaive ? naive_n : n;
            char a[32] = "–", b[32] = "–", c[32] = "–";
            if (method != meshweld_MethodBcc)
                snprintf(a, sizeof(a), "%.1f", weld_peak(u2, count, 2, r2, method, store, NULL));
            if (method != meshweld_MethodHex) {
                snprintf(b, sizeof(b), "%.1f", weld_peak(u3, count, 3, r3, method, store, NULL));
                snprintf(c, sizeof(c), "%.1f", weld_peak(soup, method == meshweld_MethodNaive ? count : corners, 3, rs, method, store, NULL));
            }
            printf("| `%s` | %s | %s | %s | %s |\n", meshweld_methodName(method),
                   always_precise ? "(precise)" : store ? "precise" : "loose", a, b, c);
            fflush(stdout);
        }

    /* the rest of the library, on the soup */
    printf("\nOther calls, peak scratch bytes per input element (the soup):\n\n| call | bytes |\n|---|---|\n");
    unsigned* remap = (unsigned*)malloc(corners * sizeof(unsigned));
    meshweld_Options o = {3, rs, meshweld_MethodAuto, meshweld_StoreLoose};
    meshweld_Info info;
    double v;
    meshweld_Attribute normal = {normals, 12, 3, 0.05f};
    MEASURE(v, corners, meshweld_weldAttributes(remap, soup, corners, 12, &o, &normal, 1, &info));
    printf("| `meshweld_weldAttributes` (grid, one 3-float attribute), per vertex | %.1f |\n", v);
    o.method = meshweld_MethodKdtree;
    MEASURE(v, corners, meshweld_weldAttributes(remap, soup, corners, 12, &o, &normal, 1, &info));
    printf("| `meshweld_weldAttributes` (kd-tree), per vertex | %.1f |\n", v);
    o.method = meshweld_MethodAuto;
    meshweld_weld(remap, soup, corners, 12, &o, &info);
    size_t unique = info.unique_count, written;
    unsigned* indices = (unsigned*)malloc(corners * sizeof(unsigned));
    MEASURE(v, corners, meshweld_remapTriangles(indices, &written, NULL, NULL, NULL, corners, remap, corners,
                                                meshweld_RemoveDuplicates, NULL));
    printf("| `meshweld_remapTriangles` with `RemoveDuplicates`, per index | %.1f |\n", v);
    float* out = (float*)malloc(unique * 3 * sizeof(float));
    MEASURE(v, corners, meshweld_gather(out, unique, remap, soup, corners, 12, 3, 0));
    printf("| `meshweld_gather`, first points, per input point | %.2f |\n", v);
    MEASURE(v, corners, meshweld_gather(out, unique, remap, soup, corners, 12, 3, 1));
    printf("| `meshweld_gather`, centroids, per input point | %.1f |\n", v);
    size_t pairs;
    MEASURE(v, unique, meshweld_countClosePairs(&pairs, out, unique, 12, 3, rs, 0));
    printf("| `meshweld_countClosePairs`, per point | %.1f |\n", v);

    /* an incremental welder: the peak while adding batches, and what it keeps */
    for (int kd = 0; kd <= 1; ++kd) {
        meshweld_Options w_o = {3, r3, kd ? meshweld_MethodKdtree : meshweld_MethodGrid2R, meshweld_StoreLoose};
        peak = live = 0;
        meshweld_Welder* w = meshweld_welderCreate(&w_o, NULL);
        size_t batch = n / 100;
        for (size_t at = 0; at < n; at += batch)
            meshweld_welderAdd(w, remap, u3 + at * 3, at + batch <= n ? batch : n - at, 12, NULL);
        size_t held = live, outputs = meshweld_welderCount(w);
        meshweld_welderDestroy(w);
        printf("| welder, %s, 100 batches of 3D uniform points: peak per point fed | %.1f |\n", kd ? "`kdtree`" : "`grid-2r`",
               (double)peak / (double)n);
        printf("| welder, %s: held between batches, per output point | %.1f |\n", kd ? "`kdtree`" : "`grid-2r`",
               (double)held / (double)outputs);
        if (check && (double)peak > check_limit * (double)n + 65536) {
            fprintf(stderr, "welder: %.1f bytes per point fed\n", (double)peak / (double)n);
            failures++;
        }
    }
    meshweld_setAllocator(NULL, NULL, NULL);
    free(indices);
    free(out);
    free(remap);
    free(soup);
    free(normals);
    free(u2);
    free(u3);
    if (check) {
        printf("\nevery call within %.0f bytes per point: %s\n", check_limit, failures ? "NO" : "yes");
        printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
    }
    return failures ? 1 : 0;
}

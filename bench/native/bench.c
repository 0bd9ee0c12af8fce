/* Native benchmark of the welding core: ns per point for each method and store.
 *   meshweld_bench                       1e6 uniform points in 2D and 3D, r for ~30% merged
 *   meshweld_bench --points N            another size
 *   meshweld_bench --file F --dim D --radius R [--method M] [--store S] [--reps K]
 *                                        raw little-endian float32 points from a file (bench/)
 * Prints one line per run: dataset, method, store, points, outputs, median and min ms, ns/point. */
#define _POSIX_C_SOURCE 199309L
#include "../../c/meshweld.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint64_t state = 12345;
static double uniform(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static int compare(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static void run(const char* name, const float* pts, size_t n, int dim, float r, int method, int store, int reps)
{
    unsigned int* remap = (unsigned int*)malloc(n * sizeof(unsigned int));
    meshweld_Options o = {dim, r, method, store};
    meshweld_Info info = {0};
    double times[64];
    if (reps > 64) reps = 64;
    int e = meshweld_weld(remap, pts, n, dim * sizeof(float), &o, &info); /* warm-up */
    if (e) {
        printf("%-16s %-8s %-8s error: %s\n", name, meshweld_methodName(method), store ? "precise" : "loose", meshweld_errorString(e));
        free(remap);
        return;
    }
    for (int k = 0; k < reps; ++k) {
        double t0 = now_ms();
        meshweld_weld(remap, pts, n, dim * sizeof(float), &o, &info);
        times[k] = now_ms() - t0;
    }
    qsort(times, reps, sizeof(double), compare);
    double median = times[reps / 2];
    printf("%-16s %-8s %-8s %9zu %9zu %9.2f %9.2f %8.1f\n", name,
           method == meshweld_MethodAuto ? "auto" : meshweld_methodName(method), store ? "precise" : "loose", n,
           info.unique_count, median, times[0], median * 1e6 / n);
    fflush(stdout);
    free(remap);
}

int main(int argc, char** argv)
{
    size_t n = 1000000;
    const char* file = NULL;
    int dim = 3, method = -1, store = -1, reps = 5;
    float radius = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--points") && i + 1 < argc) n = (size_t)atof(argv[++i]);
        else if (!strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!strcmp(argv[i], "--dim") && i + 1 < argc) dim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--radius") && i + 1 < argc) radius = (float)atof(argv[++i]);
        else if (!strcmp(argv[i], "--method") && i + 1 < argc) method = meshweld_methodFromName(argv[++i]);
        else if (!strcmp(argv[i], "--store") && i + 1 < argc) store = !strcmp(argv[++i], "precise");
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    printf("%-16s %-8s %-8s %9s %9s %9s %9s %8s\n", "dataset", "method", "store", "points", "outputs", "median ms", "min ms", "ns/point");
    if (file) {
        FILE* f = fopen(file, "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", file);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        long bytes = ftell(f);
        fseek(f, 0, SEEK_SET);
        n = (size_t)bytes / (dim * sizeof(float));
        float* pts = (float*)malloc(n * dim * sizeof(float));
        if (fread(pts, dim * sizeof(float), n, f) != n) return 1;
        fclose(f);
        const char* base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        for (int m = 0; m <= meshweld_MethodKdtree; ++m) {
            if ((method >= 0 && m != method) || m == meshweld_MethodNaive) continue;
            if ((m == meshweld_MethodHex && dim != 2) || (m == meshweld_MethodBcc && dim != 3)) continue;
            for (int s = 0; s <= 1; ++s) {
                if ((store >= 0 && s != store) || (s == 1 && m == meshweld_MethodKdtree)) continue;
                run(base, pts, n, dim, radius, m, s, reps);
            }
        }
        free(pts);
        return 0;
    }
    for (dim = 2; dim <= 3; ++dim) {
        float* pts = (float*)malloc(n * dim * sizeof(float));
        for (size_t i = 0; i < n * dim; ++i) pts[i] = (float)uniform();
        /* about 30% of the points merged: mean neighbour count ~0.4 within r */
        float r = dim == 3 ? (float)cbrt(0.4 / (n * 4.18879)) : (float)sqrt(0.4 / (n * 3.14159));
        char name[32];
        snprintf(name, sizeof(name), "uniform%dd", dim);
        for (int m = 0; m <= meshweld_MethodKdtree; ++m) {
            if ((method >= 0 && m != method) || m == meshweld_MethodNaive) continue;
            if ((m == meshweld_MethodHex && dim != 2) || (m == meshweld_MethodBcc && dim != 3)) continue;
            for (int s = 0; s <= 1; ++s) {
                if ((store >= 0 && s != store) || (s == 1 && m == meshweld_MethodKdtree)) continue;
                run(name, pts, n, dim, r, m, s, reps);
            }
        }
        free(pts);
    }
    return 0;
}

/* Native benchmark of the welding core: the C library without WebAssembly in between. Every weld
 * is meshweld_weldKept, the call the package's weld() makes: the remap and the kept positions.
 *
 *   meshweld_bench [--points N] [--method M] [--store S] [--reps K]
 *       1e6 uniform points (or N) in the unit square and cube, r for ~30% merged; a text table
 *   meshweld_bench --file F --dim D --radius R [--method M] [--store S] [--reps K] [--json]
 *       raw little-endian float32 points from a file (the .f32 files bench/run.mjs writes to bench/data);
 *       one warm-up, then K timed runs per method and store; a text table or JSON lines
 *   meshweld_bench --file F --dim D --radius R --serve
 *       loads the file once, then answers commands on stdin, one line each, for bench/run.mjs to
 *       interleave native and WebAssembly runs: "METHOD STORE REPS" runs REPS timed welds and
 *       prints one JSON line {method, resolved, store, points, count, hash, times}; "quit" ends
 *   meshweld_bench --file F --dim D --radius R --method M --store S --memory
 *       one cold weld in this fresh process; prints JSON {rss_before_kb, peak_kb, exact, count}:
 *       the resident set before the call and its high-water mark after (reset just before the
 *       call through /proc/self/clear_refs where Linux allows it, else the process's maxrss)
 *
 * hash is FNV-1a over the 32-bit remap values, so the harness can check that native and
 * WebAssembly give the same remap. Times are milliseconds from CLOCK_MONOTONIC. */
#define _POSIX_C_SOURCE 199309L
#include "../../c/meshweld.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <time.h>

#define MAX_REPS 256

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* splitmix64: the uniform points of the default mode */
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

static unsigned int remap_hash(const unsigned int* remap, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i) {
        h ^= remap[i];
        h *= 16777619u;
    }
    return h;
}

static const char* store_name(int store) { return store ? "precise" : "loose"; }

typedef struct Points {
    float* data;
    float* kept; /* room for every point: the kept positions */
    size_t count;
    int dim;
    float radius;
    const char* name;
} Points;

/* One warm-up (unless reps is negative: then -reps runs, none dropped), then timed runs. */
static int time_weld(const Points* p, int method, int store, int reps, double* times, meshweld_Info* info,
                     unsigned int* remap)
{
    meshweld_Options o = {p->dim, p->radius, method, store};
    int runs = reps < 0 ? -reps : reps;
    if (reps >= 0) {
        int e = meshweld_weldKept(remap, p->kept, p->data, p->count, (size_t)p->dim * sizeof(float), &o, info);
        if (e) return e;
    }
    for (int k = 0; k < runs; ++k) {
        double t0 = now_ms();
        int e = meshweld_weldKept(remap, p->kept, p->data, p->count, (size_t)p->dim * sizeof(float), &o, info);
        times[k] = now_ms() - t0;
        if (e) return e;
    }
    return 0;
}

static const char* method_label(int method) { return meshweld_methodName(method); }

static void print_json(const Points* p, int method, int store, const meshweld_Info* info, const unsigned int* remap,
                       const double* times, int runs)
{
    printf("{\"method\":\"%s\",\"resolved\":\"%s\",\"store\":\"%s\",\"points\":%zu,\"count\":%zu,\"hash\":%u,\"times\":[",
           method_label(method), method_label(info->method), store_name(store), p->count, info->unique_count,
           remap_hash(remap, p->count));
    for (int k = 0; k < runs; ++k) printf("%s%.4f", k ? "," : "", times[k]);
    printf("]}\n");
    fflush(stdout);
}

static void print_error(int method, int store, int error)
{
    printf("{\"method\":\"%s\",\"store\":\"%s\",\"error\":\"%s\"}\n", method_label(method) ? method_label(method) : "?",
           store_name(store), meshweld_errorString(error));
    fflush(stdout);
}

/* Text or JSON lines for one method and store, one warm-up then reps timed runs. */
static void run(const Points* p, int method, int store, int reps, int json)
{
    unsigned int* remap = (unsigned int*)malloc((p->count ? p->count : 1) * sizeof(unsigned int));
    double times[MAX_REPS];
    meshweld_Info info = {0, 0, 0, 0};
    int e = remap ? time_weld(p, method, store, reps, times, &info, remap) : meshweld_ErrorMemory;
    if (e) {
        if (json) print_error(method, store, e);
        else printf("%-16s %-8s %-8s error: %s\n", p->name, method_label(method), store_name(store), meshweld_errorString(e));
    } else if (json) {
        print_json(p, method, store, &info, remap, times, reps);
    } else {
        qsort(times, (size_t)reps, sizeof(double), compare);
        double median = times[reps / 2];
        printf("%-16s %-8s %-8s %9zu %9zu %9.2f %9.2f %8.1f\n", p->name, method_label(method), store_name(store), p->count,
               info.unique_count, median, times[0], median * 1e6 / (double)p->count);
        fflush(stdout);
    }
    free(remap);
}

/* Every method and store that exists in this dimension (naive skipped: quadratic). */
static void run_all(const Points* p, int method, int store, int reps, int json)
{
    for (int m = meshweld_MethodAuto; m <= meshweld_MethodKdtree; ++m) {
        if ((method >= 0 && m != method) || (method < 0 && m == meshweld_MethodNaive)) continue;
        if ((m == meshweld_MethodHex && p->dim != 2) || (m == meshweld_MethodBcc && p->dim != 3)) continue;
        for (int s = 0; s <= 1; ++s) {
            int precise_only = m == meshweld_MethodNaive || m == meshweld_MethodKdtree;
            if ((store >= 0 && s != store) || (precise_only && s == 0 && store < 0)) continue;
            run(p, m, s, reps, json);
        }
    }
}

static int load(Points* p, const char* file)
{
    FILE* f = fopen(file, "rb");
    if (!f) {
        fprintf(stderr, "meshweld_bench: cannot open %s\n", file);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t point_bytes = (size_t)p->dim * sizeof(float);
    p->count = bytes > 0 ? (size_t)bytes / point_bytes : 0;
    p->data = (float*)malloc(p->count ? p->count * point_bytes : 1);
    p->kept = (float*)malloc(p->count ? p->count * point_bytes : 1);
    if (!p->data || !p->kept || fread(p->data, point_bytes, p->count, f) != p->count) {
        fprintf(stderr, "meshweld_bench: cannot read %s\n", file);
        fclose(f);
        return 1;
    }
    fclose(f);
    p->name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    return 0;
}

/* Answers "METHOD STORE REPS" lines (no warm-up: the harness decides what to drop). */
static int serve(const Points* p)
{
    unsigned int* remap = (unsigned int*)malloc((p->count ? p->count : 1) * sizeof(unsigned int));
    if (!remap) return 1;
    printf("{\"ready\":true,\"points\":%zu}\n", p->count);
    fflush(stdout);
    char line[256], method_text[64], store_text[64];
    double times[MAX_REPS];
    while (fgets(line, sizeof(line), stdin)) {
        int reps = 1;
        if (strncmp(line, "quit", 4) == 0) break;
        if (sscanf(line, "%63s %63s %d", method_text, store_text, &reps) < 2) continue;
        if (reps < 1) reps = 1;
        if (reps > MAX_REPS) reps = MAX_REPS;
        int method = meshweld_methodFromName(method_text);
        int store = strcmp(store_text, "precise") == 0;
        meshweld_Info info = {0, 0, 0, 0};
        int e = method < 0 ? method : time_weld(p, method, store, -reps, times, &info, remap);
        if (e) print_error(method, store, e);
        else print_json(p, method, store, &info, remap, times, reps);
    }
    free(remap);
    return 0;
}

/* Kilobytes from a "Name:   123 kB" line of /proc/self/status, or -1. */
static long status_kb(const char* name)
{
    FILE* f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long value = -1;
    size_t length = strlen(name);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, name, length) == 0 && line[length] == ':') {
            value = atol(line + length + 1);
            break;
        }
    fclose(f);
    return value;
}

static long maxrss_kb(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss; /* kilobytes on Linux */
}

/* Peak memory of one cold weld: the remap is allocated (not touched) before, so it counts. */
static int memory(const Points* p, int method, int store)
{
    unsigned int* remap = (unsigned int*)malloc((p->count ? p->count : 1) * sizeof(unsigned int));
    if (!remap) return 1;
    FILE* reset = fopen("/proc/self/clear_refs", "w");
    int exact = 0;
    if (reset) {
        exact = fputs("5", reset) >= 0;
        exact = (fclose(reset) == 0) && exact;
    }
    long before = status_kb("VmRSS");
    if (before < 0) before = maxrss_kb();
    meshweld_Options o = {p->dim, p->radius, method, store};
    meshweld_Info info = {0, 0, 0, 0};
    int e = meshweld_weldKept(remap, p->kept, p->data, p->count, (size_t)p->dim * sizeof(float), &o, &info);
    long peak = exact ? status_kb("VmHWM") : -1;
    if (peak < 0) peak = maxrss_kb();
    if (e) print_error(method, store, e);
    else
        printf("{\"method\":\"%s\",\"store\":\"%s\",\"count\":%zu,\"rss_before_kb\":%ld,\"peak_kb\":%ld,\"exact\":%s}\n",
               method_label(method), store_name(store), info.unique_count, before, peak, exact ? "true" : "false");
    free(remap);
    return e ? 1 : 0;
}

int main(int argc, char** argv)
{
    size_t n = 1000000;
    const char* file = NULL;
    int dim = 3, method = -1, store = -1, reps = 5, json = 0, serving = 0, measuring = 0;
    float radius = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--points") && i + 1 < argc) n = (size_t)atof(argv[++i]);
        else if (!strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!strcmp(argv[i], "--dim") && i + 1 < argc) dim = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--radius") && i + 1 < argc) radius = (float)atof(argv[++i]);
        else if (!strcmp(argv[i], "--method") && i + 1 < argc) method = meshweld_methodFromName(argv[++i]);
        else if (!strcmp(argv[i], "--store") && i + 1 < argc) store = !strcmp(argv[++i], "precise");
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--serve")) serving = 1;
        else if (!strcmp(argv[i], "--memory")) measuring = 1;
        else {
            fprintf(stderr, "meshweld_bench: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > MAX_REPS) reps = MAX_REPS;
#if defined(__GLIBC__)
    /* Timed welds keep their freed scratch in the process, as the WebAssembly module's memory
     * does: with glibc's defaults a weld's larger arrays are mapped and unmapped on every call,
     * and each call then pays the page faults of fresh pages (on one machine 0.85 ms against
     * 0.18 ms for the 7,332 corners of the gearwheel). The memory mode measures a cold weld as
     * the allocator comes. */
    if (!measuring) {
        mallopt(M_MMAP_THRESHOLD, 1 << 30);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
    }
#endif
    if (dim != 2 && dim != 3) {
        fprintf(stderr, "meshweld_bench: --dim must be 2 or 3\n");
        return 2;
    }
    if (file) {
        Points p = {NULL, NULL, 0, dim, radius, file};
        if (load(&p, file)) return 1;
        int status = 0;
        if (serving) {
            status = serve(&p);
        } else if (measuring) {
            if (method < 0 || store < 0) {
                fprintf(stderr, "meshweld_bench: --memory needs --method and --store\n");
                status = 2;
            } else {
                status = memory(&p, method, store);
            }
        } else {
            if (!json)
                printf("%-16s %-8s %-8s %9s %9s %9s %9s %8s\n", "dataset", "method", "store", "points", "outputs",
                       "median ms", "min ms", "ns/point");
            run_all(&p, method, store, reps, json);
        }
        free(p.data);
        free(p.kept);
        return status;
    }
    printf("%-16s %-8s %-8s %9s %9s %9s %9s %8s\n", "dataset", "method", "store", "points", "outputs", "median ms",
           "min ms", "ns/point");
    for (dim = 2; dim <= 3; ++dim) {
        float* pts = (float*)malloc(n * (size_t)dim * sizeof(float));
        float* kept = (float*)malloc(n * (size_t)dim * sizeof(float));
        if (!pts || !kept) return 1;
        for (size_t i = 0; i < n * (size_t)dim; ++i) pts[i] = (float)uniform();
        /* about 30% of the points merged: mean neighbour count ~0.4 within r */
        float r = dim == 3 ? (float)cbrt(0.4 / ((double)n * 4.18879)) : (float)sqrt(0.4 / ((double)n * 3.14159));
        char name[32];
        snprintf(name, sizeof(name), "uniform%dd", dim);
        Points p = {pts, kept, n, dim, r, name};
        run_all(&p, method, store, reps, json);
        free(pts);
        free(kept);
    }
    return 0;
}

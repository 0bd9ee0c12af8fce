/* Welds every fixture of tests/fixtures/manifest.txt with every method and store and prints one
 * JSON line per weld: the output count and an FNV-1a hash of the remap. tests/fixtures/expected.json
 * is this program's output; ctest compares against it and the JS tests check the WebAssembly
 * build against the same file, so native and WebAssembly results are equal bit for bit.
 * Usage: meshweld_fixtures <fixtures dir> */
#include "../../c/meshweld.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t fnv1a(const unsigned int* remap, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i)
        for (int b = 0; b < 4; ++b) {
            h ^= (remap[i] >> (8 * b)) & 0xff;
            h *= 16777619u;
        }
    return h;
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <fixtures dir>\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/manifest.txt", argv[1]);
    FILE* manifest = fopen(path, "r");
    if (!manifest) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    char name[256];
    int dim;
    float radius;
    int first = 1;
    printf("[\n");
    while (fscanf(manifest, "%255s %d %f", name, &dim, &radius) == 3) {
        snprintf(path, sizeof(path), "%s/%s", argv[1], name);
        FILE* f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", path);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        size_t n = (size_t)ftell(f) / (dim * sizeof(float));
        fseek(f, 0, SEEK_SET);
        float* pts = (float*)malloc(n * dim * sizeof(float) + 1);
        unsigned int* remap = (unsigned int*)malloc(n * sizeof(unsigned int) + 1);
        if (fread(pts, dim * sizeof(float), n, f) != n) return 1;
        fclose(f);
        for (int m = meshweld_MethodAuto; m <= meshweld_MethodGrid; ++m)
            for (int s = 0; s <= 1; ++s) {
                if ((m == meshweld_MethodHex && dim != 2) || (m == meshweld_MethodBcc && dim != 3)) continue;
                meshweld_Options o = {dim, radius, m, s};
                meshweld_Info info;
                int e = meshweld_weld(remap, pts, n, dim * sizeof(float), &o, &info);
                if (e) {
                    fprintf(stderr, "%s: %s\n", name, meshweld_errorString(e));
                    return 1;
                }
                printf("%s  {\"fixture\": \"%s\", \"method\": \"%s\", \"store\": \"%s\", \"points\": %zu, \"count\": %zu, \"hash\": %u}",
                       first ? "" : ",\n", name, meshweld_methodName(m), s ? "precise" : "loose", n, info.unique_count,
                       fnv1a(remap, n));
                first = 0;
            }
        free(pts);
        free(remap);
    }
    printf("\n]\n");
    fclose(manifest);
    return 0;
}

/* Points on and within a few ulps of hex and bcc cell boundaries (Voronoi faces between lattice
 * points, the lattice triangles' and tetrahedra's faces, the floor steps of the lattice
 * coordinates), near the origin and near the grids' range, welded with hex and bcc in both stores
 * and through meshweld_cells. Prints one line per weld: output count and an FNV-1a hash of the
 * remap, and a hash of every point's cell keys. tests/c/flags.sh compares this output across
 * compilers and flags: any contraction or reassociation that moved a cell decision shows here.
 * Usage: meshweld_boundary */
#include "../../c/meshweld.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t fnv(uint32_t h, uint32_t v)
{
    for (int b = 0; b < 4; ++b) {
        h ^= (v >> (8 * b)) & 0xff;
        h *= 16777619u;
    }
    return h;
}

/* a float and its neighbours up to 2 ulps away */
static size_t around(float* out, double x)
{
    float f = (float)x, d = f, u = f;
    size_t n = 0;
    out[n++] = f;
    for (int k = 0; k < 2; ++k) {
        d = nextafterf(d, -INFINITY), u = nextafterf(u, INFINITY);
        out[n++] = d, out[n++] = u;
    }
    return n;
}

int main(void)
{
    const double sqrt3 = 1.73205080756887729353, sqrt2 = 1.41421356237309504880;
    const float r = 0.01f;
    size_t cap = 400000, n2 = 0, n3 = 0;
    float* p2 = (float*)malloc(cap * 2 * sizeof(float));
    float* p3 = (float*)malloc(cap * 3 * sizeof(float));
    /* hex: lattice spacing d; special points of a lattice triangle in lattice coordinates (a, b):
     * edge midpoints (Voronoi vertices' neighbours), the centroid (a Voronoi vertex), points on the
     * bisectors and on the triangle edges */
    const double d = 2.0 * sqrt3 * r, fr[][2] = {{0.5, 0}, {0, 0.5}, {0.5, 0.5}, {1.0 / 3, 1.0 / 3}, {2.0 / 3, 2.0 / 3},
                                                 {0.25, 0.5}, {0.5, 0.25}, {0.3, 0.7}, {0.0, 0.0}, {0.75, 0.25}};
    const double bases[] = {0.0, 37.0, -1234.0, 6.1e4, -2.3e6, 9.9e6, -5.5e7};
    for (size_t bi = 0; bi < sizeof(bases) / sizeof(bases[0]); ++bi)
        for (size_t f = 0; f < sizeof(fr) / sizeof(fr[0]); ++f)
            for (int j = -2; j <= 2; ++j) {
                double a = floor(bases[bi] / d) + j + fr[f][0], b = floor(bases[bi] / d * 0.7) + fr[f][1];
                double x = (a + 0.5 * b) * d, y = b * sqrt3 / 2 * d;
                float xs[5], ys[5];
                size_t nx = around(xs, x), ny = around(ys, y);
                for (size_t i = 0; i < nx; ++i)
                    for (size_t k = 0; k < ny && n2 < cap; ++k)
                        p2[n2 * 2] = xs[i], p2[n2 * 2 + 1] = ys[k], n2++;
            }
    /* bcc: cube edge a; A points aZ^3, B points aZ^3 + a/2: points on the A-B bisector planes,
     * on the faces of the cubes around A and B (s = k + 1/2) and on the tetrahedra's faces */
    const double ea = 4.0 * sqrt2 * r, g[][3] = {{0.25, 0.25, 0.25}, {0.5, 0, 0}, {0.5, 0.5, 0}, {0.5, 0.25, 0},
                                                  {0.375, 0.125, 0.125}, {0.25, 0.25, 0}, {0.5, 0.5, 0.5}, {0.1, 0.1, 0.4}};
    for (size_t bi = 0; bi < sizeof(bases) / sizeof(bases[0]); ++bi)
        for (size_t f = 0; f < sizeof(g) / sizeof(g[0]); ++f)
            for (int j = -1; j <= 1; ++j) {
                double c = floor(bases[bi] / ea) + j;
                float xs[5], ys[5], zs[5];
                size_t nx = around(xs, (c + g[f][0]) * ea), ny = around(ys, (c * 0.5 + g[f][1]) * ea),
                       nz = around(zs, (-c + g[f][2]) * ea);
                for (size_t i = 0; i < nx; ++i)
                    for (size_t k = 0; k < ny; ++k)
                        for (size_t l = 0; l < nz && n3 < cap; ++l)
                            p3[n3 * 3] = xs[i], p3[n3 * 3 + 1] = ys[k], p3[n3 * 3 + 2] = zs[l], n3++;
            }
    unsigned* remap = (unsigned*)malloc((n2 > n3 ? n2 : n3) * sizeof(unsigned));
    int keys[27 * 3];
    for (int dim = 2; dim <= 3; ++dim) {
        const float* p = dim == 2 ? p2 : p3;
        size_t n = dim == 2 ? n2 : n3;
        int method = dim == 2 ? meshweld_MethodHex : meshweld_MethodBcc;
        for (int store = 0; store <= 1; ++store) {
            meshweld_Options o = {dim, r, method, store};
            meshweld_Info info;
            int e = meshweld_weld(remap, p, n, dim * sizeof(float), &o, &info);
            uint32_t h = 2166136261u;
            for (size_t i = 0; i < n; ++i)
                h = fnv(h, remap[i]);
            printf("%s %s points %zu error %d count %zu hash %u\n", meshweld_methodName(method),
                   store ? "precise" : "loose", n, e, info.unique_count, h);
        }
        meshweld_Options o = {dim, r, method, 0};
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n; ++i) {
            int c = meshweld_cells(keys, NULL, &p[i * dim], &o);
            h = fnv(h, (uint32_t)c);
            for (int k = 0; k < c * 3; ++k)
                h = fnv(h, (uint32_t)keys[k]);
        }
        printf("%s cells hash %u\n", meshweld_methodName(method), h);
    }
    free(p2);
    free(p3);
    free(remap);
    return 0;
}

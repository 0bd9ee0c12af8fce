/* The grid methods: which cells a point searches, and which one it is stored in.
 *
 * Every function works on s = p * mw_gridScale(method, r), the point in cell units. A grid
 * method is complete for radius r when, for every p, each point q with |p - q| <= r has its
 * store cell among p's searched cells. Completeness is what guarantee 1 rests on; the margin
 * of each scheme (the smallest distance from a point to the region its search does not cover)
 * is derived below and sets the cell size. The loose bound R is the largest distance from p to
 * a point of a searched cell.
 */
#include "internal.h"

#include <limits.h>
#include <math.h>

#define MW_SQRT2 1.41421356237309504880
#define MW_SQRT3 1.73205080756887729353

double mw_gridScale(int method, double radius)
{
    switch (method) {
    case meshweld_MethodGridR:
        /* Cells of side r, the 3^d block around the point's own cell: each axis covers at
         * least r on both sides of p. Margin r. */
        return 1.0 / (radius * MW_SLACK);
    case meshweld_MethodGrid2R:
        /* Cells of side 2r searched at floor(s) and floor(s) + 1 per axis; store cells
         * floor(s + 1/2), i.e. the store grid offset by r. The searched store cells cover
         * [floor(s) - 1/2, floor(s) + 3/2) cell units, p lies in [floor(s), floor(s) + 1):
         * margin 1/2 cell = r. */
        return 1.0 / (2.0 * radius * MW_SLACK);
    case meshweld_MethodHex:
        /* Hexagons of side 2r, centres on a triangular lattice of spacing d = 2 sqrt(3) r. The
         * point searches the 3 centres of the lattice triangle that contains it; its own hexagon
         * (the nearest centre) is one of them. Margin: a point on the midpoint of a triangle
         * edge lies on the middle of the edge shared by two of the hexagons, and that edge
         * ends, at distance side / 2 = r, in a vertex of a hexagon outside the three. Every
         * other point of the triangle is farther from the outside. So margin = r. */
        return 1.0 / (2.0 * MW_SQRT3 * radius * MW_SLACK);
    case meshweld_MethodBcc:
        /* Body-centred cubic lattice with cube edge a: A = aZ^3, B = aZ^3 + a(1,1,1)/2. The
         * Voronoi cells are truncated octahedra, the Delaunay cells tetrahedra made of an
         * A-edge and a B-edge (length a, perpendicular). For p the tetrahedron is the nearest
         * A point with the A point next to it along the axis of p's largest deviation from it,
         * and the same for B (each tetrahedron's faces lie on planes x_i +- x_j = k a, and
         * inside them that axis is the largest deviation).
         * Margin: at the midpoint M of an A-edge all four B points around the edge lie at
         * a sqrt(2)/2, but the tetrahedron holds only two of them. Walking from M towards a
         * missing B point w, the point at distance t is at a^2/4 + t^2 from the edge's ends and
         * (a sqrt(2)/2 - t)^2 from w: w's cell starts at t = a sqrt(2)/8. A sampling of 4e5
         * points and directions (the tests repeat it with real welds) finds nothing closer, so
         * margin = a sqrt(2) / 8, and a = 4 sqrt(2) r makes the search complete for r.
         * Loose bound: the farthest vertex of a searched cell from a tetrahedron vertex is at
         * a sqrt(37) / 4, so R = sqrt(74) r. */
        return 1.0 / (4.0 * MW_SQRT2 * radius * MW_SLACK);
    default:
        return 0.0;
    }
}

static void mw_cellsGridR(mw_Cells* cells, int dim, const double s[3])
{
    int64_t c[3] = {mw_floor64(s[0]), mw_floor64(s[1]), dim == 3 ? mw_floor64(s[2]) : 0};
    int n = 0;
    cells->key[n][0] = c[0];
    cells->key[n][1] = c[1];
    cells->key[n][2] = c[2];
    n++;
    int zr = dim == 3 ? 1 : 0;
    for (int dz = -zr; dz <= zr; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                if (dx == 0 && dy == 0 && dz == 0)
                    continue;
                cells->key[n][0] = c[0] + dx;
                cells->key[n][1] = c[1] + dy;
                cells->key[n][2] = c[2] + dz;
                n++;
            }
    cells->count = n;
}

static void mw_cellsGrid2R(mw_Cells* cells, int dim, const double s[3])
{
    int64_t f[3] = {0, 0, 0}, o[3] = {0, 0, 0};
    for (int i = 0; i < dim; ++i) {
        f[i] = mw_floor64(s[i]);
        o[i] = mw_floor64(s[i] + 0.5) - f[i]; /* 0 or 1: the store cell's offset (s + 1/2 is exact) */
    }
    if (dim == 2)
        f[2] = 0;
    int n = 0, zr = dim == 3 ? 1 : 0;
    cells->key[n][0] = f[0] + o[0];
    cells->key[n][1] = f[1] + o[1];
    cells->key[n][2] = f[2] + o[2];
    n++;
    for (int dz = 0; dz <= zr; ++dz)
        for (int dy = 0; dy <= 1; ++dy)
            for (int dx = 0; dx <= 1; ++dx) {
                if (dx == o[0] && dy == o[1] && dz == o[2])
                    continue;
                cells->key[n][0] = f[0] + dx;
                cells->key[n][1] = f[1] + dy;
                cells->key[n][2] = f[2] + dz;
                n++;
            }
    cells->count = n;
}

static void mw_cellsHex(mw_Cells* cells, const double s[3])
{
    /* lattice coordinates: s = u (1, 0) + v (1/2, sqrt(3)/2). v is a product, rounded before
     * anything is added to it (mw_rounded); v / 2 is exact, so u = s0 - v / 2 is the same fused or
     * not. Every later decision reads (fu, fv) alone: the nearest centre too, so that all of them are
     * the exact decisions for one point near p (the error bound beside MW_GRID_RANGE). */
    double v = mw_rounded(s[1] * (2.0 / MW_SQRT3));
    double u = s[0] - 0.5 * v;
    int64_t i = mw_floor64(u), j = mw_floor64(v);
    double fu = u - (double)i, fv = v - (double)j; /* exact */
    int64_t c[3][2];
    /* squared distance to each candidate minus that to the first, in lattice units: |a e1 + b e2|^2
     * = a^2 + a b + b^2 makes them linear in (fu, fv); 2 fu is exact, no product is rounded */
    double e[3];
    e[0] = 0.0;
    if (fu + fv < 1.0) {
        c[0][0] = i, c[0][1] = j;
        c[1][0] = i + 1, c[1][1] = j;
        c[2][0] = i, c[2][1] = j + 1;
        e[1] = 1.0 - (2.0 * fu + fv);
        e[2] = 1.0 - (fu + 2.0 * fv);
    } else {
        c[0][0] = i + 1, c[0][1] = j + 1;
        c[1][0] = i + 1, c[1][1] = j;
        c[2][0] = i, c[2][1] = j + 1;
        e[1] = (fu + 2.0 * fv) - 2.0;
        e[2] = (2.0 * fu + fv) - 2.0;
    }
    int nearest = 0;
    for (int k = 1; k < 3; ++k)
        if (e[k] < e[nearest])
            nearest = k;
    int n = 0;
    for (int k = 0; k < 3; ++k) {
        int from = k == 0 ? nearest : (k <= nearest ? k - 1 : k);
        cells->key[n][0] = c[from][0];
        cells->key[n][1] = c[from][1];
        cells->key[n][2] = 0;
        n++;
    }
    cells->count = n;
}

/* The nearest and second-nearest points of the cubic lattice Z^3 + offset, in doubled integer
 * coordinates; returns the squared distance to the nearest. */
static double mw_bccPair(int64_t first[3], int64_t second[3], const double s[3], double offset)
{
    double dev[3], d = 0;
    int axis = 0;
    for (int i = 0; i < 3; ++i) {
        double c = (double)mw_floor64(s[i] - offset + 0.5);
        dev[i] = s[i] - offset - c; /* exact */
        d += mw_rounded(dev[i] * dev[i]); /* rounded before the sum: never fused into an fma */
        first[i] = second[i] = 2 * (int64_t)c + (offset != 0.0);
        if (fabs(dev[i]) > fabs(dev[axis]))
            axis = i;
    }
    second[axis] += dev[axis] >= 0 ? 2 : -2;
    return d;
}

static void mw_cellsBcc(mw_Cells* cells, const double s[3])
{
    int64_t a0[3], a1[3], b0[3], b1[3];
    double da = mw_bccPair(a0, a1, s, 0.0);
    double db = mw_bccPair(b0, b1, s, 0.5);
    const int64_t* order[4];
    if (da <= db)
        order[0] = a0, order[1] = b0;
    else
        order[0] = b0, order[1] = a0;
    order[2] = a1;
    order[3] = b1;
    for (int k = 0; k < 4; ++k)
        memcpy(cells->key[k], order[k], sizeof(cells->key[k]));
    cells->count = 4;
}

void mw_gridCells(mw_Cells* cells, int method, int dim, const double s[3])
{
    switch (method) {
    case meshweld_MethodGridR:
        mw_cellsGridR(cells, dim, s);
        break;
    case meshweld_MethodGrid2R:
        mw_cellsGrid2R(cells, dim, s);
        break;
    case meshweld_MethodHex:
        mw_cellsHex(cells, s);
        break;
    default:
        mw_cellsBcc(cells, s);
        break;
    }
}

int meshweld_cells(int* keys, double* cell_size, const float* point, const meshweld_Options* options)
{
    if (!keys || !point)
        return meshweld_ErrorNull;
    mw_Parsed o;
    int error = mw_parseOptions(options, &o);
    if (error)
        return error;
    if (!(o.radius > 0))
        return meshweld_ErrorRadius;
    int dim = o.dim, method = o.method;
    for (int a = 0; a < dim; ++a)
        if (!isfinite(point[a]))
            return meshweld_ErrorNonFinite;
    if (!mw_isArticleGrid(method))
        return 0; /* NAIVE, KDTREE, and GRID and AUTO, whose cells follow the data */
    double scale = mw_gridScale(method, options->radius), split[2];
    mw_splitScale(scale, split);
    if (cell_size)
        *cell_size = 1.0 / scale;
    double s[3] = {0, 0, 0}, limit = mw_gridLimit(method, options->radius);
    for (int a = 0; a < dim; ++a) {
        s[a] = mw_scaled((double)point[a], split);
        if (fabs(s[a]) >= limit)
            return meshweld_ErrorRange;
    }
    mw_Cells cells;
    mw_gridCells(&cells, method, dim, s);
    for (int k = 0; k < cells.count; ++k)
        for (int a = 0; a < 3; ++a)
            if (cells.key[k][a] < INT_MIN || cells.key[k][a] > INT_MAX)
                return meshweld_ErrorRange; /* within the grid's range, beyond int's */
    for (int k = 0; k < cells.count; ++k)
        for (int a = 0; a < 3; ++a)
            keys[k * 3 + a] = (int)cells.key[k][a];
    return cells.count;
}

double mw_gridLimit(int method, double radius)
{
    return MW_GRID_RANGE * radius * mw_gridScale(method, radius);
}

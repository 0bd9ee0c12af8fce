/* GRID's cell scheme: squares or cubes sized to the data, at least 2r wide, and the index of
 * representatives built on it (a welder's earlier batches, and the sequential fallback).
 *
 * A point p searches the cells that its r-box [p - r, p + r] touches. Cells at least 2r wide make
 * that at most 2 per axis, and cells as wide as the points' spacing make it 1 for most points of a
 * sparse set (a mesh, a soup: r is far below the edge length). Only speed depends on the size. */
#include "internal.h"

#include <math.h>

void mw_dataCellsSet(mw_DataCells* cells, double size, double radius, double extent)
{
    cells->size = size;
    cells->inverse = 1.0 / size;
    mw_dataCellsReach(cells, radius, extent);
}

void mw_dataCellsReach(mw_DataCells* cells, double radius, double extent)
{
    /* r in cells, times the slack, plus 2^-20 cells: s = p * inverse is rounded once (relative
     * error 2^-53), so below MW_FAR_CELLS its absolute error stays under 2^-23 cells, and the
     * reach covers the errors of both points of a pair (2^-22) with room to spare. Further out,
     * up to S = extent * inverse cells, the reach also covers 2 S 2^-53 for a pair, twice over
     * (at most 2^-7 below MW_CELL_LIMIT) */
    double out = extent * cells->inverse;
    cells->reach = radius * cells->inverse * MW_SLACK + 0x1p-20;
    if (out >= MW_FAR_CELLS)
        cells->reach += out * 0x1p-51;
}

size_t mw_dataCellsIn(const float low[3], const float high[3], int dim, double size, size_t limit)
{
    double cells = 1.0;
    for (int a = 0; a < dim; ++a)
        cells *= ((double)high[a] - (double)low[a]) / size + 3.0;
    return cells < (double)limit ? (size_t)cells : limit;
}

static double mw_sampleSpacing(const mw_Nodes* nodes);

int mw_engineTries(mw_EngineTry run, void* context, const mw_Nodes* nodes, double* size, double radius, double extent,
                   int crowds)
{
    double narrowest = mw_dataCellsNarrowest(radius, extent), guess = -1.0;
    /* first, whether a sample's pairs say that every try would pass the engine's budget; in cells
     * a quarter wider than the narrowest, which the squeeze of a wide box takes (mw_squeeze) */
    mw_DataCells sampled;
    mw_dataCellsSet(&sampled, 1.25 * narrowest, radius, extent);
    int dense = mw_engineDense(nodes, &sampled, crowds);
    if (dense == MW_DENSE)
        return MW_DENSE;
    if (dense == MW_CORE) { /* one try, where the crowded cells are taken out */
        *size = narrowest;
        mw_DataCells cells;
        mw_dataCellsSet(&cells, narrowest, radius, extent);
        int error = run(context, &cells);
        return error == MW_CROWDED || error == MW_WIDE ? MW_DENSE : error;
    }
    for (int retry = 0, widened = 0;; ++retry) {
        *size = fmax(*size, narrowest);
        mw_DataCells cells;
        mw_dataCellsSet(&cells, *size, radius, extent);
        int error = run(context, &cells);
        if (error == MW_WIDE && dense == MW_SPARSE && !widened && mw_dataCellsSqueezable(radius) > *size) {
            /* a box too wide for the keys of cells at their floor (a few points far from the
             * rest): once, the narrowest cells its squeeze takes, where a sample found few pairs
             * (small sets, unsampled, and dense ones go point by point: the squeeze's sorts and
             * search would be paid for nothing) */
            *size = mw_dataCellsSqueezable(radius);
            widened = 1;
            continue;
        }
        if (error == MW_WIDE)
            return MW_DENSE;
        if (error != MW_CROWDED || retry == MW_CELL_RETRIES)
            return error;
        if (guess < 0) /* (once: it costs a sample's pairs) */
            guess = mw_sampleSpacing(nodes);
        double smaller = fmax(guess > 0 && guess < *size / 8.0 ? guess : *size / 8.0, narrowest);
        if (!(smaller < *size))
            return error;
        *size = smaller;
    }
}

/* The k-th smallest of v[0..n) (k < n, no NaN), v reordered: a quickselect, Hoare's partition
 * around the median of three, O(n) on average (an insertion sort of the sample cost more than the
 * rest of a small weld). */
static double mw_select(double* v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        double t;
        if (v[mid] < v[lo])
            t = v[mid], v[mid] = v[lo], v[lo] = t;
        if (v[hi] < v[lo])
            t = v[hi], v[hi] = v[lo], v[lo] = t;
        if (v[hi] < v[mid])
            t = v[hi], v[hi] = v[mid], v[mid] = t;
        double pivot = v[mid];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                ++i;
            while (v[j] > pivot)
                --j;
            if (i <= j)
                t = v[i], v[i] = v[j], v[j] = t, ++i, --j;
        }
        /* [lo, j] <= pivot <= [i, hi], and anything between equals the pivot */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* The spacing of the nodes from their nearest neighbours in a sample of 256 taken evenly: the
 * median distance from a sample point to its nearest other one (duplicates left out), scaled to
 * the whole set as in a uniform cloud, where that median is (ln 2 / V)^(1/dim) of the spacing (V
 * the unit ball's volume: 0.549 in 3D, 0.470 in 2D) and goes as count^(-1/dim); times the cells'
 * irrational factor. Clusters far apart in interleaved order fool the three estimates of
 * mw_dataCellSize (their gaps, box and quartiles all span the space between clusters) but not
 * this one, whose cost (the sample's 32,640 pairs) only a crowded try pays. 0 when fewer than 16
 * sample points have a neighbour at a distance above 0. */
static double mw_sampleSpacing(const mw_Nodes* nodes)
{
    float xyz[256][3];
    double nearest[256];
    int dim = nodes->dim, n = 0, k = 0;
    size_t count = nodes->count, step = count / 256 > 0 ? count / 256 : 1;
    for (size_t j = 0; j < count && n < 256; j += step, ++n) {
        const float* q = mw_point(nodes->points, nodes->stride, nodes->point ? nodes->point[j] : j);
        xyz[n][0] = q[0], xyz[n][1] = q[1], xyz[n][2] = dim == 3 ? q[2] : 0.0f;
    }
    for (int i = 0; i < n; ++i) {
        double p[3] = {xyz[i][0], xyz[i][1], xyz[i][2]}, best = INFINITY;
        for (int j = 0; j < n; ++j) {
            double d = mw_distance2(p, xyz[j], dim);
            best = d > 0 && d < best ? d : best;
        }
        if (best < INFINITY)
            nearest[k++] = best;
    }
    if (k < 16)
        return 0.0;
    double median = sqrt(mw_select(nearest, k, k / 2));
    return median * pow((double)n / (double)count, 1.0 / dim) / (dim == 3 ? 0.549 : 0.470) * 1.2360679774997896;
}

/* The typical spacing of the points, from a sample of 256: the smallest of three estimates, since
 * cells too small cost at most a few more look-ups (never below 2r) where cells too large crowd
 * every search:
 *   - the median gap between consecutive points (meshes and soups store neighbours together);
 *   - the spacing of a uniform cloud in the sample's bounding box;
 *   - in place of the second when less than half of it, the same in the box of the quartiles of
 *     every fourth sample, twice as wide on each axis (the middle half of a uniform cloud spans
 *     half its extent): a few stray points far away widen the bounding box, and a cloud in
 *     random order has gaps as long as the cloud, but neither moves the quartiles. An axis whose
 *     quartiles meet counts as flat (a plane with a few points off it). */
double mw_dataCellSize(const float* points, size_t stride, int dim, const uint32_t* index, size_t count,
                       double radius)
{
    double gaps[257], values[3][65], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int n = 0, sampled = 0;
    size_t step = count / 256 > 0 ? count / 256 : 1;
    for (size_t j = 0; j < count && sampled < 257; j += step, ++sampled) {
        const float* a = mw_point(points, stride, index ? index[j] : j);
        const float* b = j + 1 < count ? mw_point(points, stride, index ? index[j + 1] : j + 1) : NULL;
        double g = 0;
        for (int k = 0; k < dim; ++k) {
            lo[k] = sampled ? fmin(lo[k], a[k]) : a[k];
            hi[k] = sampled ? fmax(hi[k], a[k]) : a[k];
            if (sampled % 4 == 0)
                values[k][sampled / 4] = a[k];
            if (b)
                g = fmax(g, fabs((double)a[k] - (double)b[k]));
        }
        if (g > 0 && isfinite(g))
            gaps[n++] = g;
    }
    double volume = 1.0, middle = 1.0;
    int axes = 0, middle_axes = 0, quartered = (sampled + 3) / 4;
    for (int k = 0; k < dim; ++k) {
        if (hi[k] > lo[k])
            volume *= hi[k] - lo[k], axes++;
        if (quartered >= 8) {
            double q1 = mw_select(values[k], quartered, quartered / 4);
            double q3 = mw_select(values[k], quartered, quartered - 1 - quartered / 4);
            if (q3 > q1)
                middle *= 2.0 * (q3 - q1), middle_axes++;
        }
    }
    double spread = axes ? pow(volume / (double)count, 1.0 / axes) : 0.0;
    double central = middle_axes ? pow(middle / (double)count, 1.0 / middle_axes) : 0.0;
    if (central > 0 && (spread == 0 || central < 0.5 * spread))
        spread = central;
    double spacing = spread;
    if (n > 0) {
        double median = mw_select(gaps, n, n / 2);
        spacing = spread > 0 && spread < median ? spread : median;
    }
    /* times an irrational factor, so that lattice data (tiles, grids) does not line up with the
     * cell walls, where every point would search two cells per axis */
    spacing *= 1.2360679774997896;
    double floor_size = mw_dataCellFloor(radius);
    return isfinite(spacing) && spacing > floor_size ? spacing : floor_size;
}

/* A cell's key: the low 32 bits of each coordinate */
static void mw_indexKey(const mw_Index* index, const float* q, int dim, uint32_t key[3])
{
    key[0] = (uint32_t)mw_floor64((double)q[0] * index->cells.inverse);
    key[1] = (uint32_t)mw_floor64((double)q[1] * index->cells.inverse);
    key[2] = dim == 3 ? (uint32_t)mw_floor64((double)q[2] * index->cells.inverse) : 0u;
}

/* The index's hash: cells in runs of 16 along x, each run at a place of its own in the table, its
 * cells side by side there, so that the look-ups of points near each other (a welder's tile, a
 * row of a batch) share cache lines */
static uint32_t mw_indexHash(const mw_Table* table, uint32_t a, uint32_t b, uint32_t c)
{
    return mw_cellHash(table, a >> 4, b, c) + (a & 15u);
}

static mw_Entry* mw_indexFind(const mw_Index* index, uint32_t a, uint32_t b, uint32_t c)
{
    return mw_tableFindHashed(&index->table, mw_indexHash(&index->table, a, b, c), a, b, c);
}

static void mw_indexInsert(mw_Index* index, mw_Reps* reps, int dim, uint32_t rep)
{
    uint32_t key[3];
    mw_indexKey(index, &reps->xyz[rep * 3], dim, key);
    mw_entryLink(&index->table, mw_indexFind(index, key[0], key[1], key[2]), key[0], key[1], key[2], reps, rep);
}

void mw_indexCatchUp(mw_Index* index, mw_Reps* reps, int dim)
{
    for (size_t q = index->filled; q < reps->count; ++q)
        mw_indexInsert(index, reps, dim, (uint32_t)q);
    index->filled = reps->count;
}

int mw_indexReserve(mw_Index* index, size_t total)
{
    return mw_tableReserveWith(&index->table, total, mw_indexHash);
}

/* Cells of edge size, no representative in them yet (the table empty, with room for them); the
 * counters start over. */
static void mw_indexEmpty(mw_Index* index, double size, double radius, double extent)
{
    mw_dataCellsSet(&index->cells, size, radius, extent);
    index->filled = 0;
    index->work = index->searched = index->lookups = 0;
}

int mw_indexRebuild(mw_Index* index, size_t reps, double size, double radius, double extent, size_t room)
{
    mw_Table table = {0};
    if (mw_tableReserveWith(&table, reps + room, mw_indexHash))
        return meshweld_ErrorMemory;
    mw_tableFree(&index->table);
    index->table = table;
    mw_indexEmpty(index, size, radius, extent);
    return meshweld_Ok;
}

int mw_indexResize(mw_Index* index, mw_Reps* reps, int dim, double size, double radius, double extent)
{
    size_t n = index->filled;
    uint32_t* slots = (uint32_t*)mw_allocate(n ? n : 1, sizeof(uint32_t));
    if (!slots)
        return meshweld_ErrorMemory;
    /* the occupied slots, found through the representatives' cells before any is emptied (a probe
     * run must stay whole while it is searched): a pass over the representatives rather than
     * over the table's whole room */
    for (size_t q = 0; q < n; ++q) {
        uint32_t key[3];
        mw_indexKey(index, &reps->xyz[q * 3], dim, key);
        slots[q] = (uint32_t)(mw_indexFind(index, key[0], key[1], key[2]) - index->table.entries);
    }
    for (size_t q = 0; q < n; ++q)
        memset(&index->table.entries[slots[q]], 0xff, sizeof(mw_Entry));
    mw_deallocate(slots);
    index->table.count = 0;
    mw_indexEmpty(index, size, radius, extent);
    mw_indexCatchUp(index, reps, dim); /* at most a cell per representative */
    return meshweld_Ok;
}

uint32_t mw_indexEarliest(mw_Index* index, const mw_Reps* reps, int dim, const double p[3], double r2,
                          const mw_Match* match, size_t vertex)
{
    if (index->table.count == 0)
        return MW_NONE;
    double s[3] = {p[0] * index->cells.inverse, p[1] * index->cells.inverse, p[2] * index->cells.inverse};
    int64_t f[3];
    int t[3];
    mw_dataCell(&index->cells, s, dim, f, t);
    index->searched++;
    mw_Query q = mw_query(p, dim, r2, match, vertex);
    int64_t z0 = f[2] + (t[2] < 0 ? -1 : 0), z1 = f[2] + (t[2] > 0);
    int64_t y0 = f[1] + (t[1] < 0 ? -1 : 0), y1 = f[1] + (t[1] > 0);
    int64_t x0 = f[0] + (t[0] < 0 ? -1 : 0), x1 = f[0] + (t[0] > 0);
    index->lookups += (size_t)((z1 - z0 + 1) * (y1 - y0 + 1) * (x1 - x0 + 1));
    for (int64_t z = z0; z <= z1; ++z)
        for (int64_t y = y0; y <= y1; ++y)
            for (int64_t x = x0; x <= x1; ++x) {
                const mw_Entry* c = mw_indexFind(index, (uint32_t)x, (uint32_t)y, (uint32_t)z);
                if (c->value != MW_NONE)
                    mw_ringEarliest(reps, c->value, &q);
            }
    index->work += q.steps;
    return q.best;
}

int mw_indexCrowded(const mw_Index* index, double steps)
{
    return index->searched >= 1024 && (double)index->work > steps * (double)index->searched;
}

void mw_indexFree(mw_Index* index)
{
    mw_tableFree(&index->table);
    index->work = index->searched = 0;
    index->filled = 0;
}

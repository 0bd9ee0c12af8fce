/**
 * meshweld: merge the points of a mesh or point set that lie within a radius r.
 *
 * Every method keeps one contract (see README.md, "Guarantees"):
 *   1. no two output points are within r of each other;
 *   2. every input is within R of its output point, R being the method's bound (meshweld_bound);
 *   3. bitwise-identical positions (-0 equal to +0) always map to the same output point;
 *   4. the remap is dense: outputs are numbered 0.. in order of first appearance;
 *   5. the result depends on the input alone (same remap on every platform).
 * "Within r" means: the squared distance computed in double precision from the float
 * coordinates, dx * dx + dy * dy (+ dz * dz), is <= r * r.
 *
 * The library allocates only scratch memory (and a welder's own state), through a replaceable
 * allocator, and frees it all. Every function that can fail returns a meshweld_Error.
 */
#ifndef MESHWELD_H
#define MESHWELD_H

#include <stddef.h>

#ifndef MESHWELD_API
#define MESHWELD_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MESHWELD_VERSION 100 /* 1.0.0 */

/* Welding methods. Look-ups per (distinct) point and the bound R, for radius r:
 *   NAIVE    pairwise loop over the representatives, O(n * outputs)      R = r
 *   GRID_R   cells of size r, 3^d look-ups                               loose R = 2 sqrt(d) r
 *   GRID_2R  cells of size 2r, 2^d look-ups, store grid offset by r      loose R = 3 sqrt(d) r
 *   HEX      2D: hexagons of side 2r, 3 look-ups                         loose R = 2 sqrt(7) r
 *   BCC      3D: truncated octahedra of the BCC lattice, 4 look-ups      loose R = sqrt(74) r
 *   KDTREE   kd-tree range search                                         R = r
 *   GRID     square cells sized to the data (at least 2r), welded by the spatial engine: the
 *            pairs within r found cell by cell, then the greedy in input order over them (each
 *            point's r-box touches 1 or 2 cells per axis, 1 for sparse points): always precise, R = r
 *   AUTO     GRID, or KDTREE when coordinates are too large for any grid
 * With the precise store every method has R = r and returns exactly the NAIVE result.
 * Loose grid bounds carry a factor (1 + 2^-16) of slack that absorbs rounding. */
typedef enum meshweld_Method {
    meshweld_MethodAuto = 0,
    meshweld_MethodNaive = 1,
    meshweld_MethodGridR = 2,
    meshweld_MethodGrid2R = 3,
    meshweld_MethodHex = 4,
    meshweld_MethodBcc = 5,
    meshweld_MethodKdtree = 6,
    meshweld_MethodGrid = 7
} meshweld_Method;

/* Store policies of the grid methods (NAIVE and KDTREE are always precise). */
typedef enum meshweld_Store {
    meshweld_StoreLoose = 0,   /* one representative per cell; a point merges into the first occupied cell searched */
    meshweld_StorePrecise = 1  /* every representative stored; a point merges into the earliest one within r */
} meshweld_Store;

typedef enum meshweld_Error {
    meshweld_Ok = 0,
    meshweld_ErrorDim = -1,        /* dim is not 2 or 3 */
    meshweld_ErrorRadius = -2,     /* radius (or a tolerance) is negative, NaN or infinite */
    meshweld_ErrorMethod = -3,     /* unknown method */
    meshweld_ErrorStore = -4,      /* unknown store policy */
    meshweld_ErrorMethodDim = -5,  /* HEX asked in 3D, or BCC in 2D */
    meshweld_ErrorStride = -6,     /* stride smaller than dim floats, or not a multiple of 4 bytes */
    meshweld_ErrorCount = -7,      /* count too large: remap indices or byte sizes would overflow */
    meshweld_ErrorNonFinite = -8,  /* a coordinate is NaN or infinite (info->error_point says which) */
    meshweld_ErrorRange = -9,      /* a coordinate too large for the cells: |x| >= 2^33 r for the article's grids */
    meshweld_ErrorMemory = -10,    /* an allocation failed */
    meshweld_ErrorNull = -11,      /* a required pointer is NULL */
    meshweld_ErrorAllocator = -12, /* meshweld_setAllocator got one hook without the other */
    meshweld_ErrorIndex = -13,     /* an index is out of range */
    meshweld_ErrorIndexCount = -14, /* an index count is not a multiple of 3 */
    meshweld_ErrorAttribute = -15   /* an attribute's size is not 1 to 16 floats */
} meshweld_Error;

/* Options of a weld. A zero-initialised struct plus a radius is a valid request: dim 0 means 3,
 * method 0 is meshweld_MethodAuto, store 0 is meshweld_StoreLoose. */
typedef struct meshweld_Options {
    int dim;      /* input: 2 or 3 (0 = 3) */
    float radius; /* input: r >= 0, finite; 0 welds bitwise-identical positions only */
    int method;   /* input: a meshweld_Method */
    int store;    /* input: a meshweld_Store */
} meshweld_Options;

/* What a call reports besides its return value. Every pointer to it may be NULL. */
typedef struct meshweld_Info {
    size_t unique_count; /* output: number of output points (for a welder: in total so far) */
    int method;          /* output: the method that ran (AUTO resolved) */
    size_t error_point;  /* output: for NonFinite/Range/Index errors, the offending point or index */
    int error_axis;      /* output: for NonFinite/Range errors, the offending axis (0, 1, 2) */
} meshweld_Info;

/**
 * Welds count points in one call and writes the remap table: remap[i] is the output index of
 * point i, outputs numbered in order of first appearance. Returns meshweld_Ok or an error; on
 * error info says what failed and remap's contents are unspecified (the weld may have written
 * part of it before meeting the bad point; it never writes beyond count elements).
 *
 * remap must contain enough space for count elements.
 * points holds count points of dim floats each, the i-th starting at byte i * stride.
 * stride is in bytes: at least dim * sizeof(float), a multiple of sizeof(float).
 * points and remap may be NULL only when count is 0.
 */
MESHWELD_API int meshweld_weld(unsigned int* remap, const float* points, size_t count, size_t stride,
                               const meshweld_Options* options, meshweld_Info* info);

/**
 * meshweld_weld that also writes the kept positions: kept[k * dim ..] is output k's position, the
 * first input of its cluster (what meshweld_gather gives, without a pass over the inputs).
 *
 * kept must contain enough space for count * dim floats (the most outputs there can be).
 */
MESHWELD_API int meshweld_weldKept(unsigned int* remap, float* kept, const float* points, size_t count, size_t stride,
                                   const meshweld_Options* options, meshweld_Info* info);

/**
 * meshweld_weld that also writes the first input of each output: first[k] is the smallest i with
 * remap[i] == k (what meshweld_firstOfEach gives, without a pass over the remap), the vertex
 * whose other data output k keeps; and, when kept is not NULL, the kept positions as
 * meshweld_weldKept does.
 *
 * first must contain enough space for count elements, kept (unless NULL) for count * dim floats.
 */
MESHWELD_API int meshweld_weldFirst(unsigned int* remap, unsigned int* first, float* kept, const float* points,
                                    size_t count, size_t stride, const meshweld_Options* options, meshweld_Info* info);

/**
 * Gathers the output positions of a weld: destination[k] is the first input point with
 * remap value k (the kept position), or with centroid != 0 the mean of all inputs with remap
 * value k. Centroids break guarantee 1 (two centroids may come closer than r) and move points by
 * up to R from every input of their cluster; the first-point mode keeps every guarantee.
 *
 * destination must contain enough space for unique_count * dim floats.
 * remap values must all be below unique_count (meshweld_ErrorIndex otherwise).
 */
MESHWELD_API int meshweld_gather(float* destination, size_t unique_count, const unsigned int* remap,
                                 const float* points, size_t count, size_t stride, int dim, int centroid);

/**
 * The first input of each output of a remap: first[k] is the smallest i with remap[i] == k (the
 * vertex whose attributes output k keeps), or UINT_MAX when no input has remap value k (never for
 * the dense remap of a weld). One pass over the remap, with no pass over the points: what an
 * application gathers any other per-vertex data through.
 *
 * first must contain enough space for unique_count elements.
 * remap values must all be below unique_count (meshweld_ErrorIndex otherwise, and first is then
 * unspecified).
 */
MESHWELD_API int meshweld_firstOfEach(unsigned int* first, size_t unique_count, const unsigned int* remap, size_t count);

/* An incremental welder: batch after batch, each welded against everything fed before. The
 * concatenation of its batches' remaps equals meshweld_weld's remap on the concatenated points. */
typedef struct meshweld_Welder meshweld_Welder;

/**
 * Creates a welder; returns NULL on error, with the reason in *error when error is not NULL.
 * AUTO resolves to GRID. A GRID welder (AUTO's too) switches to KDTREE for good, with the same
 * remap, at the first batch whose coordinates lie so far out that the cells its index would search
 * crowd: they would each hold 64 cells of the first batch's spacing (coordinates past about 2^44
 * times that spacing), or at the batch after its searches met crowds in cells that such
 * coordinates kept from narrowing (a first batch sparser than the whole).
 */
MESHWELD_API meshweld_Welder* meshweld_welderCreate(const meshweld_Options* options, int* error);

/**
 * Welds a batch against everything added before and writes its remap (global output indices).
 * On error the welder is left exactly as it was before the call.
 *
 * remap must contain enough space for count elements; points as in meshweld_weld.
 */
MESHWELD_API int meshweld_welderAdd(meshweld_Welder* welder, unsigned int* remap, const float* points,
                                    size_t count, size_t stride, meshweld_Info* info);

/* Number of output points so far. */
MESHWELD_API size_t meshweld_welderCount(const meshweld_Welder* welder);

/* The method the welder runs now. */
MESHWELD_API int meshweld_welderMethod(const meshweld_Welder* welder);

/* Writes the kept positions: destination must contain enough space for welderCount * dim floats. */
MESHWELD_API void meshweld_welderPositions(const meshweld_Welder* welder, float* destination);

/* Frees the welder and all it holds. NULL is ignored. */
MESHWELD_API void meshweld_welderDestroy(meshweld_Welder* welder);

/* A per-vertex attribute that must match for two vertices to weld. */
typedef struct meshweld_Attribute {
    const float* data; /* input: the first vertex's values */
    size_t stride;     /* input: bytes from one vertex's values to the next */
    int size;          /* input: floats per vertex, 1 to 16 */
    float tolerance;   /* input: largest Euclidean distance between two matching values, >= 0 */
} meshweld_Attribute;

/**
 * Attribute-aware weld: vertex i merges into the earliest representative whose position is within
 * r AND each of whose attributes is within its tolerance of vertex i's (so UV seams and hard
 * edges survive). Guaranteed: every vertex is within r of its output vertex and within each
 * tolerance of its attributes (R = r); no two output vertices match each other in that sense;
 * identical vertices (positions and attributes equal, -0 equal to +0) share an output; the remap
 * is dense. Radius 0 and tolerance 0 mean equal values only.
 * A non-finite attribute value matches only its own bits (a NaN normal neither fails the weld nor
 * merges with anything but an identical vertex). options are checked as for meshweld_weld; it finds
 * the positions within r of each other with GRID's spatial engine (info->method = GRID), and
 * compares attributes only there; in clusters too dense for the engine it searches the
 * representatives in cells of position and attribute values (GRID), and in a dense core among
 * sparse points only the core's crowded cells and the cells around them do; with a kd-tree
 * (KDTREE) when options->method is meshweld_MethodKdtree or coordinates lie too far out for cells;
 * radius 0 compares the vertices at the same position (NAIVE). All give the same remap, and many
 * vertices at one position or in one cluster that the attributes keep apart cost about as much as
 * any others.
 *
 * remap must contain enough space for count elements; attributes holds attribute_count entries,
 * each with count vertices.
 */
MESHWELD_API int meshweld_weldAttributes(unsigned int* remap, const float* points, size_t count, size_t stride,
                                         const meshweld_Options* options, const meshweld_Attribute* attributes,
                                         size_t attribute_count, meshweld_Info* info);

/**
 * meshweld_weldAttributes that also writes the first input of each output (first[k], as
 * meshweld_firstOfEach gives it) and, when kept is not NULL, its position (kept[k * dim ..], the
 * first input's coordinates as given), as the weld numbers its outputs.
 *
 * first must contain enough space for count elements, kept (unless NULL) for count * dim floats.
 */
MESHWELD_API int meshweld_weldAttributesFirst(unsigned int* remap, unsigned int* first, float* kept, const float* points,
                                              size_t count, size_t stride, const meshweld_Options* options,
                                              const meshweld_Attribute* attributes, size_t attribute_count,
                                              meshweld_Info* info);

/* Flags of meshweld_remapTriangles. */
typedef enum meshweld_TriangleFlags {
    meshweld_KeepDegenerate = 1 << 0,   /* keep triangles with two or three corners welded together */
    meshweld_RemoveDuplicates = 1 << 1  /* drop a triangle equal to an earlier one (same corners, same winding) */
} meshweld_TriangleFlags;

/**
 * Rewrites a triangle index buffer through a weld's remap: destination[k] = remap[indices[k]],
 * dropping degenerate triangles (unless meshweld_KeepDegenerate) and, with
 * meshweld_RemoveDuplicates, repeated ones (a rotation of an earlier triangle counts as the same).
 * indices NULL means the unindexed soup 0, 1, .., index_count - 1. The number of indices written
 * goes to *written; the numbers of triangles dropped to *degenerate and *duplicates (each may be
 * NULL). An index >= vertex_count gives meshweld_ErrorIndex with its position in info->error_point;
 * an index_count that is not a multiple of 3 gives meshweld_ErrorIndexCount. Nothing is written
 * on error.
 *
 * destination must contain enough space for index_count elements; it may be indices itself.
 * remap holds vertex_count elements.
 */
MESHWELD_API int meshweld_remapTriangles(unsigned int* destination, size_t* written, size_t* degenerate,
                                         size_t* duplicates, const unsigned int* indices, size_t index_count,
                                         const unsigned int* remap, size_t vertex_count, int flags,
                                         meshweld_Info* info);

/**
 * Counts the pairs of points within radius of each other (distance computed in double <= radius),
 * with a kd-tree: the exact validator of guarantee 1. The count goes to *pairs and stops at limit
 * (0 = no limit), which bounds the time on inputs full of duplicates. Returns an error code;
 * non-finite coordinates give meshweld_ErrorNonFinite.
 */
MESHWELD_API int meshweld_countClosePairs(size_t* pairs, const float* points, size_t count, size_t stride,
                                          int dim, float radius, size_t limit);

/* The bound R of a method and store for radius r and dim; returns a negative value for invalid
 * arguments. For AUTO it is the bound of what AUTO picks when the grid range allows. */
MESHWELD_API double meshweld_bound(int method, int store, int dim, float radius);

/* The look-ups per distinct point of the article's grid methods (0 for NAIVE, KDTREE, GRID and AUTO,
 * whose searches depend on the data). */
MESHWELD_API int meshweld_lookups(int method, int dim);

/**
 * The cells a grid method searches for one point, its store cell first: writes
 * their integer keys, 3 ints each (z = 0 in 2D), and returns how many (0 for NAIVE, KDTREE, GRID
 * and AUTO, whose cells depend on the data),
 * or a negative meshweld_Error. *cell_size (may be NULL) receives the cell size c, which is the
 * nominal size times (1 + 2^-16). What a key (i, j, k) is:
 *   GRID_R   the cube [i c, (i + 1) c) x [j c, (j + 1) c) x [k c, (k + 1) c), c = r (nominal)
 *   GRID_2R  the cube of side c = 2r centred on (i c, j c, k c): the store grid, offset by half a
 *            cell from the search grid [i c, (i + 1) c) whose corner picks the 2^d keys searched
 *   HEX      the hexagon (side 2r) around the lattice point (i + j / 2, j sqrt(3) / 2) c, c = 2 sqrt(3) r
 *   BCC      the truncated octahedron around (i, j, k) c / 2, c = 4 sqrt(2) r the cube edge
 *            (i, j, k all even: a corner point, all odd: a centre point)
 * The grids take |coordinate| < 2^33 r and hold their cells in 64 bits; this function returns
 * meshweld_ErrorRange beyond that, and also when a key falls outside int's range (cells beyond
 * 2^31; the welds themselves do not have that limit).
 * keys must contain enough space for 27 * 3 ints; point holds dim floats.
 */
MESHWELD_API int meshweld_cells(int* keys, double* cell_size, const float* point, const meshweld_Options* options);

/* What GRID's spatial engine does on one weld, for teaching and inspection (the demo draws it).
 * Every buffer may be NULL; each has room for count elements unless said otherwise. */
typedef struct meshweld_Trace {
    int phases;                 /* input: run phases 1 to phases: 1 duplicates, 2 sort, 3 pairs, 4 graph,
                                 * 5 walk (the weld; remap is complete only then) */
    unsigned int* distinct;     /* input buffer: node -> its first input point (nodes in first-appearance order) */
    unsigned int* order;        /* input buffer: the nodes sorted by cell, as input points */
    int* cell_keys;             /* input buffer, 3 * count ints: each occupied cell's key (i, j, k), in sorted order
                                 * (the low 32 bits of a coordinate 2^31 cells or more from 0) */
    unsigned int* cell_start;   /* input buffer, count + 1: cell c holds order[cell_start[c] .. cell_start[c + 1]) */
    unsigned int* pairs;        /* input buffer, 2 * pair_capacity: the pairs within r as input points, earlier
                                 * first, in the order the cell-by-cell search found them */
    size_t pair_capacity;       /* input */
    size_t nodes;               /* output: distinct positions */
    size_t cells;               /* output: occupied cells */
    size_t tests;               /* output: distance tests of the pair search (when engine is 0, those made before it gave
                                 * up: none when crowded cells had them counted beforehand, nor when a sample of the
                                 * nodes showed pairs far past the engine's budget: then no cell is sorted either) */
    size_t pair_count;          /* output: pairs within r (those beyond pair_capacity are not written) */
    double cell_size;           /* output: the cells' edge; cell (i, j, k) is [i c, (i + 1) c) x [j c, (j + 1) c) x .. */
    int engine;                 /* output: 1 the spatial engine ran, 0 it fell back to the sequential search */
    size_t steps;               /* output: when engine is 0, the representatives the sequential search compared
                                 * (its work: a few per node where its cells suit the data); when engine is 1
                                 * and crowded is not 0, those the walk compared for the crowded cells */
    size_t crowded;             /* output: nodes in cells too crowded for the pair search (cells on their floor of 2r,
                                 * a minority of the nodes): the walk welds them one by one against their cells'
                                 * representatives */
} meshweld_Trace;

/**
 * meshweld_weld with method GRID (one shot), recording what its spatial engine does in trace.
 * options->method is ignored (GRID runs); radius must be > 0. Returns as meshweld_weld.
 */
MESHWELD_API int meshweld_trace(unsigned int* remap, const float* points, size_t count, size_t stride,
                                const meshweld_Options* options, meshweld_Trace* trace, meshweld_Info* info);

/* Names: "auto", "naive", "grid-r", "grid-2r", "hex", "bcc", "kdtree", "grid"; NULL for an unknown method. */
MESHWELD_API const char* meshweld_methodName(int method);

/* The method of a name, or meshweld_ErrorMethod. */
MESHWELD_API int meshweld_methodFromName(const char* name);

/* A sentence for an error code, never NULL. */
MESHWELD_API const char* meshweld_errorString(int error);

/**
 * Replaces the allocator: both hooks or neither (both NULL restore malloc/free). user is passed
 * to each call. Not thread-safe: call it before any other function.
 */
MESHWELD_API int meshweld_setAllocator(void* (*allocate)(void* user, size_t size),
                                       void (*deallocate)(void* user, void* pointer), void* user);

/**
 * Seeds the keys of the hash tables every later call makes (each table draws its own from the
 * seed and the addresses of the moment), so that no input can be crafted to collide in them: a
 * flood of such points would make each insert probe all the others. Results never depend on the
 * seed, only the time. Natively the addresses vary from run to run where the system randomises
 * them; where it does not (WebAssembly, whose loader calls this with random words), call it once
 * with words from a random source. Not thread-safe: call it before any other function.
 */
MESHWELD_API void meshweld_seedHashes(unsigned int seed0, unsigned int seed1);

#ifdef __cplusplus
}
#endif

#endif /* MESHWELD_H */

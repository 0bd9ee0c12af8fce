/* Attribute-aware welding: the precise rule (a vertex merges into the earliest representative
 * within r) where a representative must also match every attribute within its tolerance
 * (mw_match: a non-finite value matches only its own bits).
 *
 * First every distinct position gets a number (the exact pass), and the positions within r of
 * each other are found by one of two searches, which give the same remap:
 *   engine  the graph of the distinct positions within r of each other (engine.c);
 *   kdtree  a kd-tree over the distinct positions (asked for, coordinates too far out for cells,
 *           or clusters too dense for the engine).
 * Then every vertex takes one step of the rule: the earliest representative ringed at its position
 * or at a position within r of it that matches (mw_ringEarliest, reps.c), else it becomes one. A
 * position with no other within r (every one at radius 0) holds vertices that meet only each
 * other: they take their steps together, one position at a time, so that its vertices and
 * representatives stay in the cache; the rest take theirs in vertex order. */
#include "internal.h"

#include <math.h>

static int mw_checkAttributes(const meshweld_Attribute* attributes, size_t attribute_count, size_t count)
{
    if (attribute_count > 0 && !attributes)
        return meshweld_ErrorNull;
    for (size_t k = 0; k < attribute_count; ++k) {
        const meshweld_Attribute* t = &attributes[k];
        if (t->size < 1 || t->size > 16)
            return meshweld_ErrorAttribute;
        if (count > 0 && !t->data)
            return meshweld_ErrorNull;
        if (mw_badStride(t->stride, (size_t)t->size))
            return meshweld_ErrorStride;
        if (!(t->tolerance >= 0.0f) || !isfinite(t->tolerance))
            return meshweld_ErrorRadius;
        if (count > SIZE_MAX / t->stride)
            return meshweld_ErrorCount;
    }
    return meshweld_Ok;
}

/* The walk: each position keeps a ring of its representatives (reps.c), and a vertex's step lowers
 * query.best over the rings of its position and of the positions within r of it (the graph's
 * neighbours, or the kd-tree's). */
typedef struct mw_Walk {
    mw_Reps reps;          /* the vertices (representative q is vertex q): coordinates and rings */
    uint32_t* head;        /* distinct position -> the newest representative there */
    mw_Query query;
    const mw_Match* match;
    const mw_Graph* graph; /* graph->first NULL: none */
    const mw_Kdtree* tree; /* NULL: none */
    const float* points;
    size_t stride;
    int dim;
    double r2;
} mw_Walk;

static void mw_walkVisit(void* context, uint32_t position)
{
    mw_Walk* w = (mw_Walk*)context;
    if (w->head[position] != MW_NONE)
        mw_ringEarliest(&w->reps, w->head[position], &w->query);
}

/* Vertex i, at position k (which has others within r), takes the earliest representative within r
 * that matches it, or becomes one; returns its representative. */
static uint32_t mw_walkStep(mw_Walk* w, uint32_t i, uint32_t k)
{
    const float* src = mw_point(w->points, w->stride, i);
    double p[3];
    mw_load(p, src, w->dim);
    w->query = mw_query(p, w->dim, w->r2, w->match, i);
    mw_walkVisit(w, k);
    if (w->graph->first)
        for (uint32_t e = w->graph->first[k]; e < w->graph->first[k + 1]; ++e)
            mw_walkVisit(w, w->graph->neighbour[e]);
    else if (w->tree)
        mw_kdVisit(w->tree, p, w->r2, mw_walkVisit, w);
    if (w->query.best != MW_NONE)
        return w->query.best;
    /* a new representative: its coordinates, for the searches of the vertices after it */
    w->reps.xyz[(size_t)i * 3] = src[0] + 0.0f;
    w->reps.xyz[(size_t)i * 3 + 1] = src[1] + 0.0f;
    w->reps.xyz[(size_t)i * 3 + 2] = w->dim == 3 ? src[2] + 0.0f : 0.0f;
    mw_ringLink(&w->reps, &w->head[k], i);
    return i;
}

/* One try of the engine's graph of positions within r (mw_engineTries). */
typedef struct mw_GraphTry {
    mw_Graph* graph;
    mw_Arena* arena;
    const mw_Nodes* nodes;
    uint32_t* scratch;
} mw_GraphTry;

static int mw_graphTry(void* context, const mw_DataCells* cells)
{
    const mw_GraphTry* t = (const mw_GraphTry*)context;
    return mw_engineGraph(t->graph, t->arena, t->nodes, cells, NULL, t->scratch);
}

/* meshweld_weldAttributes, and with first (and kept when not NULL) meshweld_weldAttributesFirst */
static int mw_weldAttributes(unsigned int* remap, unsigned int* first, float* kept, int first_wanted,
                             const float* points, size_t count, size_t stride, const meshweld_Options* options,
                             const meshweld_Attribute* attributes, size_t attribute_count, meshweld_Info* info)
{
    mw_Parsed o;
    int error = mw_parseOptions(options, &o);
    if (error)
        return error;
    if (info)
        info->unique_count = 0, info->method = o.radius > 0 ? meshweld_MethodGrid : meshweld_MethodNaive;
    if ((error = mw_checkAttributes(attributes, attribute_count, count)) != meshweld_Ok || count == 0)
        return error;
    if ((error = mw_checkBuffer(points, count, stride, o.dim, MW_NONE)) != meshweld_Ok)
        return error;
    if (!remap || (first_wanted && !first))
        return meshweld_ErrorNull;
    mw_Arena arena = {{0}, 0};
    mw_Table exact = {0};
    mw_Kdtree tree = {0};
    uint32_t* position = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t)); /* vertex -> its position */
    uint32_t* position_point = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t)); /* position -> its first vertex */
    uint32_t* owner = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t)); /* vertex -> its representative */
    error = meshweld_ErrorMemory;
    if (!position || !position_point || !owner)
        goto done;

    /* distinct positions: the exact pass (which checks the coordinates). With r > 0 it is one-shot:
     * in a cloud of distinct points it stops looking, and every vertex is a position of its own
     * (identical ones are then within r of each other, which the search finds); at radius 0 the
     * positions must be distinct, since a vertex meets only its own */
    mw_Distinct d;
    memset(&d, 0, sizeof(d));
    d.node_point = position_point;
    if ((error = mw_exactPass(&exact, o.radius > 0, position, points, count, stride, o.dim, &d, info)) != meshweld_Ok)
        goto done;
    mw_tableFree(&exact);
    error = meshweld_ErrorMemory; /* until the end */
    uint32_t distinct = (uint32_t)d.nodes;
    position_point = d.node_point; /* NULL: position i is vertex i */
    if (!position_point)
        for (size_t i = 0; i < count; ++i)
            position[i] = (uint32_t)i;

    mw_Match match = {attributes, attribute_count};
    /* the search: the graph of positions within r, else a kd-tree over them (radius > 0) */
    mw_Graph graph = {NULL, NULL};
    if (o.radius > 0 && o.method != meshweld_MethodKdtree) {
        double size = mw_dataCellSize(points, stride, o.dim, position_point, distinct, o.radius);
        if (mw_dataCellsHold(d.extent, size)) { /* (else the kd-tree, which takes any coordinate) */
            mw_Nodes list = {points, stride, o.dim, position_point, distinct, o.radius};
            mw_GraphTry graph_try = {&graph, &arena, &list, owner};
            /* crowded cells: smaller ones (mw_engineTries), before the kd-tree */
            error = mw_engineTries(mw_graphTry, &graph_try, &list, &size, o.radius, d.extent);
            if (error != meshweld_Ok && error != MW_DENSE && error != MW_CROWDED)
                goto done;
            error = meshweld_ErrorMemory;
        }
    }
    if (o.radius > 0 && !graph.first) {
        if (mw_kdAllocate(&tree, distinct, o.dim))
            goto done;
        for (uint32_t k = 0; k < distinct; ++k) {
            const float* p = mw_point(points, stride, position_point ? position_point[k] : k);
            tree.ids[k] = k;
            tree.coords[k * 3] = p[0] + 0.0f;
            tree.coords[k * 3 + 1] = p[1] + 0.0f;
            tree.coords[k * 3 + 2] = o.dim == 3 ? p[2] + 0.0f : 0.0f;
        }
        tree.count = distinct;
        mw_kdFinish(&tree);
        if (info)
            info->method = meshweld_MethodKdtree;
    }

    /* which positions have another within r: their vertices walk in vertex order (below) */
    unsigned char* walked = (unsigned char*)mw_arenaAllocate(&arena, distinct, 1); /* position -> walked */
    if (!walked)
        goto done;
    size_t walking = 0;
    for (uint32_t k = 0; k < distinct; ++k) {
        walked[k] = o.radius > 0 && (!graph.first || graph.first[k] != graph.first[k + 1]);
        walking += walked[k];
    }

    /* the vertices of each position together, in vertex order (a counting sort) */
    uint32_t* start = (uint32_t*)mw_arenaAllocate(&arena, (size_t)distinct + 1, sizeof(uint32_t));
    uint32_t* order = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));
    uint32_t* list = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));
    if (!start || !order || !list)
        goto done;
    memset(start, 0, ((size_t)distinct + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < count; ++i)
        start[position[i] + 1]++;
    for (uint32_t k = 0; k < distinct; ++k)
        start[k + 1] += start[k];
    for (size_t i = 0; i < count; ++i)
        order[start[position[i]]++] = (uint32_t)i;
    for (uint32_t k = distinct; k > 0; --k)
        start[k] = start[k - 1];
    start[0] = 0;

    /* A position with no other within r (every one at radius 0) holds vertices that meet only each
     * other: they take their steps there, in vertex order, one position at a time (its vertices and
     * representatives stay in the cache). Its representatives, earliest first, are a run of list,
     * and only the match decides (the query's dim 0: they all sit at the vertex's position). */
    mw_Reps alone = {NULL, NULL, list, 0, 0}; /* representative r is vertex list[r] */
    static const double here[3] = {0.0, 0.0, 0.0};
    for (uint32_t k = 0; k < distinct; ++k) {
        uint32_t from = start[k], to = from;
        for (uint32_t j = from; !walked[k] && j < start[k + 1]; ++j) {
            uint32_t i = order[j];
            mw_Query q = mw_query(here, 0, 0.0, &match, i);
            mw_runEarliest(&alone, from, to, &q);
            owner[i] = q.best != MW_NONE ? list[q.best] : (list[to++] = i);
        }
    }

    /* the walk's state: every vertex at a walked position may become a representative */
    mw_Walk w;
    memset(&w, 0, sizeof(w));
    w.reps.count = w.reps.capacity = count;
    w.match = &match, w.graph = &graph, w.tree = o.radius > 0 && !graph.first ? &tree : NULL;
    w.points = points, w.stride = stride, w.dim = o.dim, w.r2 = (double)o.radius * o.radius;
    if (walking > 0) {
        w.reps.next = list; /* free again: the positions alone are done */
        w.head = (uint32_t*)mw_arenaAllocate(&arena, distinct, sizeof(uint32_t));
        w.reps.xyz = (float*)mw_arenaAllocate(&arena, count, 3 * sizeof(float));
        if (!w.head || !w.reps.xyz)
            goto done;
        for (uint32_t k = 0; k < distinct; ++k)
            w.head[k] = MW_NONE;
    }
    for (size_t i = 0; walking > 0 && i < count; ++i)
        if (walked[position[i]])
            owner[i] = mw_walkStep(&w, (uint32_t)i, position[i]);

    /* outputs in order of first appearance: a representative is earlier than what it takes (and
     * the first input of its output) */
    uint32_t outputs = 0;
    for (size_t i = 0; i < count; ++i) {
        if (owner[i] != i) {
            remap[i] = remap[owner[i]];
            continue;
        }
        mw_recordOutput(first, kept, outputs, points, stride, i, o.dim);
        remap[i] = outputs++;
    }
    if (info)
        info->unique_count = outputs;
    error = meshweld_Ok;
done:
    mw_tableFree(&exact);
    mw_kdFree(&tree);
    mw_arenaFree(&arena);
    return error;
}

int meshweld_weldAttributes(unsigned int* remap, const float* points, size_t count, size_t stride,
                            const meshweld_Options* options, const meshweld_Attribute* attributes,
                            size_t attribute_count, meshweld_Info* info)
{
    return mw_weldAttributes(remap, NULL, NULL, 0, points, count, stride, options, attributes, attribute_count, info);
}

int meshweld_weldAttributesFirst(unsigned int* remap, unsigned int* first, float* kept, const float* points,
                                 size_t count, size_t stride, const meshweld_Options* options,
                                 const meshweld_Attribute* attributes, size_t attribute_count, meshweld_Info* info)
{
    return mw_weldAttributes(remap, first, kept, 1, points, count, stride, options, attributes, attribute_count, info);
}

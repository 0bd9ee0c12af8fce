/* Attribute-aware welding: the precise rule (a vertex merges into the earliest representative
 * within r) where a representative must also match every attribute within its tolerance
 * (mw_match: a non-finite value matches only its own bits).
 *
 * First every distinct position gets a number, and every distinct vertex (position and attribute
 * values equal, -0 equal to +0) becomes a node, both in order of first appearance: an identical
 * later vertex gets the same answer from the greedy, since the representatives made between the
 * two come later in order. Then the nodes are welded in order, each against the representatives
 * ringed at its own position and at the positions within r of it (reps.c), which one of three
 * searches finds; all give the same remap:
 *   engine  the graph of the distinct positions within r of each other (engine.c), built once;
 *   kdtree  a kd-tree over the distinct positions (asked for, coordinates too far out for cells,
 *           or clusters too dense for the engine);
 *   exact   radius 0: the node's own position alone. */
#include "internal.h"

#include <math.h>

int mw_matchBits(const meshweld_Attribute* t, size_t a, size_t b)
{
    const float* x = mw_point(t->data, t->stride, a);
    const float* y = mw_point(t->data, t->stride, b);
    for (int j = 0; j < t->size; ++j)
        if (!(x[j] == y[j]) && memcmp(&x[j], &y[j], sizeof(float)) != 0)
            return 0;
    return 1;
}

/* Every attribute of vertices a and b equal (-0 equal to +0, a NaN equal to its own bits). */
static int mw_sameAttributes(const meshweld_Attribute* attributes, size_t count, size_t a, size_t b)
{
    for (size_t k = 0; k < count; ++k)
        if (!mw_matchBits(&attributes[k], a, b))
            return 0;
    return 1;
}

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

/* The walk: each position keeps a ring of its representative nodes (reps.c), and a search lowers
 * query.best over the rings of the positions within r. */
typedef struct mw_Chains {
    mw_Reps reps;   /* the nodes: their coordinates, rings and vertices */
    uint32_t* head; /* distinct position -> the newest representative node there */
    mw_Query query;
} mw_Chains;

static void mw_chainVisit(void* context, uint32_t position)
{
    mw_Chains* c = (mw_Chains*)context;
    if (c->head[position] != MW_NONE)
        mw_ringEarliest(&c->reps, c->head[position], &c->query);
}

int meshweld_weldAttributes(unsigned int* remap, const float* points, size_t count, size_t stride,
                            const meshweld_Options* options, const meshweld_Attribute* attributes,
                            size_t attribute_count, meshweld_Info* info)
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
    if (!remap)
        return meshweld_ErrorNull;
    mw_Arena arena = {{0}, 0};
    mw_Table exact = {0};
    mw_Kdtree tree = {0};
    uint32_t* position = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));  /* vertex -> distinct position */
    uint32_t* position_point = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t)); /* position -> its first vertex */
    uint32_t* variant = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));   /* position -> its newest node */
    uint32_t* variant_next = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t)); /* node -> the previous one there */
    uint32_t* node_point = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t)); /* node -> its first vertex */
    uint32_t* owner = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));      /* node -> its representative */
    error = meshweld_ErrorMemory;
    if (!position || !position_point || !variant || !variant_next || !node_point || !owner)
        goto done;

    /* distinct positions: the exact pass (which checks the coordinates). With r > 0 it is one-shot:
     * in a cloud of distinct points it stops looking, and every vertex is a position of its own
     * (identical ones are then within r of each other, which the search finds); at radius 0 the
     * search sees a vertex's own position only, so the positions must be distinct */
    mw_Distinct d;
    memset(&d, 0, sizeof(d));
    d.node_point = position_point;
    if ((error = mw_exactPass(&exact, o.radius > 0, position, points, count, stride, o.dim, &d, info)) != meshweld_Ok)
        goto done;
    mw_tableFree(&exact);
    uint32_t distinct = (uint32_t)d.nodes;
    position_point = d.node_point; /* NULL: position i is vertex i */
    for (uint32_t k = 0; k < distinct; ++k)
        variant[k] = MW_NONE;

    /* then distinct vertices: the nodes; remap[i] holds vertex i's node */
    error = meshweld_ErrorMemory;
    uint32_t nodes = 0;
    for (size_t i = 0; i < count; ++i) {
        uint32_t k = position_point ? position[i] : (uint32_t)i, n;
        position[i] = k;
        for (n = variant[k]; n != MW_NONE; n = variant_next[n])
            if (mw_sameAttributes(attributes, attribute_count, i, node_point[n]))
                break;
        if (n == MW_NONE) {
            n = nodes++;
            node_point[n] = (uint32_t)i;
            variant_next[n] = variant[k];
            variant[k] = n;
        }
        remap[i] = n;
    }

    mw_Match match = {attributes, attribute_count};
    /* the search: the graph of positions within r, else a kd-tree over them (radius > 0) */
    mw_Graph graph = {NULL, NULL};
    if (o.radius > 0 && o.method != meshweld_MethodKdtree) {
        double size = mw_dataCellSize(points, stride, o.dim, position_point, distinct, o.radius);
        if (mw_dataCellsHold(d.extent, size)) {
            mw_DataCells cells;
            mw_dataCellsSet(&cells, size, o.radius);
            mw_Nodes list = {points, stride, o.dim, position_point, distinct, o.radius};
            error = mw_engineGraph(&graph, &arena, &list, &cells, NULL, 1, owner, NULL);
            if (error != meshweld_Ok && error != MW_DENSE)
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

    /* the walk, node by node: the representatives of each distinct position ringed through
     * variant[] (the newest) and variant_next[], which the nodes no longer need */
    mw_Chains c;
    memset(&c, 0, sizeof(c));
    c.reps.xyz = (float*)mw_arenaAllocate(&arena, nodes, 3 * sizeof(float));
    if (!c.reps.xyz)
        goto done;
    c.reps.next = variant_next, c.reps.point = node_point, c.reps.count = nodes;
    c.head = variant;
    for (uint32_t n = 0; n < nodes; ++n) {
        const float* p = mw_point(points, stride, node_point[n]);
        c.reps.xyz[n * 3] = p[0] + 0.0f;
        c.reps.xyz[n * 3 + 1] = p[1] + 0.0f;
        c.reps.xyz[n * 3 + 2] = o.dim == 3 ? p[2] + 0.0f : 0.0f;
    }
    for (uint32_t k = 0; k < distinct; ++k)
        variant[k] = MW_NONE;
    double r2 = (double)o.radius * o.radius;
    for (uint32_t n = 0; n < nodes; ++n) {
        size_t i = node_point[n];
        uint32_t k = position[i];
        double p[3];
        mw_load(p, mw_point(points, stride, i), o.dim);
        c.query = mw_query(p, o.dim, r2, &match, i);
        mw_chainVisit(&c, k);
        if (graph.first)
            for (uint32_t e = graph.first[k]; e < graph.first[k + 1]; ++e)
                mw_chainVisit(&c, graph.neighbour[e]);
        else if (o.radius > 0)
            mw_kdVisit(&tree, p, r2, mw_chainVisit, &c);
        owner[n] = c.query.best == MW_NONE ? n : c.query.best;
        if (owner[n] == n)
            mw_ringLink(&c.reps, &variant[k], n);
    }

    /* outputs in node order; owner[] becomes each node's output */
    uint32_t outputs = 0;
    for (uint32_t n = 0; n < nodes; ++n)
        owner[n] = owner[n] == n ? outputs++ : owner[owner[n]];
    for (size_t i = 0; i < count; ++i)
        remap[i] = owner[remap[i]];
    if (info)
        info->unique_count = outputs;
    error = meshweld_Ok;
done:
    mw_tableFree(&exact);
    mw_kdFree(&tree);
    mw_arenaFree(&arena);
    return error;
}

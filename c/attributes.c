/* Attribute-aware welding: the precise rule (a vertex merges into the earliest representative
 * within r) where a representative must also match every attribute within its tolerance
 * (mw_match: a non-finite value matches only its own bits).
 *
 * First every distinct vertex (position and attribute values equal, -0 equal to +0) becomes a
 * node, in order of first appearance: an identical later vertex gets the same answer from the
 * greedy, since the representatives made between the two come later in order. Then the nodes are
 * welded by one of three searches, which all give the same remap:
 *   engine  the spatial engine (engine.c), whose pairs count only when the attributes match;
 *   kdtree  node by node, a kd-tree over the distinct positions, whose representatives are ringed
 *           per position (asked for, coordinates too far out for cells, or clusters too dense for
 *           the engine);
 *   exact   radius 0: node by node, only the representatives at the same position. */
#include "internal.h"

#include <math.h>

/* Every attribute of vertices a and b equal (-0 equal to +0, a NaN equal to its own bits). */
static int mw_sameAttributes(const meshweld_Attribute* attributes, size_t count, size_t a, size_t b)
{
    for (size_t k = 0; k < count; ++k) {
        const meshweld_Attribute* t = &attributes[k];
        const float* x = mw_point(t->data, t->stride, a);
        const float* y = mw_point(t->data, t->stride, b);
        for (int j = 0; j < t->size; ++j)
            if (!(x[j] == y[j]) && memcmp(&x[j], &y[j], sizeof(float)) != 0)
                return 0;
    }
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

/* The node-by-node searches (kdtree, exact) over the distinct positions: each position keeps a
 * ring of its representative nodes (reps.c), and a search lowers query.best over the rings of
 * the positions within r. */
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
    double extent = 0.0;
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        for (int a = 0; a < o.dim; ++a) {
            if (!isfinite(p[a])) {
                if (info)
                    info->error_point = i, info->error_axis = a;
                return meshweld_ErrorNonFinite;
            }
            extent = fmax(extent, fabs((double)p[a]));
        }
    }

    mw_Arena arena = {{0}, 0};
    mw_Table exact = {0};
    mw_Kdtree tree = {0};
    uint32_t* position = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));  /* vertex -> distinct position */
    uint32_t* variant = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));   /* position -> its newest node */
    uint32_t* variant_next = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t)); /* node -> the previous one there */
    uint32_t* node_point = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t)); /* node -> its first vertex */
    uint32_t* owner = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));      /* node -> its representative */
    error = meshweld_ErrorMemory;
    if (!position || !variant || !variant_next || !node_point || !owner || mw_tableReserve(&exact, count))
        goto done;

    /* distinct positions, then distinct vertices: the nodes; remap[i] holds vertex i's node */
    uint32_t distinct = 0, nodes = 0;
    for (size_t i = 0; i < count; ++i) {
        const float* src = mw_point(points, stride, i);
        float v[3] = {src[0] + 0.0f, src[1] + 0.0f, o.dim == 3 ? src[2] + 0.0f : 0.0f}; /* -0 + 0 = +0 */
        uint32_t key[3];
        memcpy(key, v, sizeof(key));
        mw_Entry* e = mw_tableFind(&exact, key[0], key[1], key[2]);
        if (e->value == MW_NONE) {
            memcpy(e->key, key, sizeof(key));
            e->value = distinct;
            exact.count++;
            variant[distinct++] = MW_NONE;
        }
        uint32_t d = position[i] = e->value, n;
        for (n = variant[d]; n != MW_NONE; n = variant_next[n])
            if (mw_sameAttributes(attributes, attribute_count, i, node_point[n]))
                break;
        if (n == MW_NONE) {
            n = nodes++;
            node_point[n] = (uint32_t)i;
            variant_next[n] = variant[d];
            variant[d] = n;
        }
        remap[i] = n;
    }
    mw_tableFree(&exact);

    mw_Match match = {attributes, attribute_count};
    int engine = o.radius > 0 && o.method != meshweld_MethodKdtree;
    double size = 0;
    if (engine) {
        size = mw_dataCellSize(points, stride, o.dim, node_point, nodes, o.radius);
        engine = mw_dataCellsHold(extent, size);
    }
    if (engine) {
        mw_DataCells cells;
        mw_dataCellsSet(&cells, size, o.radius);
        mw_Nodes list = {points, stride, o.dim, node_point, nodes, o.radius, &match};
        int outcome = mw_engineWeld(owner, &list, &cells, NULL);
        engine = outcome == meshweld_Ok;
    }
    if (!engine) {
        /* node by node: the representatives of each distinct position ringed through variant[]
         * (the newest) and variant_next[], which the nodes no longer need */
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
        for (uint32_t d = 0; d < distinct; ++d)
            variant[d] = MW_NONE;
        if (o.radius > 0) {
            if (mw_kdAllocate(&tree, distinct, o.dim))
                goto done;
            for (size_t i = 0; i < count; ++i) /* positions are numbered in order of first appearance */
                if (position[i] == tree.count) {
                    const float* p = mw_point(points, stride, i);
                    tree.ids[tree.count] = position[i];
                    tree.coords[tree.count * 3] = p[0] + 0.0f;
                    tree.coords[tree.count * 3 + 1] = p[1] + 0.0f;
                    tree.coords[tree.count * 3 + 2] = o.dim == 3 ? p[2] + 0.0f : 0.0f;
                    tree.count++;
                }
            mw_kdFinish(&tree);
            if (info)
                info->method = meshweld_MethodKdtree;
        }
        double r2 = (double)o.radius * o.radius;
        for (uint32_t n = 0; n < nodes; ++n) {
            size_t i = node_point[n];
            double p[3];
            mw_load(p, mw_point(points, stride, i), o.dim);
            c.query = mw_query(p, o.dim, r2, &match, i);
            if (o.radius > 0)
                mw_kdVisit(&tree, p, r2, mw_chainVisit, &c);
            else
                mw_chainVisit(&c, position[i]);
            owner[n] = c.query.best == MW_NONE ? n : c.query.best;
            if (owner[n] == n)
                mw_ringLink(&c.reps, &variant[position[i]], n);
        }
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

/* Attribute-aware welding: the precise rule (a vertex merges into the earliest representative
 * within r) where a representative must also match every attribute within its tolerance
 * (mw_match: a non-finite value matches only its own bits).
 *
 * First every distinct position gets a number (the exact pass), and a vertex's candidates are
 * found by one of two searches, which give the same remap:
 *   graph   the graph of the distinct positions within r of each other, found by the engine
 *           (engine.c), or by a kd-tree over the positions where that is asked for or the
 *           coordinates lie too far out for cells (mw_kdGraph): the representatives ringed at the
 *           vertex's position and at those within r of it;
 *   joint   where the graph's pairs pass the engine's budget (a dense cluster), found either way:
 *           the representatives in cells of position and of attribute values (mw_jointEarliest),
 *           which hold any coordinate (by values alone on the axes where the cluster lies within
 *           two cells of position: mw_jointFolds).
 * Or both: in a dense core among sparse positions the engine takes the core's crowded cells out of
 * its search (mw_Graph.mark), and the vertices there search the joint cells alone, those of the
 * cells around them (whose pairs lack the crowded positions) the joint cells and the graph, the
 * others the graph.
 * Then every vertex takes one step of the rule: the earliest of its candidates that joins
 * (mw_ringEarliest, reps.c), else it becomes one. A position with no other within r (every one at
 * radius 0) and a few vertices holds vertices that meet only each other: they take their steps
 * together, one position at a time, on their compared values packed in that order, each vertex
 * against all of the position's representatives at once (mw_aloneEarliest); the rest take theirs
 * in vertex order.
 *
 * A position where many representatives sit that the attributes keep apart (a pole where a
 * thousand triangles meet, each corner with its own uv) would cost each vertex there a step per
 * representative: past MW_SPLIT_AT of them its ring is split into cells of the attributes' values
 * (mw_Split), and a vertex searches only the cells its values reach. */
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

/* Cells of attribute values, where representatives that the attributes keep apart crowd: at one
 * position (a pole where a thousand triangles meet, each corner with its own uv), or at thousands
 * of positions within r of each other. An axis is one component of a compared attribute: the values
 * of a matching pair differ by at most the attribute's tolerance there (every component's square is
 * at most the sum's), so a vertex finds its matches in the cells that [x - tolerance, x + tolerance]
 * touches, one or two of cells two tolerances wide (and a little more, for the rounding of the
 * match's squares and of the products here). A value that a cell number cannot hold matches only
 * its equals (mw_match): a non-finite one, any at tolerance 0, and one whose float spacing is above
 * 2^7 tolerances (from 2^30 cells out); its cell is its bits (-0 as +0), and it touches no other.
 * A vertex's cells on the axes are folded into one word, numbers and bits alike: a collision only
 * adds candidates, and every candidate takes the whole test (mw_repsJoins). */
#define MW_AXES 3

typedef struct mw_Axis {
    const meshweld_Attribute* attribute;
    int component;
    double inverse, margin; /* cells per unit (0 at tolerance 0), and the tolerance with its slack */
} mw_Axis;

typedef struct mw_Valued {
    mw_Axis axis[MW_AXES];
    int axes; /* 0: nothing to split by (no attribute compared) */
} mw_Valued;

/* A vertex's cells of values, each folded into a word (mw_valuedWord): its own, and the 1 to 8
 * that its values' reach touches. */
typedef struct mw_Touch {
    uint32_t own;
    uint32_t word[1 << MW_AXES];
    int count;
} mw_Touch;

/* Vertex v's cell on axis a (its own), and the first and last cells that its value's reach touches
 * (the same cell where the value is a cell's bits). */
static uint32_t mw_axisCell(const mw_Axis* a, size_t v, uint32_t* first, uint32_t* last)
{
    float x = mw_point(a->attribute->data, a->attribute->stride, v)[a->component];
    x = x == 0.0f ? 0.0f : x; /* -0 as +0, and a NaN keeps its bits (arithmetic may not keep them) */
    double q = (double)x * a->inverse;
    if (a->inverse > 0.0 && fabs(q) < 0x1p30) { /* (false for NaN) */
        *first = (uint32_t)mw_floor(((double)x - a->margin) * a->inverse);
        *last = (uint32_t)mw_floor(((double)x + a->margin) * a->inverse);
        return (uint32_t)mw_floor(q);
    }
    uint32_t bits;
    memcpy(&bits, &x, sizeof(x));
    *first = *last = bits;
    return bits;
}

/* Axes a crowd may be split on: the first component of each attribute, then their second ones,
 * and so on, up to MW_CANDIDATES of them. */
#define MW_CANDIDATES 16
static int mw_axisCandidates(mw_Axis* axis, const mw_Match* match)
{
    int count = 0;
    for (int component = 0; component < 16; ++component) /* (an attribute has at most 16) */
        for (size_t k = 0; k < match->count && count < MW_CANDIDATES; ++k) {
            const meshweld_Attribute* t = &match->attributes[k];
            if (component >= t->size)
                continue;
            mw_Axis* a = &axis[count++];
            a->attribute = t;
            a->component = component;
            a->margin = (double)t->tolerance * 1.001;
            a->inverse = t->tolerance > 0.0f ? 1.0 / (2.0 * a->margin) : 0.0;
        }
    return count;
}

/* How many distinct (group, cell) pairs axis a gives the sampled vertices: how finely it splits
 * their crowds (a NULL: the distinct groups). */
#define MW_SAMPLE 1024
static size_t mw_axisSpread(const mw_Axis* a, const uint32_t* vertex, const uint32_t* group, size_t n, uint64_t* seen)
{
    memset(seen, 0xff, 2 * MW_SAMPLE * sizeof(uint64_t)); /* an open-addressing set; UINT64_MAX: empty */
    size_t distinct = 0;
    for (size_t j = 0; j < n; ++j) {
        uint32_t first, last;
        uint64_t key = (uint64_t)group[j] << 32 | (a ? mw_axisCell(a, vertex[j], &first, &last) : 0);
        size_t slot = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 53); /* 11 bits: 2 * MW_SAMPLE slots */
        while (seen[slot] != key && seen[slot] != UINT64_MAX)
            slot = (slot + 1) & (2 * MW_SAMPLE - 1);
        if (seen[slot] == UINT64_MAX)
            seen[slot] = key, distinct++;
    }
    return distinct;
}

/* The axes, of count candidates: up to MW_AXES that split the crowds most finely, as a sample of
 * their vertices shows (vertex[j] in the crowd group[j]: a position, or one cell of a dense
 * cluster); all of the first MW_AXES without a sample (no crowd). A pole whose corners differ in a
 * uv's second component alone is split on it, whatever the order of the attributes. An axis on
 * which none of the sample's crowds splits (a cluster of one colour, the normal of a flat disc's
 * centre) is not taken: each axis doubles the cells of values a vertex reads (its values'
 * reach touches two an axis), and one that splits nothing only adds reads. Which axes are taken
 * only changes which candidates a vertex meets, never the result. */
static void mw_valuedAxes(mw_Valued* valued, const mw_Axis* axis, int count, const uint32_t* vertex, const uint32_t* group,
                          size_t n, uint64_t* seen)
{
    size_t spread[MW_CANDIDATES];
    for (int j = 0; j < count; ++j)
        spread[j] = n > 0 ? mw_axisSpread(&axis[j], vertex, group, n, seen) : 0;
    /* the sampled vertices beyond the first of their crowd: an axis splits the crowds where one of
     * them lies in a cell that the crowd's earlier ones do not (with fewer than 64 of them, every
     * axis is taken: a crowd the sample barely sees may still split) */
    size_t groups = n > 0 ? mw_axisSpread(NULL, vertex, group, n, seen) : 0, repeats = n - groups;
    int taken[MW_CANDIDATES] = {0};
    for (valued->axes = 0; valued->axes < MW_AXES && valued->axes < count; ++valued->axes) {
        int best = -1; /* the widest spread not yet taken, the earliest of equals */
        for (int j = 0; j < count; ++j)
            best = !taken[j] && (best < 0 || spread[j] > spread[best]) ? j : best;
        if (n > 0 && repeats >= 64 && spread[best] == groups)
            break;
        taken[best] = 1;
        valued->axis[valued->axes] = axis[best];
    }
}

static uint32_t mw_valuedWord(const uint32_t cell[MW_AXES])
{
    return cell[0] * MW_K0 + cell[1] * MW_K1 + cell[2] * MW_K2;
}

static void mw_valuedTouch(const mw_Valued* valued, size_t v, mw_Touch* touch)
{
    uint32_t own[MW_AXES] = {0, 0, 0}, first[MW_AXES] = {0, 0, 0}, last[MW_AXES] = {0, 0, 0};
    for (int j = 0; j < valued->axes; ++j)
        own[j] = mw_axisCell(&valued->axis[j], v, &first[j], &last[j]);
    touch->own = mw_valuedWord(own);
    touch->count = 0;
    uint32_t c[MW_AXES];
    for (c[2] = first[2];; ++c[2]) {
        for (c[1] = first[1];; ++c[1]) {
            for (c[0] = first[0];; ++c[0]) {
                touch->word[touch->count++] = mw_valuedWord(c);
                if (c[0] == last[0])
                    break;
            }
            if (c[1] == last[1])
                break;
        }
        if (c[2] == last[2])
            break;
    }
}

/* A position split by values: past MW_SPLIT_AT representatives its ring becomes the rings of its
 * cells of values, (position, the cells' word, 0) -> the newest representative there. */
#define MW_SPLIT_AT 48
#define MW_SPLIT 255 /* mw_Split.size: the position's ring is split */

/* Cells keyed by three words, each the ring of its representatives (newest in the slot): a split
 * position's cells of values, keyed (position, the cells' word, 0), or the joint cells of position
 * and values (mw_jointEarliest). */
typedef struct mw_Keyed {
    mw_Table table;
    /* a filter of the keys the table holds: a bit per hashed key, set with its first
     * representative. Most cells a search reads hold none (a joint search reads up to 8 cells of
     * position times 8 of values), and their bit, in a byte per vertex that the cache holds,
     * answers for them in one look, where the table (up to half full) probes a run of slots, and
     * a large one misses the cache. Made (from the arena) once the table holds mw_heldFrom keys:
     * a table of a few keys answers in one look too, where the filter is only more work. NULL:
     * none (every key is looked up) */
    uint64_t* held;
    int held_bits;       /* the filter's size, 2^held_bits bits; 0: none is made */
    uint32_t held_shift; /* a key's bit: the top bits of its hash times MW_HELD */
} mw_Keyed;

typedef struct mw_Split {
    mw_Valued valued;    /* the axes of values, of both kinds of cells */
    unsigned char* size; /* position -> its representatives while below MW_SPLIT_AT, then MW_SPLIT */
    mw_Keyed cells;      /* the split positions' cells of values */
    mw_Keyed joint;      /* the joint cells */
    mw_Arena* arena;
} mw_Split;

#define MW_HELD 0x9e3779b1u
#ifndef MW_HELD_FROM /* (a test build sets it to 0) */
#define MW_HELD_FROM 256 /* keys */
#endif
static const size_t mw_heldFrom = MW_HELD_FROM;

/* A key's bit in a filter of 2^(32 - shift) bits. */
static inline uint32_t mw_heldBit(uint32_t shift, uint32_t hash)
{
    return (uint32_t)(hash * MW_HELD) >> shift;
}

static void mw_heldSet(mw_Keyed* keyed, uint32_t hash)
{
    uint32_t bit = mw_heldBit(keyed->held_shift, hash);
    keyed->held[bit >> 6] |= (uint64_t)1 << (bit & 63);
}

/* The filter, made of the keys the table holds; without memory for it, none. */
static void mw_heldMake(mw_Keyed* keyed, mw_Arena* arena)
{
    size_t words = (size_t)1 << (keyed->held_bits - 6);
    keyed->held = (uint64_t*)mw_arenaAllocate(arena, words, sizeof(uint64_t));
    keyed->held_shift = (uint32_t)(32 - keyed->held_bits);
    keyed->held_bits = 0;
    if (!keyed->held)
        return;
    memset(keyed->held, 0, words * sizeof(uint64_t));
    const mw_Table* cells = &keyed->table;
    for (size_t i = 0; cells->entries && i <= cells->mask; ++i)
        if (cells->entries[i].value != MW_NONE)
            mw_heldSet(keyed, mw_keyHash(cells, cells->entries[i].key[0], cells->entries[i].key[1], cells->entries[i].key[2]));
}

/* The filter's size for a table of up to keys keys: none below mw_heldFrom, else 8 bits a key. */
static int mw_heldBits(size_t keys)
{
    int bits = 0;
    if (keys > 0 && keys >= mw_heldFrom)
        for (bits = 6; bits < 32 && ((size_t)1 << bits) < 8 * keys;)
            bits++;
    return bits;
}

/* Representative rep (newer than every other there) joins the ring of key. */
static int mw_cellLink(mw_Keyed* keyed, mw_Arena* arena, mw_Reps* reps, uint32_t a, uint32_t b, uint32_t c, uint32_t rep)
{
    mw_Table* cells = &keyed->table;
    if (mw_tableReserve(cells, cells->count + 1) != meshweld_Ok)
        return meshweld_ErrorMemory;
    if (keyed->held_bits && cells->count >= mw_heldFrom)
        mw_heldMake(keyed, arena);
    uint32_t hash = mw_keyHash(cells, a, b, c);
    if (keyed->held)
        mw_heldSet(keyed, hash);
    mw_entryLink(cells, mw_tableFindHashed(cells, hash, a, b, c), a, b, c, reps, rep);
    return meshweld_Ok;
}

/* The cells of values as a search reads them: the table and its filter, copied into the search's
 * locals (its ring walks write the query, which the compiler cannot tell apart from the split). */
typedef struct mw_CellReader {
    mw_Table cells;
    const uint64_t* held;
    uint32_t shift;
} mw_CellReader;

static inline mw_CellReader mw_cellReader(const mw_Keyed* keyed)
{
    mw_CellReader r = {keyed->table, keyed->held, keyed->held_shift};
    return r;
}

/* q->best lowered over the ring of key. */
MW_INLINE void mw_cellEarliest(const mw_CellReader* r, const mw_Reps* reps, uint32_t a, uint32_t b, uint32_t c,
                               mw_Query* q)
{
    if (r->cells.count == 0)
        return;
    uint32_t hash = mw_keyHash(&r->cells, a, b, c);
    if (r->held) {
        uint32_t bit = mw_heldBit(r->shift, hash);
        if (!(r->held[bit >> 6] & ((uint64_t)1 << (bit & 63))))
            return;
    }
    const mw_Entry* e = mw_tableFindHashed(&r->cells, hash, a, b, c);
    if (e->value != MW_NONE)
        mw_ringEarliest(reps, e->value, q);
}

/* Position k's ring, oldest first, into the rings of its cells (each then in order too). */
static int mw_splitRing(mw_Split* split, mw_Reps* reps, uint32_t k, uint32_t newest)
{
    uint32_t r = reps->next[newest];
    for (;;) {
        uint32_t after = reps->next[r]; /* before r's link is rewritten */
        mw_Touch t;
        mw_valuedTouch(&split->valued, r, &t);
        if (mw_cellLink(&split->cells, split->arena, reps, k, t.own, 0, r) != meshweld_Ok)
            return meshweld_ErrorMemory;
        if (r == newest)
            return meshweld_Ok;
        r = after;
    }
}

/* Where the joint cells search (joint), the positions whose vertices search them: every one (mark
 * NULL: the graph passed the engine's budget), or those the engine marked, in its crowded cells or
 * around them (the others search the graph alone). */
static inline int mw_inJoint(const unsigned char* mark, int joint, uint32_t k)
{
    return joint && (!mark || mark[k] != 0);
}

/* Whether position k's vertices search the graph: all but the joint cells' alone (every position
 * where the graph passed the engine's budget, a dense core's crowded ones). */
static inline int mw_inGraph(const unsigned char* mark, int joint, uint32_t k)
{
    return !(joint && (!mark || mark[k] == MW_CROWDED_NODE));
}

/* Whether position k's ring may be split: its vertices visit it (mw_inGraph), and they are more
 * than MW_SPLIT_AT. */
static inline int mw_maySplit(const uint32_t* start, const unsigned char* mark, int joint, uint32_t k)
{
    return mw_inGraph(mark, joint, k) && start[k + 1] - start[k] > MW_SPLIT_AT;
}

/* The vertices in crowds: those of positions in the joint cells (in_joint), or of those that may be
 * split. */
static size_t mw_crowdVertices(const uint32_t* start, uint32_t distinct, const unsigned char* mark, int joint,
                               int in_joint)
{
    size_t crowd = 0;
    for (uint32_t k = 0; k < distinct; ++k)
        if (in_joint ? mw_inJoint(mark, joint, k) : mw_maySplit(start, mark, joint, k))
            crowd += start[k + 1] - start[k];
    return crowd;
}

/* The joint cells of position (mw_jointEarliest): 2r wide or more, and the axes folded
 * (mw_jointFolds), on which every position's cell is taken as 0. */
typedef struct mw_JointCells {
    mw_DataCells cells; /* inverse 0: no joint cells */
    int folded[3];
} mw_JointCells;

/* Point p's joint cell of position, and on each axis whether its r-box touches the cell below
 * (-1) or above (1). */
static void mw_jointCell(const mw_JointCells* joint, const double p[3], int dim, int64_t cell[3], int touch[3])
{
    double inverse = joint->cells.inverse, s[3] = {p[0] * inverse, p[1] * inverse, p[2] * inverse};
    mw_dataCell(&joint->cells, s, dim, cell, touch);
    for (int a = 0; a < 3; ++a)
        if (joint->folded[a])
            cell[a] = 0, touch[a] = 0;
}

/* The axes of values (mw_valuedAxes) for the crowds of this weld: a sample of up to MW_SAMPLE
 * vertices, evenly spread over those of positions that may be split (more than MW_SPLIT_AT
 * vertices), each crowd a position; or, where the joint cells search (joint not NULL), over the
 * vertices in them (mark: mw_inJoint), each crowd a joint cell of position. crowd: how many
 * vertices those are (mw_crowdVertices). */
static int mw_crowdAxes(mw_Valued* valued, const mw_Match* match, mw_Arena* arena, const uint32_t* order,
                        const uint32_t* start, uint32_t distinct, const mw_JointCells* joint, const unsigned char* mark,
                        size_t crowd, const float* points, size_t stride, int dim)
{
    mw_Axis axis[MW_CANDIDATES];
    int candidates = mw_axisCandidates(axis, match);
    if (candidates == 0 || crowd == 0) {
        mw_valuedAxes(valued, axis, candidates, NULL, NULL, 0, NULL);
        return meshweld_Ok;
    }
    uint32_t* vertex = (uint32_t*)mw_arenaAllocate(arena, 2 * MW_SAMPLE, sizeof(uint32_t));
    uint64_t* seen = (uint64_t*)mw_arenaAllocate(arena, 2 * MW_SAMPLE, sizeof(uint64_t));
    if (!vertex || !seen)
        return meshweld_ErrorMemory;
    uint32_t* group = vertex + MW_SAMPLE;
    /* every step-th vertex of the crowds, counted over them (next: the next one's count) */
    size_t n = 0, step = crowd > MW_SAMPLE ? crowd / MW_SAMPLE : 1, next = 0, seen_so_far = 0;
    for (uint32_t k = 0; k < distinct && n < MW_SAMPLE; ++k) {
        if (joint ? !mw_inJoint(mark, 1, k) : !mw_maySplit(start, NULL, 0, k))
            continue;
        size_t size = start[k + 1] - start[k];
        for (; next < seen_so_far + size && n < MW_SAMPLE; next += step) {
            uint32_t j = start[k] + (uint32_t)(next - seen_so_far);
            vertex[n] = order[j];
            group[n] = k;
            if (joint) { /* the crowd: the joint cell of position */
                double p[3];
                mw_load(p, mw_point(points, stride, order[j]), dim);
                int64_t cell[3];
                int touch[3];
                mw_jointCell(joint, p, dim, cell, touch);
                const uint32_t words[MW_AXES] = {(uint32_t)cell[0], (uint32_t)cell[1], (uint32_t)cell[2]};
                group[n] = mw_valuedWord(words);
            }
            n++;
        }
        seen_so_far += size;
    }
    mw_valuedAxes(valued, axis, candidates, vertex, group, n, seen);
    mw_arenaRelease(arena, seen);
    mw_arenaRelease(arena, vertex);
    return meshweld_Ok;
}

/* The walk: each position keeps a ring of its representatives (reps.c), and a vertex's step lowers
 * query.best over the rings of its position and of the positions within r of it (the graph's
 * neighbours); a split position's ring is the rings of its cells. Where the joint cells search,
 * the representatives of the positions in them (mw_inJoint) are in their rings too: those of a
 * dense core's crowded cells, which have no pair in the graph, there alone; those of the cells
 * around them in both (the joint cells' rings then link through next of their own). */
typedef struct mw_Walk {
    mw_Reps reps;          /* the vertices (representative q is vertex q): coordinates and rings */
    mw_Reps joint_reps;    /* the same vertices, ringed in the joint cells (next: reps' own where a
                            * representative is in those alone) */
    uint32_t* head;        /* distinct position -> the newest representative there */
    mw_Query query;
    const mw_Match* match;
    const mw_Graph* graph; /* the positions within r of each other; graph->first NULL: none (radius 0, or joint) */
    const float* points;
    size_t stride;
    int dim;
    double r2;
    mw_Split split;
    mw_Touch touch; /* the vertex's cells of values, once a split position is visited (or the joint cells are) */
    int touched;
    int64_t cell[3]; /* the vertex's joint cell of position */
    mw_JointCells joint;
    int error;
} mw_Walk;

static void mw_walkVisit(void* context, uint32_t position)
{
    mw_Walk* w = (mw_Walk*)context;
    if (w->split.size[position] != MW_SPLIT) {
        if (w->head[position] != MW_NONE)
            mw_ringEarliest(&w->reps, w->head[position], &w->query);
        return;
    }
    if (!w->touched)
        mw_valuedTouch(&w->split.valued, w->query.vertex, &w->touch), w->touched = 1;
    const mw_CellReader cells = mw_cellReader(&w->split.cells);
    for (int j = 0, count = w->touch.count; j < count; ++j)
        mw_cellEarliest(&cells, &w->reps, position, w->touch.word[j], 0, &w->query);
}

/* Where positions crowd (the engine's pairs pass its budget, or a dense core's cells were taken out
 * of its search), the representatives themselves in cells of positions (mw_JointCells, 2r wide:
 * one or two an axis, one on a folded axis) and of values, keyed by the position cell's low words
 * with the values' word added to the last (a collision only adds candidates): a vertex's search
 * then meets the representatives near it in both, not every position within r of it, which in a
 * dense cluster are all of them. The search looks in the cells that the vertex's r-box and its
 * values' reach touch. */
static void mw_jointEarliest(mw_Walk* w, const double p[3])
{
    int touch[3];
    const int64_t* f = w->cell;
    mw_jointCell(&w->joint, p, w->dim, w->cell, touch);
    if (!w->touched)
        mw_valuedTouch(&w->split.valued, w->query.vertex, &w->touch), w->touched = 1;
    int64_t z0 = f[2] + (touch[2] < 0 ? -1 : 0), z1 = f[2] + (touch[2] > 0);
    int64_t y0 = f[1] + (touch[1] < 0 ? -1 : 0), y1 = f[1] + (touch[1] > 0);
    int64_t x0 = f[0] + (touch[0] < 0 ? -1 : 0), x1 = f[0] + (touch[0] > 0);
    const mw_CellReader cells = mw_cellReader(&w->split.joint);
    int count = w->touch.count;
    for (int64_t z = z0; z <= z1; ++z)
        for (int64_t y = y0; y <= y1; ++y)
            for (int64_t x = x0; x <= x1; ++x)
                for (int k = 0; k < count; ++k)
                    mw_cellEarliest(&cells, &w->joint_reps, (uint32_t)x, (uint32_t)y, (uint32_t)z + w->touch.word[k],
                                    &w->query);
}

/* The axes of position on which the positions in the joint cells (mw_inJoint) lie in at most two
 * cells are folded: every position's cell on such an axis is taken as 0, and a search reads one
 * cell on it where it read two. In a cluster narrower than r on that axis a search read both cells
 * anyway; in a wider one it now meets the representatives of both where it may have met one's. A
 * cluster within r of itself then reads 8 cells of position and values, not 64 (each axis halves
 * them). Which axes are folded only changes which candidates a vertex meets, never the result. */
static void mw_jointFolds(mw_Walk* w, const uint32_t* position_point, uint32_t distinct)
{
    int64_t low[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, high[3] = {INT64_MIN, INT64_MIN, INT64_MIN};
    int open = 3; /* the axes still within two cells: none left, and the look stops */
    for (uint32_t k = 0; k < distinct && open > 0; ++k) {
        if (!mw_inJoint(w->graph->mark, 1, k))
            continue;
        double p[3];
        mw_load(p, mw_point(w->points, w->stride, position_point ? position_point[k] : k), w->dim);
        int64_t cell[3];
        int touch[3];
        mw_jointCell(&w->joint, p, w->dim, cell, touch); /* (none folded yet) */
        open = 0;
        for (int a = 0; a < 3; ++a) {
            low[a] = cell[a] < low[a] ? cell[a] : low[a];
            high[a] = cell[a] > high[a] ? cell[a] : high[a];
            open += high[a] - low[a] <= 1;
        }
    }
    for (int a = 0; a < 3; ++a) /* (none seen: none folded) */
        w->joint.folded[a] = high[a] >= low[a] && high[a] - low[a] <= 1;
}

/* Vertex i, at position k (which has others within r, or is in the joint cells), takes the earliest
 * representative within r that matches it, or becomes one; returns its representative. */
static uint32_t mw_walkStep(mw_Walk* w, uint32_t i, uint32_t k)
{
    const float* src = mw_point(w->points, w->stride, i);
    double p[3];
    mw_load(p, src, w->dim);
    w->query = mw_query(p, w->dim, w->r2, w->match, i);
    w->touched = 0;
    /* the joint cells' alone (all of a dense cluster's positions, a core's crowded ones), the
     * graph's alone, or both (the cells around a core's) */
    int joint = w->joint.cells.inverse > 0.0;
    int in_joint = mw_inJoint(w->graph->mark, joint, k), in_graph = mw_inGraph(w->graph->mark, joint, k);
    if (in_graph) {
        const uint32_t* first = w->graph->first;
        mw_walkVisit(w, k);
        for (uint32_t e = first ? first[k] : 0, end = first ? first[k + 1] : 0; e < end; ++e)
            mw_walkVisit(w, w->graph->neighbour[e]);
    }
    if (in_joint)
        mw_jointEarliest(w, p);
    if (w->query.best != MW_NONE)
        return w->query.best;
    /* a new representative: its coordinates, for the searches of the vertices after it */
    w->reps.xyz[(size_t)i * 3] = src[0] + 0.0f;
    w->reps.xyz[(size_t)i * 3 + 1] = src[1] + 0.0f;
    w->reps.xyz[(size_t)i * 3 + 2] = w->dim == 3 ? src[2] + 0.0f : 0.0f;
    /* into its joint cell, and its position's ring or its split position's cell of values: the
     * cells its search read (the visit of its own position, first, read them there) */
    if (in_joint && mw_cellLink(&w->split.joint, w->split.arena, &w->joint_reps, (uint32_t)w->cell[0],
                                (uint32_t)w->cell[1], (uint32_t)w->cell[2] + w->touch.own, i) != meshweld_Ok)
        w->error = meshweld_ErrorMemory;
    if (!in_graph)
        return i;
    unsigned char* size = &w->split.size[k];
    if (*size == MW_SPLIT) {
        if (mw_cellLink(&w->split.cells, w->split.arena, &w->reps, k, w->touch.own, 0, i) != meshweld_Ok)
            w->error = meshweld_ErrorMemory;
        return i;
    }
    mw_ringLink(&w->reps, &w->head[k], i);
    if (w->split.valued.axes > 0 && ++*size == MW_SPLIT_AT) {
        *size = MW_SPLIT;
        if (mw_splitRing(&w->split, &w->reps, k, w->head[k]) != meshweld_Ok)
            w->error = meshweld_ErrorMemory;
        w->head[k] = MW_NONE;
    }
    return i;
}

/* The values of the compared attributes packed, vertex after vertex, for the positions alone: at
 * most MW_PACKED floats a vertex (more: read in place). Bits copied as they are, so the match on
 * them is the match on the attributes. */
#define MW_PACKED 16

/* The packed layout: each attribute's floats and squared tolerance, and which usual layout it is
 * (their loops run with the sizes as constants). */
enum { MW_LAYOUT_ANY, MW_LAYOUT_NORMAL_UV, MW_LAYOUT_NORMAL, MW_LAYOUT_UV };
typedef struct mw_Packed {
    int count, width, layout;
    int size[MW_PACKED];
    double t2[MW_PACKED];
} mw_Packed;

/* The layout of the compared attributes; returns its width, 0 past MW_PACKED floats. */
static int mw_packedLayout(const mw_Match* m, mw_Packed* p)
{
    p->count = (int)m->count, p->width = 0;
    for (size_t k = 0; k < m->count; ++k) {
        if ((p->width += m->attributes[k].size) > MW_PACKED)
            return p->width = 0;
        p->size[k] = m->attributes[k].size;
        p->t2[k] = (double)m->attributes[k].tolerance * m->attributes[k].tolerance;
    }
    p->layout = p->count == 2 && p->size[0] == 3 && p->size[1] == 2 ? MW_LAYOUT_NORMAL_UV
              : p->count == 1 && p->size[0] == 3                  ? MW_LAYOUT_NORMAL
              : p->count == 1 && p->size[0] == 2                  ? MW_LAYOUT_UV
                                                                  : MW_LAYOUT_ANY;
    return p->width;
}

/* Which of the n (at most 64) representatives at places list[0 .. n) of packed match the values at
 * x: bit r for list[r], with no branch on a value (whether a vertex matches a representative is a
 * coin toss to the branch predictor). *odd is set where a sum is not finite: then the bits decide,
 * and the caller tests the representatives one by one. The sums are mw_within's, and a sum beyond
 * the tolerance there is beyond it here. count and the first two sizes are constants where the
 * layout is a usual one. */
MW_INLINE uint64_t mw_matchRun(const mw_Packed* p, int count, int size0, int size1, const float* x,
                               const float* packed, const uint32_t* list, size_t n, int* odd)
{
    uint64_t mask = 0;
    double sum = 0.0; /* finite exactly when every sum is */
    for (size_t r = 0; r < n; ++r) {
        const float* y = packed + (size_t)list[r] * (size_t)p->width;
        const float* v = x;
        int ok = 1;
        for (int k = 0; k < count; ++k) {
            int size = k == 0 ? size0 : k == 1 ? size1 : p->size[k];
            double d = mw_squares(0.0, v, y, 0, size);
            ok &= d <= p->t2[k];
            sum += d;
            v += size, y += size;
        }
        mask |= (uint64_t)ok << r;
    }
    *odd = !(sum - sum == 0.0);
    return mask;
}

static uint64_t mw_matchMask(const mw_Packed* p, const float* x, const float* packed, const uint32_t* list, size_t n,
                             int* odd)
{
    switch (p->layout) {
    case MW_LAYOUT_NORMAL_UV: return mw_matchRun(p, 2, 3, 2, x, packed, list, n, odd);
    case MW_LAYOUT_NORMAL: return mw_matchRun(p, 1, 3, 0, x, packed, list, n, odd);
    case MW_LAYOUT_UV: return mw_matchRun(p, 1, 2, 0, x, packed, list, n, odd);
    default: return mw_matchRun(p, p->count, p->size[0], p->count > 1 ? p->size[1] : 0, x, packed, list, n, odd);
    }
}

/* The counting sort's placement: vertex i goes to place start[its position]++ of order, and the
 * values of a vertex at a position alone (not walked) to the same place of packed (when not
 * NULL). count and the first two sizes are constants where the layout is a usual one. */
MW_INLINE void mw_placeRun(const mw_Match* m, int count, int size0, int size1, size_t n, const uint32_t* position,
                           uint32_t* start, uint32_t* order, const unsigned char* walked, float* packed, int width)
{
    for (size_t i = 0; i < n; ++i) {
        uint32_t k = position[i], j = start[k]++;
        order[j] = (uint32_t)i;
        if (!packed || walked[k])
            continue;
        float* to = packed + (size_t)j * (size_t)width;
        for (int a = 0; a < count; ++a) {
            const meshweld_Attribute* t = &m->attributes[a];
            int size = a == 0 ? size0 : a == 1 ? size1 : t->size;
            memcpy(to, mw_point(t->data, t->stride, i), (size_t)size * sizeof(float)); /* the bits as they are */
            to += size;
        }
    }
}

static void mw_place(const mw_Match* m, const mw_Packed* p, size_t n, const uint32_t* position, uint32_t* start,
                     uint32_t* order, const unsigned char* walked, float* packed)
{
    int width = p->width, layout = packed ? p->layout : MW_LAYOUT_ANY, count = packed ? p->count : 0;
    switch (layout) {
    case MW_LAYOUT_NORMAL_UV: mw_placeRun(m, 2, 3, 2, n, position, start, order, walked, packed, width); break;
    case MW_LAYOUT_NORMAL: mw_placeRun(m, 1, 3, 0, n, position, start, order, walked, packed, width); break;
    case MW_LAYOUT_UV: mw_placeRun(m, 1, 2, 0, n, position, start, order, walked, packed, width); break;
    default:
        mw_placeRun(m, count, count > 0 ? p->size[0] : 0, count > 1 ? p->size[1] : 0, n, position, start, order,
                    walked, packed, width);
    }
}

static int mw_lowestBit(uint64_t mask)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(mask);
#else
    int b = 0;
    while (!(mask & 1))
        mask >>= 1, b++;
    return b;
#endif
}

/* mw_match of vertices a and b on their packed values x and y. */
MW_INLINE int mw_matchPacked(const mw_Match* m, const float* x, const float* y, size_t a, size_t b)
{
    for (size_t k = 0; k < m->count; ++k) {
        const meshweld_Attribute* t = &m->attributes[k];
        if (!mw_within(t, x, y, a, b))
            return 0;
        x += t->size, y += t->size;
    }
    return 1;
}

/* The earliest of a position's representatives, at places list[from .. to) of order, that matches
 * the vertex at place j, or to: on the packed values (fewer than MW_SPLIT_AT representatives, so
 * one word holds the mask). */
#if MW_SPLIT_AT > 64
#error "a position alone holds more representatives than a mask has bits"
#endif
static uint32_t mw_aloneEarliest(const mw_Packed* runs, const mw_Match* match, const float* packed,
                                 const uint32_t* order, const uint32_t* list, uint32_t from, uint32_t to, uint32_t j)
{
    const float* x = packed + (size_t)j * (size_t)runs->width;
    int odd = 0;
    uint64_t mask = mw_matchMask(runs, x, packed, list + from, to - from, &odd);
    if (!odd)
        return mask ? from + (uint32_t)mw_lowestBit(mask) : to;
    uint32_t r = from;
    while (r < to && !mw_matchPacked(match, x, packed + (size_t)list[r] * (size_t)runs->width, order[j], order[list[r]]))
        r++;
    return r;
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
    return mw_engineGraph(t->graph, t->arena, t->nodes, cells, NULL, t->scratch, 1);
}

/* meshweld_weldAttributes, and with first (and kept when not NULL) meshweld_weldAttributesFirst,
 * on vertices as given (at least one; the options, buffers and attributes checked) */
static int mw_weldAttributesOf(unsigned int* remap, unsigned int* first, float* kept, const float* points,
                               size_t count, size_t stride, mw_Parsed o, const meshweld_Attribute* attributes,
                               size_t attribute_count, meshweld_Info* info)
{
    int error;
    mw_Arena arena = {{0}, 0};
    mw_Table exact = {0};
    mw_Kdtree tree = {0};
    mw_Walk w; /* (its split's table freed on every path out) */
    memset(&w, 0, sizeof(w));
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
    int mode = o.radius > 0 ? MW_EXACT_ONESHOT : MW_EXACT_KEEP;
    if ((error = mw_exactPass(&exact, mode, position, points, count, stride, o.dim, &d, info)) != meshweld_Ok)
        goto done;
    mw_tableFree(&exact);
    error = meshweld_ErrorMemory; /* until the end */
    uint32_t distinct = (uint32_t)d.nodes;
    position_point = d.node_point; /* NULL: position i is vertex i */
    if (!position_point)
        for (size_t i = 0; i < count; ++i)
            position[i] = (uint32_t)i;

    mw_Match match = {attributes, attribute_count};
    /* the search (radius > 0): the graph of positions within r, found by the engine, else (asked,
     * or coordinates too far out for cells) by a kd-tree over the positions; where its pairs pass
     * the engine's budget, the representatives' joint cells */
    mw_Graph graph = {NULL, NULL, NULL};
    int joint = 0;
    if (o.radius > 0 && o.method != meshweld_MethodKdtree) {
        double size = mw_dataCellSize(points, stride, o.dim, position_point, distinct, o.radius);
        if (mw_dataCellsHold(d.extent, size)) { /* (else the kd-tree, which takes any coordinate) */
            mw_Nodes list = {points, stride, o.dim, position_point, distinct, o.radius};
            mw_GraphTry graph_try = {&graph, &arena, &list, owner};
            /* crowded cells: smaller ones (mw_engineTries), before the kd-tree */
            error = mw_engineTries(mw_graphTry, &graph_try, &list, &size, o.radius, d.extent, 1);
            if (error != meshweld_Ok && error != MW_DENSE && error != MW_CROWDED)
                goto done;
            joint = error != meshweld_Ok;
            error = meshweld_ErrorMemory;
        }
    }
    if (o.radius > 0 && !graph.first && !joint) {
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
        error = mw_kdGraph(&graph, &arena, &tree, (double)o.radius * o.radius);
        mw_kdFree(&tree);
        if (error != meshweld_Ok && error != MW_DENSE)
            goto done;
        joint = error == MW_DENSE;
        error = meshweld_ErrorMemory;
    }

    /* which positions have another within r: their vertices walk in vertex order (below) */
    unsigned char* walked = (unsigned char*)mw_arenaAllocate(&arena, distinct, 1); /* position -> walked */
    if (!walked)
        goto done;
    size_t walking = 0;
    for (uint32_t k = 0; k < distinct; ++k) {
        walked[k] = o.radius > 0 && (!graph.first || graph.first[k] != graph.first[k + 1] || /* (a core's, marked) */
                                     mw_inJoint(graph.mark, graph.mark != NULL, k));
        walking += walked[k];
    }

    /* the vertices of each position together, in vertex order (a counting sort); a position alone
     * with many vertices is walked too, where a crowd of representatives is split */
    uint32_t* start = (uint32_t*)mw_arenaAllocate(&arena, (size_t)distinct + 1, sizeof(uint32_t));
    uint32_t* order = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));
    uint32_t* list = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));
    if (!start || !order || !list)
        goto done;
    memset(start, 0, ((size_t)distinct + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < count; ++i)
        start[position[i] + 1]++;
    for (uint32_t k = 0; k < distinct; ++k) {
        start[k + 1] += start[k];
        if (!walked[k] && match.count > 0 && start[k + 1] - start[k] > MW_SPLIT_AT)
            walked[k] = 1, walking++;
    }
    mw_Packed runs;
    int width = mw_packedLayout(&match, &runs);
    float* packed = width > 0 && walking < distinct ? (float*)mw_arenaAllocate(&arena, count, (size_t)width * sizeof(float))
                                                   : NULL;
    if (width > 0 && walking < distinct && !packed)
        goto done;
    mw_place(&match, &runs, count, position, start, order, walked, packed);
    for (uint32_t k = distinct; k > 0; --k)
        start[k] = start[k - 1];
    start[0] = 0;

    /* A position with no other within r (every one at radius 0) holds vertices that meet only each
     * other: they take their steps there, in vertex order, one position at a time. Its
     * representatives, earliest first, are a run of list (their places in order), and only the
     * match decides (they all sit at the vertex's position), on the values packed in order: read
     * where they lie, one after another, and not gathered from the attributes at random. */
    for (uint32_t k = 0; k < distinct; ++k) {
        uint32_t from = start[k], to = from;
        for (uint32_t j = from; !walked[k] && j < start[k + 1]; ++j) {
            uint32_t i = order[j], r = packed ? mw_aloneEarliest(&runs, &match, packed, order, list, from, to, j)
                                              : from;
            while (!packed && r < to && !mw_match(&match, i, order[list[r]]))
                r++;
            owner[i] = r < to ? order[list[r]] : (list[to++] = j, i);
        }
    }

    /* the walk's state: every vertex at a walked position may become a representative */
    w.reps.count = w.reps.capacity = count;
    w.match = &match, w.graph = &graph;
    w.points = points, w.stride = stride, w.dim = o.dim, w.r2 = (double)o.radius * o.radius;
    /* the joint cells: every position's (joint), or a dense core's and those around it */
    int in_joint = joint || graph.mark != NULL;
    if (in_joint) {
        mw_dataCellsSet(&w.joint.cells, mw_dataCellsNarrowest(o.radius, d.extent), o.radius, d.extent);
        mw_jointFolds(&w, position_point, distinct);
    }
    /* the vertices of the crowds: in the joint cells, and at positions that may be split */
    size_t joint_crowd = in_joint ? mw_crowdVertices(start, distinct, graph.mark, in_joint, 1) : 0;
    size_t split_crowd = mw_crowdVertices(start, distinct, graph.mark, in_joint, 0);
    if (mw_crowdAxes(&w.split.valued, &match, &arena, order, start, distinct, in_joint ? &w.joint : NULL, graph.mark,
                     in_joint ? joint_crowd : split_crowd, points, stride, o.dim) != meshweld_Ok)
        goto done;
    /* the filters of the cells' keys, once they are many: 8 bits for each key there can be (a
     * representative at a position that may be split, or in the joint cells) */
    w.split.cells.held_bits = mw_heldBits(w.split.valued.axes > 0 ? split_crowd : 0);
    w.split.joint.held_bits = mw_heldBits(joint_crowd);
    w.split.arena = &arena;
    if (walking > 0) {
        w.reps.next = list; /* free again: the positions alone are done */
        w.reps.xyz = (float*)mw_arenaAllocate(&arena, count, 3 * sizeof(float));
        w.joint_reps = w.reps; /* (with positions' rings too, its own links) */
        if (graph.mark)
            w.joint_reps.next = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));
        if (!w.reps.xyz || !w.joint_reps.next)
            goto done;
    }
    if (walking > 0 && !joint) {
        w.head = (uint32_t*)mw_arenaAllocate(&arena, distinct, sizeof(uint32_t));
        w.split.size = (unsigned char*)mw_arenaAllocate(&arena, distinct, 1);
        if (!w.head || !w.split.size)
            goto done;
        for (uint32_t k = 0; k < distinct; ++k)
            w.head[k] = MW_NONE;
        memset(w.split.size, 0, distinct);
    }
    for (size_t i = 0; walking > 0 && i < count && !w.error; ++i)
        if (walked[position[i]])
            owner[i] = mw_walkStep(&w, (uint32_t)i, position[i]);
    if (w.error)
        goto done;

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
    mw_tableFree(&w.split.cells.table);
    mw_tableFree(&w.split.joint.table);
    mw_kdFree(&tree);
    mw_arenaFree(&arena);
    return error;
}

/* Vertices that repeat an earlier vertex bit for bit, in position and in every compared attribute:
 * the corners of an indexed mesh written out as a soup (three.js toNonIndexed, OBJ files with
 * shared normals) repeat each vertex about six times. Such a twin takes what its first copy takes,
 * whatever the representatives made between them: the copy either became a representative, which
 * the twin matches (distance 0, the same bits), and which is earlier than any made since; or it
 * merged into the earliest representative that matches it, which matches the twin too, and which
 * is earlier than any made since. So the weld runs on the first copies alone, and the twins follow.
 * The pass costs about what the exact pass of positions it replaces does (a hash and a table probe
 * a vertex); what it saves is the rest of the weld's work on every twin, which pays where that work
 * runs through memory: from about a million vertices (WebAssembly, three.js meshes made soups,
 * interleaved pairs: 1.44M and 2.16M vertices took 0.72-0.84 times as long; 0.22M to 0.78M
 * between 0.83 and 1.07 times, no gain to count on). A probe of the first MW_TWIN_PROBE vertices
 * decides whether it pays (a third of them twins). */
#ifndef MW_TWIN_PROBE /* (a test build sets it to 16) */
#define MW_TWIN_PROBE 1024
#endif
#ifndef MW_TWIN_FROM /* vertices from which twins are looked for (a test build sets 1) */
#define MW_TWIN_FROM ((size_t)1 << 20)
#endif
#define MW_TWIN_WORDS 32 /* a vertex of more words (position and values) is welded as it is */

typedef struct mw_TwinSlot {
    uint32_t hash;
    uint32_t copy; /* the copy's number, MW_NONE when empty */
} mw_TwinSlot;

/* The pass over the vertices: each copy's words (its position, then each attribute's values) in
 * one record, and a table of the copies by their hash. */
typedef struct mw_TwinPass {
    const float* points;
    size_t stride;
    int dim;
    const meshweld_Attribute* attributes;
    size_t attribute_count;
    size_t width; /* words a record */
    mw_TwinSlot* slots;
    size_t mask;
    uint32_t* records;
    size_t room; /* records there is room for */
    uint32_t* copy_of;    /* vertex -> its copy */
    uint32_t* copy_first; /* copy -> its vertex */
    size_t copies;
    uint64_t factors[MW_TWIN_WORDS]; /* odd factors of a record's words in its hash, random (mw_saltDraw) */
} mw_TwinPass;


/* Room for one more copy: the table at load <= 1/2 (rehashed by the slots' hashes), the records. */
static int mw_twinRoom(mw_TwinPass* t)
{
    if (2 * (t->copies + 1) > t->mask + 1) {
        size_t capacity = t->slots ? 2 * (t->mask + 1) : 4 * MW_TWIN_PROBE;
        mw_TwinSlot* grown = (mw_TwinSlot*)mw_allocate(capacity, sizeof(mw_TwinSlot));
        if (!grown)
            return meshweld_ErrorMemory;
        memset(grown, 0xff, capacity * sizeof(mw_TwinSlot));
        for (size_t s = 0; t->slots && s <= t->mask; ++s) {
            if (t->slots[s].copy == MW_NONE)
                continue;
            size_t at = t->slots[s].hash & (capacity - 1);
            while (grown[at].copy != MW_NONE)
                at = (at + 1) & (capacity - 1);
            grown[at] = t->slots[s];
        }
        mw_deallocate(t->slots);
        t->slots = grown, t->mask = capacity - 1;
    }
    if (t->copies == t->room) {
        size_t room = t->room ? 2 * t->room : MW_TWIN_PROBE;
        uint32_t* grown = (uint32_t*)mw_allocate(room, t->width * sizeof(uint32_t));
        if (!grown)
            return meshweld_ErrorMemory;
        if (t->records)
            memcpy(grown, t->records, t->room * t->width * sizeof(uint32_t));
        mw_deallocate(t->records);
        t->records = grown, t->room = room;
    }
    return meshweld_Ok;
}

/* Vertex i's words (its position, then each attribute's values) into words, and their hash: each
 * word times its own odd constant, summed (products that do not wait on each other), then mixed. */
MW_INLINE uint32_t mw_twinWords(const mw_TwinPass* t, size_t i, uint32_t* words, size_t width, int dim, int count,
                                int size0, int size1)
{
    size_t w = 0;
    const uint32_t* from = (const uint32_t*)(const void*)mw_point(t->points, t->stride, i);
    for (int a = 0; a < dim; ++a)
        words[w++] = from[a];
    for (int k = 0; k < count; ++k) {
        const meshweld_Attribute* a = &t->attributes[k];
        int size = k == 0 ? size0 : k == 1 ? size1 : a->size;
        from = (const uint32_t*)(const void*)mw_point(a->data, a->stride, i);
        for (int c = 0; c < size; ++c)
            words[w++] = from[c];
    }
    uint64_t h = 0;
    for (w = 0; w < width; ++w)
        h += (uint64_t)words[w] * t->factors[w];
    h ^= h >> 32, h *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

/* Vertices [begin, end) into the pass: each finds the copy with its words, or makes one. dim,
 * count and the first two sizes are constants where the layout is a usual one, so that the loops
 * over a vertex's few words unroll. */
MW_INLINE int mw_twinRun(mw_TwinPass* t, size_t begin, size_t end, int dim, int count, int size0, int size1)
{
    size_t width = (size_t)dim;
    for (int k = 0; k < count; ++k)
        width += (size_t)(k == 0 ? size0 : k == 1 ? size1 : t->attributes[k].size);
    for (size_t i = begin; i < end; ++i) {
        if ((2 * (t->copies + 1) > t->mask + 1 || t->copies == t->room) && mw_twinRoom(t))
            return meshweld_ErrorMemory;
        uint32_t words[MW_TWIN_WORDS];
        uint32_t hash = mw_twinWords(t, i, words, width, dim, count, size0, size1);
        size_t at = hash & t->mask;
        MW_PROBES_START;
        for (; t->slots[at].copy != MW_NONE; at = (at + 1) & t->mask) {
            MW_PROBES_COUNT(t->mask + 1);
            if (t->slots[at].hash != hash)
                continue;
            const uint32_t* record = t->records + (size_t)t->slots[at].copy * width;
            uint32_t differ = 0;
            for (size_t w = 0; w < width; ++w)
                differ |= record[w] ^ words[w];
            if (!differ)
                break;
        }
        if (t->slots[at].copy == MW_NONE) {
            t->slots[at].hash = hash, t->slots[at].copy = (uint32_t)t->copies;
            memcpy(t->records + t->copies * width, words, width * sizeof(uint32_t));
            t->copy_first[t->copies++] = (uint32_t)i;
        }
        t->copy_of[i] = t->slots[at].copy;
    }
    return meshweld_Ok;
}

static int mw_twinPass(mw_TwinPass* t, size_t begin, size_t end)
{
    const meshweld_Attribute* a = t->attributes;
    size_t n = t->attribute_count;
    if (t->dim == 3 && n == 2 && a[0].size == 3 && a[1].size == 2)
        return mw_twinRun(t, begin, end, 3, 2, 3, 2); /* normals and uvs */
    if (t->dim == 3 && n == 1 && a[0].size == 3)
        return mw_twinRun(t, begin, end, 3, 1, 3, 0);
    if (t->dim == 3 && n == 1 && a[0].size == 2)
        return mw_twinRun(t, begin, end, 3, 1, 2, 0);
    return mw_twinRun(t, begin, end, t->dim, (int)n, n > 0 ? a[0].size : 0, n > 1 ? a[1].size : 0);
}

/* mw_weldAttributesOf on the first copies of the vertices (above), then every twin as its copy;
 * the weld reads the copies' records as its points and values. Sets *taken to 0, having written
 * nothing, where the probe finds too few twins, a vertex has more than MW_TWIN_WORDS words, or
 * memory runs out (the weld then runs on every vertex). */
static int mw_weldTwins(unsigned int* remap, unsigned int* first, float* kept, const float* points, size_t count,
                        size_t stride, mw_Parsed o, const meshweld_Attribute* attributes, size_t attribute_count,
                        meshweld_Info* info, int* taken)
{
    int dim = o.dim;
    mw_Arena arena = {{0}, 0};
    mw_TwinPass t = {points, stride, dim, attributes, attribute_count, (size_t)dim, NULL, 0, NULL, 0, NULL, NULL, 0, {0}};
    int error = meshweld_Ok;
    /* factors of its own, as a table has (mw_keyHash): a sum of known factors times words is easy
     * to make collide for records far apart */
    mw_saltDraw(t.factors, MW_TWIN_WORDS, &t);
    *taken = 0;
    for (size_t k = 0; k < attribute_count; ++k)
        t.width += (size_t)attributes[k].size;
    t.copy_of = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));
    t.copy_first = (uint32_t*)mw_arenaAllocate(&arena, count, sizeof(uint32_t));
    meshweld_Attribute* values = (meshweld_Attribute*)mw_arenaAllocate(&arena, attribute_count, sizeof(*values));
    if (!t.copy_of || !t.copy_first || !values || t.width > MW_TWIN_WORDS)
        goto done;
    if (mw_twinPass(&t, 0, MW_TWIN_PROBE) || 3 * (MW_TWIN_PROBE - t.copies) < MW_TWIN_PROBE ||
        mw_twinPass(&t, MW_TWIN_PROBE, count))
        goto done; /* few twins, or no memory */
    mw_deallocate(t.slots), t.slots = NULL;

    /* the weld reads the records: the position first, then each attribute's values */
    for (size_t k = 0, w = (size_t)dim; k < attribute_count; w += (size_t)attributes[k++].size)
        values[k] = attributes[k], values[k].data = (const float*)(const void*)(t.records + w),
        values[k].stride = t.width * sizeof(uint32_t);
    *taken = 1;
    meshweld_Info own; /* (the outputs' count, when the caller asks for no info) */
    info = info ? info : &own;
    error = mw_weldAttributesOf(remap, first, kept, (const float*)(const void*)t.records, t.copies,
                                t.width * sizeof(uint32_t), o, values, attribute_count, info);
    if (error != meshweld_Ok) {
        if ((error == meshweld_ErrorNonFinite || error == meshweld_ErrorRange) && info->error_point < t.copies)
            /* the copy's first vertex: the first bad one */
            info->error_point = t.copy_first[info->error_point];
        goto done;
    }
    /* remap[c] holds copy c's output: each vertex takes its copy's, written from the last down
     * (copy_of[i] <= i, so what is read has not been written yet) */
    for (size_t i = count; i-- > 0;)
        remap[i] = remap[t.copy_of[i]];
    for (size_t k = 0; first && k < info->unique_count; ++k)
        first[k] = t.copy_first[first[k]];
done:
    mw_deallocate(t.slots);
    mw_deallocate(t.records);
    mw_arenaFree(&arena);
    return error;
}

/* meshweld_weldAttributes and meshweld_weldAttributesFirst (with first, and kept when not NULL):
 * the checks, then the weld on the first copies of twins (above) where there are many, else on
 * every vertex */
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
    if (attribute_count > 0 && count > MW_TWIN_PROBE && count >= MW_TWIN_FROM) {
        int taken = 0;
        error = mw_weldTwins(remap, first, kept, points, count, stride, o, attributes, attribute_count, info, &taken);
        if (taken)
            return error;
    }
    return mw_weldAttributesOf(remap, first, kept, points, count, stride, o, attributes, attribute_count, info);
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

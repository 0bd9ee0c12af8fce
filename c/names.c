/* Names, error strings and the published bounds of each method. */
#include "internal.h"

#include <math.h>

static const char* const mw_methodNames[] = {"auto", "naive", "grid-r", "grid-2r", "hex", "bcc", "kdtree", "grid"};

const char* meshweld_methodName(int method)
{
    if (method < meshweld_MethodAuto || method > meshweld_MethodGrid)
        return NULL;
    return mw_methodNames[method];
}

int meshweld_methodFromName(const char* name)
{
    if (name)
        for (int m = meshweld_MethodAuto; m <= meshweld_MethodGrid; ++m)
            if (strcmp(name, mw_methodNames[m]) == 0)
                return m;
    return meshweld_ErrorMethod;
}

const char* meshweld_errorString(int error)
{
    switch (error) {
    case meshweld_Ok: return "no error";
    case meshweld_ErrorDim: return "dim must be 2 or 3";
    case meshweld_ErrorRadius: return "radius must be finite and >= 0 (0 welds exact duplicates only)";
    case meshweld_ErrorMethod: return "unknown method";
    case meshweld_ErrorStore: return "unknown store policy (loose or precise)";
    case meshweld_ErrorMethodDim: return "method does not exist in this dimension (hex is 2D only, bcc 3D only)";
    case meshweld_ErrorStride: return "stride must be at least dim floats and a multiple of 4 bytes";
    case meshweld_ErrorCount: return "too many points: indices or byte sizes would overflow";
    case meshweld_ErrorNonFinite: return "a coordinate is NaN or infinite";
    case meshweld_ErrorRange: return "a coordinate is too large for the radius: grid cell indices would overflow (use kdtree)";
    case meshweld_ErrorMemory: return "out of memory";
    case meshweld_ErrorNull: return "a required pointer is NULL";
    case meshweld_ErrorAllocator: return "allocator hooks must be given both or neither";
    case meshweld_ErrorIndex: return "an index is out of range";
    case meshweld_ErrorIndexCount: return "index count must be a multiple of 3";
    case meshweld_ErrorAttribute: return "attribute size must be 1 to 16 floats";
    default: return "unknown error";
    }
}

double meshweld_bound(int method, int store, int dim, float radius)
{
    if ((dim != 2 && dim != 3) || !(radius >= 0.0f) || !isfinite(radius))
        return -1.0;
    if (store != meshweld_StoreLoose && store != meshweld_StorePrecise)
        return -1.0;
    double r = radius, factor;
    switch (method) {
    case meshweld_MethodAuto:
    case meshweld_MethodNaive:
    case meshweld_MethodKdtree:
    case meshweld_MethodGrid:
        return r;
    case meshweld_MethodGridR: factor = 2.0 * sqrt((double)dim); break;
    case meshweld_MethodGrid2R: factor = 3.0 * sqrt((double)dim); break;
    case meshweld_MethodHex: factor = dim == 2 ? 2.0 * sqrt(7.0) : -1.0; break;
    case meshweld_MethodBcc: factor = dim == 3 ? sqrt(74.0) : -1.0; break;
    default: return -1.0;
    }
    if (factor < 0)
        return -1.0;
    return store == meshweld_StorePrecise ? r : factor * r * MW_BOUND_SLACK;
}

int meshweld_lookups(int method, int dim)
{
    switch (method) {
    case meshweld_MethodGridR: return dim == 3 ? 27 : 9;
    case meshweld_MethodGrid2R: return dim == 3 ? 8 : 4;
    case meshweld_MethodHex: return 3;
    case meshweld_MethodBcc: return 4;
    default: return 0;
    }
}

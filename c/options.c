/* The one option parser: every entry point that takes meshweld_Options reads them here; and what
 * kind of method a method is. */
#include "internal.h"

#include <math.h>

int mw_parseOptions(const meshweld_Options* options, mw_Parsed* parsed)
{
    if (!options)
        return meshweld_ErrorNull;
    parsed->dim = options->dim == 0 ? 3 : options->dim;
    if (parsed->dim != 2 && parsed->dim != 3)
        return meshweld_ErrorDim;
    parsed->radius = options->radius;
    if (!(options->radius >= 0.0f) || !isfinite(options->radius))
        return meshweld_ErrorRadius;
    parsed->method = options->method;
    if (parsed->method < meshweld_MethodAuto || parsed->method > meshweld_MethodGrid)
        return meshweld_ErrorMethod;
    if ((parsed->method == meshweld_MethodHex && parsed->dim != 2) ||
        (parsed->method == meshweld_MethodBcc && parsed->dim != 3))
        return meshweld_ErrorMethodDim;
    parsed->store = options->store;
    if (parsed->store != meshweld_StoreLoose && parsed->store != meshweld_StorePrecise)
        return meshweld_ErrorStore;
    return meshweld_Ok;
}

int mw_isArticleGrid(int method)
{
    return method >= meshweld_MethodGridR && method <= meshweld_MethodBcc;
}

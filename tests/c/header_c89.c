/* Compiled as C89 with -pedantic -Werror by CMake: the public header must stay portable. */
#include "../../c/meshweld.h"

int meshweld_header_c89_check(void);

int meshweld_header_c89_check(void)
{
    meshweld_Options options = {3, 0.001f, meshweld_MethodAuto, meshweld_StoreLoose};
    return options.dim;
}

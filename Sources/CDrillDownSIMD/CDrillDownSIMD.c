// The module is header only (its functions are `static inline`); SwiftPM wants one source file.
#include "CDrillDownSIMD.h"

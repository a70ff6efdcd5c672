/* Stands in for DCMTK's ofdefine.h. */
#include "dcmtk/ofstd/ofexport.h"

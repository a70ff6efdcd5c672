/*
 * Stands in for DCMTK's ofdiag.h. DCMTK writes `#include DCMTK_DIAGNOSTIC_PUSH`
 * and the like; each names this header's empty companion.
 */
#ifndef MEDISHARE_OFDIAG_H
#define MEDISHARE_OFDIAG_H
#define DCMTK_DIAGNOSTIC_PUSH "dcmtk/ofstd/ofnothing.h"
#define DCMTK_DIAGNOSTIC_POP "dcmtk/ofstd/ofnothing.h"
#define DCMTK_DIAGNOSTIC_IGNORE_CONST_EXPRESSION_WARNING "dcmtk/ofstd/ofnothing.h"
#define DCMTK_DIAGNOSTIC_IGNORE_CLASS_MEMACCESS_WARNING "dcmtk/ofstd/ofnothing.h"
#endif

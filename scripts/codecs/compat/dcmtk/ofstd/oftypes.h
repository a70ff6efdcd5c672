/* Stands in for DCMTK's oftypes.h: the C++11 spellings DCMTK wraps. */
#ifndef MEDISHARE_OFTYPES_H
#define MEDISHARE_OFTYPES_H
#include <cstddef>
#define OFTypename typename
#define OFnullptr nullptr
#endif

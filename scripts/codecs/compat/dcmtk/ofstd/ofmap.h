/* Stands in for DCMTK's ofmap.h: CharLS wants OFPair from it. */
#ifndef MEDISHARE_OFMAP_H
#define MEDISHARE_OFMAP_H
#include <utility>
#define OFPair std::pair
#define OFMake_pair std::make_pair
#endif

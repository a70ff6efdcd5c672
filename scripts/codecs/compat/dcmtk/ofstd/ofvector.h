/* Stands in for DCMTK's ofvector.h. */
#ifndef MEDISHARE_OFVECTOR_H
#define MEDISHARE_OFVECTOR_H
#include <vector>
#define OFVector std::vector
#endif

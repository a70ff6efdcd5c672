/* Stands in for DCMTK's ofmem.h. */
#ifndef MEDISHARE_OFMEM_H
#define MEDISHARE_OFMEM_H
#include <memory>
#include <utility>
#define OFunique_ptr std::unique_ptr
template <class T> using OFrvalue = T;
#endif

/* Stands in for DCMTK's ofbmanip.h: the two operations CharLS uses. */
#ifndef MEDISHARE_OFBMANIP_H
#define MEDISHARE_OFBMANIP_H
#include <cstring>
template <class T> struct OFBitmanipTemplate {
	static void copyMem(const T *src, T *dest, size_t count) { std::memmove(dest, src, count * sizeof(T)); }
	static void setMem(T *dest, const T value, size_t count) { for (size_t i = 0; i < count; i++) dest[i] = value; }
	static void zeroMem(T *dest, size_t count) { std::memset(dest, 0, count * sizeof(T)); }
};
#endif

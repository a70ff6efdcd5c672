/* Stands in for DCMTK's ofexport.h: one static module, nothing to export. */
#ifndef MEDISHARE_OFEXPORT_H
#define MEDISHARE_OFEXPORT_H
#define DCMTK_DECL_EXPORT
#define DCMTK_DECL_IMPORT
#endif
